// How a stored record looks to a client: declared fields in declaration order, in the
// client's vocabulary, without write-only fields; and its strong entity tag
// (RFC 9110 §8.8.3), a hash of exactly those bytes. Records are immutable, so each
// representation is serialised once per record version and language and then reused.
// A record just written is serialised once for both the journal and the answer where
// the two texts are the same (every stored field shown under its own name).

import * as crypto from 'node:crypto';
import type { JsonObject, JsonValue, StoredRecord } from './json.js';
import { isJsonObject } from './json.js';
import type { FieldRule, ResourceDefinition } from './resources/definition.js';
import { CREATED_AT_FIELD, ID_FIELD, UPDATED_AT_FIELD } from './resources/definition.js';
import type { Language } from './vocabulary.js';
import { translate } from './vocabulary.js';

export interface Representation {
  /** The record as JSON text. */
  readonly json: string;
  /** Its length in bytes (UTF-8), for Content-Length: measuring a string costs more than the rest of a read's own work. */
  readonly length: number;
  /** A strong validator, quoted: `"…"`. */
  readonly etag: string;
}

/** One cache per language, each holding a record's representation until the record is dropped. */
const caches: Record<Language, WeakMap<StoredRecord, Representation>> = { en: new WeakMap(), pt: new WeakMap() };

export function represent(definition: ResourceDefinition, record: StoredRecord, language: Language): Representation {
  return caches[language].get(record) ?? remember(record, language, JSON.stringify(toExternal(definition.fields, record, language)));
}

function remember(record: StoredRecord, language: Language, json: string): Representation {
  const representation = { json, length: Buffer.byteLength(json), etag: entityTag(json) };
  caches[language].set(record, representation);
  return representation;
}

/** A record as stored (the journal's text) and as the client sees it. */
export interface WrittenRecord {
  /** `JSON.stringify(record)`. */
  readonly stored: string;
  readonly representation: Representation;
}

/**
 * Serialises a record that `finishRecord` has just built for the journal and for the
 * answer. Where the representation is the stored record itself, one JSON.stringify
 * serves both.
 */
export function serializeWritten(definition: ResourceDefinition, record: StoredRecord, language: Language): WrittenRecord {
  const stored = JSON.stringify(record);
  const representation = showsRecordAsStored(definition, language)
    ? (caches[language].get(record) ?? remember(record, language, stored))
    : represent(definition, record, language);
  return { stored, representation };
}

const asStored: Record<Language, WeakMap<ResourceDefinition, boolean>> = { en: new WeakMap(), pt: new WeakMap() };

/**
 * True when a record as finishRecord builds it (the id, the other fields in declaration
 * order, then the two timestamps) has the same JSON as its representation: the
 * declaration has that order too, and no field is hidden, nested, kept under another
 * name or renamed in `language`.
 */
export function showsRecordAsStored(definition: ResourceDefinition, language: Language): boolean {
  let answer = asStored[language].get(definition);
  if (answer === undefined) {
    const rules = definition.fields;
    answer =
      rules[0] === ID_FIELD &&
      rules.at(-2) === CREATED_AT_FIELD &&
      rules.at(-1) === UPDATED_AT_FIELD &&
      rules.filter((rule) => rule.type === 'id' || rule.type === 'timestamp').length === 3 &&
      rules.every((rule) => rule.access !== 'write-only' && rule.of === undefined && rule.storedAs === undefined && translate(rule.name, language) === rule.name);
    asStored[language].set(definition, answer);
  }
  return answer;
}

/** Only the named fields, for bodies that are not the whole record (a new user's `{id, name}`). */
export function representFields(
  definition: ResourceDefinition,
  record: StoredRecord,
  language: Language,
  names: readonly string[],
): string {
  const rules = definition.fields.filter((rule) => names.includes(rule.name));
  return JSON.stringify(toExternal(rules, record, language));
}

export function entityTag(json: string): string {
  return `"${sha1(json)}"`;
}

/** One-shot `crypto.hash` (Node ≥ 20.12) is about twice as fast as createHash on short text; older Node 20 falls back. */
const sha1: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha1', text, 'base64url')
    : (text) => crypto.createHash('sha1').update(text).digest('base64url');

function toExternal(rules: readonly FieldRule[], record: JsonObject, language: Language): JsonObject {
  const external: Record<string, JsonValue> = {};
  for (const rule of rules) {
    if (rule.access === 'write-only') continue;
    const value = record[rule.name];
    if (value === undefined) continue;
    external[translate(rule.name, language)] = rule.of === undefined ? value : listToExternal(rule.of, value, language);
  }
  return external;
}

function listToExternal(rules: readonly FieldRule[], value: JsonValue, language: Language): JsonValue {
  if (!Array.isArray(value)) return value;
  return (value as readonly JsonValue[]).map((element) =>
    isJsonObject(element) ? toExternal(rules, element, language) : element,
  );
}
