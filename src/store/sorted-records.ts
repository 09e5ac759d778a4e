// A list of records kept in one order as records come and go: the building block of
// the list indexes (collection-index.ts). The order is total — ties are broken by id —
// so every record has exactly one place, found by binary search: a page is a slice,
// and a write costs a search and one splice instead of a sort of the whole list.

import type { JsonValue, StoredRecord } from '../records/json.ts';
import type { SortKey } from './query.ts';

export type RecordOrder = (a: StoredRecord, b: StoredRecord) => number;

/** By id: integers numerically, strings (uuid and string ids) by code point; a collection's ids are of one kind. */
export const BY_ID: RecordOrder = (a, b) => {
  const x = a.id;
  const y = b.id;
  return typeof x === 'number' ? x - (y as number) : x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The order a list's `sort` asks for (README: Lists): numbers numerically, strings by
 * code point, a missing or null value after any present one (so first when descending), and
 * ties by id ascending.
 */
export function orderBy(keys: readonly SortKey[]): RecordOrder {
  if (keys.length === 0) return BY_ID;
  return (a, b) => {
    for (const key of keys) {
      const order = compareValues(a[key.field], b[key.field]);
      if (order !== 0) return key.descending ? -order : order;
    }
    return BY_ID(a, b);
  };
}

/** The order of one field's values alone, ascending (ties are 0): the groups a view sorted by it keeps together. */
export function keyOrder(field: string): RecordOrder {
  return (a, b) => compareValues(a[field], b[field]);
}

function compareValues(a: JsonValue | undefined, b: JsonValue | undefined): number {
  if (a === b) return 0;
  const aAbsent = a === undefined || a === null;
  const bAbsent = b === undefined || b === null;
  if (aAbsent || bAbsent) return aAbsent && bAbsent ? 0 : aAbsent ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export class SortedRecords {
  readonly #order: RecordOrder;
  readonly #records: StoredRecord[];

  /**
   * Takes ownership of `records` and sorts them (cheap when they are nearly in order already), unless `inOrder` says
   * they are sorted already (sort-in-slices.ts).
   */
  constructor(order: RecordOrder, records: StoredRecord[], inOrder = false) {
    this.#order = order;
    this.#records = inOrder ? records : records.sort(order);
  }

  get length(): number {
    return this.#records.length;
  }

  first(): StoredRecord | undefined {
    return this.#records[0];
  }

  /** The record at `position` of the order, if there is one. */
  at(position: number): StoredRecord | undefined {
    return this.#records[position];
  }

  /** A copy of the records, in order. */
  toArray(): StoredRecord[] {
    return this.#records.slice();
  }

  slice(start: number, end: number): StoredRecord[] {
    return this.#records.slice(start, end);
  }

  /**
   * Positions `start` to `end` of the order that takes this one's groups of records `key` finds equal from last to
   * first, each group kept in its own order: a view sorted by one field ascending (ties by id) read as sorted by it
   * descending (ties still by id), so that one view serves both.
   */
  sliceGroupsReversed(start: number, end: number, key: RecordOrder): StoredRecord[] {
    const records = this.#records;
    const length = records.length;
    const page: StoredRecord[] = [];
    let place = start;
    while (place < Math.min(end, length)) {
      // The group holding this place, as positions of this order: it is the group at length − 1 − place here.
      const pivot = records[length - 1 - place] as StoredRecord;
      const first = this.#firstFrom(0, length - 1 - place, (record) => key(record, pivot) >= 0);
      const last = this.#firstFrom(length - 1 - place, length, (record) => key(record, pivot) > 0) - 1;
      // Reversed, the group spans places length − 1 − last to length − 1 − first, in its own order.
      for (; place <= length - 1 - first && place < end; place++)
        page.push(records[first + place - (length - 1 - last)] as StoredRecord);
    }
    return page;
  }

  /** The first position from `low` to `high` (exclusive) whose record is `past` (and so are all after it), or high. */
  #firstFrom(low: number, high: number, past: (record: StoredRecord) => boolean): number {
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (past(this.#records[middle] as StoredRecord)) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  insert(record: StoredRecord): void {
    const records = this.#records;
    const last = records[records.length - 1];
    // A new record usually goes last (ids only grow, and id order is the commonest): no search then.
    if (last === undefined || this.#order(last, record) < 0) records.push(record);
    else records.splice(this.#positionOf(record), 0, record);
  }

  /** Removes `record`, which must hold the values it had when inserted (stored records are frozen). */
  remove(record: StoredRecord): void {
    const at = this.#positionOf(record);
    if (this.#records[at]?.id === record.id) this.#records.splice(at, 1);
  }

  /** Puts `next` where `previous` was, moving it only if its place in the order changed. */
  replace(previous: StoredRecord, next: StoredRecord): void {
    if (this.#order(previous, next) === 0) {
      const at = this.#positionOf(previous);
      if (this.#records[at]?.id === previous.id) {
        this.#records[at] = next;
        return;
      }
    }
    this.remove(previous);
    this.insert(next);
  }

  /** The first position whose record does not come before `record`. */
  #positionOf(record: StoredRecord): number {
    let low = 0;
    let high = this.#records.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#order(this.#records[middle] as StoredRecord, record) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
