// The checker accepts only what the server serves (README: Your own resources, Security):
// seeded random declarations made to probe its edges — names that are also JavaScript's
// (`constructor`, `tostring`), reserved words in other languages, bounds that meet or
// cross, defaults that fit or not, enums of odd values, patterns that freeze backtracking
// engines, references and parents. Each is refused with problems, or it starts, serves
// its OpenAPI document and home page, stores a POST of a record made to fit it in every
// collection, and lists it sorted, filtered and searched.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import type { CollectionDeclaration, PropertySchema, ResourcesDeclaration } from '../src/declarations/declaration.ts';
import { patternExample } from '../src/openapi/pattern-example.ts';
import { LinearPattern } from '../src/patterns/linear-pattern.ts';
import { mulberry32, startTestServer } from './helpers.ts';
import { scaled } from './long-run.ts';

/** Seeded declarations tried: 25, and 60 in the long run (test/long-run.ts). */
const DECLARATIONS = scaled(25, 60);

type Random = () => number;
const pick = <T>(random: Random, values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
const maybe = (random: Random, chance: number): boolean => random() < chance;

const NAMES = [
  'constructor',
  'prototype',
  'tostring',
  'valueof',
  'hasownproperty',
  'then',
  'length',
  'data',
  'links',
  'items',
  'name',
  'title',
  'x',
  `a${'b'.repeat(62)}`,
];
const TRANSLATIONS = [
  ...NAMES,
  'tokens',
  'openapi',
  'events',
  'users',
  'usuarios',
  'eventos',
  'produtos',
  'v1',
  'idempotency_keys',
  'nome',
  'titulo',
];
const PATTERNS = [
  '^[a-z]+$',
  '(a|aa)+$',
  '^(a+)+$',
  '(.*){20}x',
  '^\\p{Lu}\\p{Ll}*$',
  '^[0-9]{3}-[0-9]{4}$',
  '\\bword\\b',
  '^$|^x',
  '[]',
  '^(a)\\1$',
  '(?=a)a',
  'a{3000}',
];
const SCALARS: readonly (string | number | boolean)[] = [
  '',
  'a',
  '<script>alert(1)</script>',
  'ção',
  'constructor',
  '__proto__',
  0,
  -1,
  1.5,
  true,
  false,
  'x'.repeat(20),
];
const ODD_VALUES: readonly unknown[] = [...SCALARS, null, [], {}, { a: 1 }];

function numberBounds(random: Random): Partial<PropertySchema> {
  const bound = (): number => pick(random, [-10, -1, 0, 0.5, 1, 2, 3, 10, 1e15]);
  return {
    ...(maybe(random, 0.4) ? { minimum: bound() } : {}),
    ...(maybe(random, 0.4) ? { maximum: bound() } : {}),
    ...(maybe(random, 0.2) ? { exclusiveMinimum: bound() } : {}),
    ...(maybe(random, 0.2) ? { exclusiveMaximum: bound() } : {}),
    ...(maybe(random, 0.3) ? { multipleOf: pick(random, [0.01, 0.5, 1, 3]) } : {}),
  };
}

function randomSchema(random: Random, depth: number, earlier: readonly string[]): PropertySchema {
  const kind = pick(
    random,
    depth > 1
      ? ['string', 'integer', 'number', 'boolean', 'enum']
      : ['string', 'string', 'integer', 'number', 'boolean', 'enum', 'array', 'object', 'reference'],
  );
  let schema: Record<string, unknown>;
  switch (kind) {
    case 'string': {
      const lengths = {
        ...(maybe(random, 0.4) ? { minLength: pick(random, [0, 1, 3, 20]) } : {}),
        ...(maybe(random, 0.4) ? { maxLength: pick(random, [0, 2, 5, 300]) } : {}),
      };
      const style = random();
      schema = {
        type: 'string',
        ...(style < 0.3
          ? { pattern: pick(random, PATTERNS) }
          : style < 0.45
            ? { format: pick(random, ['email', 'date', 'date-time', 'uri', 'password']) }
            : lengths),
      };
      break;
    }
    case 'integer':
    case 'number':
      schema = { type: kind, ...numberBounds(random) };
      break;
    case 'boolean':
      schema = { type: 'boolean' };
      break;
    case 'enum':
      schema = {
        enum: [
          ...new Set(
            Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
              pick(random, maybe(random, 0.1) ? ODD_VALUES : SCALARS),
            ),
          ),
        ],
      };
      break;
    case 'array':
      schema = {
        type: 'array',
        items: randomSchema(random, depth + 1, earlier),
        ...(maybe(random, 0.3) ? { minItems: pick(random, [0, 1, 2]) } : {}),
        ...(maybe(random, 0.3) ? { maxItems: pick(random, [0, 1, 3]) } : {}),
      };
      break;
    case 'object':
      schema = {
        type: 'object',
        properties: {
          [pick(random, NAMES)]: randomSchema(random, depth + 1, earlier),
          y: randomSchema(random, depth + 1, earlier),
        },
        ...(maybe(random, 0.5) ? { required: ['y'] } : {}),
      };
      break;
    default:
      schema = { type: 'integer', 'x-references': pick(random, ['users', ...earlier]) };
  }
  if (maybe(random, 0.2))
    schema['default'] =
      (maybe(random, 0.7) ? fittingDefault(schema as PropertySchema) : undefined) ?? pick(random, ODD_VALUES);
  if (maybe(random, 0.1)) schema['readOnly'] = true;
  if (maybe(random, 0.1)) schema['description'] = pick(random, ['<b>bold</b> & "quoted"', 'ção', '']);
  return schema as PropertySchema;
}

