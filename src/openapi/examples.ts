// Example values for the OpenAPI document: request bodies, records as they are read, path ids and query values, with
// the English field names (`translateKeys` gives the Portuguese ones). They are chosen so that the requests a generated
// client collection makes, in the order it makes them, all succeed against a fresh server loaded with the example
// dataset (data/example) and an administrator's token.

import type { JsonObject, JsonValue } from '../records/json.ts';
import type { FieldRule, Language, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { exampleResources } from '../declarations/example-domain.ts';
import { MOST_EXAMPLE_CHARACTERS, patternExample } from './pattern-example.ts';

export interface ResourceExamples {
  /** Bodies of POST, PUT and PATCH. */
  readonly create: JsonObject;
  readonly replace: JsonObject;
  readonly patch: JsonObject;
  /** The record as a read shows it once the create has been made (without its id and parent id). */
  readonly record: JsonObject;
  /**
   * The id of the record the create example makes on a fresh server with the example
   * dataset (3 users counting the administrator, 12 products, 5 orders), when the
   * collection runs the English paths before the Portuguese ones; item paths use it. A collection is ordered by path
   * (`/v1/users`, then `/v1/users/{user_id}`, then `/v1/users/{user_id}/orders`, …), so an item path's id is the
   * record its collection's create example has just made there.
   */
  readonly createdId: number;
  /** Equality filter values and a sort for the list. */
  readonly query: Readonly<Record<string, string>>;
}

/** Every example record was made at this time. */
export const EXAMPLE_TIME = '2026-01-20T10:00:00.000Z';

/** The parent of the nested examples: Alice (user 1), who is never deleted by them. */
export const EXAMPLE_PARENT_ID = 1;

/** Alice's credentials in the example dataset (the README lists them). */
export const EXAMPLE_CREDENTIALS: JsonObject = { email: 'alice@example.com', password: 'wonderland-42' };

export const EXAMPLE_TOKEN = {
  access_token:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwiaWF0IjoxNzY4OTAzMjAwLCJleHAiOjE3Njg5MDY4MDB9.' +
    'b3Fjr6xK0D0KZmTK0hWl4bQtZt6VdGxgk1hMfyGlHH0',
  token_type: 'Bearer',
  expires_in: 3600,
  user_id: 1,
} as const;

/** An ETag that matches nothing, for If-None-Match: the answer is the full 200 (RFC 9110 §8.8.3 uses "xyzzy" too). */
export const EXAMPLE_STALE_ETAG = '"xyzzy"';

/** A request id as the server makes them: a per-process prefix and a counter in base 36. */
export const EXAMPLE_REQUEST_ID = 'a4e9e911-1f';

const EXAMPLES: Readonly<Record<Language, Readonly<Record<string, ResourceExamples>>>> = {
  en: {
    users: {
      create: { name: 'Erin Example', email: 'erin@example.com', password: 'correct-horse-battery' },
      replace: { name: 'Erin Example', email: 'erin@example.com' },
      patch: { name: 'Erin E. Example' },
      record: { name: 'Erin Example', email: 'erin@example.com', role: 'user' },
      createdId: 4,
      query: { email: 'alice@example.com', role: 'user', sort: 'name', q: 'alice' },
    },
    products: {
      create: {
        name: 'Glass teapot 1 l',
        category: 'tea',
        price: 19.99,
        description: 'Borosilicate glass with a steel infuser.',
      },
      replace: { name: 'Glass teapot 1 l', category: 'tea', price: 21.5 },
      patch: { price: 18.99 },
      record: {
        name: 'Glass teapot 1 l',
        category: 'tea',
        price: 19.99,
        description: 'Borosilicate glass with a steel infuser.',
      },
      createdId: 13,
      query: { category: 'coffee', price: '11.5', sort: '-price,name', q: 'coffee' },
    },
    orders: {
      create: {
        items: [
          { product_id: 1, quantity: 2 },
          { product_id: 10, quantity: 1 },
        ],
      },
      replace: { items: [{ product_id: 2, quantity: 1 }] },
      patch: { status: 'cancelled' },
      record: {
        items: [
          { product_id: 1, quantity: 2, unit_price: 24.9 },
          { product_id: 10, quantity: 1, unit_price: 3.99 },
        ],
        total: 53.79,
        status: 'pending',
      },
      createdId: 6,
      query: { status: 'pending', sort: '-created_at' },
    },
  },
  pt: {
    users: {
      create: { name: 'Fernanda Exemplo', email: 'fernanda@example.com', password: 'cavalo-correto-bateria' },
      replace: { name: 'Fernanda Exemplo', email: 'fernanda@example.com' },
      patch: { name: 'Fernanda E. Exemplo' },
      record: { name: 'Fernanda Exemplo', email: 'fernanda@example.com', role: 'user' },
      createdId: 5,
      query: { email: 'alice@example.com', role: 'user', sort: 'name', q: 'alice' },
    },
    products: {
      create: {
        name: 'Bule de vidro 1 l',
        category: 'chá',
        price: 19.99,
        description: 'Vidro borossilicato com infusor de aço.',
      },
      replace: { name: 'Bule de vidro 1 l', category: 'chá', price: 21.5 },
      patch: { price: 18.99 },
      record: {
        name: 'Bule de vidro 1 l',
        category: 'chá',
        price: 19.99,
        description: 'Vidro borossilicato com infusor de aço.',
      },
      createdId: 14,
      query: { category: 'coffee', price: '11.5', sort: '-price,name', q: 'coffee' },
    },
    orders: {
      create: { items: [{ product_id: 2, quantity: 1 }] },
      replace: { items: [{ product_id: 3, quantity: 2 }] },
      patch: { status: 'cancelled' },
      record: { items: [{ product_id: 2, quantity: 1, unit_price: 11.5 }], total: 11.5, status: 'pending' },
      createdId: 7,
      query: { status: 'pending', sort: '-created_at' },
    },
  },
};

/**
 * The examples of a resource: the hand-written ones above for the example domain, and
 * for a declared resource ones made from its declaration (generatedExamples).
 */
export function resourceExamples(definition: ResourceDefinition, language: Language): ResourceExamples {
  const written = EXAMPLES[language]?.[definition.collection];
  if (written !== undefined && exampleResources().get(definition.collection) === definition) return written;
  let generated = generatedByDefinition.get(definition);
  if (generated === undefined) {
    generated = generatedExamples(definition);
    generatedByDefinition.set(definition, generated);
  }
  return generated;
}

const generatedByDefinition = new WeakMap<ResourceDefinition, ResourceExamples>();

/** Generated examples stop here: a schema that needs a longer string or array gives its own `examples`. */
const MOST_EXAMPLE_ITEMS = 100;

/**
 * Examples made from a declaration: each writable property's first declared example,
 * else its default, else a value that fits its type and bounds (a declared `pattern`
 * needs `examples` for the document's examples to pass it). The create example is
 * assumed to make record 1 of an empty collection under parent 1.
 */
function generatedExamples(definition: ResourceDefinition): ResourceExamples {
  const create: Record<string, JsonValue> = {};
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
  const replace = Object.fromEntries(
    Object.entries(create).filter(
      ([name]) => definition.fields.find((rule) => rule.name === name)?.access !== 'write-only',
    ),
  );
  const [firstName, firstValue] = Object.entries(replace)[0] ?? [];
  return {
    create,
    replace,
    patch: firstName === undefined ? {} : { [firstName]: firstValue as JsonValue },
    record,
    createdId: 1,
    query: {},
  };
}

/** A value that fits a rule. */
function exampleValue(rule: FieldRule): JsonValue {
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

/**
 * `{ product_id: 1 }` → `{ produto_id: 1 }` in Portuguese, at every depth; values are not translated (README: Paths).
 */
export function translateKeys(value: JsonValue, vocabulary: Vocabulary): JsonValue {
  if (Array.isArray(value)) return value.map((element) => translateKeys(element, vocabulary));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [vocabulary.name(key), translateKeys(member, vocabulary)]),
  );
}

/** The example record as a read shows it, in the vocabulary's names and the declaration's order. */
export function exampleRecord(definition: ResourceDefinition, language: Language): JsonObject {
  const examples = resourceExamples(definition, language);
  const record: Record<string, JsonObject[string]> = {};
  for (const rule of definition.fields) {
    if (rule.name === 'id') record['id'] = examples.createdId;
    else if (rule.name === definition.parent?.field) record[rule.name] = EXAMPLE_PARENT_ID;
    else if (rule.type === 'timestamp') record[rule.name] = EXAMPLE_TIME;
    else if (examples.record[rule.name] !== undefined)
      record[rule.name] = examples.record[rule.name] as JsonObject[string];
  }
  return translateKeys(record, vocabularyOf(definition, language)) as JsonObject;
}

/** The first page of a list holding the example record. */
export function listExample(definition: ResourceDefinition, language: Language, path: string): JsonObject {
  const { parameters } = vocabularyOf(definition, language);
  const page = `${path}?${parameters.page}=1&${parameters.limit}=20`;
  return {
    data: [exampleRecord(definition, language)],
    meta: { page: 1, limit: 20, total: 1, pages: 1 },
    links: { self: page, first: page, prev: null, next: null, last: page },
  };
}
