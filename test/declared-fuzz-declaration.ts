// The declaration fuzz's generator (README: Your own resources; docs/resources.md, ids and singletons): a seeded random
// declaration of three collections, each with an `x-id` or a singleton, references typed by their target's kind of
// id, on a property or an array's items with an `x-on-delete`, and values that fit its schemas or do not.

import type { CollectionDeclaration, PropertySchema, ResourcesDeclaration } from '../src/declarations/declaration.ts';

export type Random = () => number;
export type IdKind = 'integer' | 'uuid' | 'string';
/** An id a value may name for a reference to `collection` (one made, one made up, or a batch's `$n.id`). */
export type IdOf = (collection: string) => unknown;

export const pick = <T>(random: Random, values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;

const NAMES = ['alphas', 'betas', 'gammas'];
const ON_DELETE = [undefined, 'restrict', 'cascade', 'set-null'] as const;

/** A collection a reference may name: not a singleton (its record has no id), with its kind of id. */
interface Target {
  readonly name: string;
  readonly kind: IdKind;
}

/** The kind of `collection`'s ids, or 'singleton' for one record without an id. */
export function idKind(declaration: ResourcesDeclaration, collection: string): IdKind | 'singleton' {
  const body = declaration.resources[collection];
  return body?.['x-singleton'] === true ? 'singleton' : (body?.['x-id'] ?? 'integer');
}

function referenceTo(target: Target): PropertySchema {
  return { type: target.kind === 'integer' ? 'integer' : 'string', 'x-references': target.name };
}

function randomSchema(random: Random, depth: number, targets: readonly Target[]): PropertySchema {
  const kinds = ['string', 'integer', 'number', 'boolean', 'enum'];
  if (depth <= 1) kinds.push('array', 'object', 'reference');
  if (depth === 0) kinds.push('references');
  switch (pick(random, kinds)) {
    case 'string': {
      // An email is long enough for the one fittingValue writes, and has no pattern it could not match.
      const email = random() < 0.2;
      return {
        type: 'string',
        minLength: Math.floor(random() * 3),
        maxLength: (email ? 20 : 5) + Math.floor(random() * 20),
        ...(!email && random() < 0.3 ? { pattern: '^[a-z]+$' } : {}),
        ...(email ? { format: 'email' as const } : {}),
      };
    }
    case 'integer':
      return { type: 'integer', minimum: -5, maximum: 100 };
    case 'number':
      return { type: 'number', minimum: 0, ...(random() < 0.5 ? { multipleOf: 0.01 } : { exclusiveMaximum: 1000 }) };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { enum: ['a', 'b', 'c'] };
    case 'array':
      return { type: 'array', maxItems: 4, items: randomSchema(random, depth + 1, targets) };
    case 'object':
      return {
        type: 'object',
        properties: { x: randomSchema(random, depth + 1, targets), y: randomSchema(random, depth + 1, targets) },
        required: random() < 0.5 ? ['x'] : [],
      };
    case 'reference':
      return targets.length === 0 ? { type: 'integer' } : referenceTo(pick(random, targets));
    default:
      return targets.length === 0
        ? { type: 'array', items: { type: 'string' } }
        : { type: 'array', maxItems: 3, items: referenceTo(pick(random, targets)) };
  }
}

/** A top-level reference or array of references given a random `x-on-delete` the checker accepts there. */
function withOnDelete(random: Random, schema: PropertySchema, singleton: boolean): PropertySchema {
  const ofArray = schema.items?.['x-references'] !== undefined;
  if (schema['x-references'] === undefined && !ofArray) return schema;
  // A singleton's own references do not cascade: deleting what one names would delete the singleton.
  const onDelete = pick(random, singleton ? ON_DELETE.filter((value) => value !== 'cascade') : ON_DELETE);
  const declared = onDelete === undefined ? schema : { ...schema, 'x-on-delete': onDelete };
  if (ofArray) return onDelete !== 'set-null' && random() < 0.3 ? { ...declared, minItems: 1 } : declared;
  // set-null on a property needs a type that holds null; other references are sometimes nullable anyway.
  if (onDelete !== 'set-null' && random() < 0.7) return declared;
  const type = schema.type as 'integer' | 'string';
  return { ...declared, type: random() < 0.5 ? [type, 'null'] : ['null', type] };
}

/** Three collections (integer, uuid or string ids, or singletons), each nested under the one before or not. */
export function randomDeclaration(random: Random): ResourcesDeclaration {
  const singletons = new Set(NAMES.filter(() => random() < 0.2));
  if (singletons.size === NAMES.length) singletons.delete(NAMES[0] as string);
  const resources: Record<string, CollectionDeclaration> = {};
  const targets: Target[] = [];
  NAMES.forEach((collection, index) => {
    const singleton = singletons.has(collection);
    const properties: Record<string, PropertySchema> = {};
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const schema = withOnDelete(random, randomSchema(random, 0, targets), singleton);
      const scalar = schema.type !== 'array' && schema.type !== 'object';
      properties[`p${i}`] = {
        ...schema,
        ...(scalar && !singleton && random() < 0.4 ? { 'x-filter': true } : {}),
        ...(scalar && !singleton && random() < 0.4 ? { 'x-sort': true } : {}),
        ...(schema.type === 'string' && random() < 0.2 ? { 'x-unique': true as const } : {}),
      };
    }
    const required = Object.keys(properties).filter(() => random() < 0.3);
    const earlier = NAMES[index - 1];
    if (singleton) {
      resources[collection] = {
        singular: collection.slice(0, -1),
        'x-singleton': true,
        access: { read: pick(random, ['public', 'user'] as const), update: 'user' },
        properties,
        required,
      };
      return;
    }
    const kind = pick(random, [undefined, 'integer', 'uuid', 'string'] as const);
    const nested = earlier !== undefined && !singletons.has(earlier) && random() < 0.5;
    resources[collection] = {
      singular: collection.slice(0, -1),
      ...(kind === undefined ? {} : { 'x-id': kind }),
      ...(nested ? { parent: earlier, ...(random() < 0.3 ? { 'on-delete': 'restrict' as const } : {}) } : {}),
      access: { list: 'public', read: 'user', create: 'user', update: 'user', delete: 'admin' },
      properties,
      required,
    };
    targets.push({ name: collection, kind: kind ?? 'integer' });
  });
  return { resources };
}

