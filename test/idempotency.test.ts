// Idempotency keys on POST (IETF draft "The Idempotency-Key HTTP Header Field"):
// replay with Idempotent-Replayed, 422 for a key reused with another body, 409 while
// in flight, keys per caller, kept across restarts, and expired after 24 hours.

import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { IDEMPOTENCY_KEY_LIFETIME_MS } from '../src/http/idempotency.ts';
import type { Persistence } from '../src/index.ts';
import { MemoryStore } from '../src/index.ts';
import { createUserClient, startTestServer, temporaryDirectory, TEST_TOKEN_SECRET, withTestServer } from './helpers.ts';
import { assertProblem } from './assertions.ts';

const PRODUCT = { name: 'Once', category: 'c', price: 1 };

/** Storage in memory whose next commit, once `holdNext()` is called, waits until the test releases it. */
class HeldCommits implements Persistence {
  readonly writable = true;
  #held: { arrived: () => void; released: Promise<void> } | undefined;

  /** `reached` resolves when the next commit arrives; that commit completes on `release()`. */
  holdNext(): { reached: Promise<void>; release: () => void } {
    let arrived = (): void => undefined;
    let release = (): void => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#held = { arrived, released };
    return { reached, release };
  }

  async persist(): Promise<void> {
    const held = this.#held;
    this.#held = undefined;
    if (held === undefined) return;
    held.arrived();
    await held.released;
  }

  async close(): Promise<void> {}
}

