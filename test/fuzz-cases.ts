// Input fuzzing, the generator (the hardening issue, item 1): pure functions that turn a
// seed and a case number into one request description. Every case starts from a VALID
// request for a route and method — POST/PUT/PATCH with valid bodies, GET lists with
// valid queries, GET/DELETE items, in both vocabularies — and applies one mutation
// from a fixed catalogue: bodies, paths, query strings, headers and methods. Nothing
// here does I/O; test/fuzz.test.ts sends the cases to a real server and judges them.
//
// Convention: OWASP API Security Top 10 (2023). API8 Security Misconfiguration — no
// stack trace, internal path or 5xx for odd input, lax parsing and framing refused
// cleanly; API4 Unrestricted Resource Consumption — deep nesting, bodies at and over
// the 1 MiB limit, thousands of parameters, keys or headers.
//
// Case i of seed s uses mutation i mod N (so any run of N cases or more tries every
// mutation) and a PRNG seeded from (s, i) for all its choices, so a single case can be
// rebuilt on its own: FUZZ_SEED=s FUZZ_ONLY=i. Each case also carries the statuses the
// contract allows for its route, method and mutation (`allowed`), computed here from
// what the mutation touched, never from the server's code.

import { gzipSync } from 'node:zlib';
import { mulberry32 } from './helpers.ts';

// ---------------------------------------------------------------------------------
// Types

export type Family = 'body' | 'path' | 'query' | 'header' | 'method';
export const FAMILIES: readonly Family[] = ['body', 'path', 'query', 'header', 'method'];

export type Caller = 'admin' | 'owner' | 'anonymous';
export type Vocabulary = 'en' | 'pt';
export type Resource = 'users' | 'products' | 'orders';
export type RouteKind = 'collection' | 'item' | 'tokens' | 'health' | 'readiness' | 'index' | 'openapi';

/** What a mutation touched; each widens the statuses the contract allows. */
export type Effect =
  | 'path' // the path no longer names the route: 404 (or a parser 400 / 414)
  | 'authorization' // 401
  | 'accept' // 406
  | 'if-match' // 412
  | 'if-none-match' // 304
  | 'expect' // 417 (RFC 9110 §10.1.1)
  | 'large-headers' // 431
  | 'idempotency-key' // 409 while a key is in flight
  | 'framing'; // Content-Length, Transfer-Encoding or line syntax: parser 400 or a closed connection

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The records and tokens the cases address, created by the test before the run. */
export interface Fixture {
  readonly adminToken: string;
  /** An ordinary user: the owner of `orderId` and `victimOrderId`. */
  readonly ownerToken: string;
  readonly ownerId: number;
  readonly ownerEmail: string;
  readonly ownerPassword: string;
  readonly productId: number;
  /** A pending order of the owner. */
  readonly orderId: number;
  /** Records that the DELETE cases may remove (once). */
  readonly victimUserId: number;
  readonly victimProductId: number;
  readonly victimOrderId: number;
}

export interface Route {
  readonly kind: RouteKind;
  readonly resource: Resource | undefined;
  readonly vocabulary: Vocabulary;
  /** Methods the path serves (HEAD with GET); OPTIONS is served everywhere. */
  readonly methods: readonly string[];
  /** Methods served without a token. */
  readonly open: readonly string[];
}

/** What an accepted write may change: the record it names, or the one it creates. */
export interface WriteTarget {
  readonly collection: Resource;
  readonly id: number | 'created';
  /** Deleting a user deletes their orders. */
  readonly cascade: boolean;
}

/** A valid request the mutations start from. */
export interface BaseRequest {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** Valid query strings for this request ('' for none). */
  readonly queries: readonly string[];
  readonly route: Route;
  /** A valid body, made unique per case where uniqueness matters (emails). */
  readonly body: ((unique: string) => JsonObject) | undefined;
  readonly writes: WriteTarget | undefined;
}

export type Header = readonly [name: string, value: string];

export interface FuzzCase {
  readonly seed: number;
  readonly index: number;
  readonly family: Family;
  readonly mutation: string;
  /** The valid request this case started from. */
  readonly base: string;
  readonly caller: Caller;
  /** `http`: sent with node:http on a keep-alive agent; `raw`: these exact bytes on a fresh socket. */
  readonly transport: 'http' | 'raw';
  readonly method: string;
  /** The request target as sent (path and query string; one char per byte). */
  readonly target: string;
  readonly headers: readonly Header[];
  readonly body: Uint8Array | undefined;
  /** The body is sent with Transfer-Encoding: chunked (in two chunks), not Content-Length. */
  readonly chunked: boolean;
  /** raw only: the whole request. */
  readonly raw: Uint8Array | undefined;
  /** Statuses the contract allows for this route, method and mutation. */
  readonly allowed: readonly number[];
  /** The server may close the connection without answering (framing errors, bodies over the limit). */
  readonly mayClose: boolean;
  /** raw only: how many answers the bytes ask for (2 when a second request is pipelined or smuggled). */
  readonly expectedAnswers: number;
  /** raw only: the bytes stop mid-request; the client half-closes after them, so the server sees their end. */
  readonly halfClose: boolean;
  readonly writes: WriteTarget | undefined;
}

// ---------------------------------------------------------------------------------
// Limits the cases aim at (the server's defaults; README: Configuration, README "Security and protocol limits")

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_TARGET_LENGTH = 8192;
export const MAX_HEADER_BYTES = 16 * 1024;
export const DEEP = 10_000;