/** Any JSON value, to put where a schema wants something else. */
export function randomValue(random: Random, depth = 0): unknown {
  const kind = Math.floor(random() * (depth > 2 ? 6 : 8));
  switch (kind) {
    case 0:
      return pick(random, ['', 'a', 'abc', 'ABC', 'x@y.z', 'a'.repeat(40), '\u0000', '__proto__', '.', 'a b']);
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

/** A value the schema accepts; a reference names what `idOf` gives (a record that may or may not exist). */
export function fittingValue(random: Random, schema: PropertySchema, idOf: IdOf): unknown {
  if (schema.enum !== undefined) return pick(random, schema.enum);
  const nullable = Array.isArray(schema.type);
  if (nullable && random() < 0.2) return null;
  if (schema['x-references'] !== undefined) return idOf(schema['x-references']);
  const type = nullable ? (schema.type as readonly string[]).find((name) => name !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'email'
        ? 'someone@example.com'
        : 'abcde'.slice(0, Math.max(schema.minLength ?? 0, 2 + Math.floor(random() * 3)));
    case 'integer':
      return Math.floor(random() * 50);
    case 'number':
      return Math.round(random() * 10000) / 100;
    case 'boolean':
      return random() < 0.5;
    case 'array':
      return Array.from({ length: (schema.minItems ?? 0) + Math.floor(random() * 3) }, () =>
        fittingValue(random, schema.items as PropertySchema, idOf),
      );
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, member]) => [name, fittingValue(random, member, idOf)]),
      );
    default:
      return null;
  }
}
