// The declaration fuzz's requests (README: Your own resources; docs/resources.md, ids and singletons; docs/batches.md):
// seeded writes, reads and lists on a random declaration, naming the records the server made (their ids of each
// collection's kind), made-up ids, a string id chosen in a POST's body or a PUT's path, bad ids, and batches of them.

import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import {
  fittingValue,
  idKind,
  type IdKind,
  type IdOf,
  pick,
  type Random,
  randomValue,
} from './declared-fuzz-declaration.ts';

export interface FuzzRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A record the server made: its id as its answer said it (a number or a string) and its path. */
export interface Made {
  readonly id: unknown;
  readonly path: string;
}

/** The records made so far, by collection. */
export type MadeRecords = Map<string, Made[]>;

/** Ids a string collection refuses (or a path that cannot reach one): dot segments, too long, a space, a '%'. */
const BAD_IDS = ['.', '..', 'a'.repeat(129), 'a b', '%7E', 'x%7Ey', ''];

function madeUpUuid(random: Random): string {
  const hex = (length: number): string => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

/** An id of the kind, most likely of no record; now and then one no record of the kind can have. */
function madeUpId(random: Random, kind: IdKind): string | number {
  const roll = random();
  if (roll < 0.1) return pick(random, BAD_IDS);
  if (kind === 'integer') return roll < 0.15 ? 'abc' : 1 + Math.floor(random() * 5);
  if (kind === 'uuid') return roll < 0.15 ? madeUpUuid(random).toUpperCase() : madeUpUuid(random);
  return `${pick(random, ['k', 'road-map', 'a.b', 'x_y', '~t'])}${Math.floor(random() * 40)}`;
}

/** The path of `collection`'s list (under a made parent record, or a made-up one), or of the singleton. */
function basePath(random: Random, declaration: ResourcesDeclaration, made: MadeRecords, collection: string): string {
  const parent = declaration.resources[collection]?.parent;
  if (parent === undefined) return `/v1/${collection}`;
  const parents = made.get(parent) ?? [];
  const under =
    parents.length > 0 && random() < 0.85
      ? pick(random, parents).path
      : `${basePath(random, declaration, made, parent)}/${madeUpId(random, idKind(declaration, parent) as IdKind)}`;
  return `${under}/${collection}`;
}

/** A body that fits (with chance `fit`), fits but for one property, or is random throughout. */
function randomBody(
  random: Random,
  declaration: ResourcesDeclaration,
  collection: string,
  idOf: IdOf,
  fit: number,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const properties = Object.entries(declaration.resources[collection]?.properties ?? {});
  const mode = random();
  const spoiled = Math.floor(random() * properties.length);
  properties.forEach(([name, schema], index) => {
    if (mode < fit || (mode < 0.8 && index !== spoiled)) body[name] = fittingValue(random, schema, idOf);
    else if (random() < 0.8) body[name] = randomValue(random);
  });
  if (random() < 0.1) body['unknown'] = 1;
  return body;
}

/** A made record's id for a reference to `collection`, else a made-up one of its kind. */
export function madeIdOf(random: Random, declaration: ResourcesDeclaration, made: MadeRecords): IdOf {
  return (collection) => {
    const records = made.get(collection) ?? [];
    if (records.length > 0 && random() < 0.8) return pick(random, records).id;
    return madeUpId(random, idKind(declaration, collection) as IdKind);
  };
}

/** One write (POST, PUT, PATCH, DELETE) or, when `reads` allows, a read or a list, on a random collection. */
export function randomRequest(
  random: Random,
  declaration: ResourcesDeclaration,
  made: MadeRecords,
  idOf: IdOf,
  reads: boolean,
): FuzzRequest {
  // A batch's writes fit more often, so that whole batches succeed too.
  const fit = reads ? 0.5 : 0.9;
  const collection = pick(random, Object.keys(declaration.resources));
  const kind = idKind(declaration, collection);
  const base = basePath(random, declaration, made, collection);
  const body = (): Record<string, unknown> => randomBody(random, declaration, collection, idOf, fit);
  const action = pick(
    random,
    reads
      ? ['post', 'put', 'put-new', 'patch', 'list', 'get', 'delete']
      : ['post', 'put', 'put-new', 'patch', 'delete'],
  );
  if (kind === 'singleton') {
    if (action === 'list' || action === 'get') return { method: 'GET', path: base };
    if (action === 'patch') return { method: 'PATCH', path: base, body: body() };
    if (action === 'post' || action === 'delete') return { method: action === 'post' ? 'POST' : 'DELETE', path: base };
    return {
      method: 'PUT',
      path: base,
      body: body(),
      ...(random() < 0.2 ? { headers: { 'If-None-Match': '*' } } : {}),
    };
  }
  const records = made.get(collection) ?? [];
  const existing = (): string =>
    records.length > 0 && random() < 0.85 ? pick(random, records).path : `${base}/${madeUpId(random, kind)}`;
  if (action === 'list') {
    const name = pick(random, ['p0', 'p1', 'sort', 'page', 'limit', 'id', 'p0[in]', 'p1[ne]']);
    return { method: 'GET', path: `${base}?${name}=${encodeURIComponent(String(randomValue(random)))}` };
  }
  if (action === 'get') return { method: 'GET', path: existing() };
  if (action === 'delete') return { method: 'DELETE', path: existing() };
  if (action === 'patch') return { method: 'PATCH', path: existing(), body: body() };
  if (action === 'put') return { method: 'PUT', path: existing(), body: body() };
  if (action === 'put-new') {
    // A string collection makes the record a PUT names; others answer 404. Its body's id, if any, is the path's.
    const id = madeUpId(random, kind);
    const sent = body();
    if (random() < 0.2) sent['id'] = random() < 0.7 ? id : madeUpId(random, kind);
    const condition = random();
    const headers: Record<string, string> | undefined =
      condition < 0.2 ? { 'If-None-Match': '*' } : condition < 0.3 ? { 'If-Match': '*' } : undefined;
    return { method: 'PUT', path: `${base}/${id}`, body: sent, ...(headers === undefined ? {} : { headers }) };
  }
  const sent = body();
  // A string collection's POST names its id (sometimes a bad one, a taken one, or none); others refuse an id.
  if (kind === 'string') {
    const roll = random();
    if (roll < 0.7) sent['id'] = madeUpId(random, 'string');
    else if (roll < 0.8 && records.length > 0) sent['id'] = pick(random, records).id;
    else if (roll < 0.9) sent['id'] = pick(random, [...BAD_IDS, 1, null]);
  } else if (random() < 0.05) sent['id'] = madeUpId(random, kind);
  return { method: 'POST', path: base, body: sent };
}

/** A batch of 1 to 4 writes; a later one sometimes names what an earlier POST made by `$n.id` (docs/batches.md). */
export function randomBatch(
  random: Random,
  declaration: ResourcesDeclaration,
  made: MadeRecords,
  idOf: IdOf,
): FuzzRequest[] {
  const operations: FuzzRequest[] = [];
  const count = 1 + Math.floor(random() * 4);
  for (let index = 0; index < count; index++) {
    const posts = operations.flatMap((operation, n) => (operation.method === 'POST' ? [{ operation, n }] : []));
    // A reference to what an earlier POST made, in a body: `$n.id`, mostly of a POST to the collection it names.
    const batchIdOf: IdOf = (collection) => {
      const to = posts.filter(({ operation }) => random() < 0.2 || operation.path.endsWith(`/${collection}`));
      return to.length > 0 && random() < 0.5 ? `$${pick(random, to).n}.id` : idOf(collection);
    };
    if (posts.length > 0 && random() < 0.3) {
      const { operation, n } = pick(random, posts);
      const path = `${operation.path.split('?')[0]}/$${n}.id`;
      const collection = operation.path.split('/').at(-1) as string;
      const method = pick(random, ['PATCH', 'PUT', 'DELETE'] as const);
      const body = method === 'DELETE' ? undefined : randomBody(random, declaration, collection, batchIdOf, 0.9);
      operations.push({ method, path, ...(body === undefined ? {} : { body }) });
    } else operations.push(randomRequest(random, declaration, made, batchIdOf, false));
  }
  return operations;
}
