// Sorting many records without holding the event loop (README: Lists), for the sorted views of collection-index.ts:
// runs of RUN records sorted, then merged pairwise, pass after pass, giving way to other requests between slices of
// work, in the order Array.prototype.sort gives with the same comparison; or, by one field, each distinct value's
// records counted, the values sorted, and the records' ids placed by those counts.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoredRecord } from '../records/json.ts';
import { compareIds, type RecordId } from '../records/record-id.ts';
import type { SortKey } from './query.ts';

/** Records sorted in one go before the merges. */
const RUN = 4096;
/** Time spent sorting between two yields to the event loop. */
const SLICE_MS = 10;
/** Items merged, or records counted or placed, between two looks at the clock. */
const PER_CHECK = 1024;

/** Gives way to other requests once `sliceMs` of work has passed since it last did. */
class Slices {
  readonly #sliceMs: number;
  #deadline: number;

  constructor(sliceMs: number) {
    this.#sliceMs = sliceMs;
    this.#deadline = performance.now() + sliceMs;
  }

  /** Whether the slice is over: the caller then awaits giveWay. */
  get over(): boolean {
    return performance.now() >= this.#deadline;
  }

  async giveWay(): Promise<void> {
    await yieldToEventLoop();
    this.#deadline = performance.now() + this.#sliceMs;
  }
}

/** `items` in `order`, as a new array; `sliceMs` of work per turn of the event loop. */
export async function sortInSlices<T>(
  items: readonly T[],
  order: (a: T, b: T) => number,
  sliceMs = SLICE_MS,
): Promise<T[]> {
  const slices = new Slices(sliceMs);
  let source = items.slice();
  for (let start = 0; start < source.length; start += RUN) {
    const run = source.slice(start, start + RUN).sort(order);
    for (let index = 0; index < run.length; index++) source[start + index] = run[index] as T;
    if (slices.over) await slices.giveWay();
  }
  let target: T[] = new Array<T>(source.length);
  for (let width = RUN; width < source.length; width *= 2) {
    for (let left = 0; left < source.length; left += 2 * width) {
      const middle = Math.min(left + width, source.length);
      const end = Math.min(left + 2 * width, source.length);
      let i = left;
      let j = middle;
      for (let k = left; k < end; k++) {
        // Stable: of two equal items, the one from the left run first.
        if (i < middle && (j >= end || order(source[i] as T, source[j] as T) <= 0)) target[k] = source[i++] as T;
        else target[k] = source[j++] as T;
        if (k % PER_CHECK === 0 && slices.over) await slices.giveWay();
      }
    }
    [source, target] = [target, source];
  }
  return source;
}

type Primitive = string | number | boolean;

/** Whether `records` are in order by `field` already: ids rising, values of one type not falling, none or null last. */
async function inOrderOf(records: readonly StoredRecord[], field: string, slices: Slices): Promise<boolean> {
  let previous: Primitive | undefined;
  let previousId: RecordId | undefined;
  let absent = false;
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as StoredRecord;
    const value = record[field];
    if (previousId !== undefined && compareIds(record.id, previousId) <= 0) return false;
    previousId = record.id;
    if (value === undefined || value === null) absent = true;
    else if (absent || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean'))
      return false;
    else if (previous !== undefined && (typeof value !== typeof previous || value < previous)) return false;
    else previous = value;
    if (index % PER_CHECK === 0 && slices.over) await slices.giveWay();
  }
  return true;
}

/**
 * Record ids (sorted-ids.ts keeps them): integers four bytes each while every id fits, then eight; uuid and string ids
 * (record-id.ts) in a plain array.
 */
export type Ids = Uint32Array | Float64Array | RecordId[];

/** Room for `count` ids up to `largest` (undefined: string ids). */
function idsFor(count: number, largest: number | undefined): Ids {
  if (largest === undefined) return new Array<RecordId>(count);
  return largest > 0xffff_ffff ? new Float64Array(count) : new Uint32Array(count);
}

/** The largest of integer ids, or undefined for string ids. */
function largestOf(largest: number, id: RecordId): number | undefined {
  return typeof id === 'number' ? Math.max(largest, id) : undefined;
}

/**
 * The ids of `records`, in their order, read a slice at a time: records in an order other than the ids' lie all over
 * memory, and a million of them take a few hundred milliseconds to visit.
 */
