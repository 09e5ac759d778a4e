// The in-memory form of one collection and its on-disk snapshot form (CONTRACT §9).
// A snapshot is readable JSON: the id counter and one record per line, in id order.
// Loading checks the shape strictly, so a damaged file stops the start instead of
// being silently half-read.

import { isJsonObject } from '../json.js';
import type { StoredRecord } from '../json.js';

export interface CollectionState {
  /** The next id to hand out; never decreases, so ids are never reused. */
  nextId: number;
  /** Records by id, in insertion order, which is ascending id order. */
  readonly records: Map<number, StoredRecord>;
}

export function emptyCollection(): CollectionState {
  return { nextId: 1, records: new Map() };
}

export function serializeCollection(state: CollectionState): string {
  const lines: string[] = [];
  for (const record of state.records.values()) lines.push(JSON.stringify(record));
  const records = lines.length === 0 ? '[]' : `[\n    ${lines.join(',\n    ')}\n  ]`;
  return `{\n  "next_id": ${state.nextId},\n  "records": ${records}\n}\n`;
}

/** Parses a snapshot; throws an Error whose message says what is wrong (the caller names the file). */
export function parseCollection(text: string): CollectionState {
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
  const state: CollectionState = { nextId, records: new Map() };
  const sorted = [...(records as unknown[])];
  sorted.forEach((record, index) => {
    if (!isStoredRecord(record)) throw new Error(`record ${index + 1} lacks a positive integer id or its timestamps`);
    if (record.id >= nextId) throw new Error(`record ${index + 1} has id ${record.id}, not below next_id ${nextId}`);
  });
  (sorted as StoredRecord[]).sort((a, b) => a.id - b.id);
  for (const record of sorted as StoredRecord[]) {
    if (state.records.has(record.id)) throw new Error(`id ${record.id} appears twice`);
    state.records.set(record.id, Object.freeze(record));
  }
  return state;
}

function isStoredRecord(value: unknown): value is StoredRecord {
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