// ---------------------------------------------------------------------------------
// A seeded PRNG per case

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, below). */
  int(below: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

export function makeRng(seed: number): Rng {
  const next = mulberry32(seed);
  return {
    next,
    int: (below) => Math.floor(next() * below),
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    chance: (probability) => next() < probability,
  };
}

/** Mixes the run's seed and the case number into the case's own seed. */
export function caseSeed(seed: number, index: number): number {
  let h = Math.imul((seed ^ 0x9e3779b9) >>> 0, 0x85ebca6b) ^ Math.imul((index + 0x632be5ab) >>> 0, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

// ---------------------------------------------------------------------------------
// The valid requests (README: Paths–§5), in both vocabularies

const PORTUGUESE: Readonly<Record<string, string>> = {
  users: 'usuarios',
  orders: 'pedidos',
  products: 'produtos',
  name: 'nome',
  password: 'senha',
  role: 'papel',
  category: 'categoria',
  price: 'preco',
  description: 'descricao',
  items: 'itens',
  product_id: 'produto_id',
  quantity: 'quantidade',
  unit_price: 'preco_unitario',
  status: 'estado',
  user_id: 'usuario_id',
  created_at: 'criado_em',
  updated_at: 'atualizado_em',
  page: 'pagina',
  limit: 'limite',
  sort: 'ordenar',
};

function word(english: string, vocabulary: Vocabulary): string {
  return vocabulary === 'pt' ? (PORTUGUESE[english] ?? english) : english;
}

/** Renames the keys of a body into the vocabulary (values are never translated). */
function localize(value: Json, vocabulary: Vocabulary): Json {
  if (Array.isArray(value)) return value.map((item) => localize(item, vocabulary));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [word(key, vocabulary), localize(item, vocabulary)]),
  );
}

/** `sort=-price,name&limit=3` with names and sort fields in the vocabulary. */
function localizeQuery(query: string, vocabulary: Vocabulary): string {
  if (query === '') return '';
  return query
    .split('&')
    .map((pair) => {
      const [name = '', value = ''] = pair.split('=');
      const fields = value.split(',').map((field) => field.replace(/[a-z_]+/, (english) => word(english, vocabulary)));
      const translated = name === 'sort' ? fields.join(',') : value;
      return `${word(name, vocabulary)}=${translated}`;
    })
    .join('&');
}

const COLLECTION_METHODS = ['GET', 'HEAD', 'POST'];
const ITEM_METHODS = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE'];

function resourceRoute(kind: 'collection' | 'item', resource: Resource, vocabulary: Vocabulary): Route {
  return { kind, resource, vocabulary, methods: kind === 'collection' ? COLLECTION_METHODS : ITEM_METHODS, open: [] };
}

function openRoute(kind: RouteKind, methods: readonly string[]): Route {
  return { kind, resource: undefined, vocabulary: 'en', methods, open: methods };
}

/** Every route and method, with a valid request each. */
export function baseRequests(fixture: Fixture): BaseRequest[] {
  const bases: BaseRequest[] = [];
  const f = fixture;
  for (const vocabulary of ['en', 'pt'] as const) {
    const v = (english: string): string => word(english, vocabulary);
    const users = `/v1/${v('users')}`;
    const products = `/v1/${v('products')}`;
    const orders = `${users}/${f.ownerId}/${v('orders')}`;
    const body = (make: (unique: string) => JsonObject) => (unique: string) =>
      localize(make(unique), vocabulary) as JsonObject;
    const queries = (list: readonly string[]) => list.map((query) => localizeQuery(query, vocabulary));
    const add = (
      method: string,
      path: string,
      kind: 'collection' | 'item',
      resource: Resource,
      options: { queries?: readonly string[]; body?: (unique: string) => JsonObject; writes?: WriteTarget } = {},
    ): void => {
      bases.push({
        name: `${method} ${path} (${vocabulary})`,
        method,
        path,
        queries: options.queries ?? [''],
        route: resourceRoute(kind, resource, vocabulary),
        body: options.body === undefined ? undefined : body(options.body),
        writes: options.writes,
      });
    };
    const email = `email=${encodeURIComponent(f.ownerEmail)}`;
    const userQueries = queries([
      '',
      'role=user',
      'sort=-created_at&limit=5',
      'page=1&limit=100',
      'sort=name,-id',
      email,
    ]);
    add('GET', users, 'collection', 'users', { queries: userQueries });
    add('POST', users, 'collection', 'users', {
      body: (unique) => ({ name: `Fuzz user ${unique}`, email: `fuzz-${unique}@example.com` }),
      writes: { collection: 'users', id: 'created', cascade: false },
    });
    add('GET', `${users}/${f.ownerId}`, 'item', 'users');
    add('PUT', `${users}/${f.ownerId}`, 'item', 'users', {
      body: () => ({ name: 'Fuzz owner', email: f.ownerEmail }),
      writes: { collection: 'users', id: f.ownerId, cascade: false },
    });
    add('PATCH', `${users}/${f.ownerId}`, 'item', 'users', {
      body: () => ({ name: 'Fuzz owner' }),
      writes: { collection: 'users', id: f.ownerId, cascade: false },
    });
    add('DELETE', `${users}/${f.victimUserId}`, 'item', 'users', {
      writes: { collection: 'users', id: f.victimUserId, cascade: true },
    });

    add('GET', products, 'collection', 'products', {
      queries: queries(['', 'category=fuzz', 'sort=-price,name&limit=3', 'page=2&limit=1', 'category=fuzz&sort=price']),
    });
    add('POST', products, 'collection', 'products', {
      body: (unique) => ({
        name: `Fuzz product ${unique}`,
        category: 'fuzz',
        price: 12.5,
        description: 'made by the fuzzer',
      }),
      writes: { collection: 'products', id: 'created', cascade: false },
    });
    add('GET', `${products}/${f.productId}`, 'item', 'products');
    add('PUT', `${products}/${f.productId}`, 'item', 'products', {
      body: () => ({ name: 'Fuzz fixture', category: 'fuzz', price: 3.5, description: 'the fixture product' }),
      writes: { collection: 'products', id: f.productId, cascade: false },
    });
    add('PATCH', `${products}/${f.productId}`, 'item', 'products', {
      body: () => ({ price: 3.5, description: 'the fixture product' }),
      writes: { collection: 'products', id: f.productId, cascade: false },
    });
    add('DELETE', `${products}/${f.victimProductId}`, 'item', 'products', {
      writes: { collection: 'products', id: f.victimProductId, cascade: false },
    });

    add('GET', orders, 'collection', 'orders', {
      queries: queries(['', 'status=pending', 'sort=-total', 'limit=100&page=1']),
    });
    add('POST', orders, 'collection', 'orders', {
      body: () => ({ items: [{ product_id: f.productId, quantity: 2 }] }),
      writes: { collection: 'orders', id: 'created', cascade: false },
    });
    add('GET', `${orders}/${f.orderId}`, 'item', 'orders');
    add('PUT', `${orders}/${f.orderId}`, 'item', 'orders', {
      body: () => ({ items: [{ product_id: f.productId, quantity: 1 }] }),
      writes: { collection: 'orders', id: f.orderId, cascade: false },
    });
    add('PATCH', `${orders}/${f.orderId}`, 'item', 'orders', {
      body: () => ({ items: [{ product_id: f.productId, quantity: 3 }] }),
      writes: { collection: 'orders', id: f.orderId, cascade: false },
    });
    add('DELETE', `${orders}/${f.victimOrderId}`, 'item', 'orders', {
      writes: { collection: 'orders', id: f.victimOrderId, cascade: false },
    });
  }
  const open = (method: string, path: string, route: Route, body?: (unique: string) => JsonObject): void => {
    bases.push({ name: `${method} ${path}`, method, path, queries: [''], route, body, writes: undefined });
  };
  open('POST', '/v1/tokens', openRoute('tokens', ['POST']), () => ({ email: f.ownerEmail, password: f.ownerPassword }));
  open('GET', '/healthz', openRoute('health', ['GET', 'HEAD']));
  open('GET', '/readyz', openRoute('readiness', ['GET', 'HEAD']));
  open('GET', '/v1', openRoute('index', ['GET', 'HEAD']));
  open('GET', '/v1/openapi.json', openRoute('openapi', ['GET', 'HEAD']));
  return bases;
}

// ---------------------------------------------------------------------------------
// The request being mutated

interface Draft {
  method: string;
  path: string;
  /** undefined: no `?` at all. */
  query: string | undefined;
  headers: Header[];
  body: Uint8Array | undefined;
  chunked: boolean;
  transport: 'http' | 'raw';
  /** Set by mutations that write the bytes themselves. */
  raw: Uint8Array | undefined;
  readonly effects: Set<Effect>;
  mayClose: boolean;
  /** Statuses a mutation makes possible beyond the route's (a pipelined second request). */
  readonly alsoAllowed: number[];
  expectedAnswers: number;
  /** The request is cut short on purpose (a body shorter than declared): half-close after it. */
  halfClose: boolean;
}

interface MutationContext {
  readonly base: BaseRequest;
  /** The base body of this case (undefined for requests without one). */
  readonly body: JsonObject | undefined;
  readonly random: Rng;
  readonly fixture: Fixture;
  readonly unique: string;
}

interface Mutation {
  readonly family: Family;
  readonly name: string;
  readonly appliesTo: (base: BaseRequest) => boolean;
  readonly apply: (draft: Draft, context: MutationContext) => void;
}

const EMPTY = new Uint8Array(0);

function bytes(text: string, encoding: BufferEncoding = 'utf8'): Uint8Array {
  return Buffer.from(text, encoding);
}

function concat(...parts: readonly (Uint8Array | string)[]): Uint8Array {
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)));
}

function target(draft: Pick<Draft, 'path' | 'query'>): string {
  return draft.query === undefined ? draft.path : `${draft.path}?${draft.query}`;
}

function headerIndex(draft: Draft, name: string): number {
  return draft.headers.findIndex(([header]) => header.toLowerCase() === name.toLowerCase());
}

function setHeader(draft: Draft, name: string, value: string): void {
  removeHeader(draft, name);
  draft.headers.push([name, value]);
}

function removeHeader(draft: Draft, name: string): void {
  draft.headers = draft.headers.filter(([header]) => header.toLowerCase() !== name.toLowerCase());
}

/** Replaces the body with its framing: Content-Length, or Transfer-Encoding: chunked when `draft.chunked` (Content-Type is kept). */
function setBody(draft: Draft, body: Uint8Array | undefined): void {
  draft.body = body;
  removeHeader(draft, 'Content-Length');
  removeHeader(draft, 'Transfer-Encoding');
  if (body !== undefined)
    draft.headers.push(draft.chunked ? ['Transfer-Encoding', 'chunked'] : ['Content-Length', String(body.length)]);
}

function contentTypeFor(method: string): string {
  return method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
}

function hasBody(base: BaseRequest): boolean {
  return base.body !== undefined;
}

function isWrite(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH';
}

// ---------------------------------------------------------------------------------
// Building bodies with values JSON.stringify cannot write (raw literals, odd keys, bytes)

type JsonPath = readonly (string | number)[];

const VALUE_SENTINEL = '\u0000fuzz-value\u0000';
const KEY_SENTINEL = '\u0000fuzz-key\u0000';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every place a value sits in a body: top-level fields and, in lists, their elements and fields. */
function slots(value: Json, prefix: JsonPath = []): JsonPath[] {
  const found: JsonPath[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      found.push([...prefix, index]);
      found.push(...slots(item, [...prefix, index]));
    });
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      found.push([...prefix, key]);
      found.push(...slots(item, [...prefix, key]));
    }
  }
  return found;
}

/** The objects of a body (the body itself and, for orders, each item), for new keys. */
function objectPaths(value: Json, prefix: JsonPath = []): JsonPath[] {
  const found: JsonPath[] = [];
  if (isObject(value)) {
    found.push(prefix);
    for (const [key, item] of Object.entries(value)) found.push(...objectPaths(item, [...prefix, key]));
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => found.push(...objectPaths(item, [...prefix, index])));
  }
  return found;
}

/** A copy of `root` with `update` applied to the value at `path` (a missing field is created). */
function updateAt(root: Json, path: JsonPath, update: (current: Json | undefined) => Json): Json {
  const [step, ...rest] = path;
  if (step === undefined) return update(root);
  if (Array.isArray(root)) return root.map((item, index) => (index === step ? updateAt(item, rest, update) : item));
  if (!isObject(root)) return root;
  const key = String(step);
  const entries = Object.entries(root);
  if (!Object.hasOwn(root, key))
    entries.push([key, rest.length === 0 ? update(undefined) : updateAt({}, rest, update)]);
  const existing = Object.hasOwn(root, key);
  return Object.fromEntries(
    entries.map(([name, item]) => [name, existing && name === key ? updateAt(item, rest, update) : item]),
  );
}

function setAt(root: Json, path: JsonPath, value: Json): Json {
  return updateAt(root, path, () => value);
}

/** Adds a key to the object at `path`, first or last among its keys. */
function insertKeyAt(root: Json, path: JsonPath, key: string, value: Json, first: boolean): Json {
  return updateAt(root, path, (current) => {
    const entries = Object.entries(isObject(current) ? current : {});
    if (first) entries.unshift([key, value]);
    else entries.push([key, value]);
    return Object.fromEntries(entries);
  });
}

/** JSON text of `root` with the value sentinel replaced by `valueText` and the key sentinel by `keyText`. */
function render(root: Json, valueText?: string, keyText?: string): string {
  let text = JSON.stringify(root);
  if (valueText !== undefined) text = text.split(JSON.stringify(VALUE_SENTINEL)).join(valueText);
  if (keyText !== undefined) text = text.split(JSON.stringify(KEY_SENTINEL)).join(keyText);
  return text;
}

/** The body with the value at `path` written as raw JSON text. */
function withRawValue(body: Json, path: JsonPath, valueText: string): string {
  return render(setAt(body, path, VALUE_SENTINEL), valueText);
}

/** The body with a raw `"key": value` entry added to the object at `path`. */
function withRawEntry(body: Json, path: JsonPath, keyText: string, valueText: string, first: boolean): string {
  return render(insertKeyAt(body, path, KEY_SENTINEL, VALUE_SENTINEL, first), valueText, keyText);
}

