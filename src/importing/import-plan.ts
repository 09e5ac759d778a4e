// A json-server data file as a plainrest declaration and its records (README: Moving in from json-server): each
// top-level list a collection, each property's schema from its values (infer-schema.ts), `postId` whose values are
// ids of `posts` a reference (`post_id`, `x-references`), ids kept or renumbered (record-ids.ts), `x-filter` for
// properties whose values repeat and `x-search` for text. Then every record is checked against the declaration as a
// POST would be: the plan holds either everything to load, or the problems that stop the import.

import type { CollectionDeclaration, PropertySchema, ResourcesDeclaration } from '../declarations/declaration.ts';
import { BUILT_IN_USER_PROPERTIES } from '../declarations/built-in-users.ts';
import { TAKEN_COLLECTION_NAMES } from '../declarations/check-collection.ts';
import { compileObject, DeclarationError } from '../declarations/load-declaration.ts';
import { finishRecord } from '../handlers/write-record.ts';
import { HttpError } from '../errors/errors.ts';
import { DEFAULTS } from '../config/config.ts';
import type { Fields, JsonObject, JsonValue, StoredRecord } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { Access, ResourceTable } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { LIST_PARAMETER_WORDS } from '../resources/vocabulary.ts';
import { hasFormat } from '../resources/scalar-checks.ts';
import { validateBody } from '../resources/validation.ts';
import type { Findings, Sample } from './infer-schema.ts';
import { converted, inferSchema, memberSamples, preview } from './infer-schema.ts';
import type { CollectionIds } from './record-ids.ts';
import { collectionIds, rawIdOf } from './record-ids.ts';
import { singularOf, snakeCase } from './names.ts';
import { NAME } from '../resources/names.ts';

/** Who may do what with the imported collections (`--access`). */
export type ImportAccess = 'open' | 'read' | 'closed';

export const ACCESS_CHOICES: Readonly<Record<ImportAccess, { access?: Access; words: string }>> = {
  open: {
    access: { list: 'public', read: 'public', create: 'public', update: 'public', delete: 'public' },
    words: 'open: anyone may list, read, create, change and delete, with no token, as json-server allows',
  },
  read: {
    access: { list: 'public', read: 'public', create: 'admin', update: 'admin', delete: 'admin' },
    words: 'read: anyone may list and read with no token; only admins create, change and delete',
  },
  closed: { words: 'closed: listing and reading need a token; only admins create, change and delete' },
};

/** Record properties plainrest sets itself; `created_at` and `updated_at` are kept when they are timestamps. */
const TIMESTAMPS = new Set(['created_at', 'updated_at']);
/** Users' built-in properties an import takes as they are. */
const USER_FIELDS_KEPT = new Set(['name', 'email', 'role']);
/** What plainrest keeps of users' passwords itself: a file's would be shown, and taken for a hash. */
const USER_FIELDS_STORED = new Set(['password_hash']);
/** At most this many distinct values, repeated, make a property worth filtering by. */
const FEW_VALUES = 20;
/** A word of text: two letters or more, maybe with the punctuation that ends it. */
const WORD = /^\p{L}{2,}[,.;:!?]?$/u;

/** Text, not a code or a number: two words of letters in a row (looked for in the first thousand characters). */
function hasTwoWords(value: string): boolean {
  const words = value.slice(0, 1000).split(/\s+/);
  for (let index = 1; index < words.length; index++)
    if (WORD.test(words[index - 1] as string) && WORD.test(words[index] as string)) return true;
  return false;
}
/** Problem lines shown before "and N more". */
const MOST_PROBLEMS = 50;

export interface ImportPlan {
  readonly declaration: ResourcesDeclaration;
  /** Compiled from `declaration`, when there were no problems. */
  readonly table: ResourceTable | undefined;
  /** The records to store, by collection, and each collection's next id. */
  readonly collections: ReadonlyMap<string, { readonly records: readonly StoredRecord[]; readonly nextId: number }>;
  /** By collection (as the file names it): each renumbered id as the file had it (`"3f2a"`) → its new id. */
  readonly renumbered: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly notes: readonly string[];
  readonly problems: readonly string[];
}

