// JSON Schemas (OpenAPI 3.1: JSON Schema 2020-12) derived from the declarations: a record as read (its `_embedded`
// typed per name), a `fields=` selection of one, the record a create answers with, and the bodies of POST, PUT and
// PATCH in either vocabulary, with their bounds and declared extras (a create's enum is `x-initial`'s when declared).

import type { JsonValue } from '../records/json.ts';
import { idSchema } from '../records/record-id.ts';
import type { FieldRule, Language, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { isShownOnRead, vocabularyOf } from '../resources/definition.ts';
import { embedName, embedsOf } from '../http/embed-parameter.ts';
import { componentName, schemaReference } from '../resources/names.ts';
import { resourceExamples, translateKeys } from './examples.ts';
import { KNOWN_EXTENSIONS } from '../declarations/keywords.ts';

export type Schema = { readonly [keyword: string]: unknown };
export type BodyKind = 'create' | 'replace' | 'patch';

/** The schema of one value, without the request/response specifics. */
function valueSchema(rule: FieldRule, vocabulary: Vocabulary, kind: BodyKind | 'record'): Record<string, unknown> {
  return { ...orNull(rule, typeSchema(rule, vocabulary, kind)), ...referenceNote(rule), ...declaredExtras(rule) };
}

/** A property that may hold null: its type listed with "null" (JSON Schema 2020-12 §6.1.1). */
function orNull(rule: FieldRule, schema: Record<string, unknown>): Record<string, unknown> {
  return rule.nullable === true && typeof schema['type'] === 'string'
    ? { ...schema, type: [schema['type'], 'null'] }
    : schema;
}

/**
 * An `x-references` id must name a record that exists (handlers/write-record.ts: requireReferencedRecords), a rule no
 * JSON Schema keyword states: said in words, as a declared description would say it (of each element of an array of
 * references).
 */
function referenceNote(rule: FieldRule): Record<string, string> {
  const element = rule.type === 'array' ? rule.items : undefined;
  if (element?.references !== undefined) {
    const singular = element.referencedSingular ?? element.references;
    return { description: `ids of existing ${singular} records (else a 422 unknown_${singular})` };
  }
  if (rule.references === undefined) return {};
  const singular = rule.referencedSingular ?? rule.references;
  return { description: `the id of an existing ${singular} (else a 422 unknown_${singular})` };
}

function typeSchema(rule: FieldRule, vocabulary: Vocabulary, kind: BodyKind | 'record'): Record<string, unknown> {
  switch (rule.type) {
    case 'id':
      return idSchema(rule.idKind ?? 'integer');
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'string':
      return {
        type: 'string',
        ...(rule.format === undefined || rule.format === 'password' ? {} : { format: rule.format }),
        ...bound('minLength', rule.minLength),
        ...bound('maxLength', rule.maxLength),
        ...(rule.pattern === undefined ? {} : { pattern: rule.pattern.source }),
      };
    case 'number':
    case 'integer':
      return {
        type: rule.type,
        ...bound('minimum', rule.minimum),
        ...bound('maximum', rule.maximum),
        ...bound('exclusiveMinimum', rule.exclusiveMinimum),
        ...bound('exclusiveMaximum', rule.exclusiveMaximum),
        ...(rule.decimalPlaces === 2
          ? MONEY
          : rule.decimalPlaces !== undefined
            ? decimals(rule.decimalPlaces)
            : bound('multipleOf', rule.multipleOf)),
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum': {
      // A create's values are x-initial's when declared (an order is created pending): enums per operation.
      const values = [...((kind === 'create' ? rule.initial : undefined) ?? rule.values ?? [])];
      return values.every((value) => typeof value === 'string') ? { type: 'string', enum: values } : { enum: values };
    }
    case 'array': {
      const element = rule.items;
      // Elements of an array in a PATCH are whole elements (RFC 7396 replaces arrays), so they read like a PUT's.
      const elementKind = kind === 'patch' ? 'replace' : kind;
      const items =
        element === undefined
          ? {}
          : element.type === 'object'
            ? objectSchema(element.members ?? [], vocabulary, elementKind)
            : valueSchema(element, vocabulary, elementKind);
      return { type: 'array', ...bound('minItems', rule.minItems), ...bound('maxItems', rule.maxItems), items };
    }
    case 'object':
      return objectSchema(rule.members ?? [], vocabulary, kind === 'patch' ? 'replace' : kind);
  }
}

/** A declared description, examples and unknown `x-` keywords, as declared. */
function declaredExtras(rule: FieldRule): Record<string, unknown> {
  const declared = rule.declared;
  if (declared === undefined) return {};
  const extras: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(declared)) {
    if (
      keyword === 'description' ||
      keyword === 'examples' ||
      (keyword.startsWith('x-') && !KNOWN_EXTENSIONS.has(keyword))
    )
      extras[keyword] = value;
  }
  return extras;
}

