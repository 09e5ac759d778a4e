// Webhooks across restarts (docs/webhooks.md: Durability): a pending retry and a subscription's position are in the
// journal, so a restart takes up the retry when it falls due (its attempts counted on) and sends nothing acknowledged
// again; a server killed with SIGKILL mid-delivery, started again, has delivered every event in order, none skipped,
// at most the one in flight twice; and `plainrest copy` leaves a subscription disabled with history_gone.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import type { RunningServer, ServerOptions } from '../src/index.ts';
import { startServer } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import {
  cleanUpAfterEach,
  eventually,
  processEnvironment,
  scratchDirectory,
  TEST_ADMIN_PASSWORD,
  TEST_AUTH_OPTIONS,
  TEST_TOKEN_SECRET,
  tokenFor,
  wrap,
} from './helpers.ts';
import { startProcess } from './child-process.ts';
import type { RunningProcess } from './child-process.ts';
import { ManualClock, Receiver } from './webhook-receiver.ts';
import { copyData } from '../src/cli/copy-data.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const defer = cleanUpAfterEach();
const PRODUCT = { name: 'Tea', category: 'tea', price: 3 };

async function start(dataDir: string, clock: ManualClock, allowPrivate = true): Promise<TestServer> {
  const options: ServerOptions = {
    port: 0,
    dataDir,
    seed: false,
    ...TEST_AUTH_OPTIONS,
    webhooksAllowHttp: true,
    webhooksAllowPrivate: allowPrivate,
    webhookWorker: { clock, pollMs: 25 },
  };
  const server = await startServer(options);
  return wrap(server, tokenFor(1));
}

describe('webhooks: durable', () => {
  test('a pending retry survives a restart and is taken up when due, its attempts counted on; nothing acknowledged is sent again', async () => {
    const dataDir = await scratchDirectory(defer);
    const receiver = await Receiver.start();
    defer(() => receiver.close());
    receiver.answers.push('fail');
    const clock = new ManualClock();
    const first = await start(dataDir, clock);
    const made = await first.post('/v1/webhooks', { url: `${receiver.url}/hook`, collections: ['products'] });
    const path = made.headers.get('location') as string;
    const ids: number[] = [];
    for (let index = 0; index < 3; index++) ids.push((await first.post('/v1/products', PRODUCT)).body.id);
    await receiver.waitFor(1);
    const pending = await eventually(async () => {
      const [delivery] = (await first.get(`${path}/deliveries`)).body.data;
      assert.equal(delivery?.status, 'pending');
      return delivery;
    });
    await first.close();

    const second = await start(dataDir, clock);
    defer(() => second.close());
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(receiver.received.length, 1, 'nothing before the retry falls due');
    clock.advance(Date.parse(pending.next_attempt_at) - clock.now());
    const received = await receiver.waitFor(4);
    assert.deepEqual(
      received.map(({ body }) => JSON.parse(body).record_id),
      [ids[0], ids[0], ids[1], ids[2]],
    );
    const settled = await eventually(async () => {
      const listed = (await second.get(`${path}/deliveries`)).body.data;
      assert.equal(listed.length, 3);
      return listed;
    });
    assert.deepEqual(
      settled.map((delivery: { attempts: number; status: string }) => [delivery.status, delivery.attempts]),
      [
        ['succeeded', 1],
        ['succeeded', 1],
        ['succeeded', 2],
      ],
    );
    await second.close();

    const third = await start(dataDir, clock);
    defer(() => third.close());
    const last = (await third.post('/v1/products', PRODUCT)).body.id;
    await receiver.waitFor(5);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(
      receiver.received.slice(4).map(({ body }) => JSON.parse(body).record_id),
      [last],
      'only the new event',
    );
  });
});

describe('webhooks: the target rules at each connection', () => {
  test('a server started without WEBHOOKS_ALLOW_PRIVATE connects to no loopback address a subscription names, by name or by number', async () => {
    const dataDir = await scratchDirectory(defer);
    const receiver = await Receiver.start();
    defer(() => receiver.close());
    const clock = new ManualClock();
    const first = await start(dataDir, clock);
    const port = new URL(receiver.url).port;
    const paths: string[] = [];
    for (const url of [`http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`]) {
      const made = await first.post('/v1/webhooks', { url });
      assert.equal(made.status, 201, made.text);
      paths.push(made.headers.get('location') as string);
    }
    await first.close();
    const second = await start(dataDir, clock, false);
    defer(() => second.close());
    await second.post('/v1/products', PRODUCT);
    const errors = await eventually(async () => {
      const found = [];
      for (const path of paths) {
        const [delivery] = (await second.get(`${path}/deliveries`)).body.data;
        assert.equal(delivery?.status, 'pending');
        found.push(delivery.error);
      }
      return found;
    });
    // The name is resolved again as the connection is made, and what it resolves to refused (the lookup's check).
    assert.match(errors[0], /^the url names localhost, which resolves to (127\.0\.0\.1|::1), a loopback address/);
    assert.match(
      errors[1],
      /^the url names 127\.0\.0\.1, a loopback address \(WEBHOOKS_ALLOW_PRIVATE=true allows it\)$/,
    );
    assert.equal(receiver.received.length, 0);
  });
});