/** One collection as the file has it, with its plainrest name. */
interface Source {
  readonly key: string;
  readonly name: string;
  readonly records: readonly JsonObject[];
  /** Each record's place in the file's list, from 1 (an item that is no object is not a record). */
  readonly positions: readonly number[];
  readonly ids: CollectionIds;
}

/** What each top-level property of a collection becomes. */
interface Property {
  readonly name: string;
  readonly schema: PropertySchema;
  /** Every record holds it. */
  readonly required: boolean;
  /** The collection its values name, for a reference. */
  readonly references?: Source;
  /** The record's own timestamp (json-server's createdAt). */
  readonly timestamp?: boolean;
}

/** Plans the import of `data` (a parsed db.json) with `access`; `now` is the time records without timestamps get. */
export function planImport(data: unknown, access: ImportAccess, now: string): ImportPlan {
  const findings: Findings = { notes: [], problems: [] };
  const sources = collectionsOf(data, findings);
  if (sources.length === 0 && findings.problems.length === 0)
    findings.problems.push('the file holds no list of records ({"posts": [...]}): there is nothing to import');
  const declared: Record<string, CollectionDeclaration> = {};
  const properties = new Map<string, readonly Property[]>();
  for (const source of sources) {
    const found = propertiesOf(source, sources, findings);
    properties.set(source.name, found);
    declared[source.name] = collectionDeclaration(source, found, access, findings);
  }
  const declaration: ResourcesDeclaration = { resources: declared };
  const renumbered = new Map(sources.map((source) => [source.key, source.ids.renumbered]));
  const none = { declaration, table: undefined, collections: new Map(), renumbered };
  if (findings.problems.length > 0) return { ...none, notes: findings.notes, problems: shortened(findings.problems) };
  let table: ResourceTable;
  try {
    table = compileObject(declaration);
  } catch (error) {
    if (!(error instanceof DeclarationError)) throw error;
    const lines = error.lines.map((line) => `the declaration made from the file: ${line}`);
    return { ...none, notes: findings.notes, problems: shortened(lines) };
  }
  const referenced = new Set(
    [...properties.values()].flatMap((found) => found.flatMap((property) => property.references?.name ?? [])),
  );
  const collections = new Map<string, { records: StoredRecord[]; nextId: number }>();
  for (const source of sources)
    collections.set(source.name, {
      records: storedRecords(source, properties.get(source.name) ?? [], table, now, findings),
      nextId: source.ids.nextId,
    });
  for (const source of sources) noteRenumbered(source, referenced.has(source.name), findings);
  if (findings.problems.length > 0) return { ...none, notes: findings.notes, problems: shortened(findings.problems) };
  return { declaration, table, collections, renumbered, notes: findings.notes, problems: [] };
}

/** The top-level lists, named as plainrest names them; anything else is left out, saying so. */
function collectionsOf(data: unknown, findings: Findings): Source[] {
  if (!isJsonObject(data as JsonValue)) {
    findings.problems.push('the file holds no object of collections ({"posts": [...], ...}), as json-server reads');
    return [];
  }
  const sources: Source[] = [];
  const byName = new Map<string, string>();
  for (const [key, value] of Object.entries(data as JsonObject)) {
    if (!Array.isArray(value)) {
      findings.notes.push(
        `${key}: left out: ${isJsonObject(value) ? "a single object (json-server's singular resource)" : 'a single value'}` +
          ', not a list of records; to serve it, make it a list of one record',
      );
      continue;
    }
    const name = snakeCase(key);
    if (!NAME.test(name)) {
      findings.problems.push(
        `${key}: not a collection name plainrest can serve (lower-case letters, digits and _, starting with a ` +
          'letter); rename it in the file',
      );
      continue;
    }
    if (TAKEN_COLLECTION_NAMES.has(name)) {
      findings.problems.push(`${key}: plainrest keeps the name ${name} for its own; rename the collection in the file`);
      continue;
    }
    const earlier = byName.get(name);
    if (earlier !== undefined) {
      findings.problems.push(`${earlier} and ${key}: both would be the collection ${name}; rename one`);
      continue;
    }
    byName.set(name, key);
    if (name !== key) findings.notes.push(`${key}: served as ${name}`);
    const records: JsonObject[] = [];
    const positions: number[] = [];
    (value as readonly JsonValue[]).forEach((record, index) => {
      if (!isJsonObject(record)) {
        findings.problems.push(`${key}, record ${index + 1}: ${preview(record)} is not an object; remove it`);
        return;
      }
      records.push(record);
      positions.push(index + 1);
    });
    sources.push({ key, name, records, positions, ids: collectionIds(key, records, positions, findings) });
    const numberAsText = (record: JsonObject): boolean => {
      const id = rawIdOf(record);
      return typeof id === 'string' && /^[1-9][0-9]*$/.test(id);
    };
    if (records.some(numberAsText))
      findings.notes.push(`${key}: ids written as text ("1", as json-server 1.x writes them) are served as numbers`);
  }
  return sources;
}