/** The body with raw bytes spliced inside the string at `path`. */
function withRawBytesInString(body: Json, path: JsonPath, raw: Uint8Array): Uint8Array {
  const [before = '', after = ''] = render(setAt(body, path, VALUE_SENTINEL)).split(JSON.stringify(VALUE_SENTINEL));
  return concat(before, '"a', raw, 'b"', after);
}

function stringSlots(body: Json): JsonPath[] {
  return slots(body).filter((path) => typeof valueAt(body, path) === 'string');
}

function valueAt(root: Json | undefined, path: JsonPath): Json | undefined {
  const [step, ...rest] = path;
  if (step === undefined) return root;
  if (Array.isArray(root)) return valueAt(root[Number(step)], rest);
  return isObject(root) && Object.hasOwn(root, String(step)) ? valueAt(root[String(step)], rest) : undefined;
}

/** Text that can be echoed back without looking like a leak: letters, digits, some Unicode. */
const SAFE_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.çãéüñ日本語🙂'];

function safeText(random: Rng, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += random.pick(SAFE_CHARACTERS);
  return text;
}

function nested(open: string, inner: string, close: string, depth: number): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

// ---------------------------------------------------------------------------------
// Raw requests (node:http would normalise or refuse these)

interface WireForm {
  readonly version?: string;
  readonly lineEnd?: string;
}

/** The request as bytes: request line, headers (latin1, one char per byte) and body. */
function serialize(draft: Draft, form: WireForm = {}): Uint8Array {
  const eol = form.lineEnd ?? '\r\n';
  const line =
    form.version === ''
      ? `${draft.method} ${target(draft)}`
      : `${draft.method} ${target(draft)} ${form.version ?? 'HTTP/1.1'}`;
  const head = line + eol + draft.headers.map(([name, value]) => `${name}: ${value}${eol}`).join('') + eol;
  return concat(Buffer.from(head, 'latin1'), draft.body ?? EMPTY);
}

function chunkedEncoding(body: Uint8Array, pieces: number): Uint8Array {
  const parts: (Uint8Array | string)[] = [];
  const size = Math.max(1, Math.ceil(body.length / pieces));
  for (let offset = 0; offset < body.length; offset += size) {
    const piece = body.subarray(offset, offset + size);
    parts.push(`${piece.length.toString(16)}\r\n`, piece, '\r\n');
  }
  parts.push('0\r\n\r\n');
  return concat(...parts);
}

/** Marks the draft as raw, framing-level: the parser may answer 400 or close the connection. */
function rawFraming(draft: Draft): void {
  draft.transport = 'raw';
  draft.effects.add('framing');
  draft.mayClose = true;
}

/** The body to send in header cases: the base body, or a small JSON object for requests without one. */
function someBody(draft: Draft, context: MutationContext): Uint8Array {
  return draft.body ?? bytes(JSON.stringify(context.body ?? { name: 'x' }));
}

// ---------------------------------------------------------------------------------
// Body mutations (API8: malformed input is a 4xx; API4: size and depth are bounded)

const WRONG_VALUES = [
  'null',
  '[]',
  '{}',
  'true',
  'false',
  '0',
  '-1',
  '1.5',
  '"12"',
  '"true"',
  '""',
  '"null"',
  '[1,2]',
  '{"a":1}',
  '"2026-01-01T00:00:00Z"',
  '"pending"',
];
const NUMBER_LITERALS = [
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '1e-400',
  '-0',
  '5e-324',
  '1.7976931348623157e308',
  '9007199254740993',
  '0.1e1',
  '1E2',
  `1${'0'.repeat(400)}`,
  `0.${'0'.repeat(400)}1`,
];
const INVALID_LITERALS = [
  'NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  "'single'",
  '0x10',
  '+1',
  '.5',
  '01',
  'True',
  'nul',
  '"unterminated',
  '"\\x41"',
  '"\\u12"',
  '"tab\there"',
  '[1,]',
  '{"a":1,}',
  '// comment\n1',
];
const LONE_SURROGATES = ['"\\ud800"', '"\\udc00x"', '"a\\ud83d"', '"\\udfff\\ud800"', '"\\ud83d\\ude00"'];
const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xfe, 0xfe],
];
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];
const PROTOTYPE_VALUES = [
  '{}',
  '{"role":"admin"}',
  '{"polluted":true}',
  '{"prototype":{"polluted":true}}',
  'null',
  '"x"',
  '[]',
  '{"__proto__":{"polluted":true}}',
];
const ODD_STRINGS = [
  '\u202eevil',
  'zero\u200bwidth',
  'e\u0301',
  '🙂'.repeat(60),
  'ção',
  '\ufeffbom',
  'nul\u0000byte',
  'line\u2028sep',
  '\u0007bell',
  'ＦＵＬＬ',
  'a'.repeat(8) + '\u0301'.repeat(200),
];

function bodyMutation(
  name: string,
  apply: (draft: Draft, context: MutationContext, body: JsonObject) => void,
): Mutation {
  return {
    family: 'body',
    name,
    appliesTo: hasBody,
    apply: (draft, context) => apply(draft, context, context.body ?? {}),
  };
}