describe('webhooks: plainrest copy', () => {
  test("a copied subscription is disabled with history_gone (its position was the source feed's); enabled, it starts from the newest event", async () => {
    const source = await scratchDirectory(defer);
    const target = join(await scratchDirectory(defer), 'copy');
    const receiver = await Receiver.start();
    defer(() => receiver.close());
    const clock = new ManualClock();
    const first = await start(source, clock);
    const made = await first.post('/v1/webhooks', { url: `${receiver.url}/hook` });
    const path = made.headers.get('location') as string;
    await first.post('/v1/products', PRODUCT);
    await receiver.waitFor(1);
    await eventually(async () => assert.equal((await first.get(`${path}/deliveries`)).body.meta.total, 1));
    await first.close();
    assert.match(await copyData(source, target, {}), /\(and 1 webhook, 1 delivery, 0 idempotency keys\)/);
    const copied = await start(target, clock);
    defer(() => copied.close());
    const read = (await copied.get(path)).body;
    assert.deepEqual([read.enabled, read.disabled_reason], [false, 'history_gone']);
    assert.equal((await copied.patch(path, { enabled: true })).status, 200);
    const next = (await copied.post('/v1/products', { ...PRODUCT, name: 'After the copy' })).body.id;
    const [, after] = await receiver.waitFor(2);
    assert.equal(JSON.parse(after?.body ?? '{}').record_id, next);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(receiver.received.length, 2, 'only the new event');
  });
});

/** The one-file build (`npm run build`; the source under tsx on Node 20 cost four times the CPU a start), on `dataDir`. */
async function startChild(dataDir: string): Promise<{ child: RunningProcess; url: string }> {
  const child = startProcess(process.execPath, [join('dist', 'plainrest.mjs')], {
    cwd: REPOSITORY_ROOT,
    env: processEnvironment({
      DATA_DIR: dataDir,
      PORT: '0',
      SEED: 'false',
      LOG_FORMAT: 'off',
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      TOKEN_SECRET: TEST_TOKEN_SECRET,
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
    }),
  });
  const [, url] = await child.waitFor(/^plainrest listening on (\S+)$/m);
  return { child, url: url as string };
}

describe('webhooks: SIGKILL', () => {
  test('a server killed mid-delivery and started again delivers every event in order, none skipped, at most the one in flight twice', async () => {
    const dataDir = await scratchDirectory(defer);
    const receiver = await Receiver.start();
    defer(() => receiver.close());
    receiver.delayMs = 15;
    let running = await startChild(dataDir);
    defer(async () => {
      running.child.child.kill('SIGKILL');
      await running.child.exited;
    });
    const api = (url: string): TestServer => wrap({ url } as RunningServer, tokenFor(1));
    const made = await api(running.url).post('/v1/webhooks', {
      url: `${receiver.url}/hook`,
      collections: ['products'],
      types: ['created'],
    });
    assert.equal(made.status, 201, made.text);
    const ids: number[] = [];
    for (let index = 0; index < 30; index++) ids.push((await api(running.url).post('/v1/products', PRODUCT)).body.id);
    await receiver.waitFor(5);
    running.child.child.kill('SIGKILL');
    await running.child.exited;
    const beforeKill = receiver.received.length;
    assert.ok(beforeKill < 30, `the kill came mid-delivery (${beforeKill} of 30 received)`);

    running = await startChild(dataDir);
    for (let index = 0; index < 10; index++) ids.push((await api(running.url).post('/v1/products', PRODUCT)).body.id);
    await eventually(() => {
      const got = new Set(receiver.received.map(({ body }) => JSON.parse(body).record_id as number));
      assert.equal(got.size, ids.length);
    });
    const sequence = receiver.received.map(({ body }) => JSON.parse(body).record_id as number);
    const repeats = sequence.filter((id, index) => index > 0 && id <= (sequence[index - 1] as number));
    assert.ok(repeats.length <= 1, `at most one repeat: ${sequence.join(' ')}`);
    if (repeats.length === 1) assert.equal(repeats[0], sequence[beforeKill - 1], 'the one in flight at the kill');
    assert.deepEqual([...new Set(sequence)], ids, 'every event, in order');
  });
});
