// Webhooks attacked (docs/webhooks.md): what a review found wrong, each shown over HTTP against a receiver in the test.
// More than a poll's page of subscriptions, every one delivered.

import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { Receiver } from './webhook-receiver.ts';

const LOCAL = { webhooksAllowHttp: true, webhooksAllowPrivate: true } as const;
const PRODUCT = { name: 'Tea', category: 'tea', price: 3 };

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
});
