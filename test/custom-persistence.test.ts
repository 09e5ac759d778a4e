// Scale on paper, made concrete (performance issue): the journal is one implementation
// of `Persistence`, the seam behind MemoryStore where a database plugs in. This test
// writes such a "database" in a few lines — committed transactions, and loading the
// tables back at start — and shows that every request's changes arrive as ONE
// transaction (a user deleted with their orders included), that an answer waits for
// the transaction, that a refused transaction is a 500 rolled back in memory, and that
// a new server loaded from the database serves the same data.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Change, CollectionState, Persistence, RecordId, StoredCollection, StoredRecord } from '../src/index.ts';
import { compareIds } from '../src/records/record-id.ts';
import { MemoryStore } from '../src/index.ts';
import { startTestServer } from './helpers.ts';

/** A stand-in for a database: tables of rows, written only by whole transactions. */
class TransactionalDatabase implements Persistence {
  readonly tables = new Map<StoredCollection, Map<RecordId, StoredRecord>>();
  readonly transactions: (readonly Change[])[] = [];
  writable = true;
  refuseNext = false;

  /** One transaction per commit: all of its changes, or none. */
  async persist(changes: readonly Change[]): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 1)); // a round trip
    if (this.refuseNext) {
      this.refuseNext = false;
      throw new Error('the database refused the transaction');
    }
    for (const change of changes) {
      const table = this.tables.get(change.collection) ?? new Map<RecordId, StoredRecord>();
      this.tables.set(change.collection, table);
      if (change.kind === 'put') table.set(change.record.id, change.record);
      else table.delete(change.id);
    }
    this.transactions.push(changes);
  }

  /** What a new process loads at start (ids continue after the highest one stored). */
  load(): Map<StoredCollection, CollectionState> {
    const collections = new Map<StoredCollection, CollectionState>();
    for (const [collection, rows] of this.tables) {
      const records = new Map([...rows].sort(([a], [b]) => compareIds(a, b)));
      const numbers = [...records.keys()].filter((id) => typeof id === 'number');
      collections.set(collection, { nextId: Math.max(0, ...numbers) + 1, records });
    }
    return collections;
  }

  async close(): Promise<void> {}
}

function storeOn(database: TransactionalDatabase): MemoryStore {
  return new MemoryStore(database.load(), database);
}

describe('a database behind the Persistence interface', () => {
  test('each request is one transaction, a cascade included, and a new server loads the same data', async () => {
    const database = new TransactionalDatabase();
    const api = await startTestServer({ store: storeOn(database) });
    const product = await api.post('/v1/products', { name: 'Kettle', category: 'equipment', price: 30 });
    assert.equal(product.status, 201);
    const user = await api.post('/v1/users', { name: 'Dana', email: 'dana@example.com', password: 'dana-password-1' });
    assert.equal(user.status, 201);
    const order = await api.post(`/v1/users/${user.body.id}/orders`, {
      items: [{ product_id: product.body.id, quantity: 2 }],
    });
    assert.equal(order.status, 201);
    const transactionsBefore = database.transactions.length;

    assert.equal((await api.delete(`/v1/users/${user.body.id}`)).status, 204);
    assert.equal(database.transactions.length, transactionsBefore + 1, 'the delete is one transaction');
    assert.deepEqual(
      database.transactions.at(-1)?.map((change) => [change.kind, change.collection]),
      [
        ['delete', 'users'],
        ['delete', 'orders'],
      ],
    );
    await api.close();

    const again = await startTestServer({ store: storeOn(database) });
    const read = await again.get(`/v1/products/${product.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, product.body);
    assert.equal(read.headers.get('etag'), product.headers.get('etag'));
    assert.equal((await again.get(`/v1/users/${user.body.id}`)).status, 404);
    const next = await again.post('/v1/products', { name: 'Teapot', category: 'equipment', price: 20 });
    assert.equal(next.body.id, product.body.id + 1, 'ids go on after the highest stored one');
    await again.close();
  });

  test('a transaction the database refuses is a 500, and nothing of it stays visible', async () => {
    const database = new TransactionalDatabase();
    const api = await startTestServer({ store: storeOn(database) });
    const kept = await api.post('/v1/products', { name: 'Kept', category: 'c', price: 1 });
    assert.equal(kept.status, 201);
    database.refuseNext = true;
    const refused = await api.post('/v1/products', { name: 'Refused', category: 'c', price: 2 });
    assert.equal(refused.status, 500);
    assert.equal(refused.body.code, 'internal_error');
    const list = await api.get('/v1/products');
    assert.deepEqual(
      list.body.data.map((item: { name: string }) => item.name),
      ['Kept'],
    );
    assert.deepEqual(
      [...(database.tables.get('products')?.values() ?? [])].map((row) => row['name']),
      ['Kept'],
    );
    await api.close();
  });
});
