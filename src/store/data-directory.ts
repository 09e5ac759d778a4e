// The layout of DATA_DIR (README: Storage and durability) and reading it back: `<collection>.json`, one snapshot per
// collection (written atomically); `journal-<first seq>.jsonl`, segments replayed after the snapshots; `token-secret`,
// the HMAC key for tokens (0600); `plainrest.lock`, the owner's pid. Reading never writes (a torn last journal line is
// reported for the caller to cut); a record that does not fit its declaration stops the start (stored-fields.ts).

import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CollectionState } from './collection-state.ts';
import { applyChange, emptyCollection } from './collection-state.ts';
import type { Snapshot } from './parse-snapshot.ts';
import { parseSnapshot } from './parse-snapshot.ts';
import { readSnapshotFile } from './snapshot-stream.ts';
import type { JournalEntry, UndecodedEntry } from './journal-format.ts';
import { isUndecoded, readSegment, segmentFirstSeq, seqsTaken } from './journal-format.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { StoredCollection } from './store.ts';
import type { Misfit } from './stored-fields.ts';
import { storedRecordMisfit } from './stored-fields.ts';
import { firstIds } from './declaration-fit.ts';
import { COLLECTION_NAME_PATTERN, IDEMPOTENCY_COLLECTION } from './store.ts';
import type { RecordId } from '../records/record-id.ts';

export class StartupError extends Error {}

export function snapshotPath(dataDir: string, collection: StoredCollection): string {
  return join(dataDir, `${collection}.json`);
}

/** One segment's entries, oldest first; those the snapshots cover may be undecoded (journal-format.ts: readSegment). */
export interface SegmentHistory {
  readonly path: string;
  readonly entries: readonly (JournalEntry | UndecodedEntry)[];
}

