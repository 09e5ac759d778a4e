// An equality index on one field: the records holding each value, in id order. It is
// what lets a filtered list (`?category=tea`, the orders of one user) and the unique
// email check find their records without scanning the collection. For a field
// compared ignoring case (emails), values are kept lowercased.

import type { StoredRecord } from '../records/json.ts';
import { BY_ID, SortedRecords } from './sorted-records.ts';

type IndexKey = string | number | boolean;

export class EqualityIndex {
  readonly #field: string;
  readonly #ignoreCase: boolean;
  readonly #buckets = new Map<IndexKey, SortedRecords>();

  /** Indexes `records`, which come in id order. */
  constructor(field: string, ignoreCase: boolean, records: Iterable<StoredRecord>) {
    this.#field = field;
    this.#ignoreCase = ignoreCase;
    const groups = new Map<IndexKey, StoredRecord[]>();
    for (const record of records) {
      const key = this.#keyOf(record);
      if (key === undefined) continue;
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [record]);
      else group.push(record);
    }
    for (const [key, group] of groups) this.#buckets.set(key, new SortedRecords(BY_ID, group));
  }

  /** The records whose field equals `value` (ignoring case if this index does); undefined when none. */
  bucket(value: string | number | boolean): SortedRecords | undefined {
    return this.#buckets.get(this.#ignoreCase && typeof value === 'string' ? value.toLowerCase() : value);
  }

  update(previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
    const before = previous === undefined ? undefined : this.#keyOf(previous);
    const after = next === undefined ? undefined : this.#keyOf(next);
    if (before !== undefined && before === after) {
      this.#buckets.get(before)?.replace(previous as StoredRecord, next as StoredRecord);
      return;
    }
    if (before !== undefined) {
      const bucket = this.#buckets.get(before);
      bucket?.remove(previous as StoredRecord);
      if (bucket?.length === 0) this.#buckets.delete(before);
    }
    if (after !== undefined) {
      const bucket = this.#buckets.get(after);
      if (bucket === undefined) this.#buckets.set(after, new SortedRecords(BY_ID, [next as StoredRecord]));
      else bucket.insert(next as StoredRecord);
    }
  }

  /** Only strings, numbers and booleans can equal a filter's value; other values are not indexed. */
  #keyOf(record: StoredRecord): IndexKey | undefined {
    const value = record[this.#field];
    if (typeof value === 'string') return this.#ignoreCase ? value.toLowerCase() : value;
    return typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  }
}
