// JSON Schemas (OpenAPI 3.1 uses JSON Schema 2020-12) derived from the resource
// declarations, never written by hand: a record as it is read, and the bodies of
// POST, PUT and PATCH, in either vocabulary.

import type { FieldRule, ResourceDefinition } from '../resources/definition.js';
import type { Language } from '../vocabulary.js';
import { translate } from '../vocabulary.js';

export type Schema = { readonly [keyword: string]: unknown };
export type BodyKind = 'create' | 'replace' | 'patch';

/** The schema of one value, without the request/response specifics. */
function valueSchema(rule: FieldRule, language: Language, kind: BodyKind | 'record'): Record<string, unknown> {
  switch (rule.type) {
    case 'id':
      return { type: 'integer', minimum: 1 };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'string':
    case 'password':
      return { type: 'string', ...bound('minLength', rule.min), ...bound('maxLength', rule.max) };
    case 'email':
      return { type: 'string', format: 'email', ...bound('maxLength', rule.max) };
    case 'money':
      return { type: 'number', multipleOf: 0.01, ...bound('minimum', rule.min), ...bound('maximum', rule.max) };
    case 'integer':
      return { type: 'integer', ...bound('minimum', rule.min), ...bound('maximum', rule.max) };
    case 'enum':
      return { type: 'string', enum: [...(rule.values ?? [])] };
    case 'list':
      return {
        type: 'array',
        ...bound('minItems', rule.min),
        ...bound('maxItems', rule.max),
        // Elements of a list in a PATCH are whole elements (RFC 7396 replaces arrays), so they read like a PUT's.
        items: objectSchema(rule.of ?? [], language, kind === 'patch' ? 'replace' : kind),
      };
  }
}

function bound(keyword: string, value: number | undefined): Record<string, number> {
  return value === undefined ? {} : { [keyword]: value };
}

/** Fields always present when a record is read: ids, timestamps, required and defaulted ones. */
function alwaysPresent(rule: FieldRule): boolean {
  return rule.access === 'server' || rule.required === true || rule.default !== undefined;
}

function objectSchema(rules: readonly FieldRule[], language: Language, kind: BodyKind | 'record'): Schema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const rule of rules) {
    const name = translate(rule.name, language);
    if (kind === 'record') {
      if (rule.access === 'write-only') continue;
      properties[name] = { ...valueSchema(rule, language, kind), ...(rule.access === 'server' ? { readOnly: true } : {}) };
      if (alwaysPresent(rule)) required.push(name);
      continue;
    }
    if (rule.access === 'server') {
      if (kind === 'create') continue;
      properties[name] = { ...valueSchema(rule, language, kind), readOnly: true, description: 'set by the server; accepted only when equal to the current value' };
      continue;
    }
    const removable = kind === 'patch' && rule.access === 'client' && rule.required !== true;
    const schema = valueSchema(rule, language, kind);
    properties[name] = removable ? { ...schema, type: [schema['type'], 'null'] } : schema;
    if (rule.access === 'write-only') (properties[name] as Record<string, unknown>)['writeOnly'] = true;
    if (kind !== 'patch' && rule.required === true) required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

export function recordSchema(definition: ResourceDefinition, language: Language): Schema {
  return objectSchema(definition.fields, language, 'record');
}

export function bodySchema(definition: ResourceDefinition, language: Language, kind: BodyKind): Schema {
  const schema = { ...objectSchema(definition.fields, language, kind), examples: [exampleBody(definition.fields, language, kind)] };
  return kind === 'patch' ? { ...schema, description: 'a JSON Merge Patch (RFC 7396): null removes an optional field' } : schema;
}

/** A plausible value for a field, for the document's examples (and the explorer's forms). */
function exampleValue(rule: FieldRule, language: Language): unknown {
  switch (rule.type) {
    case 'email':
      return 'ada@example.com';
    case 'password':
      return 'correct-horse-battery';
    case 'money':
      return 9.99;
    case 'integer':
      return rule.min ?? 1;
    case 'enum':
      return rule.default ?? rule.values?.[0];
    case 'list':
      return [exampleBody(rule.of ?? [], language, 'create')];
    case 'string':
      return rule.name === 'category' ? 'tea' : rule.name === 'name' ? 'Example' : 'Some text';
    case 'id':
    case 'timestamp':
      return undefined;
  }
}

/** A body that the server accepts: required fields for POST and PUT (and a password for a new user), one field for PATCH. */
function exampleBody(rules: readonly FieldRule[], language: Language, kind: BodyKind): Record<string, unknown> {
  const writable = rules.filter((rule) => rule.access === 'client');
  const secrets = kind === 'create' ? rules.filter((rule) => rule.access === 'write-only') : [];
  const chosen = kind === 'patch' ? writable.slice(0, 1) : [...writable.filter((rule) => rule.required === true), ...secrets];
  return Object.fromEntries(chosen.map((rule) => [translate(rule.name, language), exampleValue(rule, language)]));
}

export function createdSchema(definition: ResourceDefinition, language: Language): Schema {
  const names = definition.createdFields;
  if (names === undefined) return recordSchema(definition, language);
  const full = recordSchema(definition, language) as { properties: Record<string, unknown> };
  const properties = Object.fromEntries(names.map((name) => [translate(name, language), full.properties[translate(name, language)]]));
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

const LINK = { type: ['string', 'null'], description: 'a relative reference to another page of the same list' };

export function listSchema(recordReference: string): Schema {
  return {
    type: 'object',
    required: ['data', 'meta', 'links'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: { $ref: recordReference } },
      meta: {
        type: 'object',
        required: ['page', 'limit', 'total', 'pages'],
        additionalProperties: false,
        properties: {
          page: { type: 'integer', minimum: 1 },
          limit: { type: 'integer', minimum: 1, maximum: 100 },
          total: { type: 'integer', minimum: 0 },
          pages: { type: 'integer', minimum: 0 },
        },
      },
      links: {
        type: 'object',
        required: ['self', 'first', 'prev', 'next', 'last'],
        additionalProperties: false,
        properties: { self: { type: 'string' }, first: { type: 'string' }, prev: LINK, next: LINK, last: { type: 'string' } },
      },
    },
  };
}

/** RFC 9457 problem details with this API's members. */
export const PROBLEM_SCHEMA: Schema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code', 'detail', 'request_id'],
  properties: {
    type: { type: 'string', const: 'about:blank' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string', pattern: '^[a-z_]+$' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'code', 'message'],
        additionalProperties: false,
        properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};