describe('idempotency keys', () => {
  test('a repeated POST with the same key and body replays the first answer and creates nothing', () =>
    withTestServer({}, async (api) => {
      const first = await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'order-42' });
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'order-42' });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get('location'), first.headers.get('location'));
      assert.equal(again.headers.get('etag'), first.headers.get('etag'));
      assert.equal((await api.get('/v1/products')).body.meta.total, 1);
    }));

  test("a new user's replay is exactly {id, name} with the same Location", () =>
    withTestServer({}, async (api) => {
      const body = { name: 'Key User', email: 'key-user@example.com' };
      const first = await api.post('/v1/users', body, { 'idempotency-key': 'k' });
      const again = await api.post('/v1/users', body, { 'idempotency-key': 'k' });
      assert.deepEqual(again.body, first.body);
      assert.deepEqual(Object.keys(again.body), ['id', 'name']);
      assert.equal(again.headers.get('location'), first.headers.get('location'));
    }));

  test('the same key with a different body → 422 idempotency_key_reused, nothing created', () =>
    withTestServer({}, async (api) => {
      await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'k1' });
      const other = await api.post('/v1/products', { ...PRODUCT, price: 2 }, { 'idempotency-key': 'k1' });
      assertProblem(other, 422, 'idempotency_key_reused', '/v1/products');
      assert.equal((await api.get('/v1/products')).body.meta.total, 1);
    }));

  test('the same key on another path is a different request → 422', () =>
    withTestServer({}, async (api) => {
      await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'k2' });
      const elsewhere = await api.post(
        '/v1/produtos',
        { nome: 'Once', categoria: 'c', preco: 1 },
        { 'idempotency-key': 'k2' },
      );
      assertProblem(elsewhere, 422, 'idempotency_key_reused', '/v1/produtos');
    }));

  test('keys belong to their caller: another user may use the same key', () =>
    withTestServer({}, async (api) => {
      const { id, client } = await createUserClient(api);
      const { id: otherId, client: other } = await createUserClient(api);
      const product = (await api.post('/v1/products', PRODUCT)).body;
      const items = { items: [{ product_id: product.id, quantity: 1 }] };
      const mine = await client.post(`/v1/users/${id}/orders`, items, { 'idempotency-key': 'same' });
      const theirs = await other.post(`/v1/users/${otherId}/orders`, items, { 'idempotency-key': 'same' });
      assert.equal(mine.status, 201);
      assert.equal(theirs.status, 201);
      assert.equal(theirs.headers.get('idempotent-replayed'), null);
      assert.notEqual(theirs.body.id, mine.body.id);
    }));

  test('while the first request is still being handled, the same key → 409 idempotency_key_in_flight', async () => {
    // In one process. Across processes the later one waits for the first's commit and is its replay (postgres-processes.test.ts).
    // The first request's commit is held until the second has its answer, so the second always finds it in flight.
    const storage = new HeldCommits();
    const api = await startTestServer({ store: new MemoryStore(new Map(), storage) });
    try {
      const commit = storage.holdNext();
      const first = api.post('/v1/products', PRODUCT, { 'idempotency-key': 'slow' });
      await commit.reached;
      const second = await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'slow' });
      assertProblem(second, 409, 'idempotency_key_in_flight', '/v1/products');
      commit.release();
      const answered = await first;
      assert.equal(answered.status, 201);
      assert.equal(answered.headers.get('idempotent-replayed'), null);
      const later = await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'slow' });
      assert.equal(later.status, 201);
      assert.equal(later.headers.get('idempotent-replayed'), 'true');
      assert.equal(later.body.id, answered.body.id);
    } finally {
      await api.close();
    }
  });

  test('a failed request stores nothing: fixing the body and retrying with the key works', () =>
    withTestServer({}, async (api) => {
      assert.equal((await api.post('/v1/products', { name: 'Bad' }, { 'idempotency-key': 'retry' })).status, 422);
      const fixed = await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'retry' });
      assert.equal(fixed.status, 201);
      assert.equal(fixed.headers.get('idempotent-replayed'), null);
    }));

  test('a malformed key → 400 malformed_request naming the header (not invalid_query: it is no query parameter), nothing created', () =>
    withTestServer({}, async (api) => {
      for (const key of ['x'.repeat(256), 'two words', 'caf\u00e9']) {
        const response = await api.post('/v1/products', PRODUCT, { 'idempotency-key': key });
        assertProblem(response, 400, 'malformed_request', '/v1/products', [
          { field: 'Idempotency-Key', code: 'invalid_value' },
        ]);
        assert.equal(response.body.detail, 'Idempotency-Key must be 1 to 255 visible ASCII characters', key);
        assert.deepEqual(response.body.errors, [
          { field: 'Idempotency-Key', code: 'invalid_value', message: 'must be 1 to 255 visible ASCII characters' },
        ]);
      }
      assert.equal((await api.get('/v1/products')).body.meta.total, 0);
      const longest = await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'x'.repeat(255) });
      assert.equal(longest.status, 201);
    }));

  test('keys survive a restart', async () => {
    const dir = await temporaryDirectory();
    try {
      const first = await startTestServer({ dataDir: dir.path });
      const created = await first.post('/v1/products', PRODUCT, { 'idempotency-key': 'durable' });
      await first.close();
      const second = await startTestServer({ dataDir: dir.path });
      const again = await second.post('/v1/products', PRODUCT, { 'idempotency-key': 'durable' });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, created.text);
      assert.equal((await second.get('/v1/products')).body.meta.total, 1);
      await second.close();
    } finally {
      await dir.remove();
    }
  });

  test('keys expire after 24 hours: the same key then creates anew', async () => {
    let now = Date.parse('2026-06-01T00:00:00Z');
    await withTestServer({ clock: () => now }, async (api) => {
      await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'day' });
      now += IDEMPOTENCY_KEY_LIFETIME_MS - 1;
      assert.equal(
        (await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'day' })).headers.get('idempotent-replayed'),
        'true',
      );
      now += 1;
      const fresh = await api.post('/v1/products', PRODUCT, { 'idempotency-key': 'day' });
      assert.equal(fresh.status, 201);
      assert.equal(fresh.headers.get('idempotent-replayed'), null);
      assert.equal((await api.get('/v1/products')).body.meta.total, 2);
    });
  });
});

describe('idempotency fingerprints at rest', () => {
  test('a stored fingerprint is keyed with the server secret, so a body holding a password cannot be guessed at from the files', async () => {
    const dir = await temporaryDirectory();
    try {
      const api = await startTestServer({ dataDir: dir.path });
      const body = { name: 'Keyed', email: 'keyed@example.com', password: 'keyed-password-1' };
      const created = await api.post('/v1/users', body, { 'idempotency-key': 'keyed-1' });
      assert.equal(created.status, 201);
      await api.close();
      const files = await Promise.all((await readdir(dir.path)).map((name) => readFile(join(dir.path, name), 'utf8')));
      const everything = files.join('\n');
      const request = `POST /v1/users\n${JSON.stringify(body)}`;
      const unkeyed = createHash('sha256').update(request).digest('base64url');
      const keyed = createHmac('sha256', TEST_TOKEN_SECRET).update(request).digest('base64url');
      assert.ok(!everything.includes(unkeyed), 'the plain SHA-256 of the request is not stored');
      assert.ok(everything.includes(keyed), 'the HMAC of the request is what is stored');
      assert.ok(!everything.includes('keyed-password-1'), 'the password itself is not stored');
    } finally {
      await dir.remove();
    }
  });
});