/** `comments, record 3 (id "c7")`. */
function recordName(source: Source, index: number): string {
  const id = rawIdOf(source.records[index] ?? {});
  return `${source.key}, record ${source.positions[index]}${id === undefined ? '' : ` (id ${preview(id)})`}`;
}

/** The top-level properties of a collection, in the order they first appear. */
function propertiesOf(source: Source, sources: readonly Source[], findings: Findings): Property[] {
  const samples = source.records.map((value, index) => ({
    value,
    record: recordName(source, index),
    collection: source.key,
  }));
  const members = memberSamples(samples, '', findings);
  if (members === undefined) return [];
  const found: Property[] = [];
  const nulls = new Map<string, number>();
  for (const record of source.records)
    for (const [key, value] of Object.entries(record))
      if (value === null) nulls.set(snakeCase(key), (nulls.get(snakeCase(key)) ?? 0) + 1);
  for (const [name, count] of nulls)
    if (!members.has(name))
      findings.notes.push(`${source.key}.${originalKey(source, name)}: left out: ${count} null value(s) and no other`);
  for (const [name, values] of members) {
    const key = originalKey(source, name);
    const path = `${source.key}.${key}`;
    if (key !== name && !TIMESTAMPS.has(name)) findings.notes.push(`${path}: served as ${name}`);
    if (nulls.has(name))
      findings.notes.push(`${path}: ${nulls.get(name)} null value(s) left out (plainrest omits a property instead)`);
    if (TIMESTAMPS.has(name)) {
      const odd = values.find((sample) => typeof sample.value !== 'string' || !isTimestamp(sample.value));
      if (odd !== undefined)
        findings.problems.push(
          `${odd.record}, ${key}: ${preview(odd.value)} is no date and time; plainrest sets ${name} itself, and keeps ` +
            "a file's only when every value is one (2026-01-20T10:00:00Z); correct it, or rename the property",
        );
      else {
        findings.notes.push(`${path}: kept as each record's ${name}`);
        found.push({ name, schema: { type: 'string', format: 'date-time' }, required: false, timestamp: true });
      }
      continue;
    }
    const required = values.length === source.records.length;
    const target = referencedCollection(name, values, sources);
    if (target !== undefined) {
      if (dangling(path, values, target, findings)) continue;
      const schema: PropertySchema = { type: 'integer', 'x-references': target.name, 'x-filter': true };
      found.push({ name, schema, required, references: target });
      continue;
    }
    if (name.endsWith('_id')) unrecognizedReference(key, values, sources, findings);
    const schema = inferSchema(values, key, findings);
    if (schema !== undefined)
      found.push({ name, schema: withListKeywords(name, schema, values, source.records.length), required });
  }
  return found;
}

/** The first of the file's names for a property: `postId` for `post_id`. */
function originalKey(source: Source, name: string): string {
  for (const record of source.records) for (const key of Object.keys(record)) if (snakeCase(key) === name) return key;
  return name;
}

/** `post_id` whose every value is an id (as text or number) of `posts`: the collection it references. */
function referencedCollection(name: string, values: readonly Sample[], sources: readonly Source[]): Source | undefined {
  const prefix = /^([a-z][a-z0-9_]*)_id$/.exec(name)?.[1];
  if (prefix === undefined || values.length === 0) return undefined;
  const target = sources.find((source) => source.name === prefix || singularOf(source.name) === prefix);
  if (target === undefined) return undefined;
  const scalar = values.every((sample) => typeof sample.value === 'string' || typeof sample.value === 'number');
  return scalar ? target : undefined;
}

/**
 * A `…_id` whose values are ids another collection gives up for new numbers, under a name that does not say which
 * (`authorId` naming users): kept as it is, it would name nothing. A problem, saying how to make it a reference.
 */
