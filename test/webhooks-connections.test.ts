// Webhooks' kept connections (docs/webhooks.md: Delivery), counted at a receiver in the test: a subscription's
// deliveries reuse one connection; a receiver that closes it, or resets it as the next delivery arrives, gets that
// delivery on a new one; a 2xx whose answer is longer than what is read acknowledges, and its connection is closed; a
// subscription paused, given another URL or deleted, and a server closed, leave no connection open.

import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { eventually, startTestServer } from './helpers.ts';
import { Receiver } from './webhook-receiver.ts';

const LOCAL = { webhooksAllowHttp: true, webhooksAllowPrivate: true } as const;
const PRODUCT = { name: 'Tea', category: 'tea', price: 3 };
/** Well within the 4 s a connection no delivery uses is kept open, and the receiver's own 5 s. */
const CLOSED_WITHIN_MS = 1000;

interface Delivery {
  readonly event_id: number;
  readonly status: string;
  readonly attempts: number;
  readonly response_status?: number;
}

async function subscribe(api: TestServer, url: string): Promise<string> {
  const made = await api.post('/v1/webhooks', { url, collections: ['products'] });
  assert.equal(made.status, 201, made.text);
  return made.headers.get('location') as string;
}

/** Writes a product; resolves once the receiver has `count` deliveries in all. */
async function deliver(api: TestServer, receiver: Receiver, count: number): Promise<number> {
  const made = await api.post('/v1/products', PRODUCT);
  assert.equal(made.status, 201, made.text);
  await receiver.waitFor(count);
  return made.body.id as number;
}

/** The subscription's deliveries, oldest first, once `count` are settled. */
async function settled(api: TestServer, path: string, count: number): Promise<Delivery[]> {
  return eventually(async () => {
    const listed = (await api.get(`${path}/deliveries?sort=id&limit=100`)).body.data as Delivery[];
    assert.equal(listed.length, count);
    assert.ok(listed.every(({ status }) => status !== 'pending'));
    return listed;
  });
}

function recordIds(receiver: Receiver): number[] {
  return receiver.received.map(({ body }) => JSON.parse(body).record_id as number);
}

