// The records whose field holds one of several values (`status[in]=paid,sent`, README: Lists): the equality index's
// buckets of those values, merged in id order, so that a page of them costs its records and the buckets' count, not a
// pass over the collection.

import type { StoredRecord } from '../records/json.ts';
import { BY_ID, type SortedRecords } from './sorted-records.ts';

/** Buckets merged head by head at most; more are joined and sorted (a merge step costs one look at every bucket). */
const MERGED_BUCKETS = 8;

export class OneOfBuckets {
  readonly #buckets: readonly SortedRecords[];
  /** How many records the buckets hold: they are of distinct values, so none is in two. */
  readonly length: number;

  /** Takes the buckets (each in id order) of distinct values. */
  constructor(buckets: readonly SortedRecords[]) {
    this.#buckets = buckets;
    this.length = buckets.reduce((total, bucket) => total + bucket.length, 0);
  }

  /** Every record the buckets hold, in no particular order: for a list sorted afterwards anyway. */
  records(): StoredRecord[] {
    return this.#buckets.flatMap((bucket) => bucket.slice(0, bucket.length));
  }

  /**
   * The first `count` records in id order (all by default): a merge that stops there, each step choosing among the
   * buckets' heads; past MERGED_BUCKETS buckets, or for all of them, the buckets joined and sorted by id instead.
   */
  firstInIdOrder(count: number = this.length): StoredRecord[] {
    const buckets = this.#buckets;
    if (buckets.length === 1) return (buckets[0] as SortedRecords).slice(0, count);
    if (buckets.length > MERGED_BUCKETS || count >= this.length) return this.records().sort(BY_ID).slice(0, count);
    const positions = buckets.map(() => 0);
    const merged: StoredRecord[] = [];
    while (merged.length < count) {
      let next: StoredRecord | undefined;
      let from = -1;
      for (let index = 0; index < buckets.length; index++) {
        const record = (buckets[index] as SortedRecords).at(positions[index] as number);
        if (record !== undefined && (next === undefined || record.id < next.id)) {
          next = record;
          from = index;
        }
      }
      if (next === undefined) break;
      merged.push(next);
      positions[from] = (positions[from] as number) + 1;
    }
    return merged;
  }
}