function unrecognizedReference(
  key: string,
  values: readonly Sample[],
  sources: readonly Source[],
  findings: Findings,
): void {
  const named = sources.find(
    (source) =>
      source.ids.renumbered.size > 0 &&
      values.length > 0 &&
      values.every((sample) => typeof sample.value === 'string' && source.ids.renumbered.has(sample.value)),
  );
  if (named === undefined) return;
  const singular = singularOf(named.name);
  findings.problems.push(
    `${values[0]?.record}, ${key}: its values are ids of ${named.key}, which get new numbers; name it ` +
      `${singular}_id (or ${singular.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())}Id) ` +
      `to make it a reference that follows them, or give ${named.key} numeric ids`,
  );
}

/** Reports each value that names no record of `target`; true when there was one. */
function dangling(path: string, values: readonly Sample[], target: Source, findings: Findings): boolean {
  const missing = values.filter((sample) => !target.ids.newIds.has(String(sample.value)));
  for (const sample of missing)
    findings.problems.push(
      `${sample.record}, ${path.slice(path.indexOf('.') + 1)}: ${preview(sample.value)} is the id of no record of ` +
        `${target.key}; ` +
        'correct it or remove it',
    );
  if (missing.length === 0)
    findings.notes.push(`${path}: its values are ids of ${target.key}: a reference (x-references ${target.name})`);
  return missing.length > 0;
}

/**
 * `x-filter` for true/false and for plain strings and whole numbers whose values repeat (few distinct ones), `x-search`
 * for text (most values two words or more), `x-sort` for numbers and dates.
 */
function withListKeywords(
  name: string,
  schema: PropertySchema,
  values: readonly Sample[],
  count: number,
): PropertySchema {
  const distinct = new Set(values.map((sample) => JSON.stringify(sample.value))).size;
  const plain = (schema.type === 'string' && schema.format === undefined) || schema.type === 'integer';
  const repeats = plain && distinct <= FEW_VALUES && distinct <= count / 2;
  // A filter named like a list parameter would be read as that parameter (check-collection.ts refuses one).
  const filter = (repeats || schema.type === 'boolean') && !LIST_PARAMETER_WORDS.has(name);
  const words = values.filter((sample) => typeof sample.value === 'string' && hasTwoWords(sample.value)).length;
  const text = schema.type === 'string' && schema.format === undefined && words * 2 >= values.length && !repeats;
  const sortable =
    schema.type === 'integer' || schema.type === 'number' || schema.format === 'date' || schema.format === 'date-time';
  return {
    ...schema,
    ...(filter ? { 'x-filter': true } : {}),
    ...(sortable ? { 'x-sort': true } : {}),
    ...(text ? { 'x-search': true } : {}),
  };
}

