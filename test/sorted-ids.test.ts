// A sorted view kept as ids (src/store/sorted-ids.ts) against the same view kept as records (sorted-records.ts), on
// random changes applied as the store applies them (the collection holds a record's new version before the view is
// told): the same records in the same order, read forwards and by groups reversed, through growth and ids past 2^32.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredRecord } from '../src/records/json.ts';
import { SortedIds } from '../src/store/sorted-ids.ts';
import { keyOrder, orderBy, SortedRecords } from '../src/store/sorted-records.ts';
import { mulberry32 } from './random.ts';

const AT = '2026-11-29T00:00:00.000Z';

test('insert, remove and replace keep the ids where the records would be, read forwards and reversed', () => {
  for (const seed of [1, 2, 3]) {
    const random = mulberry32(seed);
    const record = (id: number): StoredRecord =>
      Object.freeze({
        id,
        ...(random() < 0.1 ? {} : { price: Math.floor(random() * 20) }),
        created_at: AT,
        updated_at: AT,
      }) as StoredRecord;
    const collection = new Map<number, StoredRecord>();
    const ids = (): number =>
      random() < 0.05 ? 2 ** 32 + Math.floor(random() * 100) : 1 + Math.floor(random() * 3000);
    for (let made = 0; made < 1500; made++) {
      const id = 1 + Math.floor(random() * 3000); // ids past 2^32 come only later, and widen the array

      collection.set(id, record(id));
    }
    const order = orderBy([{ field: 'price', descending: false }]);
    const start = [...collection.values()].sort(order);
    const asRecords = new SortedRecords(order, start.slice(), true);
    const asIds = new SortedIds(
      order,
      Uint32Array.from(start, (each) => each.id as number),
      (id) => collection.get(id as number),
    );
    for (let step = 0; step < 3000; step++) {
      const id = ids();
      const previous = collection.get(id);
      const next = random() < 0.3 ? undefined : record(id);
      // As the store does: the collection first, then the view.
      if (next === undefined) collection.delete(id);
      else collection.set(id, next);
      for (const list of [asRecords, asIds]) {
        if (previous !== undefined && next !== undefined) list.replace(previous, next);
        else if (previous !== undefined) list.remove(previous);
        else if (next !== undefined) list.insert(next);
      }
      if (step % 100 === 0 || step === 2999) {
        assert.equal(asIds.length, asRecords.length, `step ${step}`);
        assert.deepEqual(asIds.slice(0, Infinity), asRecords.slice(0, Infinity), `step ${step}`);
        const from = Math.floor(random() * asIds.length);
        assert.deepEqual(
          asIds.sliceGroupsReversed(from, from + 50, keyOrder('price')),
          asRecords.sliceGroupsReversed(from, from + 50, keyOrder('price')),
          `step ${step}, reversed from ${from}`,
        );
      }
    }
    assert.deepEqual(
      asIds.slice(0, Infinity).map((each) => each.id),
      [...collection.values()].sort(order).map((each) => each.id),
      'the order of all records now',
    );
  }
});
