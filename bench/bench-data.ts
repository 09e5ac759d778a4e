// The benchmark data: N products (or N gadgets, the declared collection of
// bench/declared-resources.json: the same records plus a sku), written twice — as a
// plainrest data directory (a snapshot of the first N−J records and one journal segment
// holding the last J, so a start reads both), and as one plain JSON array for the reference.

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredRecord } from '../src/json.js';
import { encodeEntry, segmentName } from '../src/store/journal-format.js';
import { writeSnapshot } from '../src/store/snapshot-file.js';

const CATEGORIES = ['coffee', 'tea', 'equipment', 'accessories', 'books', 'snacks', 'cups', 'gifts'];

/** The collections the benchmark fills: the example domain's products, or the declared gadgets. */
export type BenchCollection = 'products' | 'gadgets';

/** Records 1..count in 8 categories, with prices spread over 0.99 … 1000.98 (gadgets also have a sku). */
export function benchProducts(count: number, collection: BenchCollection = 'products'): StoredRecord[] {
  const now = new Date().toISOString();
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `Product ${index + 1}`,
    ...(collection === 'gadgets' ? { sku: `GAD-${index + 1}` } : {}),
    category: CATEGORIES[index % CATEGORIES.length] as string,
    price: Math.round(((index * 7919) % 100000) + 99) / 100,
    created_at: now,
    updated_at: now,
  }));
}

/** How many of `count` records the journal holds rather than the snapshot. */
function journalRecordCount(count: number): number {
  return Math.min(1000, Math.floor(count / 10));
}

/** `records` as a plainrest data directory: products.json (or gadgets.json) plus journal-000000000001.jsonl. */
export async function writeDataDirectory(dir: string, records: readonly StoredRecord[], collection: BenchCollection = 'products'): Promise<void> {
  const inSnapshot = records.length - journalRecordCount(records.length);
  await mkdir(dir, { recursive: true });
  // The snapshot's id counter stops at the first journal record: replaying a put moves
  // it past that record's id, so after the start it is records.length + 1.
  await writeSnapshot(join(dir, `${collection}.json`), records.slice(0, inSnapshot), inSnapshot + 1, 0);
  const entries = records
    .slice(inSnapshot)
    .map((record, index) => encodeEntry(index + 1, [{ kind: 'put', collection, record }]));
  if (entries.length > 0) await writeFile(join(dir, segmentName(1)), entries.join(''));
}

/** `records` as one plain JSON array, the reference server's input. */
async function writeReferenceFile(path: string, records: readonly StoredRecord[]): Promise<void> {
  await writeFile(path, JSON.stringify(records));
}

/** Both forms of `count` records under `dir`: `dir/data/` for plainrest, `dir/reference.json` for the reference. */
export async function writeBenchFiles(dir: string, count: number, collection: BenchCollection): Promise<{ dataDir: string; referenceFile: string }> {
  const records = benchProducts(count, collection);
  const dataDir = join(dir, 'data');
  const referenceFile = join(dir, 'reference.json');
  await writeDataDirectory(dataDir, records, collection);
  await writeReferenceFile(referenceFile, records);
  return { dataDir, referenceFile };
}

/** A fresh temporary data directory holding `count` products (and nothing else yet). */
export async function dataDirWithProducts(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plainrest-bench-'));
  await writeDataDirectory(dir, benchProducts(count));
  return dir;
}