const BODY_MUTATIONS: readonly Mutation[] = [
  bodyMutation('truncated-json', (draft, { random }, body) => {
    const text = JSON.stringify(body);
    setBody(draft, bytes(text.slice(0, 1 + random.int(text.length - 1))));
  }),
  bodyMutation('deep-nesting', (draft, { base, random, unique }, body) => {
    const depth = random.pick([DEEP, DEEP, 10 * DEEP]);
    // Deep input must be safe for every consumer of a body, the idempotency fingerprint included.
    if (
      base.method === 'POST' &&
      base.route.kind === 'collection' &&
      headerIndex(draft, 'Idempotency-Key') === -1 &&
      random.chance(0.5)
    ) {
      draft.headers.push(['Idempotency-Key', `fuzz-${unique}`]);
      draft.effects.add('idempotency-key');
    }
    const shapes = [
      () => withRawValue(body, random.pick(slots(body)), nested('[', '', ']', depth)),
      () => withRawValue(body, random.pick(slots(body)), nested('{"a":', '1', '}', depth)),
      () => nested('[', '', ']', depth),
      () => nested('{"a":', '1', '}', depth),
      () => withRawValue(body, random.pick(slots(body)), '['.repeat(depth)),
      () => withRawEntry(body, [], '"nested"', nested('[{"a":', '1', '}]', depth), false),
    ];
    setBody(draft, bytes(random.pick(shapes)()));
  }),
  bodyMutation('huge-number', (draft, { random }, body) => {
    setBody(draft, bytes(withRawValue(body, random.pick(slots(body)), random.pick(NUMBER_LITERALS))));
  }),
  bodyMutation('invalid-json-literal', (draft, { random }, body) => {
    setBody(draft, bytes(withRawValue(body, random.pick(slots(body)), random.pick(INVALID_LITERALS))));
  }),
  bodyMutation('lone-surrogate', (draft, { random }, body) => {
    const surrogate = random.pick(LONE_SURROGATES);
    const text = random.chance(0.7)
      ? withRawValue(body, random.pick(stringSlots(body).length > 0 ? stringSlots(body) : slots(body)), surrogate)
      : withRawEntry(body, random.pick(objectPaths(body)), surrogate, '"x"', random.chance(0.5));
    setBody(draft, bytes(text));
  }),
  bodyMutation('invalid-utf8', (draft, { random }, body) => {
    const raw = Uint8Array.from(random.pick(INVALID_UTF8));
    const places = stringSlots(body);
    // Bodies without a string (orders) get the bytes in a new key instead.
    const withKey = (): Uint8Array => concat(JSON.stringify(body).slice(0, -1), ',"', raw, '":1}');
    setBody(draft, places.length > 0 ? withRawBytesInString(body, random.pick(places), raw) : withKey());
  }),
  bodyMutation('byte-order-mark', (draft, { random }, body) => {
    const text = JSON.stringify(body);
    const encoded = random.pick([
      () => concat(Uint8Array.from([0xef, 0xbb, 0xbf]), text), // UTF-8 BOM: RFC 8259 §8.1 lets a parser ignore it
      () => concat(Uint8Array.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')),
      () => Buffer.from(text, 'utf16le'),
      () => concat(Uint8Array.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]), text),
    ])();
    setBody(draft, encoded);
  }),
  bodyMutation('duplicate-keys', (draft, { random }, body) => {
    const path = random.pick(objectPaths(body));
    const target = valueAt(body, path);
    const keys = isObject(target) ? Object.keys(target) : [];
    const key = keys.length > 0 ? random.pick(keys) : 'name';
    const current = isObject(target) ? target[key] : undefined;
    const value = random.chance(0.5) && current !== undefined ? JSON.stringify(current) : random.pick(WRONG_VALUES);
    setBody(draft, bytes(withRawEntry(body, path, JSON.stringify(key), value, random.chance(0.5))));
  }),
  bodyMutation('prototype-keys', (draft, { random }, body) => {
    const key = JSON.stringify(random.pick(PROTOTYPE_KEYS));
    const value = random.pick(PROTOTYPE_VALUES);
    const text = random.chance(0.2)
      ? withRawValue(body, random.pick(slots(body)), `{${key}:${value}}`)
      : withRawEntry(body, random.pick(objectPaths(body)), key, value, random.chance(0.5));
    setBody(draft, bytes(text));
  }),
  bodyMutation('wrong-type', (draft, { random }, body) => {
    setBody(draft, bytes(withRawValue(body, random.pick(slots(body)), random.pick(WRONG_VALUES))));
  }),
  bodyMutation('long-string', (draft, { random }, body) => {
    const length = random.pick([51, 101, 201, 255, 2001, 10_000, 100_000]);
    const places = stringSlots(body).length > 0 ? stringSlots(body) : slots(body);
    setBody(
      draft,
      bytes(JSON.stringify(setAt(body, random.pick(places), safeText(random, 1) + 'x'.repeat(length - 1)))),
    );
  }),
  bodyMutation('body-size-limit', (draft, { random }, body) => {
    const size = random.pick([MAX_BODY_BYTES - 1, MAX_BODY_BYTES, MAX_BODY_BYTES + 1, 2 * MAX_BODY_BYTES]);
    const places = stringSlots(body).length > 0 ? stringSlots(body) : [['padding'] as JsonPath];
    const path = random.pick(places);
    const skeleton = JSON.stringify(setAt(body, path, ''));
    const padded = JSON.stringify(setAt(body, path, 'a'.repeat(Math.max(0, size - Buffer.byteLength(skeleton)))));
    draft.chunked = random.chance(0.3);
    setBody(draft, bytes(padded));
    draft.mayClose = size > MAX_BODY_BYTES; // a 413 closes the connection; the answer may race the upload
  }),
  bodyMutation('empty-body', (draft, { random }) => {
    const form = random.int(4);
    if (form === 0) setBody(draft, EMPTY); // Content-Length: 0
    if (form === 1) {
      setBody(draft, undefined); // no body, no Content-Length (node:http would add chunked framing)
      draft.transport = 'raw';
    }
    if (form === 2) {
      setBody(draft, EMPTY);
      removeHeader(draft, 'Content-Type');
    }
    if (form === 3) {
      draft.chunked = true; // a chunked body with no data
      setBody(draft, EMPTY);
    }
  }),
  bodyMutation('whitespace-body', (draft, { random }) => {
    setBody(draft, bytes(random.pick([' ', '\n', '\t\r\n ', ' '.repeat(1000), '\u00a0', '\u3000'])));
  }),
  bodyMutation('non-object-json', (draft, { random }, body) => {
    setBody(
      draft,
      bytes(
        random.pick([
          '[]',
          '[{}]',
          '"str"',
          '123',
          'true',
          'null',
          `[${JSON.stringify(body)}]`,
          '""',
          '-0',
          `"${'x'.repeat(1000)}"`,
        ]),
      ),
    );
  }),
  bodyMutation('trailing-data', (draft, { random }, body) => {
    const text = JSON.stringify(body);
    setBody(draft, bytes(text + random.pick(['x', '}', ',', ' {}', '\u0000', text, '\n', ' \r\n\t', ']', '"'])));
  }),
  bodyMutation('many-keys-or-items', (draft, { random }, body) => {
    const count = random.pick([1000, 5000, 20_000]);
    if (random.chance(0.5)) {
      const keys = Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',');
      setBody(draft, bytes(`{${keys}${Object.keys(body).length > 0 ? ',' : ''}${JSON.stringify(body).slice(1)}`));
    } else {
      const list = Array.from({ length: count }, (_, i) => `{"a":${i}}`).join(',');
      setBody(draft, bytes(withRawValue(body, random.pick(slots(body)), `[${list}]`)));
    }
  }),
  bodyMutation('server-and-unknown-fields', (draft, { random }, body) => {
    const key = random.pick([
      'id',
      'created_at',
      'updated_at',
      'user_id',
      'usuario_id',
      'total',
      'unit_price',
      'preco_unitario',
      'password_hash',
      'role',
      'papel',
      'status',
      'estado',
      'extra',
      'ID',
      'Name',
      'name ',
      '',
    ]);
    const value = random.pick(['1', '999', '"admin"', '"shipped"', '"2000-01-01T00:00:00.000Z"', '0', 'null', '"x"']);
    setBody(
      draft,
      bytes(withRawEntry(body, random.pick(objectPaths(body)), JSON.stringify(key), value, random.chance(0.5))),
    );
  }),
  bodyMutation('unicode-strings', (draft, { random }, body) => {
    const places = stringSlots(body).length > 0 ? stringSlots(body) : slots(body);
    setBody(draft, bytes(JSON.stringify(setAt(body, random.pick(places), random.pick(ODD_STRINGS)))));
  }),
  bodyMutation('escaped-keys', (draft, { random }, body) => {
    // `"\u006eame"` is the key `name`: a parser must treat both the same.
    const text = JSON.stringify(body).replace(/"([a-z_]+)":/g, (match, key: string) =>
      random.chance(0.6)
        ? `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}":`
        : match,
    );
    setBody(draft, bytes(text));
  }),
  bodyMutation('null-fields', (draft, { random }, body) => {
    const keys = Object.keys(body);
    const nulled = Object.fromEntries(keys.map((key) => [key, random.chance(0.6) ? null : (body[key] as Json)]));
    setBody(
      draft,
      bytes(JSON.stringify(random.chance(0.2) ? Object.fromEntries(keys.map((key) => [key, null])) : nulled)),
    );
  }),
  bodyMutation('form-encoded-as-json', (draft, { random }, body) => {
    const form = Object.entries(body)
      .map(([key, value]) => `${key}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`)
      .join('&');
    setBody(draft, bytes(random.pick([form, `<user><name>x</name></user>`, 'name: x\nprice: 1\n', `---\n${form}`])));
  }),
  {
    family: 'body',
    name: 'body-on-read',
    appliesTo: (base) => base.body === undefined,
    apply: (draft, { random }) => {
      const body = random.pick([
        () => bytes('{"name":"x"}'),
        () => bytes('{not json'),
        () => bytes(nested('[', '', ']', DEEP)),
        () => bytes('x'.repeat(2 * MAX_BODY_BYTES)),
        () => EMPTY,
      ])();
      setHeader(draft, 'Content-Type', random.pick(['application/json', 'text/plain', 'application/octet-stream']));
      draft.chunked = random.chance(0.25);
      setBody(draft, body);
    },
  },
];

// ---------------------------------------------------------------------------------
// Path mutations: paths are matched byte for byte, so each of these names nothing (404)

function segments(path: string): string[] {
  return path.split('/');
}

function idPositions(path: string): number[] {
  return segments(path)
    .map((segment, index) => (/^[1-9][0-9]*$/.test(segment) ? index : -1))
    .filter((index) => index >= 0);
}

function replaceSegment(path: string, position: number, segment: string): string {
  const parts = segments(path);
  parts[position] = segment;
  return parts.join('/');
}

/** A position after one of the path's slashes (never the leading empty segment). */
function somePosition(random: Rng, path: string): number {
  return 1 + random.int(segments(path).length - 1);
}

function pathMutation(name: string, apply: Mutation['apply'], appliesTo: Mutation['appliesTo'] = () => true): Mutation {
  return {
    family: 'path',
    name,
    appliesTo,
    apply: (draft, context) => {
      draft.effects.add('path');
      apply(draft, context);
    },
  };
}

function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

const hasId = (base: BaseRequest): boolean => idPositions(base.path).length > 0;

const PATH_MUTATIONS: readonly Mutation[] = [
  pathMutation('bad-percent-encoding', (draft, { random }) => {
    const position = somePosition(random, draft.path);
    const parts = segments(draft.path);
    const bad = random.pick(['%zz', '%', '%e0%80', '%c0%af', '%ff', '%2', '%%', '%u0041', '%G1']);
    parts[position] = random.chance(0.5) ? `${parts[position] ?? ''}${bad}` : `${bad}${parts[position] ?? ''}`;
    draft.path = parts.join('/');
  }),
  pathMutation('dot-segments', (draft, { random }) => {
    const dots = random.pick(['..', '.', '%2e%2e', '%2E', '../..', './.', '.%2e', '...']);
    const parts = segments(draft.path);
    parts.splice(somePosition(random, draft.path), 0, dots);
    draft.path = random.chance(0.8)
      ? parts.join('/')
      : `/v1/${random.pick(['users', 'products'])}/../${random.pick(['users', 'products', 'tokens'])}`;
  }),
  pathMutation('double-slash', (draft, { random }) => {
    const slashes = [...draft.path].map((c, i) => (c === '/' ? i : -1)).filter((i) => i >= 0);
    const at = random.pick(slashes);
    draft.path = `${draft.path.slice(0, at)}/${draft.path.slice(at)}`;
  }),
  pathMutation('nul-byte', (draft, { random }) => {
    const raw = random.chance(0.4);
    const nul = raw ? '\u0000' : '%00';
    const parts = segments(draft.path);
    const position = somePosition(random, draft.path);
    parts[position] = random.chance(0.5) ? `${parts[position] ?? ''}${nul}` : `${nul}${parts[position] ?? ''}`;
    draft.path = parts.join('/');
    if (raw) rawFraming(draft);
  }),
  pathMutation(
    'huge-id',
    (draft, { random }) => {
      const huge = random.pick([
        '9007199254740992',
        '9007199254740993',
        '18446744073709551616',
        `1${'0'.repeat(400)}`,
        '9'.repeat(20),
        '99999999999999999',
        '9007199254740991',
      ]);
      draft.path = replaceSegment(draft.path, random.pick(idPositions(draft.path)), huge);
    },
    hasId,
  ),
  pathMutation(
    'id-syntax',
    (draft, { random }) => {
      const odd = random.pick([
        '0x10',
        '1e3',
        '-1',
        '0',
        '01',
        '001',
        '+1',
        '1.0',
        '1,2',
        '%201',
        '1%20',
        'one',
        'NaN',
        'Infinity',
        percentEncode('١'),
        percentEncode('１'),
        '1_0',
        '0b1',
        '1n',
        '%31',
      ]);
      draft.path = replaceSegment(draft.path, random.pick(idPositions(draft.path)), odd);
    },
    hasId,
  ),
  pathMutation('unicode-segment', (draft, { random }) => {
    const text = random.pick([
      'ção',
      'пользователи',
      '用户',
      '🙂',
      'produtos\u0301',
      'ｐｒｏｄｕｃｔｓ',
      'users\u200b',
    ]);
    const raw = random.chance(0.3);
    const encoded = raw ? Buffer.from(text, 'utf8').toString('latin1') : percentEncode(text);
    draft.path = replaceSegment(draft.path, somePosition(random, draft.path), encoded);
    if (raw) rawFraming(draft);
  }),
  pathMutation('trailing-slash', (draft, { random }) => {
    draft.path += random.pick(['/', '//', '/.', '/%20']);
  }),
  pathMutation('long-segment', (draft, { random }) => {
    const room = MAX_TARGET_LENGTH - draft.path.length - 1;
    const length = random.pick([1000, room, room + 2, 3 * MAX_TARGET_LENGTH]);
    draft.path = `${draft.path}/${safeAscii(random, length)}`;
  }),
  pathMutation('vocabulary-mix', (draft, { random }) => {
    const swaps: Record<string, string> = {
      users: 'usuarios',
      usuarios: 'users',
      orders: 'pedidos',
      pedidos: 'orders',
      products: 'produtos',
      produtos: 'products',
    };
    const parts = segments(draft.path);
    const words = parts.map((part, index) => (swaps[part] === undefined ? -1 : index)).filter((index) => index >= 0);
    if (words.length >= 2) {
      const position = random.pick(words);
      parts[position] = swaps[parts[position] as string] as string; // one word in each vocabulary
      draft.path = parts.join('/');
    } else {
      const versioned = draft.path.startsWith('/v1');
      draft.path = random.pick([
        versioned ? `/v2${draft.path.slice(3)}` : `/v2${draft.path}`,
        `${draft.path}.json`,
        `${draft.path}s`,
        `${draft.path}-`,
      ]);
    }
  }),
  pathMutation('case-change', (draft, { random }) => {
    const letters = [...draft.path].map((c, i) => (/[a-z]/.test(c) ? i : -1)).filter((i) => i >= 0);
    const at = random.pick(letters);
    const oneLetter = `${draft.path.slice(0, at)}${draft.path.charAt(at).toUpperCase()}${draft.path.slice(at + 1)}`;
    draft.path = random.chance(0.3) ? draft.path.toUpperCase() : oneLetter;
  }),
  pathMutation('separators', (draft, { random }) => {
    const form = random.int(4);
    const slashes = [...draft.path].map((c, i) => (c === '/' && i > 0 ? i : -1)).filter((i) => i >= 0);
    if (form === 0) draft.path += random.pick([';', ';x=1', ';jsessionid=abc']);
    if (form === 1 && slashes.length > 0) {
      const at = random.pick(slashes);
      draft.path = `${draft.path.slice(0, at)}${random.pick(['\\', '%2F', '%2f', '%5C'])}${draft.path.slice(at + 1)}`;
    }
    if (form === 2 || (form === 1 && slashes.length === 0))
      draft.path = `${draft.path}${random.pick(['%2F', '%2F..%2F', '\\', '%20', '%09', '*'])}`;
    if (form === 3)
      draft.path = replaceSegment(
        draft.path,
        somePosition(random, draft.path),
        random.pick(['%', '%%32%65', '{id}', ':id', '$', '~']),
      );
  }),
  pathMutation(
    'unversioned',
    (draft, { random }) => {
      draft.path = random.pick([
        draft.path.slice(3) || '/',
        `/api${draft.path}`,
        `/v1${draft.path}`,
        draft.path.replace('/v1', '/V1'),
      ]);
    },
    (base) => base.path.startsWith('/v1/'),
  ),
];