function randomDeclaration(random: Random): ResourcesDeclaration {
  const resources: Record<string, CollectionDeclaration> = {};
  const count = 1 + Math.floor(random() * 3);
  for (let index = 0; index < count; index++) {
    const collection = maybe(random, 0.5) ? pick(random, NAMES) : `c${index}`;
    if (resources[collection] !== undefined) continue;
    const earlier = Object.keys(resources);
    const properties: Record<string, PropertySchema> = {};
    for (let i = 0; i < 1 + Math.floor(random() * 4); i++) {
      const schema = randomSchema(random, 0, earlier);
      const scalar = schema.type !== 'array' && schema.type !== 'object';
      properties[maybe(random, 0.5) ? pick(random, NAMES) : `p${i}`] = {
        ...schema,
        ...(scalar && maybe(random, 0.4) ? { 'x-filter': true } : {}),
        ...(scalar && maybe(random, 0.4) ? { 'x-sort': true } : {}),
        ...(schema.type === 'string' && maybe(random, 0.3) ? { 'x-search': true } : {}),
      };
    }
    const names = Object.keys(properties);
    resources[collection] = {
      singular: `${collection.slice(0, 60)}_one`,
      ...(earlier.length > 0 && maybe(random, 0.4) ? { parent: pick(random, earlier) } : {}),
      ...(maybe(random, 0.2) ? { owned: true } : {}),
      access: { list: 'public', read: 'public', create: 'user', update: 'user', delete: 'admin' },
      properties,
      required: names.filter(() => maybe(random, 0.4)),
      ...(maybe(random, 0.4)
        ? {
            names: {
              [pick(random, ['pt', 'es', 'de'])]: {
                collection: pick(random, TRANSLATIONS),
                singular: pick(random, TRANSLATIONS),
                properties: Object.fromEntries(
                  names.filter(() => maybe(random, 0.5)).map((name) => [name, pick(random, TRANSLATIONS)]),
                ),
              },
            },
          }
        : {}),
    };
  }
  return { resources };
}

/** The first multiple of `step` (an integer, when `integer`) above the lower bounds and within the upper ones. */
function fittingNumber(schema: PropertySchema, integer: boolean): number {
  const step = schema.multipleOf ?? (integer ? 1 : 0.25);
  const low = Math.max(schema.minimum ?? -Infinity, schema.exclusiveMinimum ?? -Infinity, -1e6);
  for (let k = Math.ceil(low / step); ; k++) {
    const value = Number((k * step).toFixed(10));
    const fits =
      (!integer || Number.isInteger(value)) &&
      (schema.minimum === undefined || value >= schema.minimum) &&
      (schema.exclusiveMinimum === undefined || value > schema.exclusiveMinimum);
    if (fits) return value;
  }
}

/** A value for `default` that fits, when one can be made (a pattern only a backtracking engine runs cannot). */
function fittingDefault(schema: PropertySchema): unknown {
  try {
    return fittingValue(schema);
  } catch {
    return undefined;
  }
}

