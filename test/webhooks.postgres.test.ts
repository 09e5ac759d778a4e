// Webhooks on PostgreSQL (docs/webhooks.md: Several processes): the subscriptions and deliveries are tables, and the
// servers sharing the database share the work, one process at a time delivering a subscription's events under a lease
// in its row: each event reaches the receiver once, in order, written through either; the holder closes, or is killed
// mid-delivery, and the other takes it up where it stopped (after the lease). Skipped, saying why, without PostgreSQL.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { RunningServer, ServerOptions } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { eventually, startTestServerWithAdminBootstrap, TEST_AUTH_OPTIONS, tokenFor, wrap } from './helpers.ts';
import type { RunningProcess } from './child-process.ts';
import { killAll, startProcess } from './child-process.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';
import { REPOSITORY_ROOT } from './repository.ts';
import { Receiver, verifiesStandardSignature } from './webhook-receiver.ts';

const PRODUCT = { name: 'Tea', category: 'tea', price: 3 };
/** The one-file build (dist/plainrest.mjs), as the crash tests run it. */
const ONE_FILE = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
/** The lease, shortened from 30 s (webhookWorker.leaseMs) so that a dead holder's runs out within the test. */
const LEASE_MS = 3000;
/** A child process that imports the one file and starts it through the embedding API with the options given. */
const START_SCRIPT = [
  'const [, main, options] = process.argv;',
  'const { startServer } = await import(main);',
  'const server = await startServer(JSON.parse(options));',
  'console.log(`plainrest listening on ${server.url}`);',
].join('\n');

/** plainrest, the one file, in a process of its own with `options`: the process and an administrator's API. */
async function startChild(options: ServerOptions): Promise<{ process: RunningProcess; api: TestServer }> {
  const args = ['--input-type=module', '-e', START_SCRIPT, pathToFileURL(ONE_FILE).href, JSON.stringify(options)];
  const child = startProcess(process.execPath, args, {
    cwd: REPOSITORY_ROOT,
    env: { PATH: process.env['PATH'] ?? '' },
  });
  const [, url] = await child.waitFor(/^plainrest listening on (\S+)$/m);
  // The administrator is user 1 of an empty database, created by the first start (adminPassword).
  return { process: child, api: wrap({ url } as RunningServer, tokenFor(1)) };
}

