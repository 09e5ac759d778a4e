// The main flows of the example domain over HTTP, for a store given by the test (the
// store's door: store/store.ts): creates with Location and ETag, reads,
// lists with filters, conditional writes, a password hashed before the decision, logging
// in, the order hook reading products, state transitions, unique values, idempotent
// replays, cascading deletes, and permissions. test/store-seam.test.ts runs them on a
// store whose every first read suspends; test/postgres-store.test.ts on PostgreSQL.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../src/store/store.ts';
import type { TestServer } from './helpers.ts';
import { login, startTestServerWithAdminBootstrap } from './helpers.ts';

export interface FlowStore {
  readonly store: Store;
  /** How many orders of `userId` are stored (to see a cascade in the storage itself). */
  ordersOf(userId: number): Promise<number>;
  /** How many times requests had to wait for data to load, if the store counts them. */
  loads?(): number;
  /** After the server is closed. */
  close?(): Promise<void>;
}

export function describeStoreFlows(title: string, skip: string | false, open: () => Promise<FlowStore>): void {
  describe(title, { skip }, () => {
    let flows: FlowStore;
    let admin: TestServer;
    before(async () => {
      flows = await open();
      admin = await startTestServerWithAdminBootstrap({ store: flows.store });
    });
    after(async () => {
      await admin?.close();
      await flows?.close?.();
    });

    test('products: create, read, conditional update, an unchanged PUT, a list with a filter, delete', async () => {
      const loadsBefore = flows.loads?.() ?? 0;
      const created = await admin.post('/v1/products', { name: 'Kettle', category: 'tea', price: 20 });
      assert.equal(created.status, 201);
      const id = created.body.id as number;
      assert.equal(created.headers.get('location'), `/v1/products/${id}`);
      const read = await admin.get(`/v1/products/${id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(
        { name: read.body.name, category: read.body.category, price: read.body.price },
        { name: 'Kettle', category: 'tea', price: 20 },
      );
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
      assert.deepEqual(
        list.body.data.map((product: { id: number }) => product.id),
        [id],
      );
      assert.equal(list.body.meta.total, 1);

      assert.equal((await admin.delete(`/v1/products/${id}`)).status, 204);
      assert.equal((await admin.get(`/v1/products/${id}`)).status, 404);
      if (flows.loads !== undefined)
        assert.ok(
          flows.loads() - loadsBefore >= 20,
          `the requests suspended to load (${flows.loads() - loadsBefore} loads)`,
        );
    });

    test('users and orders: a password hashed first, a login, the order hook, transitions, permissions, a cascade', async () => {
      const product = await admin.post('/v1/products', { name: 'Tea', category: 'tea', price: 4.5 });
      const user = await admin.post('/v1/users', {
        name: 'Ada',
        email: 'ada@example.com',
        password: 'analytical-engine',
      });
      assert.equal(user.status, 201);
      assert.equal(
        (await admin.post('/v1/users', { name: 'Ada 2', email: 'ADA@example.com', password: 'another-password' }))
          .status,
        409,
      );
      const ada = admin.as(await login(admin, 'ada@example.com', 'analytical-engine'));
      const userId = user.body.id as number;

      const order = await ada.post(`/v1/users/${userId}/orders`, {
        items: [{ product_id: product.body.id, quantity: 2 }],
      });
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
      assert.equal(await flows.ordersOf(userId), 0);
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
}
