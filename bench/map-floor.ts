// The floor a store's memory per record is judged against (bench/scale-bench.ts): a snapshot's records parsed into a
// bare Map, as a start reads them (store/snapshot-stream.ts), in a process of its own. Prints the RSS and the heap
// they add per record, after full collections. Usage: node --expose-gc --import tsx bench/map-floor.ts SNAPSHOT_FILE

import { readSnapshotFile } from '../src/store/snapshot-stream.ts';

const [path] = process.argv.slice(2);
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined || path === undefined) {
  console.error('usage: node --expose-gc --import tsx bench/map-floor.ts SNAPSHOT_FILE');
  process.exit(2);
}

/** RSS, and the heap with array buffers: what the JavaScript objects take. */
function settled(): { rss: number; heap: number } {
  collect?.();
  collect?.();
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
  return { rss, heap: heapUsed + arrayBuffers };
}

const before = settled();
const snapshot = await readSnapshotFile(path);
const count = snapshot?.state.records.size ?? 0;
const after = settled();
console.log(
  JSON.stringify({
    count,
    rssAdded: after.rss - before.rss,
    heapAdded: after.heap - before.heap,
    rssPerRecord: (after.rss - before.rss) / count,
    heapPerRecord: (after.heap - before.heap) / count,
  }),
);
