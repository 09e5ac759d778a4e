// The top-level properties of a collection (README: Moving in from json-server): each one's schema from its values
// (infer-schema.ts), `createdAt`/`updatedAt` kept as the records' timestamps, `postId` whose values are ids of
// `posts` a reference, and the list keywords a careful person would add: `x-filter`, `x-search`, `x-sort`.

import type { PropertySchema } from '../declarations/declaration.ts';
import { LIST_PARAMETER_WORDS } from '../resources/vocabulary.ts';
import type { Source } from './file-collections.ts';
import { originalKey, recordName } from './file-collections.ts';
import type { Findings, Sample } from './infer-schema.ts';
import { inferSchema, memberSamples, preview } from './infer-schema.ts';
import { snakeCase } from './names.ts';
import {
  listedCollection,
  referencedCollection,
  referenceSchema,
  reportDanglingReferences,
  unrecognizedReference,
} from './references.ts';
import { timestampOf } from './timestamps.ts';

/** Record properties plainrest sets itself; `created_at` and `updated_at` are kept when they are timestamps. */
const TIMESTAMPS = new Set(['created_at', 'updated_at']);
/** At most this many distinct values, repeated, make a property worth filtering by. */
const FEW_VALUES = 20;
/** A word of text: two letters or more, maybe with the punctuation that ends it. */
const WORD = /^\p{L}{2,}[,.;:!?]?$/u;

/** What each top-level property of a collection becomes. */
export interface Property {
  readonly name: string;
  readonly schema: PropertySchema;
  /** Every record holds it. */
  readonly required: boolean;
  /** The collection its values name, for a reference. */
  readonly references?: Source;
  /** The collection the items of its lists name, for a list of references. */
  readonly referencesEach?: Source;
  /** The record's own timestamp (json-server's createdAt). */
  readonly timestamp?: boolean;
}

/** The top-level properties of a collection, in the order they first appear. */
export function propertiesOf(source: Source, sources: readonly Source[], findings: Findings): Property[] {
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
  for (const [name, values] of members) {
    const key = originalKey(source, name);
    const path = `${source.key}.${key}`;
    if (key !== name && !TIMESTAMPS.has(name)) findings.notes.push(`${path}: served as ${name}`);
    const nullCount = TIMESTAMPS.has(name) ? undefined : nulls.get(name);
    if (TIMESTAMPS.has(name) && nulls.has(name))
      findings.notes.push(`${path}: ${nulls.get(name)} null value(s) left out (plainrest sets ${name} itself)`);
    if (TIMESTAMPS.has(name)) {
      const odd = values.find((sample) => timestampOf(sample.value) === undefined);
      if (odd !== undefined)
        findings.problems.push(
          `${odd.record}, ${key}: ${preview(odd.value)} is no date and time; plainrest sets ${name} itself, and ` +
            "keeps a file's only when every value is one (2026-01-20T10:00:00Z, or milliseconds since 1970 as " +
            'Date.now() gives them); correct it, or rename the property',
        );
      else {
        const numbers = values.filter((sample) => typeof sample.value === 'number').length;
        const read = numbers === 0 ? '' : ` (${numbers} given as a number of seconds or milliseconds since 1970)`;
        findings.notes.push(`${path}: kept as each record's ${name}${read}`);
        found.push({ name, schema: { type: 'string', format: 'date-time' }, required: false, timestamp: true });
      }
      continue;
    }
    // A record holding null holds the property too: required stays true if every record has it, null or not.
    const required = values.length + (nullCount ?? 0) === source.records.length;
    const target = referencedCollection(name, values, sources);
    if (target !== undefined) {
      if (reportDanglingReferences(path, values, target, findings)) continue;
      const filter = source.singleton === true ? {} : { 'x-filter': true };
      const schema: PropertySchema = { ...referenceSchema(target, false, nullCount !== undefined), ...filter };
      found.push({ name, schema, required, references: target });
      continue;
    }
    const listOf = listedCollection(name, values, sources);
    if (listOf !== undefined) {
      if (reportDanglingReferences(path, values, listOf, findings, true)) continue;
      found.push({ name, schema: referenceSchema(listOf, true, false), required, referencesEach: listOf });
      continue;
    }
    if (name.endsWith('_id')) unrecognizedReference(key, values, sources, findings);
    const schema = inferSchema(values, key, findings);
    if (schema === undefined) continue;
    // A singleton has no list to filter, sort or search.
    const listed = source.singleton === true ? schema : withListKeywords(name, schema, values, source.records.length);
    found.push({
      name,
      schema: nullCount === undefined ? listed : mayHoldNull(listed, path, nullCount, findings),
      required,
    });
  }
  for (const [name, count] of nulls) {
    if (members.has(name) || TIMESTAMPS.has(name)) continue;
    // Only nulls: the type is unknown; a string that may hold null lets a later write give it.
    findings.notes.push(
      `${source.key}.${originalKey(source, name)}: ${count} null value(s) and no other: a string that may hold null`,
    );
    found.push({ name, schema: { type: ['string', 'null'] }, required: false });
  }
  return found;
}

/**
 * `schema` for a property some records hold null in: its type listed with "null", the nulls kept; an enum (which
 * cannot hold null) loses them, as a note says.
 */
function mayHoldNull(schema: PropertySchema, path: string, count: number, findings: Findings): PropertySchema {
  const type = schema.type;
  if (schema.enum !== undefined || typeof type !== 'string') {
    findings.notes.push(`${path}: ${count} null value(s) left out (its values are a list of choices)`);
    return schema;
  }
  findings.notes.push(`${path}: ${count} null value(s) kept: its type may hold null`);
  return { ...schema, type: [type, 'null'] };
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

/** Text, not a code or a number: two words of letters in a row (looked for in the first thousand characters). */
function hasTwoWords(value: string): boolean {
  const words = value.slice(0, 1000).split(/\s+/);
  for (let index = 1; index < words.length; index++)
    if (WORD.test(words[index - 1] as string) && WORD.test(words[index] as string)) return true;
  return false;
}
