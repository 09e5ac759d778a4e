// A sorted view's records kept as their ids (README: Lists), for collection-index.ts: four bytes a record where a
// reference takes eight, so that the views built ahead of every sortable field cost half as much; each record is looked
// up by id as a page is read or a record is placed. The operations and the order are SortedRecords's
// (sorted-records.ts), which builds a view before it is kept here.

import type { StoredRecord } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import type { Ids } from './sort-in-slices.ts';
import type { RecordOrder } from './sorted-records.ts';

const LARGEST_UINT32 = 0xffff_ffff;

export class SortedIds {
  readonly #order: RecordOrder;
  /** A record as it is now, by id: the collection's. */
  readonly #recordOf: (id: RecordId) => StoredRecord | undefined;
  /**
   * The ids in order, four bytes each while every id fits, then eight (uuid and string ids: a plain array); room beyond
   * `#length` for more.
   */
  #ids: Ids;
  #length: number;

  /**
   * The records of `ids`, already in `order` (taken, not copied). `recordOf` finds a record by id as the collection
   * holds it: each id is in its place by that record's values, but while a change to one record is being applied (the
   * collection holds its new version already; remove and replace are told the old one).
   */
  constructor(order: RecordOrder, ids: Ids, recordOf: (id: RecordId) => StoredRecord | undefined) {
    this.#order = order;
    this.#recordOf = recordOf;
    this.#ids = ids;
    this.#length = ids.length;
  }

  get length(): number {
    return this.#length;
  }

  slice(start: number, end: number): StoredRecord[] {
    const page: StoredRecord[] = [];
    for (let place = Math.max(0, start); place < Math.min(end, this.#length); place++) page.push(this.#at(place));
    return page;
  }

  /** SortedRecords.sliceGroupsReversed: the groups `key` finds equal from last to first, each in its own order. */
  sliceGroupsReversed(start: number, end: number, key: RecordOrder): StoredRecord[] {
    const length = this.#length;
    const page: StoredRecord[] = [];
    let place = start;
    while (place < Math.min(end, length)) {
      const pivot = this.#at(length - 1 - place);
      const first = this.#firstFrom(0, length - 1 - place, (record) => key(record, pivot) >= 0);
      const last = this.#firstFrom(length - 1 - place, length, (record) => key(record, pivot) > 0) - 1;
      for (; place <= length - 1 - first && place < end; place++)
        page.push(this.#at(first + place - (length - 1 - last)));
    }
    return page;
  }

  insert(record: StoredRecord): void {
    const at = this.#firstFrom(0, this.#length, (held) => this.#order(held, record) >= 0);
    this.#makeRoom(record.id);
    this.#ids.copyWithin(at + 1, at, this.#length);
    this.#ids[at] = record.id;
    this.#length++;
  }

  /** Removes `record`, as it was when placed (the collection may hold its next version, or none, already). */
  remove(record: StoredRecord): void {
    const at = this.#firstFrom(0, this.#length, (held) => this.#order(held, record) >= 0, record);
    if (at >= this.#length || this.#ids[at] !== record.id) return;
    this.#ids.copyWithin(at, at + 1, this.#length);
    this.#length--;
  }

  /** Puts `next` where `previous` was (the same id): it moves only if its place in the order changed. */
  replace(previous: StoredRecord, next: StoredRecord): void {
    if (this.#order(previous, next) === 0) return;
    this.remove(previous);
    this.insert(next);
  }

  /** The record at `place`; the record with `changing`'s id is `changing` (its version being taken out). */
  #at(place: number, changing?: StoredRecord): StoredRecord {
    const id = this.#ids[place] as RecordId;
    return changing !== undefined && id === changing.id ? changing : (this.#recordOf(id) as StoredRecord);
  }

  /** The first place from `low` to `high` (exclusive) whose record is `past` (and so are all after it), or high. */
  #firstFrom(low: number, high: number, past: (record: StoredRecord) => boolean, changing?: StoredRecord): number {
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (past(this.#at(middle, changing))) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** Room for one more id, in an array that holds `id`: grown by an eighth, eight bytes an id once one needs them. */
  #makeRoom(id: RecordId): void {
    // A view made empty of a collection of uuid or string ids holds them in a plain array from its first.
    if (typeof id === 'string' && !Array.isArray(this.#ids))
      this.#ids = Array.from(this.#ids.subarray(0, this.#length));
    const held = this.#ids;
    if (Array.isArray(held)) {
      if (this.#length >= held.length) held.push(id);
      return;
    }
    const wider = (id as number) > LARGEST_UINT32 && held instanceof Uint32Array;
    if (this.#length < held.length && !wider) return;
    const capacity = Math.max(held.length, this.#length + Math.max(1024, this.#length >>> 3));
    const ids = wider || held instanceof Float64Array ? new Float64Array(capacity) : new Uint32Array(capacity);
    ids.set(held.subarray(0, this.#length));
    this.#ids = ids;
  }
}
