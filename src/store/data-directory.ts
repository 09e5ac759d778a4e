// The layout of DATA_DIR (README: Storage and durability) and reading it back:
//   <collection>.json            one snapshot per collection (written atomically)
//   journal-<first seq>.jsonl    journal segments, replayed after the snapshots
//   token-secret                 the HMAC key for tokens, mode 0600
//   plainrest.lock               the pid of the process that owns the directory
// Reading never writes: a torn last journal line is reported for the caller to cut.
// Every record loaded must fit its resource's declaration (stored-fields.ts): a field
// plainrest would neither show nor keep stops the start instead of being lost.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredRecord } from '../json.js';
import type { CollectionState } from './collection-state.js';
import { applyChange, emptyCollection, parseSnapshot } from './collection-state.js';
import { parseSegment, segmentFirstSeq } from './journal-format.js';
import type { ResourceTable } from '../declarations/compile-declaration.js';
import type { StoredCollection } from './store.js';
import { storedRecordMisfit } from './stored-fields.js';
import { COLLECTION_NAME, IDEMPOTENCY_COLLECTION } from './store.js';

export class StartupError extends Error {}

export function snapshotPath(dataDir: string, collection: StoredCollection): string {
  return join(dataDir, `${collection}.json`);
}

export interface DirectoryContents {
  readonly collections: Map<StoredCollection, CollectionState>;
  /** The highest seq in any snapshot or journal entry (0 for a new directory). */
  readonly lastSeq: number;
  /** Journal segment paths, oldest first. */
  readonly segments: readonly string[];
  /** A segment whose last line was torn, and the length to cut it back to. */
  readonly tornTail: { readonly path: string; readonly goodBytes: number } | undefined;
  /** No snapshot and no journal entry: a first start. */
  readonly isEmpty: boolean;
}

/**
 * Reads the snapshots of the declared collections and the idempotency keys, then the
 * journal. With `allSnapshots`, any other `<name>.json` that is a snapshot is read too,
 * so that a collection the declaration no longer has is seen (declaration-fit.ts); a
 * file of that name that is not a snapshot (a declaration kept there) is left alone.
 */
export async function readDataDirectory(dataDir: string, table: ResourceTable, allSnapshots = true): Promise<DirectoryContents> {
  const collections = new Map<StoredCollection, CollectionState>();
  const coveredUpTo = new Map<StoredCollection, number>();
  let lastSeq = 0;
  const names = await readdir(dataDir);
  const declared = [...table.resources.map((resource) => resource.collection), IDEMPOTENCY_COLLECTION];
  const others = allSnapshots
    ? names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length)).filter((name) => COLLECTION_NAME.test(name) && !declared.includes(name))
    : [];
  for (const collection of [...declared, ...others]) {
    const path = snapshotPath(dataDir, collection);
    const text = await readIfExists(path);
    if (text === undefined) continue;
    if (!declared.includes(collection) && !looksLikeSnapshot(text)) continue;
    const snapshot = parseOrExplain(path, () => parseSnapshot(text));
    for (const record of snapshot.state.records.values()) {
      const misfit = storedRecordMisfit(table, collection, record);
      if (misfit !== undefined) throw new StartupError(`${path}: record ${record.id} has the field ${misfit.field}${misfit.problem}`);
    }
    collections.set(collection, snapshot.state);
    coveredUpTo.set(collection, snapshot.journalSeq);
    lastSeq = Math.max(lastSeq, snapshot.journalSeq);
  }

  const segments = names
    .map((name) => ({ name, firstSeq: segmentFirstSeq(name) }))
    .filter((segment): segment is { name: string; firstSeq: number } => segment.firstSeq !== undefined)
    .sort((a, b) => a.firstSeq - b.firstSeq)
    .map((segment) => join(dataDir, segment.name));
  const texts = await Promise.all(segments.map((path) => readFile(path, 'utf8')));
  const newestWithData = texts.findLastIndex((text) => text.length > 0);
  let tornTail: DirectoryContents['tornTail'];
  let previousSeq = 0;
  for (const [index, path] of segments.entries()) {
    const parsed = parseOrExplain(path, () => parseSegment(texts[index] as string));
    if (parsed.tornTail && index !== newestWithData) {
      throw new StartupError(`journal ${path} ends in a damaged line but is not the newest segment; nothing was changed: restore the data directory from a backup`);
    }
    if (parsed.tornTail) tornTail = { path, goodBytes: parsed.goodBytes };
    for (const entry of parsed.entries) {
      if (entry.seq <= previousSeq) {
        throw new StartupError(`journal ${path} has seq ${entry.seq} after seq ${previousSeq}; nothing was changed: restore the data directory from a backup`);
      }
      previousSeq = entry.seq;
      for (const change of entry.changes) {
        if (entry.seq <= (coveredUpTo.get(change.collection) ?? 0)) continue; // already in the snapshot
        if (change.kind === 'put') requireEntryFits(table, path, entry.seq, change.collection, change.record);
        let state = collections.get(change.collection);
        if (state === undefined) {
          state = emptyCollection();
          collections.set(change.collection, state);
        }
        applyChange(state, change);
      }
    }
  }
  lastSeq = Math.max(lastSeq, previousSeq);
  // Empty segments alone (a first start cut short) still count as a first start.
  return { collections, lastSeq, segments, tornTail, isEmpty: collections.size === 0 };
}

/** A journal entry may put only records that fit their declaration (stored-fields.ts). */
function requireEntryFits(table: ResourceTable, path: string, seq: number, collection: StoredCollection, record: StoredRecord): void {
  const misfit = storedRecordMisfit(table, collection, record);
  if (misfit === undefined) return;
  throw new StartupError(`${path}: the entry with seq ${seq} puts ${collection} record ${record.id} with the field ${misfit.field}${misfit.problem}`);
}

/** A `.json` file in the data directory that a snapshot writer made: an object with "next_id" and "records". */
function looksLikeSnapshot(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && 'next_id' in parsed && 'records' in parsed;
  } catch {
    return false;
  }
}

function parseOrExplain<T>(path: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`${path} is corrupt (${reason}); nothing was changed: repair the file, or restore the data directory from a backup`);
  }
}

export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
