// How a stored record looks to a client: declared fields in declaration order, in the client's vocabulary, without
// write-only fields; and its strong entity tag (RFC 9110 §8.8.3), a hash of exactly those bytes. Records are
// immutable, so with caches on (README: Caches) each is made once per record version and language (the cache below).

import * as crypto from 'node:crypto';
import type { JsonObject, JsonValue, StoredRecord } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { FieldRule, Language, ResourceDefinition, Vocabulary } from './definition.ts';
import { CREATED_AT_FIELD, ID_FIELD, UPDATED_AT_FIELD, vocabularyOf } from './definition.ts';

export interface Representation {
  /** The record as JSON text. */
  readonly json: string;
  /**
   * Its length in bytes (UTF-8), for Content-Length: measuring a string costs more than the rest of a read's own work.
   */
  readonly length: number;
  /** A strong validator, quoted: `"…"`. */
  readonly etag: string;
}

/**
 * The record as the client sees it: made now (`freshRepresentation`), or with caches on (`useCaches`, README: Caches)
 * the one kept for this record version (`keptRepresentation`, the cache at the end of this file).
 */
export function represent(
  definition: ResourceDefinition,
  record: StoredRecord,
  vocabulary: Vocabulary,
  useCaches: boolean,
): Representation {
  return useCaches
    ? keptRepresentation(definition, record, vocabulary)
    : freshRepresentation(definition, record, vocabulary);
}

/** The record's declared fields as JSON text, with its length and entity tag, made now. */
function freshRepresentation(
  definition: ResourceDefinition,
  record: StoredRecord,
  vocabulary: Vocabulary,
): Representation {
  return representationOfJson(JSON.stringify(toExternal(definition.fields, record, vocabulary)));
}

/** `json` as a representation: its length in bytes and its strong ETag, made now (kept only if a caller keeps it). */
export function representationOfJson(json: string): Representation {
  return { json, length: Buffer.byteLength(json), etag: entityTag(json) };
}

/** A record as stored (the journal's text) and as the client sees it. */
export interface WrittenRecord {
  /** `JSON.stringify(record)`. */
  readonly stored: string;
  readonly representation: Representation;
}

/**
 * Serialises a record that `recordToStore` has just built for the journal and for the
 * answer. Where the representation is the stored record itself (every stored field shown under its own name), one
 * JSON.stringify serves both.
 */
export function serializeWritten(
  definition: ResourceDefinition,
  record: StoredRecord,
  vocabulary: Vocabulary,
): WrittenRecord {
  const stored = JSON.stringify(record);
  // Kept whatever CACHES says (no setting reaches here, so useCaches is true): a write still fills the representation
  // cache, which a read with caches off leaves unused, making its own.
  const representation = showsRecordAsStored(definition, vocabulary)
    ? keptAsStored(record, vocabulary.language, stored)
    : represent(definition, record, vocabulary, true);
  return { stored, representation };
}

/**
 * showsRecordAsStored's answer per vocabulary, worked out once (it depends on the declaration alone). A memo a reader
 * may skip: showsRecordAsStored(…) reads as if made each time.
 */
const asStored = new WeakMap<Vocabulary, boolean>();

/**
 * True when a record as recordToStore builds it (the id, the other fields in declaration
 * order, then the two timestamps) has the same JSON as its representation: the
 * declaration has that order too, and no field is hidden, shown as null when absent, nested, kept under another
 * name or renamed in `vocabulary`.
 */
export function showsRecordAsStored(
  definition: ResourceDefinition,
  vocabulary: Vocabulary = vocabularyOf(definition, 'en'),
): boolean {
  let shows = asStored.get(vocabulary);
  if (shows === undefined) {
    const rules = definition.fields;
    shows =
      rules[0] === ID_FIELD &&
      rules.at(-2) === CREATED_AT_FIELD &&
      rules.at(-1) === UPDATED_AT_FIELD &&
      rules.filter((rule) => rule.type === 'id' || rule.type === 'timestamp').length === 3 &&
      rules.every(
        (rule) =>
          rule.access !== 'write-only' &&
          rule.nullable !== true &&
          hasNoMembers(rule) &&
          rule.storedAs === undefined &&
          rule.hidden !== true &&
          vocabulary.name(rule.name) === rule.name,
      );
    asStored.set(vocabulary, shows);
  }
  return shows;
}

