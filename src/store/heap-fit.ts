// Whether the data fits this process's heap (README: Storage and durability): told before a data directory is read, in
// one line instead of V8's out-of-memory crash; and, while running, writes refused once the heap is nearly full, so
// what is acknowledged stays acknowledged and reads go on.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { StartupError } from './data-directory.ts';

/**
 * Old-generation heap a start needs per byte of JSON in the data directory's snapshots and journal, and besides, the
 * word indexes it builds after the start counted in: `npm run bench:scale`'s products run at 100,000 and 1,000,000
 * within 1.8 times their JSON and 8 MB on Node 20 and 26, and fail below about 1.6 times (bench/README.md).
 */
const HEAP_PER_JSON_BYTE = 1.8;
const HEAP_BESIDES = 8 * 1024 * 1024;
/** Past this share of the heap's limit, writes are refused (503) and the server is not ready. */
const NEARLY_FULL = 0.9;
const MB = 1024 * 1024;
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

export interface HeapUse {
  readonly used: number;
  readonly limit: number;
}

/** The old generation's use, where the records live (the young generation holds only new objects), and its limit. */
export function currentHeap(): HeapUse {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (!YOUNG_SPACES.has(space.space_name)) used += space.space_used_size;
  return { used, limit: heapLimit() };
}

/** Fixed for the process's life: read once (every write asks for the heap). */
let limitOnce: number | undefined;

function heapLimit(): number {
  return (limitOnce ??= oldGenerationLimit() ?? getHeapStatistics().heap_size_limit);
}

/**
 * The old generation's limit when `--max-old-space-size` is given (on the command line or in NODE_OPTIONS; the last
 * one counts): V8's heap limit adds the young generation to it, which differs from one Node line to the next.
 */
function oldGenerationLimit(): number | undefined {
  const flags = [...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/), ...process.execArgv];
  let megabytes: number | undefined;
  flags.forEach((flag, index) => {
    const [name, value = flags[index + 1]] = flag.split('=');
    if (name === '--max-old-space-size' || name === '--max_old_space_size') {
      const parsed = Number(value);
      if (Number.isFinite(parsed) && parsed > 0) megabytes = parsed;
    }
  });
  return megabytes === undefined ? undefined : megabytes * MB;
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
    'writes are refused until it frees some; ' +
    'restart it with a larger --max-old-space-size, or keep the data in PostgreSQL'
  );
}