function decimals(places: number): Record<string, unknown> {
  return {
    description: `a number with at most ${places} decimal places (checked exactly by the server)`,
    'x-max-decimal-places': places,
  };
}

/**
 * Money has at most two decimals, and the server checks that exactly (resources/validation.ts).
 * The document does not say so with `multipleOf: 0.01`: standard validators (Ajv's
 * defaults, which Prism uses) divide in binary floating point, where 19.99 / 0.01 is
 * 1998.9999999999998, and would refuse valid prices. It says it in words and in an
 * extension that tools ignore unless they know it.
 */
export const MONEY = {
  description: 'an amount with at most two decimal places (checked exactly by the server)',
  'x-max-decimal-places': 2,
} as const;

export function bound(keyword: string, value: number | undefined): Record<string, number> {
  return value === undefined ? {} : { [keyword]: value };
}

/**
 * Fields always present when a record is read: ids, timestamps, defaulted and required ones (but a provider's user may
 * lack an email: README, Provider tokens), and those that may hold null (null when absent).
 */
export function alwaysPresent(rule: FieldRule): boolean {
  return (
    rule.nullable === true ||
    (rule.access === 'server' && rule.optional !== true) ||
    (rule.required === true && rule.requiredOfRequestsOnly !== true) ||
    rule.default !== undefined
  );
}