/**
 * The JSON text of only the named fields, for bodies that are not the whole record (a new user's `{id, name}`, a
 * `fields=` selection).
 */
export function fieldsJson(
  definition: ResourceDefinition,
  record: StoredRecord,
  vocabulary: Vocabulary,
  names: readonly string[],
): string {
  const rules = definition.fields.filter((rule) => names.includes(rule.name));
  return JSON.stringify(toExternal(rules, record, vocabulary));
}

export function entityTag(json: string): string {
  return `"${sha1(json)}"`;
}

/** One-shot `crypto.hash` is about twice as fast as createHash on short text. */
function sha1(text: string): string {
  return crypto.hash('sha1', text, 'base64url');
}

/** A rule whose values carry no names of their own: no object members at any depth. */
function hasNoMembers(rule: FieldRule): boolean {
  return rule.members === undefined && (rule.items === undefined || hasNoMembers(rule.items));
}

function toExternal(rules: readonly FieldRule[], record: JsonObject, vocabulary: Vocabulary): JsonObject {
  const external: Record<string, JsonValue> = {};
  for (const rule of rules) {
    if (rule.access === 'write-only' || rule.hidden === true) continue;
    const value = record[rule.name];
    // A property that may hold null is shown as null when the record lacks it (never given, or removed by a PATCH).
    if (value === undefined) {
      if (rule.nullable === true) external[vocabulary.name(rule.name)] = null;
      continue;
    }
    external[vocabulary.name(rule.name)] = hasNoMembers(rule) ? value : externalValue(rule, value, vocabulary);
  }
  return external;
}

/** A nested value with its members renamed (and anything undeclared left out). */
export function externalValue(rule: FieldRule, value: JsonValue, vocabulary: Vocabulary): JsonValue {
  if (rule.members !== undefined) return isJsonObject(value) ? toExternal(rule.members, value, vocabulary) : value;
  const element = rule.items;
  if (element === undefined || !Array.isArray(value)) return value;
  return (value as readonly JsonValue[]).map((item) => externalValue(element, item, vocabulary));
}

// The representation cache. A reader may skip it: keptRepresentation(…) is freshRepresentation(…), made earlier, and
// keptAsStored(…) is representationOfJson(stored).

/**
 * Representations kept per language, each as long as its record version lives (a WeakMap): a record's bytes depend on
 * nothing else, and making them (JSON text, length, hash) is most of a read's work. GET item, every product in turn:
 * 10,463 answers/s against 7,740 with CACHES=false, which makes each afresh (bench/README.md, the caches' table).
 */
const representations = new Map<Language, WeakMap<StoredRecord, Representation>>();

function keptRepresentation(
  definition: ResourceDefinition,
  record: StoredRecord,
  vocabulary: Vocabulary,
): Representation {
  const language = vocabulary.language;
  return keptFor(record, language) ?? keep(record, language, freshRepresentation(definition, record, vocabulary));
}

/** The representation whose JSON is `stored`, the record as stored, kept for its version (serializeWritten). */
function keptAsStored(record: StoredRecord, language: Language, stored: string): Representation {
  return keptFor(record, language) ?? keep(record, language, representationOfJson(stored));
}

function keptFor(record: StoredRecord, language: Language): Representation | undefined {
  return cacheOf(language).get(record);
}

function keep(record: StoredRecord, language: Language, representation: Representation): Representation {
  cacheOf(language).set(record, representation);
  return representation;
}

function cacheOf(language: Language): WeakMap<StoredRecord, Representation> {
  let cache = representations.get(language);
  if (cache === undefined) {
    cache = new WeakMap();
    representations.set(language, cache);
  }
  return cache;
}
