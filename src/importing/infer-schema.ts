// A property's schema from the values a json-server file holds (README: Moving in from json-server): `integer` when
// every number is whole, a string `format` only when every value has it, an object's members and an array's items
// inferred the same way, bounds left open. Values of two kinds in one place are a problem naming the first record
// that differs. Member names become snake_case; a nested member holding null is declared as its type or null.

import type { PropertySchema } from '../declarations/declaration.ts';
import type { PropertyType } from '../declarations/declared-type.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import { hasFormat } from '../resources/scalar-checks.ts';
import { snakeCase } from './names.ts';
import { NAME } from '../resources/names.ts';

/** A value and the record that holds it, for the lines that name it: `comments, record 3 (id "c7")`. */
export interface Sample {
  readonly value: JsonValue;
  readonly record: string;
  /** The collection, as the file names it. */
  readonly collection: string;
}

/** What an import has to say: what it did (notes) and what stops it (problems). */
export interface Findings {
  readonly notes: string[];
  readonly problems: string[];
}

type Kind = 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

/** Deeper objects and lists than this are refused: a declaration reads as a form, not a tree. */
export const MOST_DEPTH = 10;

/** Formats a string property gets when every value has it, the strictest first. */
const FORMATS = ['date-time', 'date', 'email', 'uri'] as const;

const KIND_WORDS: Readonly<Record<Kind, string>> = {
  boolean: 'true or false',
  integer: 'a number',
  number: 'a number',
  string: 'a string',
  array: 'a list',
  object: 'an object',
};

export function kindOf(value: JsonValue): Kind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  return Array.isArray(value) ? 'array' : 'object';
}

/**
 * The schema of the non-null values at `path` in their records (`author.name`), or undefined when they are of several
 * kinds, or nested too deep (a problem is then reported).
 */
export function inferSchema(
  samples: readonly Sample[],
  path: string,
  findings: Findings,
  depth = 0,
): PropertySchema | undefined {
  const first = samples[0];
  if (first !== undefined && depth > MOST_DEPTH) {
    findings.problems.push(
      `${first.record}, ${path.length > 80 ? `${path.slice(0, 77)}...` : path}: nested more than ${MOST_DEPTH} ` +
        'levels deep; flatten it in the file',
    );
    return undefined;
  }
  const kinds = new Map<Kind, Sample[]>();
  for (const sample of samples) {
    const kind = kindOf(sample.value);
    const same = kinds.get(kind);
    if (same === undefined) kinds.set(kind, [sample]);
    else same.push(sample);
  }
  // Whole numbers among fractions are numbers all the same.
  const whole = kinds.get('integer');
  const fractions = kinds.get('number');
  if (whole !== undefined && fractions !== undefined) {
    kinds.delete('integer');
    kinds.set('number', [...fractions, ...whole]);
  }
  if (kinds.size > 1) {
    const [usual, ...others] = [...kinds.entries()].sort((a, b) => b[1].length - a[1].length);
    const [odd, oddSamples] = others[0] as [Kind, Sample[]];
    const first = oddSamples[0] as Sample;
    findings.problems.push(
      `${first.record}, ${path}: ${KIND_WORDS[odd]} (${preview(first.value)}) where ${usual?.[1].length ?? 0} ` +
        `other values are ${KIND_WORDS[usual?.[0] ?? 'string']}; give the property one type in every record`,
    );
    return undefined;
  }
  const [kind] = kinds.keys();
  switch (kind) {
    case undefined: // no value (lists that are always empty): a string, as a declaration says when it does not know
    case 'string':
      return stringSchema(samples);
    case 'boolean':
    case 'integer':
    case 'number':
      return { type: kind };
    case 'array':
      return arraySchema(samples, path, findings, depth);
    case 'object':
      return objectSchema(samples, path, findings, depth);
  }
}

function stringSchema(samples: readonly Sample[]): PropertySchema {
  const values = samples.map((sample) => sample.value as string);
  const format = values.length === 0 ? undefined : FORMATS.find((each) => values.every((v) => hasFormat(each, v)));
  return format === undefined ? { type: 'string' } : { type: 'string', format };
}