function safeAscii(random: Rng, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_';
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet.charAt(random.int(alphabet.length));
  return text;
}

// ---------------------------------------------------------------------------------
// Query-string mutations (an unknown, repeated or bad parameter is a 400; README: Lists)

const isList = (base: BaseRequest): boolean => base.route.kind === 'collection' && base.method === 'GET';

function queryMutation(
  name: string,
  apply: Mutation['apply'],
  appliesTo: Mutation['appliesTo'] = () => true,
): Mutation {
  return { family: 'query', name, appliesTo, apply };
}

function withParameter(draft: Draft, pair: string, random: Rng): void {
  const pairs = draft.query === undefined || draft.query === '' ? [] : draft.query.split('&');
  pairs.splice(random.int(pairs.length + 1), 0, pair);
  draft.query = pairs.join('&');
}

function listParameter(base: BaseRequest, random: Rng): string {
  const vocabulary = base.route.vocabulary;
  const filters: Record<Resource, string> = { users: 'role=user', products: 'category=fuzz', orders: 'status=pending' };
  const options = ['page=1', 'limit=5', 'sort=id', 'pagina=1', 'limite=5', 'ordenar=id'];
  if (base.route.resource !== undefined) options.push(localizeQuery(filters[base.route.resource], vocabulary));
  return random.pick(options);
}

const QUERY_MUTATIONS: readonly Mutation[] = [
  queryMutation(
    'repeated-parameter',
    (draft, { base, random }) => {
      const pair = listParameter(base, random);
      withParameter(draft, pair, random);
      withParameter(draft, random.chance(0.5) ? pair : pair.replace(/=.*/, '=2'), random);
      if (random.chance(0.3))
        withParameter(draft, random.pick(['page=1&pagina=1', 'limit=5&limite=5', 'sort=id&ordenar=id']), random);
    },
    isList,
  ),
  queryMutation('array-syntax', (draft, { random }) => {
    withParameter(
      draft,
      random.pick([
        'category[]=tea',
        'category[0]=tea',
        'sort[]=name',
        'page[]=1',
        'filter[category]=tea',
        'limit[$gt]=1',
        'status[ne]=paid',
        'category[]=a&category[]=b',
      ]),
      random,
    );
  }),
  queryMutation('many-parameters', (draft, { base, random }) => {
    const count = random.pick([100, 1000, 2000, 5000]);
    const same = random.chance(0.4) ? listParameter(base, random) : undefined;
    const pairs = Array.from({ length: count }, (_, i) => same ?? `p${i}=${i}`);
    draft.query = pairs.join('&');
  }),
  queryMutation('bad-query-encoding', (draft, { base, random }) => {
    const bad = random.pick(['%zz', '%', '%e0%80', '%ff%fe', '%00', '%c0%af', '%ed%a0%80', '%2', '%u00e9']);
    const pair = random.chance(0.5) ? `${listParameter(base, random)}${bad}` : `${bad}=1`;
    withParameter(draft, pair, random);
  }),
  queryMutation('empty-names-and-values', (draft, { random }) => {
    draft.query = `${draft.query ?? ''}${random.pick([
      '',
      '&',
      '&&',
      '=',
      '==',
      'category=',
      '=tea',
      '&page=1&',
      '?',
      'page=',
      'limit=&page=',
      '&=&',
    ])}`;
  }),
  queryMutation('unknown-parameter', (draft, { random }) => {
    const pair = random.pick([
      'foo=bar',
      'limt=5',
      '__proto__=1',
      '__proto__[polluted]=1',
      'constructor=1',
      'constructor[prototype][polluted]=1',
      'toString=x',
      'hasOwnProperty=1',
      'q=*',
      'fields=name',
      'include=orders',
      'debug=1',
      'admin=true',
      'callback=x',
      'format=xml',
      'offset=5',
      'valueOf=1',
    ]);
    withParameter(draft, pair, random);
  }),
  queryMutation('semicolon-and-hash', (draft, { base, random }) => {
    const pair = listParameter(base, random);
    withParameter(
      draft,
      random.pick([
        `${pair};sort=name`,
        `${pair}#frag`,
        `${pair};`,
        ';',
        '#',
        '#?page=2',
        `${pair}&#`,
        'page=1;limit=2',
      ]),
      random,
    );
  }),
  queryMutation(
    'bad-list-values',
    (draft, { base, random }) => {
      const vocabulary = base.route.vocabulary;
      const name = random.pick(['page', 'limit', 'sort', 'filter']);
      let pair: string;
      if (name === 'page')
        pair = `${word('page', vocabulary)}=${random.pick([
          '0',
          '-1',
          '1e3',
          '0x10',
          '1.5',
          '99999999999',
          '1000000001',
          '%201',
          '01',
          '',
          'NaN',
          '1000000000',
        ])}`;
      else if (name === 'limit')
        pair = `${word('limit', vocabulary)}=${random.pick([
          '0',
          '101',
          '100',
          '1.5',
          '-5',
          '1e2',
          '',
          ' 5',
          '9999999999',
        ])}`;
      else if (name === 'sort')
        pair = `${word('sort', vocabulary)}=${random.pick([
          'nope',
          '-',
          ',',
          'name,name',
          '--price',
          '+price',
          'password_hash',
          'price,',
          '__proto__',
          'id,-id',
          '-preco,nome',
          'constructor',
          '',
        ])}`;
      else {
        const filters: Record<Resource, readonly string[]> = {
          users: ['role=superuser', 'role=', 'email=', 'papel=ADMIN', `email=${'x'.repeat(300)}`],
          products: ['category=', `category=${'x'.repeat(51)}`, `categoria=${'x'.repeat(50)}`, 'category=%20'],
          orders: ['status=PENDING', 'status=', 'estado=shipped', 'status=unknown', 'status=pending%00'],
        };
        pair = random.pick(filters[base.route.resource ?? 'products']);
      }
      withParameter(draft, pair, random);
    },
    isList,
  ),
  queryMutation('unicode-and-plus-values', (draft, { base, random }) => {
    const pair = listParameter(base, random).replace(/=.*/, '=');
    withParameter(
      draft,
      `${pair}${random.pick([
        'black+tea',
        'a%20b',
        '+',
        percentEncode('ção'),
        percentEncode('🙂'),
        '%F0%9F',
        percentEncode('\u202e'),
        '%0d%0aX-Injected:%201',
        '%22%3E%3Cscript%3E',
      ])}`,
      random,
    );
  }),
  queryMutation('long-query', (draft, { base, random }) => {
    const room = MAX_TARGET_LENGTH - draft.path.length - 1;
    const length = random.pick([room - 20, room + 5, 2 * MAX_TARGET_LENGTH]);
    const name = listParameter(base, random).replace(/=.*/, '');
    draft.query = `${name}=${safeAscii(random, Math.max(1, length - name.length - 1))}`;
  }),
];