/** A value `schema` accepts, as a client writes it. */
function fittingValue(schema: PropertySchema): unknown {
  if (schema.enum !== undefined) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
      return schema['x-references'] !== undefined ? 1 : fittingNumber(schema, true);
    case 'number':
      return fittingNumber(schema, false);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.min(Math.max(schema.minItems ?? 0, 1), schema.maxItems ?? Infinity) }, () =>
        fittingValue(schema.items as PropertySchema),
      );
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([, member]) => member.readOnly !== true)
          .map(([name, member]) => [name, fittingValue(member)]),
      );
    default:
      if (schema.pattern !== undefined)
        return patternExample(new LinearPattern(schema.pattern), schema.minLength, schema.maxLength);
      if (schema.format !== undefined)
        return {
          email: 'ana@example.org',
          date: '2026-11-27',
          'date-time': '2026-11-27T12:00:00Z',
          uri: 'https://example.org/',
          password: 'correct-horse',
        }[schema.format];
      return 'a'.repeat(Math.min(Math.max(schema.minLength ?? 1, 1), schema.maxLength ?? Infinity));
  }
}

describe('every declaration the checker accepts is served', () => {
  let accepted = 0;
  for (let round = 1; round <= DECLARATIONS; round++) {
    test(`declaration ${round}`, async () => {
      const declaration = randomDeclaration(mulberry32(round * 104_729));
      const problems = checkDeclaration(declaration);
      if (problems.length > 0) {
        for (const { pointer, message } of problems)
          assert.ok(pointer.startsWith('/') || pointer === '', `${pointer}: ${message}`);
        return;
      }
      accepted++;
      const api = await startTestServer({ resources: declaration });
      const context = JSON.stringify(declaration);
      try {
        const openapi = await api.get('/v1/openapi.json');
        assert.equal(openapi.status, 200, context);
        assert.equal(openapi.body.openapi, '3.1.0');
        const home = await api.get('/');
        assert.equal(home.status, 200, context);
        const locations = new Map<string, string>();
        for (const [collection, body] of Object.entries(declaration.resources)) {
          const record = Object.fromEntries(
            Object.entries(body.properties ?? {})
              .filter(([, schema]) => schema.readOnly !== true)
              .map(([name, schema]) => [name, fittingValue(schema)]),
          );
          const under = body.parent === undefined ? '/v1' : (locations.get(body.parent) as string);
          const created = await api.post(`${under}/${collection}`, record);
          assert.equal(created.status, 201, `${collection} ${JSON.stringify(record)} → ${created.text}\n${context}`);
          locations.set(collection, created.headers.get('location') as string);
          for (const [name, schema] of Object.entries(body.properties ?? {})) {
            const queries = [
              schema['x-sort'] === true ? `sort=-${name}` : '',
              schema['x-filter'] === true ? `${name}=${encodeURIComponent(String(record[name] ?? 'a'))}` : '',
              schema['x-search'] === true ? 'q=a' : '',
            ];
            for (const query of queries.filter((text) => text !== '')) {
              const list = await api.get(`${under}/${collection}?${query}`);
              assert.equal(list.status, 200, `${query} → ${list.text}\n${context}`);
            }
          }
        }
      } finally {
        await api.close();
      }
    });
  }

  test('the generator makes declarations both accepted and refused', () => {
    assert.ok(accepted >= DECLARATIONS / 5 && accepted < DECLARATIONS, `${accepted} of ${DECLARATIONS} accepted`);
  });

  test('bounds no request body could meet still give the documents (their examples stop at 10,000 characters and 100 items)', async () => {
    const api = await startTestServer({
      resources: {
        resources: {
          notes: {
            singular: 'note',
            properties: {
              text: { type: 'string', minLength: 1e9 },
              tags: { type: 'array', items: { type: 'string' }, minItems: 1e9 },
            },
          },
        },
      },
    });
    try {
      const openapi = await api.get('/v1/openapi.json');
      assert.equal(openapi.status, 200);
      assert.equal(openapi.body.openapi, '3.1.0');
      assert.ok(openapi.text.length < 2_000_000, `${openapi.text.length} characters`);
      assert.equal((await api.get('/')).status, 200);
    } finally {
      await api.close();
    }
  });
});
