// JSON value types shared by the validator, the store and the representations.
// Request bodies arrive as `unknown` and are narrowed by the validator; after it,
// records are plain JSON objects keyed by their internal (English) field names.

import type { RecordId } from './record-id.ts';

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** A stored record: a frozen JSON object with its id (record-id.ts) and timestamps. */
export interface StoredRecord extends JsonObject {
  readonly id: RecordId;
  readonly created_at: string;
  readonly updated_at: string;
}

/** Field values keyed by internal name, as the validator produces them. */
export type Fields = Record<string, JsonValue>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of two JSON values (object key order ignored). */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item: JsonValue, index: number) => jsonEqual(item, b[index]));
  }
  const objectA = a as JsonObject;
  const objectB = b as JsonObject;
  const keys = Object.keys(objectA);
  if (keys.length !== Object.keys(objectB).length) return false;
  return keys.every((key) => Object.hasOwn(objectB, key) && jsonEqual(objectA[key], objectB[key]));
}