function arraySchema(
  samples: readonly Sample[],
  path: string,
  findings: Findings,
  depth: number,
): PropertySchema | undefined {
  const elements: Sample[] = [];
  for (const { value, record } of samples) {
    for (const element of value as readonly JsonValue[]) {
      if (element === null) {
        findings.problems.push(`${record}, ${path}: a list holding null; remove it, or put a value in its place`);
        return undefined;
      }
      elements.push({ value: element, record, collection: samples[0]?.collection ?? '' });
    }
  }
  if (elements.length === 0)
    findings.notes.push(
      `${samples[0]?.collection}.${path}: every list is empty, so its items are declared strings; ` +
        'change that if they are not',
    );
  const items = inferSchema(elements, `${path}[]`, findings, depth + 1);
  return items === undefined ? undefined : { type: 'array', items };
}

function objectSchema(
  samples: readonly Sample[],
  path: string,
  findings: Findings,
  depth: number,
): PropertySchema | undefined {
  const nulls = new Map<string, number>();
  const members = memberSamples(samples, path, findings, nulls);
  if (members === undefined) return undefined;
  const properties: Record<string, PropertySchema> = {};
  const required: string[] = [];
  // Members holding only null, in the order they come: a string that may hold null, as at the top level.
  for (const name of nulls.keys()) if (!members.has(name)) members.set(name, []);
  for (const [name, found] of members) {
    const schema = inferSchema(found, path === '' ? name : `${path}.${name}`, findings, depth + 1);
    if (schema === undefined) return undefined;
    const nullCount = nulls.get(name) ?? 0;
    // A member some objects hold null in may hold it: the nulls are kept, as a top-level property's are.
    properties[name] = nullCount === 0 ? schema : { ...schema, type: [schema.type as PropertyType, 'null'] };
    if (found.length + nullCount === samples.length) required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * Each member's non-null values, by its snake_case name, in the order members first appear; undefined when a name
 * cannot be one (a problem is reported).
 */
export function memberSamples(
  samples: readonly Sample[],
  path: string,
  findings: Findings,
  nullsByName?: Map<string, number>,
): Map<string, Sample[]> | undefined {
  const members = new Map<string, Sample[]>();
  const original = new Map<string, string>();
  /** Nulls inside nested values, by path; the collection's own properties' are told by import-plan.ts. */
  const nulls = new Map<string, number>();
  for (const { value, record, collection } of samples) {
    const where = path === '' ? record : `${record}, ${path}`;
    const inside = path === '' ? '' : `${path}.`;
    for (const [key, member] of Object.entries(value as JsonObject)) {
      const name = snakeCase(key);
      // A record's `id` (or `Id`, `ID`) is its id (record-ids.ts), not a property.
      if (path === '' && name === 'id') continue;
      const earlier = original.get(name);
      if (earlier === undefined) original.set(name, key);
      else if (earlier !== key) {
        findings.problems.push(`${where}: "${earlier}" and "${key}" would both be ${inside}${name}; rename one`);
        return undefined;
      }
      if (!NAME.test(name)) {
        findings.problems.push(
          `${where}: "${key}" is not a name plainrest can serve (lower-case letters, digits and _, ` +
            'starting with a letter); rename it in the file',
        );
        return undefined;
      }
      if (member === null) {
        nulls.set(`${collection}.${inside}${name}`, (nulls.get(`${collection}.${inside}${name}`) ?? 0) + 1);
        nullsByName?.set(name, (nullsByName.get(name) ?? 0) + 1);
        continue;
      }
      if (!members.has(name)) members.set(name, []);
      members.get(name)?.push({ value: member, record, collection });
    }
  }
  if (path !== '')
    for (const [where, count] of nulls)
      findings.notes.push(`${where}: ${count} null value(s) kept: its type may hold null`);
  return members;
}

/** A value with snake_case member names at every depth (a nested member's null kept: its schema may hold it). */
export function converted(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return (value as readonly JsonValue[]).map(converted);
  if (!isJsonObject(value)) return value;
  const result: Record<string, JsonValue> = {};
  for (const [key, member] of Object.entries(value)) result[snakeCase(key)] = converted(member);
  return result;
}

/** A value as a problem line may quote it: short. */
export function preview(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length <= 40 ? text : `${text.slice(0, 37)}...`;
}
