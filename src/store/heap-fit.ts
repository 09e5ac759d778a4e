// Whether the data fits this process's heap (README: Storage and durability): told before a data directory is read, in
// one line instead of V8's out-of-memory crash; and, while running, writes refused once the heap is nearly full, so
// what is acknowledged stays acknowledged and reads go on.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { StartupError } from './data-directory.ts';

/**
 * Heap a start needs per byte of JSON in the data directory's snapshots and journal, and besides: measured with
 * `npm run bench:scale`'s products, which start at 100,000 and 1,000,000 within 1.6 times their JSON and 48 MB, and
 * fail below that (bench/README.md).
 */
const HEAP_PER_JSON_BYTE = 1.6;
const HEAP_BESIDES = 48 * 1024 * 1024;
/** Past this share of the heap's limit, writes are refused (503) and the server is not ready. */
const NEARLY_FULL = 0.9;
const MB = 1024 * 1024;

export interface HeapUse {
  readonly used: number;
  readonly limit: number;
}

export function currentHeap(): HeapUse {
  const { used_heap_size: used, heap_size_limit: limit } = getHeapStatistics();
  return { used, limit };
}

/** A StartupError when the JSON of `dataDir` needs more heap than `limit` allows; nothing is read but file sizes. */
export async function requireHeapFor(dataDir: string, limit = currentHeap().limit): Promise<void> {
  let bytes = 0;
  let names: string[];
  try {
    names = await readdir(dataDir);
  } catch {
    return; // no directory yet: nothing to load
  }
  for (const name of names) {
    if (name.endsWith('.json') || name.endsWith('.jsonl')) bytes += (await stat(join(dataDir, name))).size;
  }
  const needed = HEAP_PER_JSON_BYTE * bytes + HEAP_BESIDES;
  if (needed <= limit) return;
  const suggested = Math.ceil((needed * 1.25) / (64 * MB)) * 64;
  throw new StartupError(
    `the data in ${dataDir} (${Math.round(bytes / MB)} MB of JSON) needs about ${Math.round(needed / MB)} MB of ` +
      `heap and this process may use ${Math.round(limit / MB)} MB; nothing was changed: start node with ` +
      `--max-old-space-size=${suggested} (NODE_OPTIONS), or keep the data in PostgreSQL (DATABASE_URL)`,
  );
}

/** Why writes are refused for now (the heap nearly full), else undefined. */
export function heapNearlyFull(heap: HeapUse): string | undefined {
  if (heap.used <= NEARLY_FULL * heap.limit) return undefined;
  return (
    `the server's memory is nearly full (${Math.round(heap.used / MB)} of ${Math.round(heap.limit / MB)} MB); ` +
    'writes are refused until it frees some; restart it with a larger --max-old-space-size, or keep the data in PostgreSQL'
  );
}
