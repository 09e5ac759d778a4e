// Webhooks attacked (docs/webhooks.md): what a review found wrong, each shown over HTTP against a receiver in the test.
// More than a poll's page of subscriptions, every one delivered; IPv6 addresses that embed an IPv4 one (NAT64, 6to4)
// judged by it; a redelivery only of an event the subscription takes (its collections and types).

import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { TestResponse, TestServer } from './helpers.ts';
import { eventually, startTestServer } from './helpers.ts';
import { assertProblem } from './assertions.ts';
import { Receiver } from './webhook-receiver.ts';

const LOCAL = { webhooksAllowHttp: true, webhooksAllowPrivate: true } as const;
const PRODUCT = { name: 'Tea', category: 'tea', price: 3 };

interface FeedEvent {
  readonly id: number;
  readonly type: string;
  readonly collection: string;
  readonly record_id: number;
}

describe('webhooks, reviewed: delivery', () => {
  let api: TestServer;
  let receiver: Receiver;
  before(async () => {
    api = await startTestServer({ ...LOCAL, webhookWorker: { pollMs: 25 } });
  });
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    for (;;) {
      const { data } = (await api.get('/v1/webhooks?limit=100')).body as { data: { id: number }[] };
      if (data.length === 0) break;
      const operations = data.map(({ id }) => ({ method: 'DELETE', path: `/v1/webhooks/${id}` }));
      assert.equal((await api.post('/v1/batches', { operations })).status, 200);
    }
    await receiver.close();
  });
  after(() => api.close());

  test('the 1,001st subscription is delivered to as the first is (the worker reads them all, not a page)', async () => {
    for (let batch = 0; batch < 10; batch++) {
      const operations = Array.from({ length: 100 }, () => ({
        method: 'POST',
        path: '/v1/webhooks',
        body: { url: `${receiver.url}/paused`, enabled: false },
      }));
      assert.equal((await api.post('/v1/batches', { operations })).status, 200);
    }
    const made = await api.post('/v1/webhooks', { url: `${receiver.url}/hook`, collections: ['products'] });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.id, 1001);
    const product = await api.post('/v1/products', PRODUCT);
    const [received] = await receiver.waitFor(1, 5000);
    assert.equal(received?.path, '/hook');
    assert.equal(JSON.parse(received?.body ?? '{}').record_id, product.body.id);
  });

  test('a redelivery of an event of a collection or type the subscription does not take sends nothing', async () => {
    const made = await api.post('/v1/webhooks', {
      url: `${receiver.url}/hook`,
      collections: ['products'],
      types: ['created'],
    });
    const path = made.headers.get('location') as string;
    const user = await api.post('/v1/users', { email: 'eve@example.com', password: 'password-of-eve-1', name: 'Eve' });
    assert.equal(user.status, 201, user.text);
    const product = await api.post('/v1/products', PRODUCT);
    await api.patch(`/v1/products/${product.body.id}`, { price: 4 });
    const events: FeedEvent[] = [];
    for (const collection of ['users', 'products'])
      events.push(...(await api.get(`/v1/events?collection=${collection}&limit=100`)).body.data);
    const of = (collection: string, record: TestResponse, type: string): FeedEvent | undefined =>
      events.find(
        (event) => event.collection === collection && event.record_id === record.body.id && event.type === type,
      );
    const userEvent = of('users', user, 'created');
    const updated = of('products', product, 'updated');
    const created = of('products', product, 'created');
    await receiver.waitFor(1);
    for (const [event, kind] of [
      [userEvent, 'users'],
      [updated, 'updated'],
    ] as const) {
      const asked = await api.post(`${path}/deliveries`, { event_id: event?.id });
      assert.equal(asked.status, 201, asked.text);
      const settled = await eventually(async () => {
        const delivery = (await api.get(`${path}/deliveries/${asked.body.id}`)).body;
        assert.notEqual(delivery.status, 'pending');
        return delivery;
      });
      assert.equal(settled.status, 'failed');
      assert.equal(settled.attempts, 1);
      assert.match(settled.error, new RegExp(`^event ${event?.id} is .*${kind}.*: the subscription does not take it`));
    }
    // One it takes is sent again.
    const again = await api.post(`${path}/deliveries`, { event_id: created?.id });
    assert.equal(again.status, 201, again.text);
    const received = await receiver.waitFor(2);
    assert.deepEqual(
      received.map(({ headers }) => headers['webhook-id']),
      [String(created?.id), String(created?.id)],
    );
    assert.equal(receiver.received.length, 2, 'nothing else was sent');
  });
});

describe('webhooks, reviewed: the target rules', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ webhooksAllowHttp: true });
  });
  after(() => api.close());

  test('an IPv6 address carrying an IPv4 one (NAT64, 6to4) is judged by it; 2001::/23 is reserved', async () => {
    const refused: [string, string][] = [
      ['[64:ff9b::7f00:1]', 'loopback'],
      ['[64:ff9b::a9fe:a9fe]', 'link-local'],
      ['[64:ff9b::10.0.0.1]', 'private'],
      ['[2002:7f00:1::]', 'loopback'],
      ['[2002:c0a8:101::1]', 'private'],
      ['[2002:a9fe:a9fe:1::]', 'link-local'],
      ['[64:ff9b:1::1]', 'reserved'],
      ['[2001::1]', 'reserved'],
      ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'reserved'],
    ];
    for (const [host, kind] of refused) {
      const made = await api.post('/v1/webhooks', { url: `http://${host}/hook` });
      assertProblem(made, 422, 'forbidden_target', '/v1/webhooks', [{ field: 'url', code: 'forbidden_target' }]);
      assert.equal(made.body.errors[0].field, 'url', host);
      assert.match(made.body.errors[0].message, new RegExp(`, an? ${kind} address `), host);
    }
    // Public IPv4 addresses behind either prefix are as allowed as the addresses themselves (RFC 5737's, here).
    for (const host of ['[64:ff9b::cb00:710a]', '[2002:cb00:710a::1]', '[2001:db8::1]']) {
      const made = await api.post('/v1/webhooks', { url: `http://${host}/hook`, enabled: false });
      assert.equal(made.status, 201, `${host}: ${made.text}`);
      assert.equal((await api.delete(made.headers.get('location') as string)).status, 204);
    }
  });
});