// ---------------------------------------------------------------------------------
// Header and framing mutations (raw sockets where node:http would refuse or fix them)

function headerMutation(
  name: string,
  apply: Mutation['apply'],
  appliesTo: Mutation['appliesTo'] = () => true,
): Mutation {
  return { family: 'header', name, appliesTo, apply };
}

const writesBody = (base: BaseRequest): boolean => hasBody(base) && isWrite(base.method);

const CONTENT_TYPES = [
  'application/json; charset=latin1',
  'application/json;;',
  'application/json; charset=utf-8',
  'application/json; charset="UTF-8"',
  'APPLICATION/JSON',
  'application/json ; charset = utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=',
  'application/json; charset',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/problem+json',
  '',
  ';',
  'application/json, text/plain',
  'application',
  '*/*',
  `application/json; ${'x=y; '.repeat(1000)}`,
  `application/${'a'.repeat(5000)}`,
  'application/json\t',
  'application/jsonx',
];

const ACCEPTS = [
  '*/*;q=abc',
  'application/json;q=0',
  'text/html',
  'application/xml',
  'application/json;q=abc',
  '*/*;q=0',
  'application/*;q=0.5',
  'application/problem+json',
  'application/json;q=1.5',
  '',
  ',',
  ';;;',
  'application/json;charset=latin1',
  Array.from({ length: 1000 }, (_, i) => `type${i}/sub${i};q=0.${i % 10}`).join(', '),
  `${'text/html, '.repeat(800)}application/json`,
  'text/html, application/json;q=0.1',
  '*/*, application/json;q=0',
  'application/json;q=-1',
  'image/*',
  'application/json;q=0.000',
  'APPLICATION/JSON',
  'application/json;q=1;q=0',
  '*/*;q=1e-3',
];