export interface DirectoryContents {
  readonly collections: Map<StoredCollection, CollectionState>;
  /** The highest seq in any snapshot or journal entry (0 for a new directory). */
  readonly lastSeq: number;
  /** Journal segment paths, oldest first. */
  readonly segments: readonly string[];
  /**
   * Every journal entry, oldest first, those the snapshots cover too: the change feed's
   * history. An entry every snapshot covers is left undecoded when it is written as
   * plainrest writes it: no record needs it, and the feed decodes it after the start.
   */
  readonly history: readonly SegmentHistory[];
  /** The change feed's history holds nothing up to this number: those events are gone. */
  readonly eventsLostThrough: number;
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
export async function readDataDirectory(
  dataDir: string,
  table: ResourceTable,
  allSnapshots = true,
): Promise<DirectoryContents> {
  const collections = new Map<StoredCollection, CollectionState>();
  const coveredUpTo = new Map<StoredCollection, number>();
  let lastSeq = 0;
  const names = await readdir(dataDir);
  const declared = [...table.resources.map((resource) => resource.collection), IDEMPOTENCY_COLLECTION];
  const others = allSnapshots
    ? names
        .filter((name) => name.endsWith('.json'))
        .map((name) => name.slice(0, -'.json'.length))
        .filter((name) => COLLECTION_NAME_PATTERN.test(name) && !declared.includes(name))
    : [];
  for (const collection of [...declared, ...others]) {
    const path = snapshotPath(dataDir, collection);
    let snapshot: Snapshot | undefined;
    if (declared.includes(collection)) {
      snapshot = await readSnapshotFile(path).catch((error: unknown) => {
        // A file that cannot be read is the machine's problem, as it is; one that does not parse is a damaged file.
        throw (error as NodeJS.ErrnoException).code === undefined ? corrupt(path, error) : error;
      });
    } else {
      const text = await readIfExists(path);
      if (text === undefined || !looksLikeSnapshot(text)) continue;
      snapshot = parseOrExplain(path, () => parseSnapshot(text));
    }
    if (snapshot === undefined) continue;
    const misfit = snapshotMisfit(table, collection, snapshot.state);
    if (misfit !== undefined) throw new StartupError(`${path}: ${misfit}`);
    collections.set(collection, snapshot.state);
    coveredUpTo.set(collection, snapshot.journalSeq);
    lastSeq = Math.max(lastSeq, snapshot.journalSeq);
  }
  // Entries up to here change nothing any snapshot lacks. A collection without a snapshot
  // (a new one, a first start) is covered by nothing, and every entry is then decoded.
  const everySnapshotCovers = Math.min(
    ...[...declared, ...others].map((collection) => coveredUpTo.get(collection) ?? 0),
  );

  const segments = names
    .map((name) => ({ name, firstSeq: segmentFirstSeq(name) }))
    .filter((segment): segment is { name: string; firstSeq: number } => segment.firstSeq !== undefined)
    .sort((a, b) => a.firstSeq - b.firstSeq)
    .map((segment) => join(dataDir, segment.name));
  const texts = await Promise.all(segments.map((path) => readFile(path, 'utf8')));
  const newestWithData = texts.findLastIndex((text) => text.length > 0);
  let tornTail: DirectoryContents['tornTail'];
  let previousSeq = 0;
  let lastTaken = 0;
  const history: SegmentHistory[] = [];
  const entryMisfits: EntryMisfit[] = [];
  for (const [index, path] of segments.entries()) {
    const parsed = parseOrExplain(path, () => readSegment(texts[index] as string, everySnapshotCovers));
    if (parsed.tornTail && index !== newestWithData) {
      throw new StartupError(
        `journal ${path} ends in a damaged line but is not the newest segment; ` +
          `nothing was changed: restore the data directory from a backup`,
      );
    }
    if (parsed.tornTail) tornTail = { path, goodBytes: parsed.goodBytes };
    history.push({ path, entries: parsed.entries });
    for (const entry of parsed.entries) {
      if (entry.seq <= previousSeq) {
        throw new StartupError(
          `journal ${path} has seq ${entry.seq} after seq ${previousSeq}; ` +
            `nothing was changed: restore the data directory from a backup`,
        );
      }
      if (isUndecoded(entry)) {
        // Its numbers end before any snapshot's seq (a snapshot covers whole entries), so
        // lastSeq is right without it; the feed checks the rest when it decodes it.
        previousSeq = entry.seq;
        lastTaken = Math.max(lastTaken, entry.seq);
        continue;
      }
      // Since the change feed an entry takes one number per change; only older lines (without `at`) may overlap.
      if (entry.at !== undefined && entry.seq <= lastTaken) {
        throw new StartupError(
          `journal ${path} has seq ${entry.seq}, a number the entry before it took (up to ${lastTaken}); ` +
            `nothing was changed: restore the data directory from a backup`,
        );
      }
      previousSeq = entry.seq;
      lastTaken = Math.max(lastTaken, entry.seq + seqsTaken(entry.changes) - 1);
      for (const change of entry.changes) {
        if (entry.seq <= (coveredUpTo.get(change.collection) ?? 0)) continue; // already in the snapshot
        if (change.kind === 'put') {
          const misfit = storedRecordMisfit(table, change.collection, change.record);
          if (misfit !== undefined)
            entryMisfits.push({ path, seq: entry.seq, collection: change.collection, id: change.record.id, ...misfit });
        }
        let state = collections.get(change.collection);
        if (state === undefined) {
          state = emptyCollection();
          collections.set(change.collection, state);
        }
        applyChange(state, change);
      }
    }
  }
  const misfit = entryMisfit(entryMisfits);
  if (misfit !== undefined) throw new StartupError(misfit);
  lastSeq = Math.max(lastSeq, lastTaken);
  const firstKept = segments.length === 0 ? undefined : segmentFirstSeq(basename(segments[0] as string));
  // Everything before the oldest segment is gone from the journal: the feed's history starts after it.
  const eventsLostThrough = firstKept === undefined ? lastSeq : Math.min(lastSeq, firstKept - 1);
  // Empty segments alone (a first start cut short) still count as a first start.
  return { collections, lastSeq, segments, history, eventsLostThrough, tornTail, isEmpty: collections.size === 0 };
}

/**
 * The records of a snapshot that do not fit their declaration (a narrowed type, a field
 * no longer declared): the first one's field and problem, and, when other records have
 * the same field wrong, how many in all and their first ids (README: Your own resources).
 */
function snapshotMisfit(
  table: ResourceTable,
  collection: StoredCollection,
  state: CollectionState,
): string | undefined {
  let first: { id: RecordId; field: string; problem: string } | undefined;
  const sameField: RecordId[] = [];
  for (const record of state.records.values()) {
    const misfit = storedRecordMisfit(table, collection, record);
    if (misfit === undefined) continue;
    first ??= { id: record.id, ...misfit };
    if (misfit.field === first.field) sameField.push(record.id);
  }
  if (first === undefined) return undefined;
  const message = `record ${first.id} has the field ${first.field}${first.problem}`;
  return sameField.length === 1 ? message : `${message}${sameFieldSummary(collection, first.field, sameField)}`;
}

/** A journal entry that puts a record its declaration does not fit (stored-fields.ts). */
interface EntryMisfit extends Misfit {
  readonly path: string;
  readonly seq: number;
  readonly collection: StoredCollection;
  readonly id: RecordId;
}

/** The first misfit entry, and how many records in all have the same field wrong and their first ids. */
function entryMisfit(misfits: readonly EntryMisfit[]): string | undefined {
  const first = misfits[0];
  if (first === undefined) return undefined;
  const message =
    `${first.path}: the entry with seq ${first.seq} puts ${first.collection} record ${first.id} with ` +
    `the field ${first.field}${first.problem}`;
  const ids = [
    ...new Set(
      misfits
        .filter((misfit) => misfit.collection === first.collection && misfit.field === first.field)
        .map((misfit) => misfit.id),
    ),
  ];
  return ids.length === 1 ? message : `${message}${sameFieldSummary(first.collection, first.field, ids)}`;
}

/** ` (3 notes records have "text" wrong: ids 1, 2, 3)`. */
function sameFieldSummary(collection: StoredCollection, field: string, ids: readonly RecordId[]): string {
  return ` (${ids.length} ${collection} records have ${field} wrong: ${firstIds(ids)})`;
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
    throw corrupt(path, error);
  }
}

function corrupt(path: string, error: unknown): StartupError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StartupError(
    `${path} is corrupt (${reason}); nothing was changed: repair the file, or restore the data directory from a backup`,
  );
}

export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