function objectSchema(rules: readonly FieldRule[], vocabulary: Vocabulary, kind: BodyKind | 'record'): Schema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const rule of rules) {
    // A singleton's id is no property of the record, read or written.
    if (rule.hidden === true) continue;
    const name = vocabulary.name(rule.name);
    if (kind === 'record') {
      if (!isShownOnRead(rule)) continue;
      properties[name] = {
        ...valueSchema(rule, vocabulary, kind),
        ...(rule.access === 'server' ? { readOnly: true } : {}),
      };
      if (alwaysPresent(rule)) required.push(name);
      continue;
    }
    if (rule.access === 'server') {
      // A POST chooses a string id itself (README: Your own resources, ids).
      if (kind === 'create' && rule.type === 'id' && rule.idKind === 'string') {
        properties[name] = { ...valueSchema(rule, vocabulary, kind), description: 'the id you choose' };
        required.push(name);
        continue;
      }
      if (kind === 'create') continue;
      properties[name] = {
        ...valueSchema(rule, vocabulary, kind),
        readOnly: true,
        description: 'set by the server; accepted only when equal to the current value',
      };
      continue;
    }
    // What a PATCH's null may remove (resources/validation.ts: isRemovable): a record always has a defaulted field; a
    // property that may hold null says so already.
    const removable =
      kind === 'patch' && rule.access === 'client' && rule.required !== true && rule.default === undefined;
    const schema = valueSchema(rule, vocabulary, kind);
    properties[name] = removable && rule.nullable !== true ? { ...schema, type: [schema['type'], 'null'] } : schema;
    if (rule.access === 'write-only') (properties[name] as Record<string, unknown>)['writeOnly'] = true;
    if (kind !== 'patch' && rule.required === true) required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** A component's suffix: the first page of a child list as `_embedded` holds it (whole records: no `fields`). */
export const EMBEDDED_LIST = 'EmbeddedList';

/**
 * `_embedded` (README: Lists; handlers/related-records.ts), typed per name `embed` takes: a child collection's first
 * page (`OrderEmbeddedList`) or the record a reference names. A name is absent when the caller may not read it.
 */
function embeddedSchema(definition: ResourceDefinition, language: Language): Schema | undefined {
  const embeds = embedsOf(definition);
  if (embeds.length === 0) return undefined;
  const vocabulary = vocabularyOf(definition, language);
  const properties = Object.fromEntries(
    embeds.map((embed) => {
      const reference = schemaReference(
        componentName(embed.definition, language, embed.kind === 'children' ? EMBEDDED_LIST : ''),
      );
      // An array of references embeds the records it names, in its order.
      const many = embed.kind === 'reference' && embed.many;
      return [embedName(embed, vocabulary), many ? { type: 'array', items: reference } : reference];
    }),
  );
  return {
    type: 'object',
    readOnly: true,
    description:
      'with embed: the first page of each child list named (data, meta, links) or the record a reference names, ' +
      'each only when the caller may read it',
    properties,
    additionalProperties: false,
  };
}

export function recordSchema(definition: ResourceDefinition, language: Language): Schema {
  const schema = objectSchema(definition.fields, vocabularyOf(definition, language), 'record');
  const embedded = embeddedSchema(definition, language);
  if (embedded === undefined) return schema;
  return { ...schema, properties: { ...(schema['properties'] as Record<string, unknown>), _embedded: embedded } };
}

/**
 * A `fields=` answer (README: Lists; http/field-selection.ts): the record's properties, only those the query named, so
 * none is required (`{"category":"tea"}`).
 */
export function selectionSchema(definition: ResourceDefinition, language: Language): Schema {
  const { required: _required, ...record } = recordSchema(definition, language);
  return {
    ...record,
    description: `with fields: only the properties named, in the declared order (any of a ${definition.singular}'s)`,
  };
}

/** A request body's schema; `examples` holds the body the explorer's forms start from (src/home). */
export function bodySchema(definition: ResourceDefinition, language: Language, kind: BodyKind): Schema {
  const schema = {
    ...objectSchema(definition.fields, vocabularyOf(definition, language), kind),
    examples: [exampleBody(definition, language, kind)],
  };
  return kind === 'patch'
    ? { ...schema, description: 'a JSON Merge Patch (RFC 7396): null removes an optional field' }
    : schema;
}

/** The example body of a POST, PUT or PATCH, in the vocabulary of `language` (openapi/examples.ts). */
export function exampleBody(definition: ResourceDefinition, language: Language, kind: BodyKind): JsonValue {
  return translateKeys(resourceExamples(definition, language)[kind], vocabularyOf(definition, language));
}

/** The 201's body: the record (or its `createdFields`), with the secrets made for it (an API key's), shown once. */
export function createdSchema(definition: ResourceDefinition, language: Language): Schema {
  const names = definition.createdFields;
  const issued = definition.fields.filter((rule) => rule.issued !== undefined);
  if (names === undefined && issued.length > 0) {
    const vocabulary = vocabularyOf(definition, language);
    const record = recordSchema(definition, language) as { properties: Record<string, unknown>; required?: string[] };
    const secrets = issued.map((rule) => [
      vocabulary.name(rule.name),
      { ...valueSchema(rule, vocabulary, 'record'), readOnly: true },
    ]);
    return {
      ...record,
      properties: { ...record.properties, ...Object.fromEntries(secrets) },
      required: [...(record.required ?? []), ...secrets.map(([name]) => name as string)],
    };
  }
  if (names === undefined) return recordSchema(definition, language);
  const full = recordSchema(definition, language) as { properties: Record<string, unknown> };
  const vocabulary = vocabularyOf(definition, language);
  const properties = Object.fromEntries(
    names.map((name) => [vocabulary.name(name), full.properties[vocabulary.name(name)]]),
  );
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}
