// The in-memory form of one collection and reading its on-disk snapshot (README: Storage and durability;
// snapshot-file.ts writes it). A snapshot is readable JSON: the id counter, the last
// journal entry it includes, and one record per line, in id order. Loading checks the
// shape strictly, so a damaged file stops the start instead of being silently half-read.

import { isJsonObject } from '../json.js';
import type { StoredRecord } from '../json.js';
import type { Change } from './store.js';

export interface CollectionState {
  /** The next id to hand out; never decreases, so ids are never reused. */
  nextId: number;
  /** Records by id, in insertion order, which is ascending id order. */
  readonly records: Map<number, StoredRecord>;
}

export function emptyCollection(): CollectionState {
  return { nextId: 1, records: new Map() };
}

export interface Snapshot {
  readonly state: CollectionState;
  /** The sequence number of the last journal entry the snapshot includes (0: none). */
  readonly journalSeq: number;
}

/** Parses a snapshot; throws an Error whose message says what is wrong (the caller names the file). */
export function parseSnapshot(text: string): Snapshot {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('it is not valid JSON');
  }
  if (!isJsonObject(parsed)) throw new Error('it is not a JSON object');
  const nextId = parsed['next_id'];
  const records = parsed['records'];
  if (typeof nextId !== 'number' || !Number.isSafeInteger(nextId) || nextId < 1) {
    throw new Error('"next_id" is not a positive integer');
  }
  if (!Array.isArray(records)) throw new Error('"records" is not an array');
  const journalSeq = parsed['journal_seq'] ?? 0;
  if (typeof journalSeq !== 'number' || !Number.isSafeInteger(journalSeq) || journalSeq < 0) {
    throw new Error('"journal_seq" is not a non-negative integer');
  }
  const state: CollectionState = { nextId, records: new Map() };
  // Snapshots are written in id order, so the records are normally sorted already;
  // only a hand-edited file pays for sorting.
  let previousId = 0;
  let sorted = true;
  (records as unknown[]).forEach((record, index) => {
    if (!isStoredRecord(record)) throw new Error(`record ${index + 1} lacks a positive integer id or its timestamps`);
    if (record.id >= nextId) throw new Error(`record ${index + 1} has id ${record.id}, not below next_id ${nextId}`);
    if (record.id <= previousId) sorted = false;
    previousId = record.id;
  });
  const inOrder = sorted ? (records as StoredRecord[]) : [...(records as StoredRecord[])].sort((a, b) => a.id - b.id);
  for (const record of inOrder) {
    if (state.records.has(record.id)) throw new Error(`id ${record.id} appears twice`);
    state.records.set(record.id, Object.freeze(record));
  }
  return { state, journalSeq };
}

export function isStoredRecord(value: unknown): value is StoredRecord {
  if (!isJsonObject(value)) return false;
  const id = value['id'];
  return (
    typeof id === 'number' &&
    Number.isSafeInteger(id) &&
    id >= 1 &&
    typeof value['created_at'] === 'string' &&
    typeof value['updated_at'] === 'string'
  );
}

/** Applies one committed change; a put also moves the id counter past its id. */
export function applyChange(state: CollectionState, change: Change): void {
  if (change.kind === 'delete') {
    state.records.delete(change.id);
    return;
  }
  state.records.set(change.record.id, change.record);
  if (change.record.id >= state.nextId) state.nextId = change.record.id + 1;
}
