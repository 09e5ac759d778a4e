// Sorting many records without holding the event loop (README: Lists), for the sorted views of collection-index.ts:
// runs of RUN records sorted, then merged pairwise, pass after pass, giving way to other requests between slices of
// work. The order and the result are those of Array.prototype.sort with the same comparison.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoredRecord } from '../records/json.ts';
import type { RecordOrder } from './sorted-records.ts';

/** Records sorted in one go before the merges. */
const RUN = 4096;
/** Time spent sorting between two yields to the event loop. */
const SLICE_MS = 10;
/** Records merged between two looks at the clock. */
const MERGED_PER_CHECK = 1024;

/** `records` in `order`, as a new array; `sliceMs` of work per turn of the event loop. */
export async function sortInSlices(
  records: readonly StoredRecord[],
  order: RecordOrder,
  sliceMs = SLICE_MS,
): Promise<StoredRecord[]> {
  let deadline = performance.now() + sliceMs;
  const giveWay = async (): Promise<void> => {
    await yieldToEventLoop();
    deadline = performance.now() + sliceMs;
  };
  let source = records.slice();
  for (let start = 0; start < source.length; start += RUN) {
    const run = source.slice(start, start + RUN).sort(order);
    for (let index = 0; index < run.length; index++) source[start + index] = run[index] as StoredRecord;
    if (performance.now() >= deadline) await giveWay();
  }
  let target: StoredRecord[] = new Array<StoredRecord>(source.length);
  for (let width = RUN; width < source.length; width *= 2) {
    for (let left = 0; left < source.length; left += 2 * width) {
      const middle = Math.min(left + width, source.length);
      const end = Math.min(left + 2 * width, source.length);
      let i = left;
      let j = middle;
      for (let k = left; k < end; k++) {
        // Stable: of two equal records, the one from the left run first.
        if (i < middle && (j >= end || order(source[i] as StoredRecord, source[j] as StoredRecord) <= 0))
          target[k] = source[i++] as StoredRecord;
        else target[k] = source[j++] as StoredRecord;
        if (k % MERGED_PER_CHECK === 0 && performance.now() >= deadline) await giveWay();
      }
    }
    [source, target] = [target, source];
  }
  return source;
}
