// Examples made from a resource's declaration (README: Your own resources), for a resource the hand-written examples
// (written-examples.ts) do not cover: the bodies of POST, PUT and PATCH and the record they make, each value fitting
// its property's type and bounds.

import type { JsonValue } from '../records/json.ts';
import { exampleId } from '../records/record-id.ts';
import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';
import { MOST_EXAMPLE_CHARACTERS, patternExample } from './pattern-example.ts';
import type { ResourceExamples } from './written-examples.ts';
import { EXAMPLE_TIME } from './written-examples.ts';

/** Generated examples stop here: a schema that needs a longer string or array gives its own `examples`. */
const MOST_EXAMPLE_ITEMS = 100;

/**
 * Examples made from a declaration: each writable property's first declared example,
 * else its default, else a value that fits its type and bounds (a declared `pattern`
 * needs `examples` for the document's examples to pass it). The create example is
 * assumed to make record 1 of an empty collection under parent 1.
 */
export function generatedExamples(definition: ResourceDefinition): ResourceExamples {
  const createdId = exampleId(definition.idKind);
  // A string id is the client's to choose, in the POST's body (README: Your own resources, ids).
  const create: Record<string, JsonValue> = definition.idKind === 'string' ? { id: createdId } : {};
  for (const rule of definition.fields) {
    if (rule.access === 'server' || rule.access === 'restricted') continue;
    if (rule.references !== undefined && rule.required !== true) continue;
    create[rule.name] = exampleValue(rule);
  }
  const record: Record<string, JsonValue> = {};
  for (const rule of definition.fields) {
    if (
      rule.access === 'write-only' ||
      rule.type === 'id' ||
      rule.type === 'timestamp' ||
      rule.name === definition.parent?.field
    )
      continue;
    const value =
      create[rule.name] ??
      (rule.default !== undefined
        ? rule.default
        : rule.access === 'server' && rule.name === 'owner_id'
          ? 1
          : undefined);
    if (value !== undefined) record[rule.name] = value;
  }
  // A PUT's or PATCH's example leaves a chosen id out: it may go to any item's path.
  const replace = Object.fromEntries(
    Object.entries(create).filter(
      ([name]) => name !== 'id' && definition.fields.find((rule) => rule.name === name)?.access !== 'write-only',
    ),
  );
  const [firstName, firstValue] = Object.entries(replace)[0] ?? [];
  // Each equality filter's example finds the example record.
  const query: Record<string, string> = {};
  for (const rule of definition.fields) {
    const value = record[rule.name];
    if (rule.filter === true && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'))
      query[rule.name] = String(value);
  }
  return {
    create,
    replace,
    patch: firstName === undefined ? {} : { [firstName]: firstValue as JsonValue },
    record,
    createdId,
    query,
  };
}

/** A value that fits a rule. */
function exampleValue(rule: FieldRule): JsonValue {
  // What a create may give (`x-initial`), whatever other states the examples show.
  if (rule.initial !== undefined) return rule.default ?? rule.initial[0] ?? null;
  const declared = rule.declared?.['examples'];
  if (Array.isArray(declared) && declared.length > 0) return declared[0] as JsonValue;
  if (rule.default !== undefined) return rule.default;
  switch (rule.type) {
    case 'enum':
      return rule.values?.[0] ?? null;
    case 'boolean':
      return true;
    case 'integer':
      return rule.references !== undefined
        ? 1
        : Math.max(rule.minimum ?? 1, rule.exclusiveMinimum === undefined ? -Infinity : rule.exclusiveMinimum + 1);
    case 'number':
      return Math.max(rule.minimum ?? 1, rule.exclusiveMinimum === undefined ? -Infinity : rule.exclusiveMinimum + 1);
    case 'array': {
      const length = Math.min(Math.max(rule.minItems ?? 1, 1), rule.maxItems ?? Infinity, MOST_EXAMPLE_ITEMS);
      return rule.items === undefined ? [] : Array.from({ length }, () => exampleValue(rule.items as FieldRule));
    }
    case 'object':
      return Object.fromEntries(
        (rule.members ?? [])
          .filter((member) => member.access !== 'server')
          .map((member) => [member.name, exampleValue(member)]),
      );
    default:
      return exampleString(rule);
  }
}

function exampleString(rule: FieldRule): string {
  switch (rule.format) {
    case 'email':
      return 'someone@example.com';
    case 'date':
      return '2026-01-20';
    case 'date-time':
      return EXAMPLE_TIME;
    case 'uri':
      return 'https://example.com/';
    case 'password':
      return 'correct-horse-battery';
    default: {
      const fitting =
        rule.pattern === undefined ? undefined : patternExample(rule.pattern, rule.minLength, rule.maxLength);
      if (fitting !== undefined) return fitting;
      const text = `example ${rule.name.replaceAll('_', ' ')}`;
      const min = Math.min(rule.minLength ?? 0, MOST_EXAMPLE_CHARACTERS);
      const padded = text.length >= min ? text : text.padEnd(min, 'x');
      return rule.maxLength === undefined ? padded : padded.slice(0, Math.max(rule.maxLength, 0));
    }
  }
}
