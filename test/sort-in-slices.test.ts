// Sorting in slices (src/store/sort-in-slices.ts) and the sorted views built with it (src/store/collection-index.ts):
// the same order as Array.prototype.sort (by one field, as orderBy), ties kept in their order, other turns of the event
// loop run meanwhile; a list asked while its view is sorted waits for it (MemoryStore.read), writes made meanwhile are
// in its answer, and the views prepareIndexes sorts ahead serve each field in both directions.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredRecord } from '../src/records/json.ts';
import { IndexBuilding } from '../src/store/index-building.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import { idsOf, idsSortedByOneField, sortInSlices } from '../src/store/sort-in-slices.ts';
import { orderBy } from '../src/store/sorted-records.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';
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

test('idsSortedByOneField gives orderBy’s order by one field ascending: ties by id, none and null last, many values or few', async () => {
  const random = mulberry32(99);
  const values: (() => unknown)[] = [
    () => Math.floor(random() * 50) / 4, // many ties
    () => (random() < 0.5 ? 0 : -0),
    () => random() * 1e6, // every value its own
    () => ['tea', 'Tea', 'té', 'tea 🍵', 'tea ｚ', ''][Math.floor(random() * 6)],
    () => `name ${Math.floor(random() * 30_000)}`, // more distinct values than are sorted in one go
    () => random() < 0.5,
  ];
  for (const [kind, value] of values.entries()) {
    for (const count of [0, 1, 2, 1000, 40_000]) {
      let id = 0;
      const records = Array.from({ length: count }, () => {
        id += 1 + Math.floor(random() * 3);
        const roll = random();
        const field = roll < 0.05 ? {} : roll < 0.1 ? { price: null } : { price: value() };
        return Object.freeze({ id, ...field, created_at: AT, updated_at: AT }) as StoredRecord;
      });
      const sorted = await idsSortedByOneField(records, 'price', 1);
      assert.ok(sorted instanceof Uint32Array, `values of kind ${kind} are of one type`);
      assert.deepEqual(
        Array.from(sorted),
        records
          .slice()
          .sort(orderBy([{ field: 'price', descending: false }]))
          .map((record) => record.id),
        `kind ${kind}, ${count} records`,
      );
    }
  }
});

test('idsSortedByOneField leaves to sortInSlices values of more than one type, objects, and records out of id order', async () => {
  const record = (id: number, price: unknown): StoredRecord =>
    Object.freeze({ id, price, created_at: AT, updated_at: AT }) as StoredRecord;
  assert.equal(await idsSortedByOneField([record(1, 5), record(2, '5')], 'price'), undefined);
  assert.equal(await idsSortedByOneField([record(1, true), record(2, 1)], 'price'), undefined);
  assert.equal(await idsSortedByOneField([record(1, [1]), record(2, [0])], 'price'), undefined);
  assert.equal(await idsSortedByOneField([record(2, 1), record(1, 2)], 'price'), undefined);
  assert.deepEqual(
    Array.from(
      (await idsSortedByOneField([record(1, null), record(2, 3), record(3, undefined), record(4, 1)], 'price')) ?? [],
    ),
    [4, 2, 1, 3],
  );
  const wide = await idsSortedByOneField([record(1, 2), record(2 ** 32 + 5, 1)], 'price');
  assert.ok(wide instanceof Float64Array, 'an id past 2^32 − 1 takes eight bytes');
  assert.deepEqual(Array.from(wide), [2 ** 32 + 5, 1]);
  assert.deepEqual(Array.from(await idsOf([record(7, 1), record(3, 1)], 1)), [7, 3]);
});