const HEADER_MUTATIONS: readonly Mutation[] = [
  headerMutation(
    'content-type',
    (draft, { random }) => {
      const value = random.pick(CONTENT_TYPES);
      if (random.chance(0.1)) removeHeader(draft, 'Content-Type');
      else setHeader(draft, 'Content-Type', value);
    },
    writesBody,
  ),
  headerMutation('accept', (draft, { random }) => {
    draft.effects.add('accept');
    setHeader(draft, 'Accept', random.pick(ACCEPTS));
  }),
  headerMutation('authorization', (draft, { random, fixture }) => {
    draft.effects.add('authorization');
    const token = fixture.adminToken;
    const [header = '', payload = '', signature = ''] = token.split('.');
    const value = random.pick([
      '',
      'Bearer',
      'Bearer ',
      `bearer ${token}`,
      `BEARER ${token}`,
      `Bearer  ${token}  `,
      'Basic YWRtaW46YWRtaW4=',
      `Bearer ${token}.x`,
      `Bearer ${'a'.repeat(8000)}`,
      'Bearer a.b.c',
      'Bearer ..',
      `Bearer ${token},Bearer ${token}`,
      `Token ${token}`,
      'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.',
      `Bearer ${header}.${payload}.${signature.slice(0, -2)}`,
      `Bearer ${header}.${payload}`,
      `Bearer\t${token}`,
      `Bearer ${token}\t`,
    ]);
    setHeader(draft, 'Authorization', value);
  }),
  headerMutation(
    'if-match',
    (draft, { random }) => {
      draft.effects.add('if-match');
      setHeader(
        draft,
        'If-Match',
        random.pick([
          '"',
          'W/"x"',
          '*',
          '"a", "b"',
          `"${'x'.repeat(5000)}"`,
          '""',
          ' ',
          'garbage',
          Array.from({ length: 1000 }, (_, i) => `"t${i}"`).join(', '),
          '*, "x"',
          '"\\"',
        ]),
      );
    },
    (base) => base.method === 'PUT' || base.method === 'PATCH' || base.method === 'DELETE',
  ),
  headerMutation(
    'if-none-match',
    (draft, { random }) => {
      draft.effects.add('if-none-match');
      setHeader(
        draft,
        'If-None-Match',
        random.pick([
          '*',
          '"x"',
          'W/"x"',
          '"',
          'W/',
          Array.from({ length: 1000 }, (_, i) => `W/"t${i}"`).join(','),
          ' * ',
          '"*"',
          'null',
        ]),
      );
    },
    (base) => base.method === 'GET',
  ),
  headerMutation('request-id', (draft, { random }) => {
    setHeader(
      draft,
      'X-Request-Id',
      random.pick([
        '',
        ' ',
        'a'.repeat(129),
        'a b',
        '<script>',
        'caf\u00e9',
        '../../etc/passwd',
        'id\tx',
        '%0d%0aSet-Cookie:%20x=1',
        'a'.repeat(128),
      ]),
    );
  }),
  headerMutation(
    'idempotency-key',
    (draft, { random, unique }) => {
      draft.effects.add('idempotency-key');
      setHeader(
        draft,
        'Idempotency-Key',
        random.pick([
          '',
          ' ',
          'a'.repeat(256),
          'a b',
          'caf\u00e9',
          `k-${unique}`,
          `${'k'.repeat(255)}`,
          '\t',
          '"quoted"',
        ]),
      );
    },
    (base) => base.method === 'POST' && base.route.kind === 'collection',
  ),
  headerMutation(
    'content-encoding',
    (draft, { random }) => {
      const plain = draft.body ?? EMPTY;
      const encoding = random.pick(['gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'x-unknown']);
      setHeader(draft, 'Content-Encoding', encoding);
      if (encoding.startsWith('gzip') && random.chance(0.7)) setBody(draft, gzipSync(plain));
    },
    writesBody,
  ),
  headerMutation('expect', (draft, { random }) => {
    draft.effects.add('expect');
    draft.transport = 'raw'; // a 417 is answered before the body is read: keep it off the shared connections
    setHeader(draft, 'Expect', random.pick(['100-continue', 'nope', '100-Continue', '', '200-ok']));
  }),
  headerMutation('large-headers', (draft, { random }) => {
    const form = random.int(4);
    draft.effects.add('large-headers');
    if (form === 0) draft.headers.push(['X-Fuzz', 'a'.repeat(MAX_HEADER_BYTES - 1024)]); // just under
    if (form === 1) draft.headers.push(['X-Fuzz', 'a'.repeat(MAX_HEADER_BYTES + 1)]); // just over
    if (form === 2) for (let i = 0; i < random.pick([500, 1500, 3000]); i++) draft.headers.push([`X-Fuzz-${i}`, 'v']);
    if (form === 3) draft.headers.push(['X-Fuzz', 'a'.repeat(4 * MAX_HEADER_BYTES)]);
    draft.mayClose = form === 1 || form === 3; // a 431 closes the connection while the client may still be sending
  }),
  headerMutation('content-length', (draft, context) => {
    rawFraming(draft);
    const body = someBody(draft, context);
    setBody(draft, body);
    const value = context.random.pick([
      '-1',
      'abc',
      '1.5',
      `+${body.length}`,
      ` ${body.length}`,
      `0x${body.length.toString(16)}`,
      '99999999999999999999',
      '9007199254740993',
      '',
      `${body.length}, ${body.length}`,
      `${body.length},${body.length + 1}`,
      `${body.length + 10}`,
      `${Math.max(0, body.length - 1)}`,
      '0',
    ]);
    setHeader(draft, 'Content-Length', value);
    draft.halfClose = value === `${body.length + 10}`; // the server waits for 10 more bytes
  }),
  headerMutation('conflicting-framing', (draft, context) => {
    rawFraming(draft);
    const body = someBody(draft, context);
    const form = context.random.int(4);
    removeHeader(draft, 'Content-Length');
    if (form === 0)
      draft.headers.push(['Content-Length', String(body.length)], ['Content-Length', String(body.length + 1)]);
    if (form === 1)
      draft.headers.push(['Content-Length', String(body.length)], ['Content-Length', String(body.length)]);
    if (form === 2) draft.headers.push(['Content-Length', String(body.length)], ['Transfer-Encoding', 'chunked']);
    if (form === 3) draft.headers.push(['Transfer-Encoding', 'chunked'], ['Content-Length', '0']);
    draft.body = form >= 2 ? chunkedEncoding(body, 2) : body;
  }),
  headerMutation('malformed-chunks', (draft, context) => {
    rawFraming(draft);
    const body = someBody(draft, context);
    removeHeader(draft, 'Content-Length');
    draft.headers.push(['Transfer-Encoding', 'chunked']);
    const size = body.length.toString(16);
    const cutShort = (bytes: Uint8Array): Uint8Array => {
      draft.halfClose = true; // the server waits for the rest
      return bytes;
    };
    draft.body = context.random.pick([
      () => concat('zz\r\n', body, '\r\n0\r\n\r\n'), // not hexadecimal
      () => concat('-1\r\n', body, '\r\n0\r\n\r\n'),
      () => cutShort(concat(`${(body.length + 5).toString(16)}\r\n`, body, '\r\n0\r\n\r\n')), // longer than sent
      () => concat(`${size}\r\n`, body, '0\r\n\r\n'), // no CRLF after the data
      () => cutShort(concat(`${size}\r\n`, body, '\r\n')), // no last chunk
      () => concat(`${size};ext=1;name="v"\r\n`, body, '\r\n0\r\n\r\n'), // extensions: valid
      () => concat('ffffffffffffffffff\r\n', body, '\r\n0\r\n\r\n'),
      () => concat(`${size}\n`, body, '\n0\n\n'), // bare LF
      () => concat(`${size}\r\n`, body, '\r\n0\r\nX-Trailer: x\r\n\r\n'), // a trailer: valid
      () => concat(`${size}\r\n`, body, '\r\n0\r\nbad trailer\r\n\r\n'),
      () => concat(`0x${size}\r\n`, body, '\r\n0\r\n\r\n'),
      () => concat(` ${size}\r\n`, body, '\r\n0\r\n\r\n'),
      () => chunkedEncoding(body, Math.max(1, body.length)), // one byte per chunk: valid
    ])();
  }),
  headerMutation('transfer-encoding', (draft, context) => {
    rawFraming(draft);
    const body = someBody(draft, context);
    const value = context.random.pick([
      'gzip',
      'gzip, chunked',
      'chunked, gzip',
      'identity',
      'chunked, chunked',
      'xchunked',
      'Chunked',
      'chunked ',
      'deflate',
      ' chunked',
      'chunked;q=1',
    ]);
    removeHeader(draft, 'Content-Length');
    draft.headers.push(['Transfer-Encoding', value]);
    const encoded = value.startsWith('gzip') ? gzipSync(body) : body;
    draft.body = value.trim().toLowerCase().endsWith('chunked') ? chunkedEncoding(encoded, 2) : body;
  }),
  headerMutation('host', (draft, { random }) => {
    const form = random.int(5);
    draft.effects.add('framing'); // RFC 9112 §3.2: a missing, repeated or invalid Host is a 400
    if (form === 0) removeHeader(draft, 'Host');
    if (form === 1) setHeader(draft, 'Host', '');
    if (form === 2) draft.headers.push(['Host', 'other.example']);
    if (form === 3)
      setHeader(
        draft,
        'Host',
        random.pick(['a'.repeat(1000), 'evil.example:99999', '[::1', 'a b', 'localhost:0x50', 'user@host']),
      );
    if (form === 4) {
      removeHeader(draft, 'Host');
      draft.headers.unshift(['HOST', 'localhost']);
    }
  }),
  headerMutation('http-version', (draft, { random }) => {
    rawFraming(draft);
    const version = random.pick([
      'HTTP/1.0',
      'HTTP/1.0',
      'HTTP/1.2',
      'HTTP/2.0',
      'HTTP/0.9',
      'HTTP/1',
      'http/1.1',
      'HTTP/1.1 ',
      '',
      'HTTP/3',
      'HTTP/1.10',
      'HTTP/01.1',
    ]);
    if (version === 'HTTP/1.0' && random.chance(0.5)) removeHeader(draft, 'Host');
    if (version === 'HTTP/1.0' && random.chance(0.5)) draft.headers.push(['Connection', 'keep-alive']);
    draft.raw = serialize(draft, { version });
  }),
  headerMutation('obs-fold', (draft, { random }) => {
    rawFraming(draft);
    const folded = random.pick<Header>([
      ['X-Fuzz', 'a\r\n b'],
      ['X-Fuzz', 'a\r\n\tb'],
      ['Content-Type', 'application/json;\r\n charset=utf-8'],
      ['Authorization', `Bearer\r\n ${headerValue(draft, 'Authorization').replace(/^Bearer /, '')}`],
      ['Accept', 'application/json,\r\n text/html'],
    ]);
    if (folded[0] !== 'X-Fuzz') removeHeader(draft, folded[0]);
    draft.headers.push(folded);
  }),
  headerMutation('line-endings', (draft, { random }) => {
    rawFraming(draft);
    const form = random.int(4);
    if (form === 0) draft.raw = serialize(draft, { lineEnd: '\n' });
    if (form === 1) draft.raw = serialize(draft, { lineEnd: '\r' });
    if (form === 2) draft.raw = rewrite(serialize(draft), (text) => text.replace('\r\n', '\n')); // only the request line
    if (form === 3) draft.headers.push(['X-Fuzz', random.pick(['a\nb', 'a\rb', 'a\r\nInjected: 1'])]);
  }),
  headerMutation('header-syntax', (draft, { random }) => {
    rawFraming(draft);
    const line = random.pick([
      'X Fuzz: a',
      'X-Fuzz a',
      ': novalue',
      'X-Fuzz : a',
      'X-Fuzz: a\u0000b',
      'X-Fuzz: a\u007fb',
      '\u0001: a',
      '\u00d6-Fuzz: a',
      'X-Fuzz:\u0001',
      '(X): a',
      'X-Fuzz:',
      ' X-Fuzz: a',
      'X-Fuzz: \u00ff',
    ]);
    draft.raw = rawWithLine(draft, line);
  }),
  headerMutation('request-line', (draft, { random }) => {
    rawFraming(draft);
    const form = random.int(7);
    if (form === 0) draft.path = `http://localhost${draft.path}`; // absolute-form: RFC 9112 §3.2.2 says a server MUST accept it
    if (form === 1) draft.path = '*';
    if (form === 2) draft.path = draft.path.slice(1);
    if (form === 3) draft.path = '';
    if (form === 4) draft.path = `${draft.path}#frag`;
    if (form === 5) draft.path = `${draft.path} extra`;
    if (form === 6) draft.raw = rewrite(serialize(draft), (text) => text.replace(' ', '  '));
  }),
  headerMutation('pipelining', (draft, { random }) => {
    rawFraming(draft);
    const healthz = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';
    draft.alsoAllowed.push(200);
    const form = random.int(3);
    draft.expectedAnswers = form === 1 ? 1 : 2;
    if (form === 0) draft.raw = concat(serialize(draft), healthz);
    if (form === 1) draft.raw = concat(random.pick(['\r\n', '\r\n\r\n', '\n']), serialize(draft));
    if (form === 2) {
      // A request smuggled inside a body (CL.0): the server must frame by Content-Length.
      const smuggled = bytes(healthz);
      setBody(draft, concat(draft.body ?? EMPTY, smuggled));
      setHeader(draft, 'Content-Length', String((draft.body?.length ?? 0) - smuggled.length));
    }
  }),
  headerMutation('junk-after-request', (draft, { random }) => {
    // Bytes that are not HTTP after a complete request (a client that mis-framed its body,
    // or noise): the request still gets its own answer first (RFC 9112 §9.3.2), then a 400.
    rawFraming(draft);
    const junk = random.pick([
      '{not json',
      'x',
      'GARBAGE\r\n\r\n',
      '\u0000\u0000\u0000',
      'HTTP/1.1 200 OK\r\n\r\n',
      ' / HTTP/1.1\r\n\r\n',
      '\u00ff\u00fe',
      'x'.repeat(MAX_BODY_BYTES),
    ]);
    draft.raw = concat(serialize(draft), Buffer.from(junk, 'latin1'));
  }),
  headerMutation('misc-headers', (draft, { random }) => {
    const header = random.pick<Header>([
      ['Origin', 'null'],
      ['Origin', 'http://evil.example'],
      ['Range', 'bytes=0-10'],
      ['TE', 'trailers'],
      ['Connection', 'close'],
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
      ['Upgrade', 'h2c'],
      ['X-Forwarded-For', '127.0.0.1, ::1, evil'],
      ['X-HTTP-Method-Override', 'DELETE'],
      ['X-Fuzz', 'caf\u00e9'],
      ['Cookie', 'session=abc; admin=true'],
      ['Content-Language', 'pt'],
      ['Accept-Language', 'pt-BR'],
      ['Forwarded', 'for=evil;proto=https'],
      ['Max-Forwards', '0'],
      ['Accept-Charset', 'latin1'],
    ]);
    draft.headers.push(header);
    if (header[0] === 'Connection' && header[1] === 'Upgrade') draft.headers.push(['Upgrade', 'websocket']);
    if (header[0] === 'Connection' || header[0] === 'Upgrade') draft.transport = 'raw'; // keep the shared keep-alive connections plain
  }),
];

function headerValue(draft: Draft, name: string): string {
  const index = headerIndex(draft, name);
  return index === -1 ? '' : (draft.headers[index]?.[1] ?? '');
}

/** Edits serialized bytes as latin1 text (one char per byte, so nothing is lost). */
function rewrite(raw: Uint8Array, edit: (text: string) => string): Uint8Array {
  return Buffer.from(edit(Buffer.from(raw).toString('latin1')), 'latin1');
}

/** The raw request with one more header line, written exactly as given (latin1). */
function rawWithLine(draft: Draft, line: string): Uint8Array {
  const head = Buffer.from(serialize({ ...draft, body: undefined })).toString('latin1');
  return concat(Buffer.from(`${head.slice(0, -2)}${line}\r\n\r\n`, 'latin1'), draft.body ?? EMPTY);
}

// ---------------------------------------------------------------------------------
// Method mutations (405 with Allow; never a method that would change a fixture record)

const WRITE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const METHOD_MUTATIONS: readonly Mutation[] = [
  {
    family: 'method',
    name: 'method-not-allowed',
    appliesTo: (base) => WRITE_METHODS.some((method) => !base.route.methods.includes(method)),
    apply: (draft, { base, random }) => {
      draft.method = random.pick(WRITE_METHODS.filter((method) => !base.route.methods.includes(method)));
    },
  },
  {
    family: 'method',
    name: 'extension-method',
    appliesTo: () => true,
    apply: (draft, { random }) => {
      draft.method = random.pick([
        'TRACE',
        'PROPFIND',
        'SEARCH',
        'PURGE',
        'LOCK',
        'MKCOL',
        'REPORT',
        'M-SEARCH',
        'LINK',
        'UNLINK',
        'QUERY',
      ]);
    },
  },
  {
    family: 'method',
    name: 'head-and-options',
    appliesTo: () => true,
    apply: (draft, { random }) => {
      draft.method = random.pick(['HEAD', 'OPTIONS']);
      if (random.chance(0.5)) setBody(draft, undefined);
    },
  },
  {
    family: 'method',
    name: 'unparseable-method',
    appliesTo: () => true,
    apply: (draft, { random }) => {
      rawFraming(draft);
      draft.method = random.pick([
        draft.method.toLowerCase(),
        'FOO',
        'CONNECT',
        'G ET',
        'A'.repeat(100),
        'GET\u0000',
        'PRI',
        'DELETE\t',
        '\u00c9T',
      ]);
      if (draft.method === 'CONNECT') draft.path = 'localhost:80';
    },
  },
];

// ---------------------------------------------------------------------------------
// The catalogue and the statuses each case may get

export const MUTATIONS: readonly Mutation[] = [
  ...BODY_MUTATIONS,
  ...PATH_MUTATIONS,
  ...QUERY_MUTATIONS,
  ...HEADER_MUTATIONS,
  ...METHOD_MUTATIONS,
];

export function mutationNames(): string[] {
  return MUTATIONS.map((mutation) => `${mutation.family}/${mutation.name}`);
}

/** The family of case `index` without building it (cases are split into one test per family). */
export function familyOf(index: number): Family {
  return (MUTATIONS[index % MUTATIONS.length] as Mutation).family;
}

function successStatus(method: string): number {
  if (method === 'OPTIONS' || method === 'DELETE') return 204;
  if (method === 'POST') return 201;
  return 200;
}

/**
 * The statuses the contract allows (README: Paths, Methods, Errors; README "Security and protocol limits"):
 * 400 and 404 always (a malformed request; a victim record an earlier case deleted);
 * success only while the path still names the route and the method is served there;
 * the rest only when the route, method, caller or mutation can cause them.
 */
function allowedStatuses(base: BaseRequest, draft: Draft, caller: Caller): number[] {
  const { route } = base;
  const method = draft.method;
  const effects = draft.effects;
  const allowed = new Set<number>([400, 404, ...draft.alsoAllowed]);
  const served = method === 'OPTIONS' || route.methods.includes(method);
  if (!effects.has('path')) {
    if (served) allowed.add(successStatus(method));
    if (!served) allowed.add(405);
  }
  const needsToken = method !== 'OPTIONS' && !route.open.includes(method);
  if (route.kind === 'tokens' || (needsToken && (caller === 'anonymous' || effects.has('authorization'))))
    allowed.add(401);
  if (caller === 'owner') allowed.add(403);
  if (effects.has('accept')) allowed.add(406);
  if (isWrite(method) && route.methods.includes(method)) {
    allowed.add(413).add(415).add(422);
    if (route.resource === 'users' || route.resource === 'orders' || effects.has('idempotency-key')) allowed.add(409);
  }
  if (effects.has('if-match') && (method === 'PUT' || method === 'PATCH' || method === 'DELETE')) allowed.add(412);
  if (effects.has('if-none-match') && (method === 'GET' || method === 'HEAD')) allowed.add(304);
  if (effects.has('expect')) allowed.add(417);
  const length = target(draft).length;
  if (length > MAX_TARGET_LENGTH) allowed.add(414);
  const headerBytes = length + draft.headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  if (effects.has('large-headers') || headerBytes > MAX_HEADER_BYTES - 1024) allowed.add(431);
  return [...allowed].sort((a, b) => a - b);
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** node:http sends only what it can write faithfully: token methods, latin1 targets and values, one field per name. */
function sendableByNodeHttp(draft: Draft): boolean {
  if (!TOKEN.test(draft.method) || draft.method !== draft.method.toUpperCase() || draft.method === 'CONNECT')
    return false;
  if (/[^\u0021-\u00ff]/.test(target(draft))) return false;
  const names = new Set<string>();
  for (const [name, value] of draft.headers) {
    if (!TOKEN.test(name) || /[^\t\u0020-\u007e\u0080-\u00ff]/.test(value)) return false;
    if (names.has(name.toLowerCase())) return false;
    names.add(name.toLowerCase());
  }
  return true;
}

function chooseCaller(base: BaseRequest, random: Rng): Caller {
  if (base.route.open.includes(base.method)) return 'anonymous';
  return random.chance(0.2) ? 'owner' : 'admin';
}

function startingDraft(base: BaseRequest, caller: Caller, context: MutationContext): Draft {
  const { random, fixture, unique, body } = context;
  const headers: Header[] = [
    ['Host', 'localhost'],
    ['Accept', 'application/json'],
  ];
  if (caller !== 'anonymous')
    headers.push(['Authorization', `Bearer ${caller === 'admin' ? fixture.adminToken : fixture.ownerToken}`]);
  const draft: Draft = {
    method: base.method,
    path: base.path,
    query: undefined,
    headers,
    body: undefined,
    chunked: false,
    transport: 'http',
    raw: undefined,
    effects: new Set(),
    mayClose: false,
    alsoAllowed: [],
    expectedAnswers: 1,
    halfClose: false,
  };
  const query = random.pick(base.queries);
  if (query !== '') draft.query = query;
  if (body !== undefined) {
    draft.headers.push(['Content-Type', contentTypeFor(base.method)]);
    setBody(draft, bytes(JSON.stringify(body)));
  }
  if (base.method === 'POST' && base.route.kind === 'collection' && random.chance(0.25)) {
    draft.headers.push(['Idempotency-Key', `fuzz-${unique}`]);
    draft.effects.add('idempotency-key');
  }
  return draft;
}

/** Put in the names and emails a case creates, so a stray record names the case that made it. */
export function uniqueMarker(seed: number, index: number): string {
  return `${(seed >>> 0).toString(36)}-${index}`;
}

/** The case a record was created by, read back from its marker (undefined when it has none). */
export function markedCase(seed: number, recordJson: string): number | undefined {
  const found = new RegExp(`${(seed >>> 0).toString(36)}-([0-9]+)`).exec(recordJson);
  return found === null ? undefined : Number(found[1]);
}

/** Case `index` of the run with `seed`: the same arguments always give the same case. */
export function caseAt(seed: number, index: number, fixture: Fixture): FuzzCase {
  const mutation = MUTATIONS[index % MUTATIONS.length] as Mutation;
  const random = makeRng(caseSeed(seed, index));
  const bases = baseRequests(fixture).filter(mutation.appliesTo);
  const base = random.pick(bases);
  const caller = chooseCaller(base, random);
  const unique = uniqueMarker(seed, index);
  const context: MutationContext = { base, body: base.body?.(unique), random, fixture, unique };
  const draft = startingDraft(base, caller, context);
  mutation.apply(draft, context);
  if (draft.transport === 'http' && !sendableByNodeHttp(draft)) draft.transport = 'raw';
  const wireBody = draft.chunked && draft.body !== undefined ? chunkedEncoding(draft.body, 2) : draft.body;
  const raw = draft.transport === 'raw' ? (draft.raw ?? serialize({ ...draft, body: wireBody })) : undefined;
  return {
    seed,
    index,
    family: mutation.family,
    mutation: mutation.name,
    base: base.name,
    caller,
    transport: draft.transport,
    method: draft.method,
    target: target(draft),
    headers: draft.headers,
    body: draft.body,
    chunked: draft.chunked,
    raw,
    allowed: allowedStatuses(base, draft, caller),
    mayClose: draft.mayClose,
    expectedAnswers: draft.expectedAnswers,
    halfClose: draft.halfClose,
    writes: draft.method === base.method ? base.writes : undefined,
  };
}

// ---------------------------------------------------------------------------------
// Describing a case for a failure message (short enough to read, exact enough to replay)

/** Control and non-ASCII characters escaped (`\u00ff`), long repeats of a short unit shown once (`«[ ×10000»`), then cut. */
export function shorten(text: string, limit = 300): string {
  const escaped = JSON.stringify(text)
    .slice(1, -1)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const squeezed = escaped.replace(
    /([\s\S]{1,8}?)\1{7,}/g,
    (run, unit: string) => `«${unit} ×${run.length / unit.length}»`,
  );
  return squeezed.length <= limit ? squeezed : `${squeezed.slice(0, limit)}…(${squeezed.length} chars)`;
}

export function describeCase(fuzzCase: FuzzCase, fixture: Fixture): string {
  const hide = (text: string): string =>
    text.split(fixture.adminToken).join('<admin token>').split(fixture.ownerToken).join('<owner token>');
  const lines = [
    `#${fuzzCase.index} ${fuzzCase.family}/${fuzzCase.mutation} from "${fuzzCase.base}" as ${fuzzCase.caller}, via ${fuzzCase.transport}`,
    `  ${shorten(fuzzCase.method, 60)} ${shorten(fuzzCase.target, 200)}`,
  ];
  if (fuzzCase.transport === 'raw' && fuzzCase.raw !== undefined) {
    lines.push(
      `  raw request (${fuzzCase.raw.length} bytes): ${shorten(hide(Buffer.from(fuzzCase.raw).toString('latin1')), 500)}`,
    );
  } else {
    lines.push(
      `  headers: ${shorten(hide(fuzzCase.headers.map(([name, value]) => `${name}: ${value}`).join(' | ')), 400)}`,
    );
    if (fuzzCase.body !== undefined) {
      const framing = fuzzCase.chunked ? ', chunked' : '';
      lines.push(
        `  body (${fuzzCase.body.length} bytes${framing}): ${shorten(Buffer.from(fuzzCase.body).toString('utf8'))}`,
      );
    }
  }
  lines.push(`  allowed: ${fuzzCase.allowed.join(', ')}${fuzzCase.mayClose ? ', or a closed connection' : ''}`);
  return lines.join('\n');
}

/** Strings a response must never contain; generated input never contains them either (so an echo cannot fake one). */
export function leakMarkers(repositoryRoot: string, temporaryRoot: string): readonly string[] {
  return [...new Set(['node:internal', '.ts:', '.js:', repositoryRoot, temporaryRoot, '/tmp'])];
}

/**
 * An error's name as a stack prints it (`Error:`, `RangeError: …`). The status phrase
 * "Internal Server Error: …", which the OpenAPI document uses to describe a 500, is not one.
 */
export const ERROR_NAME = /(?<!Internal Server )Error:/;

/** A stack frame: `at fn (/abs/file.ts:12:3)`, `at /abs/file.js:1:2`, `at node:fs:1:2`, `at file:///…`. */
export const STACK_FRAME = /\bat (?:async )?(?:[^\s()]+ \()?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^\s)]*:\d+(?::\d+)?\)?/;