export async function idsOf(records: readonly StoredRecord[], sliceMs = SLICE_MS): Promise<Ids> {
  const slices = new Slices(sliceMs);
  if (typeof records[0]?.id === 'string') return records.map((record) => record.id);
  let largest = 0;
  for (let index = 0; index < records.length; index++) {
    largest = Math.max(largest, (records[index] as StoredRecord).id as number);
    if (index % PER_CHECK === 0 && slices.over) await slices.giveWay();
  }
  const ids = idsFor(records.length, largest);
  for (let index = 0; index < records.length; index++) {
    ids[index] = (records[index] as StoredRecord).id;
    if (index % PER_CHECK === 0 && slices.over) await slices.giveWay();
  }
  return ids;
}

/**
 * The ids of `records`, in id order, sorted by `field` ascending in the order sorted-records.ts's orderBy gives (a
 * value before none or null, ties by id): as they are if already so (a creation time, often), else the records of
 * each distinct value counted, the values sorted (sortInSlices, when many), and each record placed after those of
 * every smaller value, in id order. Undefined when the values are not all of one type (numbers, strings or booleans)
 * or the records not in id order, for which sortInSlices with orderBy is the way.
 */
export async function idsSortedByOneField(
  records: readonly StoredRecord[],
  field: string,
  sliceMs = SLICE_MS,
): Promise<Ids | undefined> {
  const slices = new Slices(sliceMs);
  if (await inOrderOf(records, field, slices)) return idsOf(records, sliceMs);
  // Each distinct value's number, its records' count, and each record's value's number (−1: none or null); in arrays
  // of the JavaScript heap, whose memory is given back once they are collected, where typed arrays of a few MB would
  // leave holes in malloc's heap (word-sequence.ts).
  const numbers = new Map<Primitive, number>();
  const values: Primitive[] = [];
  const counts: number[] = [];
  const numberOf: number[] = [];
  let type: string | undefined;
  let previousId: RecordId | undefined;
  let largest: number | undefined = 0;
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as StoredRecord;
    if (previousId !== undefined && compareIds(record.id, previousId) <= 0) return undefined;
    previousId = record.id;
    largest = largest === undefined ? undefined : largestOf(largest, record.id);
    const value = record[field];
    if (value === undefined || value === null) {
      numberOf.push(-1);
    } else {
      if (typeof value !== type) {
        if (
          type !== undefined ||
          (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
        )
          return undefined;
        type = typeof value;
      }
      let number = numbers.get(value as Primitive);
      if (number === undefined) {
        number = values.length;
        numbers.set(value as Primitive, number);
        values.push(value as Primitive);
        counts.push(0);
      }
      counts[number] = (counts[number] as number) + 1;
      numberOf.push(number);
    }
    if (index % PER_CHECK === 0 && slices.over) await slices.giveWay();
  }
  const ascending = (a: number, b: number): number => {
    const x = values[a] as Primitive;
    const y = values[b] as Primitive;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const byValue = await sortInSlices(
    values.map((_, number) => number),
    ascending,
    sliceMs,
  );
  /** Where the next record of each value goes; those with none or null go after all others. */
  const next: number[] = new Array<number>(values.length);
  let place = 0;
  for (const number of byValue) {
    next[number] = place;
    place += counts[number] as number;
  }
  let absentPlace = place;
  const sorted = idsFor(records.length, largest);
  for (let index = 0; index < records.length; index++) {
    const number = numberOf[index] as number;
    sorted[number < 0 ? absentPlace++ : (next[number] as number)++] = (records[index] as StoredRecord).id;
    if (index % PER_CHECK === 0 && slices.over) await slices.giveWay();
  }
  return sorted;
}

/**
 * The ids of `matches` (in id order) in `order`, `sort`'s: by one field ascending, through each value's count
 * (idsSortedByOneField), else merged in slices.
 */
export async function sortedInSlices(
  matches: readonly StoredRecord[],
  sort: readonly SortKey[],
  order: (a: StoredRecord, b: StoredRecord) => number,
): Promise<Ids> {
  const [only] = sort;
  const counted =
    sort.length === 1 && only?.descending === false ? await idsSortedByOneField(matches, only.field) : undefined;
  return counted ?? idsOf(await sortInSlices(matches, order));
}

/** The ids of a few records, in their order, read at once. */
export function idsAtOnce(records: readonly StoredRecord[]): Ids {
  if (typeof records[0]?.id === 'string') return records.map((record) => record.id);
  const ids = idsFor(
    records.length,
    records.reduce((largest, record) => Math.max(largest, record.id as number), 0),
  );
  records.forEach((record, index) => (ids[index] = record.id));
  return ids;
}
