// Random declarations and random bodies (README: Your own resources): whatever a valid
// declaration says and whatever a client sends, the answer is never a 5xx. Each round
// makes a declaration from a seeded generator (types, bounds, enums, nested objects and
// arrays, filters, sort keys, uniqueness, references, a parent), checks that the checker
// accepts it, serves it, and sends writes, reads and lists with bodies that fit, almost
// fit or do not fit at all.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import type { PropertySchema, ResourcesDeclaration } from '../src/declarations/declaration.ts';
import { mulberry32, startTestServer } from './helpers.ts';

const ROUNDS = 6;
const REQUESTS_PER_ROUND = 120;

type Random = () => number;
const pick = <T>(random: Random, values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;

function randomSchema(random: Random, depth: number, collections: readonly string[]): PropertySchema {
  const kind = pick(
    random,
    depth > 1
      ? ['string', 'integer', 'number', 'boolean', 'enum']
      : ['string', 'integer', 'number', 'boolean', 'enum', 'array', 'object', 'reference'],
  );
  switch (kind) {
    case 'string':
      return {
        type: 'string',
        minLength: Math.floor(random() * 3),
        maxLength: 5 + Math.floor(random() * 20),
        ...(random() < 0.3 ? { pattern: '^[a-z]+$' } : {}),
        ...(random() < 0.2 ? { format: 'email' as const } : {}),
      };
    case 'integer':
      return { type: 'integer', minimum: -5, maximum: 100 };
    case 'number':
      return { type: 'number', minimum: 0, ...(random() < 0.5 ? { multipleOf: 0.01 } : { exclusiveMaximum: 1000 }) };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { enum: ['a', 'b', 'c'] };
    case 'array':
      return { type: 'array', maxItems: 4, items: randomSchema(random, depth + 1, collections) };
    case 'object':
      return {
        type: 'object',
        properties: {
          x: randomSchema(random, depth + 1, collections),
          y: randomSchema(random, depth + 1, collections),
        },
        required: random() < 0.5 ? ['x'] : [],
      };
    default:
      return collections.length === 0
        ? { type: 'integer' }
        : { type: 'integer', 'x-references': pick(random, collections) };
  }
}

function randomDeclaration(random: Random): ResourcesDeclaration {
  const resources: Record<string, ResourcesDeclaration['resources'][string]> = {};
  const names = ['alphas', 'betas', 'gammas'];
  names.forEach((collection, index) => {
    const earlier = names.slice(0, index);
    const properties: Record<string, PropertySchema> = {};
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const schema = randomSchema(random, 0, earlier);
      const scalar = schema.type !== 'array' && schema.type !== 'object';
      properties[`p${i}`] = {
        ...schema,
        ...(scalar && random() < 0.4 ? { 'x-filter': true } : {}),
        ...(scalar && random() < 0.4 ? { 'x-sort': true } : {}),
        ...(schema.type === 'string' && random() < 0.2 ? { 'x-unique': true as const } : {}),
      };
    }
    resources[collection] = {
      singular: collection.slice(0, -1),
      ...(index > 0 && random() < 0.5 ? { parent: names[index - 1] as string } : {}),
      access: { list: 'public', read: 'user', create: 'user', update: 'user', delete: 'admin' },
      properties,
      required: Object.keys(properties).filter(() => random() < 0.3),
    };
  });
  return { resources };
}

function randomValue(random: Random, depth = 0): unknown {
  const kind = Math.floor(random() * (depth > 2 ? 6 : 8));
  switch (kind) {
    case 0:
      return pick(random, ['', 'a', 'abc', 'ABC', 'x@y.z', 'a'.repeat(40), '\u0000', '__proto__']);
    case 1:
      return pick(random, [0, 1, -1, 5, 0.01, 1.234, 1e300, -0]);
    case 2:
      return random() < 0.5;
    case 3:
      return null;
    case 4:
      return pick(random, ['a', 'b', 'c', 'd']);
    case 5:
      return Math.floor(random() * 4) + 1;
    case 6:
      return Array.from({ length: Math.floor(random() * 6) }, () => randomValue(random, depth + 1));
    default:
      return {
        x: randomValue(random, depth + 1),
        ...(random() < 0.3 ? { y: randomValue(random, depth + 1) } : {}),
        ...(random() < 0.1 ? { z: 1 } : {}),
      };
  }
}