test('prepareIndexes sorts a view by each sortable field ahead, which serves it ascending and descending; writes made meanwhile are in it', async () => {
  const records = products(30_000, 5);
  const store = new MemoryStore(
    new Map([['products', { nextId: 30_001, records: new Map(records.map((record) => [record.id, record])) }]]),
  );
  const ready = store.prepareIndexes(exampleResources());
  const byPrice = { filters: [], sort: [{ field: 'price', descending: true }], offset: 0, limit: 100 };
  const waiting = store.read(() => store.query('products', byPrice));
  assert.ok(waiting instanceof Promise, 'a sorted list asked while the views are sorted waits');
  const repriced = Object.freeze({ ...(records[99] as StoredRecord), price: 2000 });
  const added = Object.freeze({
    id: 30_001,
    name: 'Product 0',
    category: 'tea',
    price: 2000,
    created_at: AT,
    updated_at: AT,
  });
  await store.write(() => ({
    changes: [
      { kind: 'put', collection: 'products', record: repriced },
      { kind: 'put', collection: 'products', record: added },
      { kind: 'delete', collection: 'products', id: 7 },
    ],
    result: undefined,
  }));
  await ready;
  const current = [...records.filter((record) => record.id !== 7 && record.id !== 100), repriced, added];
  assert.deepEqual(
    (await waiting).records.map((record) => record.id),
    current
      .sort(orderBy(byPrice.sort))
      .slice(0, 100)
      .map((record) => record.id),
  );
  for (const field of ['name', 'category', 'price'])
    for (const descending of [false, true])
      for (const offset of [0, 12_345, 29_950]) {
        const query = { filters: [], sort: [{ field, descending }], offset, limit: 100 };
        // Throws IndexBuilding if this list had to sort its view.
        const { records: page, total } = store.query('products', query);
        assert.equal(total, 30_000);
        assert.deepEqual(
          page.map((record) => record.id),
          current
            .sort(orderBy(query.sort))
            .slice(offset, offset + 100)
            .map((record) => record.id),
          `${descending ? '-' : ''}${field} from ${offset}`,
        );
      }
});

test('idsSortedByOneField on records already in order (as creation times mostly are), or all but one', async () => {
  const inOrder = Array.from({ length: 5000 }, (_, index) =>
    Object.freeze({
      id: index + 1,
      ...(index >= 4990 ? {} : { created_at: `2026-01-01T00:00:${String(Math.floor(index / 100)).padStart(2, '0')}Z` }),
      updated_at: AT,
    }),
  ) as StoredRecord[];
  const byCreation = orderBy([{ field: 'created_at', descending: false }]);
  for (const records of [
    inOrder,
    [
      ...inOrder.slice(0, 4000),
      { ...(inOrder[4000] as StoredRecord), created_at: '2025-12-31T00:00:00Z' },
      ...inOrder.slice(4001),
    ],
    [
      ...inOrder.slice(0, 4995),
      { ...(inOrder[4995] as StoredRecord), created_at: '2026-01-02T00:00:00Z' },
      ...inOrder.slice(4996),
    ],
  ]) {
    const sorted = await idsSortedByOneField(records, 'created_at', 1);
    assert.deepEqual(
      Array.from(sorted ?? []),
      records
        .slice()
        .sort(byCreation)
        .map((record) => record.id),
    );
  }
});

test('many writes while a view is sorted in slices, the same records changed more than once: the view is what a sort of them gives', async () => {
  const random = mulberry32(77);
  const records = products(25_000, 9);
  const current = new Map(records.map((record) => [record.id, record]));
  const store = new MemoryStore(new Map([['products', { nextId: 25_001, records: new Map(current) }]]));
  const query = { filters: [], sort: [{ field: 'price', descending: false }], offset: 0, limit: 30_000 };
  const read = store.read(() => store.query('products', query));
  assert.ok(read instanceof Promise, 'the view is sorted in slices');
  let nextId = 25_001;
  // Each write is applied as it is called (MemoryStore.write), all of them before the sort goes on.
  const writes: Promise<void>[] = [];
  for (let write = 0; write < 300; write++) {
    // A few ids again and again, so that one record changes several times before the sort ends.
    const id = random() < 0.5 ? 1 + Math.floor(random() * 20) : 1 + Math.floor(random() * 25_000);
    const roll = random();
    const change =
      roll < 0.1
        ? ({ kind: 'delete', collection: 'products', id } as const)
        : ({
            kind: 'put',
            collection: 'products',
            record: Object.freeze({
              id: roll < 0.2 ? nextId++ : id,
              name: `Product ${id}`,
              category: 'tea',
              ...(random() < 0.1 ? {} : { price: Math.floor(random() * 500) / 4 }),
              created_at: AT,
              updated_at: AT,
            }),
          } as const);
    if (change.kind === 'delete' && !current.has(id)) continue;
    writes.push(store.write(() => ({ changes: [change], result: undefined })));
    if (change.kind === 'delete') current.delete(id);
    else current.set(change.record.id, change.record);
  }
  await Promise.all(writes);
  const expected = [...current.values()].sort(orderBy(query.sort)).map((record) => record.id);
  assert.deepEqual(
    (await read).records.map((record) => record.id),
    expected,
  );
  const descending = { ...query, sort: [{ field: 'price', descending: true }] };
  assert.deepEqual(
    store.query('products', descending).records.map((record) => record.id),
    [...current.values()].sort(orderBy(descending.sort)).map((record) => record.id),
  );
});
