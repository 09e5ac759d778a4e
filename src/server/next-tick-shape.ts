// Keeps one entry of Node's process.nextTick queue reachable for the life of the process (bench/README.md, "GET item
// and the next-tick entry"). V8 keeps the entries' shape in a cache that turns megamorphic, for good, at the first
// other shape it meets, and a full garbage collection at a moment when no entry is alive frees the shape: from then
// on every nextTick (about ten per answer) goes through V8's runtime, 6-11 % of GET item's CPU on Node 20 and 22.

import { executionAsyncResource } from 'node:async_hooks';

/** The entry process.nextTick made for the callback below: Node hands a callback its entry as its resource. */
let held: object | undefined;
let scheduled = false;

/** Holds one next-tick entry, and so its shape, from the next tick on; once per process. */
export function keepNextTickShape(): void {
  if (scheduled) return;
  scheduled = true;
  process.nextTick(() => {
    held = executionAsyncResource();
  });
}

/** The entry held, once the tick after the first keepNextTickShape has run. */
export function heldNextTickEntry(): object | undefined {
  return held;
}
