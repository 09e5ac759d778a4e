// The store seam (store/store.ts, store/loaded.ts): the same handlers serve a store whose
// data is elsewhere. Against test/loading-store.ts — every request's first read of
// anything suspends until it is "loaded" on a later turn — the main flows answer exactly
// as with the memory store: creates with Location and ETag, reads, lists with filters,
// conditional writes, a password hashed before the decision, logging in, the order hook
// reading products, state transitions, unique values, idempotent replays, cascading
// deletes, and permissions.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from './helpers.js';
import { login, startTestServerWithAdminBootstrap } from './helpers.js';
import { LoadingStore } from './loading-store.js';

describe('the store seam: a store that loads before it answers serves the same API', () => {
  const store = new LoadingStore();
  let admin: TestServer;
  before(async () => {
    admin = await startTestServerWithAdminBootstrap({ store });
  });
  after(() => admin.close());

  test('products: create, read, conditional update, an unchanged PUT, a list with a filter, delete', async () => {
    const loadsBefore = store.loads;
    const created = await admin.post('/v1/products', { name: 'Kettle', category: 'tea', price: 20 });
    assert.equal(created.status, 201);
    const id = created.body.id as number;
    assert.equal(created.headers.get('location'), `/v1/products/${id}`);
    const read = await admin.get(`/v1/products/${id}`);
    assert.equal(read.status, 200);
    assert.deepEqual({ name: read.body.name, category: read.body.category, price: read.body.price }, { name: 'Kettle', category: 'tea', price: 20 });
    const etag = read.headers.get('etag') as string;
    assert.equal(created.headers.get('etag'), etag);
    assert.equal((await admin.get(`/v1/products/${id}`, { 'If-None-Match': etag })).status, 304);

    assert.equal((await admin.patch(`/v1/products/${id}`, { price: 21 }, { 'If-Match': '"stale"' })).status, 412);
    const patched = await admin.patch(`/v1/products/${id}`, { price: 21 }, { 'If-Match': etag });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.price, 21);
    const unchanged = await admin.put(`/v1/products/${id}`, { name: 'Kettle', category: 'tea', price: 21 });
    assert.equal(unchanged.status, 200);
    assert.equal(unchanged.body.updated_at, patched.body.updated_at);

    await admin.post('/v1/products', { name: 'Mug', category: 'cups', price: 5 });
    const list = await admin.get('/v1/products?category=tea&sort=-price');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((product: { id: number }) => product.id), [id]);
    assert.equal(list.body.meta.total, 1);

    assert.equal((await admin.delete(`/v1/products/${id}`)).status, 204);
    assert.equal((await admin.get(`/v1/products/${id}`)).status, 404);
    assert.ok(store.loads - loadsBefore >= 20, `the requests suspended to load (${store.loads - loadsBefore} loads)`);
  });

  test('users and orders: a password hashed first, a login, the order hook, transitions, permissions, a cascade', async () => {
    const product = await admin.post('/v1/products', { name: 'Tea', category: 'tea', price: 4.5 });
    const user = await admin.post('/v1/users', { name: 'Ada', email: 'ada@example.com', password: 'analytical-engine' });
    assert.equal(user.status, 201);
    assert.equal((await admin.post('/v1/users', { name: 'Ada 2', email: 'ADA@example.com', password: 'another-password' })).status, 409);
    const ada = admin.as(await login(admin, 'ada@example.com', 'analytical-engine'));
    const userId = user.body.id as number;

    const order = await ada.post(`/v1/users/${userId}/orders`, { items: [{ product_id: product.body.id, quantity: 2 }] });
    assert.equal(order.status, 201, order.text);
    assert.equal(order.body.total, 9);
    assert.equal(order.body.status, 'pending');
    const path = `/v1/users/${userId}/orders/${order.body.id}`;
    assert.equal((await ada.patch(path, { status: 'shipped' })).status, 403);
    assert.equal((await ada.patch(path, { status: 'cancelled' })).status, 200);
    const again = await admin.patch(path, { status: 'paid' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'invalid_transition');

    const other = await admin.post('/v1/users', { name: 'Bob', email: 'bob@example.com', password: 'bobs-password' });
    const bob = admin.as(await login(admin, 'bob@example.com', 'bobs-password'));
    assert.equal((await bob.get(path)).status, 403);
    assert.equal((await bob.get(`/v1/users/${userId}/orders`)).status, 403);
    assert.equal((await ada.get(`/v1/users/${userId}/orders`)).body.meta.total, 1);

    assert.equal((await admin.delete(`/v1/users/${userId}`)).status, 204);
    assert.equal(store.inner.query('orders', { filters: [{ field: 'user_id', value: userId }], sort: [], offset: 0, limit: 10 }).total, 0);
    assert.equal((await ada.get(`/v1/products/${product.body.id}`)).status, 401, 'a deleted user is refused at once');
    assert.equal((await admin.get(`/v1/users/${other.body.id}`)).status, 200);
  });

  test('an Idempotency-Key replays the first answer without a second record', async () => {
    const body = { name: 'Once', category: 'idempotent', price: 1 };
    const first = await admin.post('/v1/products', body, { 'Idempotency-Key': 'seam-1' });
    const second = await admin.post('/v1/products', body, { 'Idempotency-Key': 'seam-1' });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.body.id, first.body.id);
    assert.equal((await admin.get('/v1/products?category=idempotent')).body.meta.total, 1);
  });
});
