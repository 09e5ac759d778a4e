// The in-memory form of one collection (README: Storage and durability): its records by id and the next id to give,
// what a stored record must hold, and a committed change applied to it. Its snapshot is written by snapshot-file.ts
// and read back by snapshot-stream.ts and parse-snapshot.ts.

import { isJsonObject } from '../records/json.ts';
import type { StoredRecord } from '../records/json.ts';
import { isStringId, type RecordId } from '../records/record-id.ts';
import type { Change } from './store.ts';

export interface CollectionState {
  /** The next integer id to hand out; never decreases, so ids are never reused (1 for uuid and string ids). */
  nextId: number;
  /** Records by id, in insertion order: ascending id order for integer ids. */
  readonly records: Map<RecordId, StoredRecord>;
}

/**
 * The largest next id a collection may hold, so its largest record id is one less: ids are JSON numbers, exact only up
 * to 2^53 − 1 (RFC 8259 §6). A snapshot past it stops the start; `plainrest import` refuses a file that would pass it.
 */
export const MAX_NEXT_ID = Number.MAX_SAFE_INTEGER;

/** Whether `value` may be a collection's next id: a whole number from 1 to MAX_NEXT_ID. */
export function isNextId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_NEXT_ID;
}

export function emptyCollection(): CollectionState {
  return { nextId: 1, records: new Map() };
}

/**
 * Whether `value` may be a stored record: an object with an id (a positive integer, or a string id, which a uuid is
 * too: record-id.ts) and its two timestamps. Which kind a collection takes is its declaration's (stored-fields.ts).
 */
export function isStoredRecord(value: unknown): value is StoredRecord {
  if (!isJsonObject(value)) return false;
  const id = value['id'];
  return (
    ((typeof id === 'number' && Number.isSafeInteger(id) && id >= 1) || isStringId(id)) &&
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
  const id = change.record.id;
  state.records.set(id, change.record);
  if (typeof id === 'number' && id >= state.nextId) state.nextId = id + 1;
}
