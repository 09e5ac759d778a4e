// Sorting in slices (src/store/sort-in-slices.ts) and the sorted views built with it (src/store/collection-index.ts):
// the same order as Array.prototype.sort, ties kept in their order, other turns of the event loop run meanwhile; a
// list asked while its view is sorted waits for it (MemoryStore.read), and writes made meanwhile are in its answer.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredRecord } from '../src/records/json.ts';
import { IndexBuilding } from '../src/store/collection-index.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import { sortInSlices } from '../src/store/sort-in-slices.ts';
import { orderBy } from '../src/store/sorted-records.ts';
import { mulberry32 } from './random.ts';

const AT = '2026-11-27T00:00:00.000Z';

function products(count: number, seed: number): StoredRecord[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, index) =>
    Object.freeze({
      id: index + 1,
      name: `Product ${index + 1}`,
      category: ['tea', 'coffee', 'cups'][Math.floor(random() * 3)] as string,
      // Few distinct prices, so many ties; some records have none.
      ...(random() < 0.05 ? {} : { price: Math.floor(random() * 500) / 4 }),
      created_at: AT,
      updated_at: AT,
    }),
  );
}

test('sortInSlices gives Array.prototype.sort’s order, ties in their order, and lets other turns run', async () => {
  for (const count of [0, 1, 4095, 4097, 50_000]) {
    const records = products(count, count + 7).reverse();
    for (const order of [
      orderBy([{ field: 'price', descending: true }]),
      (a: StoredRecord, b: StoredRecord) => String(a['category']).localeCompare(String(b['category'])),
    ]) {
      let turns = 0;
      let done = false;
      const countTurn = (): void => {
        turns++;
        if (!done) setImmediate(countTurn);
      };
      setImmediate(countTurn);
      const sorted = await sortInSlices(records, order, 1);
      done = true;
      assert.deepEqual(
        sorted.map((record) => record.id),
        records
          .slice()
          .sort(order)
          .map((record) => record.id),
        `${count} records`,
      );
      if (count === 50_000) assert.ok(turns > 5, `other turns ran while it sorted: ${turns}`);
    }
    assert.equal(records.length, count, 'the input is left as it was');
  }
});

test('a list whose view is sorted in slices waits for it, and the writes made meanwhile are in its answer', async () => {
  const records = products(30_000, 3);
  const store = new MemoryStore(
    new Map([['products', { nextId: 30_001, records: new Map(records.map((record) => [record.id, record])) }]]),
  );
  const query = { filters: [], sort: [{ field: 'price', descending: false }], offset: 0, limit: 30_001 };
  assert.throws(
    () => store.query('products', query),
    (error: unknown) => error instanceof IndexBuilding,
  );
  const read = store.read(() => store.query('products', query));
  assert.ok(read instanceof Promise, 'the read waits for the view');
  // Meanwhile: one record added, one removed, one repriced; reads by id answer at once.
  const added = Object.freeze({ id: 30_001, name: 'New', category: 'tea', price: 0, created_at: AT, updated_at: AT });
  const repriced = Object.freeze({ ...(records[9] as StoredRecord), price: 1000 });
  await store.write(() => ({
    changes: [
      { kind: 'put', collection: 'products', record: added },
      { kind: 'delete', collection: 'products', id: 5 },
      { kind: 'put', collection: 'products', record: repriced },
    ],
    result: undefined,
  }));
  assert.equal(store.get('products', 30_001), added);
  const answer = await read;
  const expected = [...records.filter((record) => record.id !== 5 && record.id !== 10), added, repriced].sort(
    orderBy(query.sort),
  );
  assert.equal(answer.total, 30_000);
  assert.deepEqual(
    answer.records.map((record) => record.id),
    expected.map((record) => record.id),
  );
  // Once built, it answers at once and keeps in step.
  assert.equal(store.query('products', query).total, 30_000);
});