describe('webhooks on one PostgreSQL shared by two servers', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  let url: string;
  let receiver: Receiver;
  let one: TestServer;
  let two: TestServer;
  const options = (): ServerOptions => ({
    database: url,
    webhooksAllowHttp: true,
    webhooksAllowPrivate: true,
    webhookWorker: { pollMs: 50 },
  });
  before(async () => {
    cluster = await startCluster();
    url = cluster.url(await cluster.createDatabase());
    receiver = await Receiver.start();
    one = await startTestServerWithAdminBootstrap(options());
  });
  after(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await receiver?.close();
    await cluster?.stop();
  });

  test('written through either server, each event is delivered once, in order, by the lease holder; the other takes over when it closes', async () => {
    const made = await one.post('/v1/webhooks', { url: `${receiver.url}/hook`, collections: ['products'] });
    assert.equal(made.status, 201, made.text);
    const { secret } = made.body;
    const path = made.headers.get('location') as string;
    const ids = [(await one.post('/v1/products', PRODUCT)).body.id];
    await receiver.waitFor(1);
    // The first server holds the subscription's lease now: the second, started after, leaves it be.
    two = await startTestServerWithAdminBootstrap(options());
    for (let index = 0; index < 20; index++)
      ids.push((await (index % 2 === 0 ? two : one).post('/v1/products', PRODUCT)).body.id);
    await receiver.waitFor(ids.length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bodies = receiver.received.map(({ body }) => JSON.parse(body));
    assert.deepEqual(
      bodies.map((body) => body.record_id),
      ids,
      'each once, in order',
    );
    assert.ok(receiver.received.every(({ headers, body }) => verifiesStandardSignature(secret, headers, body)));
    // Tables, as any collection's: the deliveries, and the subscription's position and lease in its row.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const row = (await client.query('SELECT "position", "lease_holder", "lease_until" FROM "webhooks"')).rows[0];
      assert.equal(Number(row.position), bodies.at(-1).id);
      const holder = row.lease_holder as string;
      assert.match(holder, /^[0-9a-f-]{36}$/);
      const deliveries = await client.query(`SELECT count(*) AS n FROM "deliveries" WHERE "status" = 'succeeded'`);
      assert.equal(Number(deliveries.rows[0].n), ids.length);

      // The holder closes, letting go of the lease: the other server delivers what comes next.
      await one.close();
      const later = [];
      for (let index = 0; index < 5; index++) later.push((await two.post('/v1/products', PRODUCT)).body.id);
      await receiver.waitFor(ids.length + later.length);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        receiver.received.slice(ids.length).map(({ body }) => JSON.parse(body).record_id),
        later,
      );
      const taken = (await client.query('SELECT "lease_holder" FROM "webhooks"')).rows[0];
      assert.notEqual(taken.lease_holder, holder, 'the second server holds the lease now');
      const listed = await eventually(async () => {
        const page = (await two.get(`${path}/deliveries?limit=100`)).body;
        assert.equal(page.meta.total, ids.length + later.length);
        return page;
      });
      assert.ok(listed.data.every((delivery: { status: string }) => delivery.status === 'succeeded'));
    } finally {
      await client.end();
    }
  });

  test('the holder killed mid-delivery: the other process sends that event once the lease runs out, then the rest, in order, none lost', async () => {
    const database = cluster.url(await cluster.createDatabase());
    const slow = await Receiver.start();
    // Each answer comes 300 ms after the delivery: the kill below lands while one is in flight.
    slow.delayMs = 300;
    const client = new pg.Client({ connectionString: database });
    const childOptions: ServerOptions = {
      port: 0,
      database,
      seed: false,
      rateLimit: 0,
      ...TEST_AUTH_OPTIONS,
      webhooksAllowHttp: true,
      webhooksAllowPrivate: true,
      webhookWorker: { pollMs: 50, leaseMs: LEASE_MS },
    };
    try {
      const holder = await startChild(childOptions);
      const made = await holder.api.post('/v1/webhooks', { url: `${slow.url}/hook`, collections: ['products'] });
      assert.equal(made.status, 201, made.text);
      const ids: number[] = [(await holder.api.post('/v1/products', PRODUCT)).body.id];
      await slow.waitFor(1);
      // The first process holds the lease: the second, started now, leaves the subscription to it.
      const other = await startChild(childOptions);
      for (let index = 0; index < 6; index++)
        ids.push((await (index % 2 === 0 ? other : holder).api.post('/v1/products', PRODUCT)).body.id);
      await slow.waitFor(3);
      holder.process.signal('SIGKILL');
      await holder.process.exited;
      const killedAt = Date.now();
      const beforeKill = slow.received.length;
      assert.ok(beforeKill < ids.length, `the kill came mid-delivery (${beforeKill} of ${ids.length} received)`);
      await client.connect();
      const held = (await client.query('SELECT "lease_holder", "lease_until" FROM "webhooks"')).rows[0];
      const leaseUntil = Number(held.lease_until);
      assert.ok(leaseUntil > killedAt, 'the killed process held the lease, still running');

      for (let index = 0; index < 2; index++) ids.push((await other.api.post('/v1/products', PRODUCT)).body.id);
      await eventually(() => {
        const got = new Set(slow.received.map(({ body }) => JSON.parse(body).record_id as number));
        assert.equal(got.size, ids.length);
      });
      const sequence = slow.received.map(({ body }) => JSON.parse(body).record_id as number);
      assert.deepEqual([...new Set(sequence)], ids, `every event, in order: ${sequence.join(' ')}`);
      const repeats = sequence.filter((id, index) => index > 0 && id <= (sequence[index - 1] as number));
      assert.deepEqual(repeats, [sequence[beforeKill - 1]], 'the one in flight at the kill, sent again, and no other');
      const taken = slow.received[beforeKill];
      assert.ok(
        (taken?.at ?? 0) >= leaseUntil,
        `sent again ${(taken?.at ?? 0) - leaseUntil} ms after the lease ran out`,
      );

      // Each event's outcome written once, by the process that delivered it (the one in flight, by the other).
      const path = made.headers.get('location') as string;
      const listed = await eventually(async () => {
        const page = (await other.api.get(`${path}/deliveries?limit=100`)).body;
        assert.equal(page.meta.total, ids.length);
        assert.ok(page.data.every(({ status }: { status: string }) => status === 'succeeded'));
        return page.data as { attempts: number }[];
      });
      assert.ok(listed.every(({ attempts }) => attempts === 1));
      const row = (await client.query('SELECT "position", "lease_holder" FROM "webhooks"')).rows[0];
      assert.notEqual(row.lease_holder, held.lease_holder, 'the other process holds the lease now');
      assert.equal(Number(row.position), JSON.parse(slow.received.at(-1)?.body ?? '{}').id);
    } finally {
      await killAll();
      await client.end().catch(() => undefined);
      await slow.close();
    }
  });
});
