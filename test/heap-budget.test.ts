// A heap nearly full (README: Storage and durability; src/store/heap-fit.ts): writes are refused with 503 not_ready
// and Retry-After, nothing is written, reads go on and /readyz says why; once the heap has room again, writes are
// accepted and the server is ready. The heap's use is given to the MemoryStore by the test.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryStore } from '../src/index.ts';
import type { HeapUse } from '../src/store/heap-fit.ts';
import { assertProblem } from './assertions.ts';
import { startTestServer } from './helpers.ts';

const MB = 1024 * 1024;
const PRODUCT = { name: 'Kettle', category: 'kitchen', price: 30 };

describe('a heap nearly full', () => {
  test('writes 503 not_ready with Retry-After and nothing written; reads answer; /readyz 503; then writes again', async () => {
    let heap: HeapUse = { used: 100 * MB, limit: 1000 * MB };
    const store = new MemoryStore(new Map(), undefined, undefined, () => heap);
    const api = await startTestServer({ store });
    try {
      const kettle = await api.post('/v1/products', PRODUCT);
      assert.equal(kettle.status, 201);
      assert.equal((await api.get('/readyz')).status, 200);

      heap = { used: 950 * MB, limit: 1000 * MB };
      const detail =
        "the server's memory is nearly full (950 of 1000 MB); writes are refused until it frees some; " +
        'restart it with a larger --max-old-space-size, or keep the data in PostgreSQL';
      const item = `/v1/products/${kettle.body.id}`;
      const writes: [string, Awaited<ReturnType<typeof api.get>>][] = [
        ['/v1/products', await api.post('/v1/products', { ...PRODUCT, name: 'Refused' })],
        [item, await api.patch(item, { price: 31 })],
        [item, await api.put(item, { ...PRODUCT, price: 32 })],
        [item, await api.delete(item)],
      ];
      for (const [instance, refused] of writes) {
        assertProblem(refused, 503, 'not_ready', instance);
        assert.equal(refused.headers.get('retry-after'), '1');
        assert.equal(refused.body.detail, detail);
      }
      const list = await api.get('/v1/products');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data, [kettle.body], 'nothing was written, and reads go on');
      assert.deepEqual((await api.get(`/v1/products/${kettle.body.id}`)).body, kettle.body);
      const ready = await api.get('/readyz');
      assertProblem(ready, 503, 'not_ready', '/readyz');
      assert.equal(ready.body.detail, detail);

      heap = { used: 400 * MB, limit: 1000 * MB };
      assert.equal((await api.get('/readyz')).status, 200);
      const accepted = await api.post('/v1/products', { ...PRODUCT, name: 'Accepted' });
      assert.equal(accepted.status, 201);
      assert.equal((await api.get('/v1/products')).body.meta.total, 2);
    } finally {
      await api.close();
    }
  });
});
