// Reading a snapshot (README: Storage and durability; snapshot-file.ts writes it, snapshot-stream.ts reads a file as a
// stream and hands its members here): readable JSON holding the id counter, the last journal entry it includes, and the
// records in id order. The shape is checked strictly, so a damaged file stops the start instead of being silently
// half-read.

import { isJsonObject } from '../records/json.ts';
import type { StoredRecord } from '../records/json.ts';
import { compareIds, type RecordId } from '../records/record-id.ts';
import type { CollectionState } from './collection-state.ts';
import { isNextId, isStoredRecord } from './collection-state.ts';

export interface Snapshot {
  readonly state: CollectionState;
  /** The sequence number of the last journal entry the snapshot includes (0: none). */
  readonly journalSeq: number;
}

/** What is wrong with a text that does not parse. */
export const NOT_VALID_JSON = 'it is not valid JSON';

/** Parses a snapshot; throws an Error whose message says what is wrong (the caller names the file). */
export function parseSnapshot(text: string): Snapshot {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(NOT_VALID_JSON);
  }
  if (!isJsonObject(parsed)) throw new Error('it is not a JSON object');
  return snapshotOf(new Map(Object.entries(parsed)));
}

/**
 * The snapshot a parsed top-level object's members make up, checked as parseSnapshot checks them. `checked`: the
 * records of "records", already checked against "next_id" as they were read (snapshot-stream.ts), in id order.
 */
export function snapshotOf(members: ReadonlyMap<string, unknown>, checked?: CollectionState): Snapshot {
  const nextId = members.get('next_id');
  const records = members.get('records');
  if (!isNextId(nextId)) {
    throw new Error('"next_id" is not a positive integer');
  }
  if (!Array.isArray(records)) throw new Error('"records" is not an array');
  const journalSeq = members.get('journal_seq') ?? 0;
  if (typeof journalSeq !== 'number' || !Number.isSafeInteger(journalSeq) || journalSeq < 0) {
    throw new Error('"journal_seq" is not a non-negative integer');
  }
  if (checked !== undefined) return { state: checked, journalSeq };
  // Snapshots are written in id order: the records go into the map as they are checked,
  // and only a file whose ids do not rise (hand-edited) pays for sorting them.
  const state: CollectionState = { nextId, records: new Map() };
  let previousId: RecordId | undefined;
  for (let index = 0; index < records.length; index++) {
    const record = checkedRecord(records[index], index, nextId);
    if (previousId !== undefined && compareIds(record.id, previousId) <= 0)
      return { state: sortedState(records, nextId), journalSeq };
    previousId = record.id;
    state.records.set(record.id, Object.freeze(record));
  }
  return { state, journalSeq };
}

/**
 * A snapshot's record `index` (from 0), checked: an object with an id (a positive integer below `nextId`, or a string
 * id: collection-state.ts) and its timestamps.
 */
export function checkedRecord(record: unknown, index: number, nextId: number): StoredRecord {
  if (!isStoredRecord(record))
    throw new Error(`record ${index + 1} lacks an id (a positive integer or a string id) or its timestamps`);
  if (typeof record.id === 'number' && record.id >= nextId)
    throw new Error(`record ${index + 1} has id ${record.id}, not below next_id ${nextId}`);
  return record;
}

/** The records of a snapshot whose ids are out of order: every one checked, then sorted, and none twice. */
function sortedState(records: readonly unknown[], nextId: number): CollectionState {
  const checked = records.map((record, index) => checkedRecord(record, index, nextId));
  const state: CollectionState = { nextId, records: new Map() };
  for (const record of checked.sort((a, b) => compareIds(a.id, b.id))) {
    if (state.records.has(record.id)) throw new Error(`id ${JSON.stringify(record.id)} appears twice`);
    state.records.set(record.id, Object.freeze(record));
  }
  return state;
}