/** A value the schema accepts (a reference names record 1, which may or may not exist). */
function fittingValue(random: Random, schema: PropertySchema): unknown {
  if (schema.enum !== undefined) return pick(random, schema.enum);
  switch (schema.type) {
    case 'string':
      return schema.format === 'email'
        ? 'someone@example.com'
        : 'abcde'.slice(0, Math.max(schema.minLength ?? 0, 2 + Math.floor(random() * 3)));
    case 'integer':
      return schema['x-references'] !== undefined ? 1 : Math.floor(random() * 50);
    case 'number':
      return Math.round(random() * 10000) / 100;
    case 'boolean':
      return random() < 0.5;
    case 'array':
      return Array.from({ length: Math.floor(random() * 3) }, () =>
        fittingValue(random, schema.items as PropertySchema),
      );
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, member]) => [name, fittingValue(random, member)]),
      );
    default:
      return null;
  }
}

/** A body that fits (half the time), fits but for one property, or is random throughout. */
function randomBody(random: Random, declaration: ResourcesDeclaration, collection: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const properties = Object.entries(declaration.resources[collection]?.properties ?? {});
  const mode = random();
  const spoiled = Math.floor(random() * properties.length);
  properties.forEach(([name, schema], index) => {
    if (mode < 0.5 || (mode < 0.8 && index !== spoiled)) body[name] = fittingValue(random, schema);
    else if (random() < 0.8) body[name] = randomValue(random);
  });
  if (random() < 0.1) body['unknown'] = 1;
  if (random() < 0.05) body['id'] = 1;
  return body;
}

describe('random declarations with random bodies never answer 5xx', () => {
  for (let round = 1; round <= ROUNDS; round++) {
    test(`round ${round}`, async () => {
      const random = mulberry32(round * 7919);
      const declaration = randomDeclaration(random);
      assert.deepEqual(checkDeclaration(declaration), [], 'the generator makes valid declarations');
      const api = await startTestServer({ resources: declaration });
      try {
        const paths: string[] = [];
        const statuses = new Set<number>();
        for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
          const collection = pick(random, Object.keys(declaration.resources));
          const parent = declaration.resources[collection]?.parent;
          const parentPath = parent === undefined ? '' : `/${parent}/${1 + Math.floor(random() * 3)}`;
          const grandparent = parent === undefined ? undefined : declaration.resources[parent]?.parent;
          const base = `/v1${grandparent === undefined ? '' : `/${grandparent}/${1 + Math.floor(random() * 3)}`}${parentPath}/${collection}`;
          const action = Math.floor(random() * 5);
          let response;
          if (action === 0 || paths.length === 0) {
            response = await api.post(base, randomBody(random, declaration, collection));
            const location = response.headers.get('location');
            if (response.status === 201 && location !== null) paths.push(location);
          } else if (action === 1) {
            response = await api.put(pick(random, paths), randomBody(random, declaration, collection));
          } else if (action === 2) {
            response = await api.patch(pick(random, paths), randomBody(random, declaration, collection));
          } else if (action === 3) {
            const name = pick(random, ['p0', 'p1', 'sort', 'page', 'limit']);
            response = await api.get(`${base}?${name}=${encodeURIComponent(String(randomValue(random)))}`);
          } else {
            response = await api.delete(pick(random, paths));
          }
          assert.ok(response.status < 500, `${response.status} ${response.text}`);
          statuses.add(response.status);
        }
        assert.ok(statuses.has(201) && statuses.has(422), `writes both succeed and fail: ${[...statuses].join(', ')}`);
      } finally {
        await api.close();
      }
    });
  }
});