describe('webhooks: kept connections', () => {
  let api: TestServer;
  let receiver: Receiver;
  before(async () => {
    api = await startTestServer({ ...LOCAL, webhookWorker: { pollMs: 25 } });
  });
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    for (const { id } of (await api.get('/v1/webhooks?limit=100')).body.data) await api.delete(`/v1/webhooks/${id}`);
    await receiver.close();
  });
  after(() => api.close());

  test("consecutive deliveries to one receiver use one connection, an answer's short body read to its end", async () => {
    receiver.answers.push('ok', { status: 200, body: 'thanks' }, 'ok', { status: 202, body: '{"queued":true}' });
    const path = await subscribe(api, `${receiver.url}/hook`);
    const ids: number[] = [];
    for (let index = 1; index <= 6; index++) ids.push(await deliver(api, receiver, index));
    assert.deepEqual(recordIds(receiver), ids);
    const listed = await settled(api, path, 6);
    assert.deepEqual(
      listed.map(({ status, attempts, response_status }) => [status, attempts, response_status]),
      [
        ['succeeded', 1, 204],
        ['succeeded', 1, 200],
        ['succeeded', 1, 204],
        ['succeeded', 1, 202],
        ['succeeded', 1, 204],
        ['succeeded', 1, 204],
      ],
    );
    assert.equal(receiver.connections, 1, 'one connection for the six');
    assert.equal(receiver.openConnections, 1, 'kept open');
  });

  test('a receiver that closes the connection after its answer gets the next delivery on a new one', async () => {
    receiver.answers.push('ok-then-close', 'ok-then-close');
    const path = await subscribe(api, `${receiver.url}/hook`);
    const ids = [await deliver(api, receiver, 1)];
    await eventually(() => assert.equal(receiver.openConnections, 0));
    ids.push(await deliver(api, receiver, 2));
    assert.equal(receiver.connections, 2);
    await eventually(() => assert.equal(receiver.openConnections, 0));
    ids.push(await deliver(api, receiver, 3), await deliver(api, receiver, 4));
    assert.deepEqual(recordIds(receiver), ids, 'each once, in order');
    assert.equal(receiver.connections, 3, 'the third kept for the fourth');
    const listed = await settled(api, path, 4);
    assert.ok(listed.every(({ status, attempts }) => status === 'succeeded' && attempts === 1));
  });

  test('a kept connection reset as the next delivery arrives: that delivery is sent again at once, on a new one', async () => {
    receiver.answers.push('ok', 'reset');
    const path = await subscribe(api, `${receiver.url}/hook`);
    const first = await deliver(api, receiver, 1);
    const second = await deliver(api, receiver, 3);
    assert.deepEqual(recordIds(receiver), [first, second, second], 'the second sent again, not retried seconds later');
    assert.equal(receiver.connections, 2);
    const listed = await settled(api, path, 2);
    assert.deepEqual(
      listed.map(({ status, attempts, response_status }) => [status, attempts, response_status]),
      [
        ['succeeded', 1, 204],
        ['succeeded', 1, 204],
      ],
    );
  });

  test('a 2xx whose answer is longer than what is read acknowledges; its connection is closed, not kept', async () => {
    receiver.answers.push({ status: 200, body: 'x'.repeat(64 * 1024) });
    const path = await subscribe(api, `${receiver.url}/hook`);
    const ids = [await deliver(api, receiver, 1), await deliver(api, receiver, 2), await deliver(api, receiver, 3)];
    assert.deepEqual(recordIds(receiver), ids, 'each once');
    const listed = await settled(api, path, 3);
    assert.deepEqual(
      listed.map(({ status, attempts, response_status }) => [status, attempts, response_status]),
      [
        ['succeeded', 1, 200],
        ['succeeded', 1, 204],
        ['succeeded', 1, 204],
      ],
    );
    assert.equal(receiver.connections, 2, 'a new connection after the long answer, then kept');
  });

  test('a subscription paused, given another URL, or deleted closes its connection at once', async () => {
    const path = await subscribe(api, `${receiver.url}/hook`);
    await deliver(api, receiver, 1);
    assert.equal(receiver.openConnections, 1);
    assert.equal((await api.patch(path, { enabled: false })).status, 200);
    await eventually(() => assert.equal(receiver.openConnections, 0), CLOSED_WITHIN_MS);

    assert.equal((await api.patch(path, { enabled: true })).status, 200);
    await deliver(api, receiver, 2);
    assert.equal(receiver.openConnections, 1);
    assert.equal((await api.patch(path, { url: `${receiver.url}/moved` })).status, 200);
    await eventually(() => assert.equal(receiver.openConnections, 0), CLOSED_WITHIN_MS);

    await deliver(api, receiver, 3);
    assert.deepEqual(
      receiver.received.map(({ path: target }) => target),
      ['/hook', '/hook', '/moved'],
    );
    assert.equal(receiver.openConnections, 1);
    assert.equal((await api.delete(path)).status, 204);
    await eventually(() => assert.equal(receiver.openConnections, 0), CLOSED_WITHIN_MS);
    assert.equal(receiver.connections, 3);
  });
});

describe('webhooks: a server closing', () => {
  test('close() leaves no connection to a receiver open', async () => {
    const receiver = await Receiver.start();
    const api = await startTestServer({ ...LOCAL, webhookWorker: { pollMs: 25 } });
    try {
      await subscribe(api, `${receiver.url}/one`);
      await subscribe(api, `${receiver.url}/two`);
      await api.post('/v1/products', PRODUCT);
      await receiver.waitFor(2);
      await eventually(() => assert.equal(receiver.openConnections, 2), CLOSED_WITHIN_MS);
      await api.close();
      await eventually(() => assert.equal(receiver.openConnections, 0), CLOSED_WITHIN_MS);
    } finally {
      await api.close();
      await receiver.close();
    }
  });
});