function collectionDeclaration(
  source: Source,
  found: readonly Property[],
  access: ImportAccess,
  findings: Findings,
): CollectionDeclaration {
  const properties: Record<string, PropertySchema> = {};
  const required: string[] = [];
  const users = source.name === 'users';
  for (const property of found) {
    if (property.timestamp === true) continue;
    if (users && (Object.hasOwn(BUILT_IN_USER_PROPERTIES, property.name) || isLeftOut(source, property.name))) {
      if (isLeftOut(source, property.name))
        findings.notes.push(
          `${source.key}.${property.name}: left out: plainrest keeps users' ${property.name} itself` +
            (property.name === 'password' ? ' (only as a hash, set through the API)' : ''),
        );
      continue;
    }
    properties[property.name] = property.schema;
    // A required property of users would need a default: the administrator is made without it.
    if (property.required && !users) required.push(property.name);
  }
  const chosen = ACCESS_CHOICES[access].access;
  if (users) {
    if (access !== 'closed')
      findings.notes.push(
        `${source.key}: users keep their own access (admins list and create them; each reads and changes their own)`,
      );
    return { singular: 'user', properties };
  }
  return {
    singular: singularOf(source.name),
    ...(chosen === undefined ? {} : { access: chosen }),
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}

/** A built-in property of users a file's users may not set: a password (kept as a hash), a provider identity. */
function isLeftOut(source: Source, name: string): boolean {
  if (source.name !== 'users') return false;
  return USER_FIELDS_STORED.has(name) || (Object.hasOwn(BUILT_IN_USER_PROPERTIES, name) && !USER_FIELDS_KEPT.has(name));
}

/** The records of a collection as stored, each checked as a POST of it would be. */
function storedRecords(
  source: Source,
  found: readonly Property[],
  table: ResourceTable,
  now: string,
  findings: Findings,
): StoredRecord[] {
  const definition = table.get(source.name);
  if (definition === undefined) return [];
  const vocabulary = vocabularyOf(definition, 'en');
  const byName = new Map(found.map((property) => [property.name, property]));
  const unique = definition.fields.filter((rule) => rule.unique !== undefined);
  const taken = new Map<string, Set<string>>(unique.map((rule) => [rule.name, new Set()]));
  const records: StoredRecord[] = [];
  source.records.forEach((raw, index) => {
    const body: Record<string, JsonValue> = {};
    const times: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw)) {
      const name = snakeCase(key);
      const property = byName.get(name);
      if (value === null || property === undefined || isLeftOut(source, name)) continue;
      if (property.timestamp === true) times[name] = new Date(value as string).toISOString();
      else if (property.references !== undefined)
        body[name] = property.references.ids.newIds.get(String(value)) as number;
      else if (definition.fields.some((rule) => rule.name === name)) body[name] = converted(value);
    }
    let fields: Fields;
    try {
      fields = validateBody(definition.fields, body, vocabulary, 'create');
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      for (const entry of error.errors ?? [])
        findings.problems.push(`${recordName(source, index)}, ${entry.field}: ${entry.message}`);
      return;
    }
    // As a create would: what the record lacks and the declaration gives (a user's role).
    for (const rule of definition.fields)
      if (rule.default !== undefined && fields[rule.name] === undefined) fields[rule.name] = rule.default;
    for (const rule of unique) {
      const value = fields[rule.name];
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      const key = rule.unique === 'ignore-case' ? String(value).toLowerCase() : String(value);
      if (taken.get(rule.name)?.has(key) === true)
        findings.problems.push(`${recordName(source, index)}, ${rule.name}: ${preview(value)} is another record's too`);
      taken.get(rule.name)?.add(key);
    }
    if (source.name === 'users' && String(fields['email']).toLowerCase() === DEFAULTS.adminEmail)
      findings.notes.push(
        `${recordName(source, index)}: ${DEFAULTS.adminEmail} is the address the administrator is made with by ` +
          'default; serve with ADMIN_EMAIL set to another, or that user (with no password) stands in its place',
      );
    const createdAt = times['created_at'] ?? times['updated_at'] ?? now;
    const id = source.ids.ids[index] as number;
    records.push(finishRecord(definition, fields, id, createdAt, times['updated_at'] ?? createdAt));
  });
  return records;
}

/** `posts: 2 record(s) got new ids: "1f3a" → 8, …`, and whether references to them followed. */
function noteRenumbered(source: Source, referenced: boolean, findings: Findings): void {
  // An id the file gave is quoted; `(record 3)` stands for a record that had none.
  const renumbered = [...source.ids.renumbered].map(
    ([raw, id]) => `${/^\(record \d+\)$/.test(raw) ? raw : JSON.stringify(raw)} → ${id}`,
  );
  if (renumbered.length === 0) return;
  findings.notes.push(
    `${source.key}: ${renumbered.length} record(s) got new ids: ${renumbered.slice(0, 5).join(', ')}` +
      `${renumbered.length > 5 ? ', …' : ''} ` +
      (referenced ? '(references to them were rewritten)' : '(no property of the file refers to them)'),
  );
}

/** A date, or a date and time, that a clock can place (not a leap second, not before the year 1000). */
function isTimestamp(value: string): boolean {
  if (!hasFormat('date-time', value) && !hasFormat('date', value)) return false;
  const at = Date.parse(value);
  return Number.isFinite(at) && at >= Date.UTC(1000, 0, 1);
}

/** At most MOST_PROBLEMS lines, then how many more there were. */
function shortened(problems: readonly string[]): string[] {
  if (problems.length <= MOST_PROBLEMS) return [...problems];
  return [...problems.slice(0, MOST_PROBLEMS), `and ${problems.length - MOST_PROBLEMS} more problems like these`];
}
