// A hand-rolled path router with two verbs, `add` and `match` (after hono's router). Patterns are literal segments
// and `:name` segments; a `:name` segment matches only an id of its collection's kind (README: Paths; an integer by
// default), so `/v1/users/abc` and `/v1/users/0` are 404s. Matching walks a tree of segments: literals first, then an
// id; no regular expressions.

import type { IdKind, RecordId } from '../records/record-id.ts';

export interface RouteMatch<T> {
  readonly value: T;
  /** The ids captured by `:name` segments, outermost first. */
  readonly ids: readonly RecordId[];
}

interface RouteNode<T> {
  /** The literal segments that may follow, by segment. */
  readonly literals: Map<string, RouteNode<T>>;
  idChild: RouteNode<T> | undefined;
  /** The kind of the ids `idChild` takes. */
  idKind: IdKind;
  value: T | undefined;
}

/** Ids are decimal positive integers without leading zeros, up to 2^53 − 1. */
const MAX_ID_DIGITS = 16;

export function parseId(segment: string): number | undefined {
  return parseIdAt(segment, 0, segment.length);
}

/** parseId of `path` from `start` up to `end`, without slicing it out. */
function parseIdAt(path: string, start: number, end: number): number | undefined {
  const length = end - start;
  if (length === 0 || length > MAX_ID_DIGITS) return undefined;
  const first = path.charCodeAt(start);
  if (first < 49 || first > 57) return undefined; // '1'..'9'
  let id = first - 48;
  for (let i = start + 1; i < end; i++) {
    const code = path.charCodeAt(i);
    if (code < 48 || code > 57) return undefined; // '0'..'9'
    id = id * 10 + (code - 48); // exact below 2^53; at or past it the sum rounds to 2^53 or more
  }
  return Number.isSafeInteger(id) ? id : undefined;
}

/** A string id of `path` from `start` up to `end`: 1 to 128 of A-Z a-z 0-9 . _ ~ - (record-id.ts), else undefined. */
function stringIdAt(path: string, start: number, end: number): string | undefined {
  const length = end - start;
  if (length === 0 || length > 128) return undefined;
  for (let i = start; i < end; i++) {
    const code = path.charCodeAt(i);
    const letterOrDigit = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    if (!letterOrDigit && code !== 46 && code !== 95 && code !== 126 && code !== 45) return undefined; // . _ ~ -
  }
  return path.slice(start, end);
}

/** A uuid of `path` from `start` up to `end`, lower-case 8-4-4-4-12 hexadecimal (RFC 9562 §4), else undefined. */
function uuidAt(path: string, start: number, end: number): string | undefined {
  if (end - start !== 36) return undefined;
  for (let i = 0; i < 36; i++) {
    const code = path.charCodeAt(start + i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (code !== 45) return undefined; // '-'
    } else if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 102))) return undefined; // 0-9 a-f
  }
  return path.slice(start, end);
}

function idAt(kind: IdKind, path: string, start: number, end: number): RecordId | undefined {
  if (kind === 'integer') return parseIdAt(path, start, end);
  return kind === 'uuid' ? uuidAt(path, start, end) : stringIdAt(path, start, end);
}

/** The ids of a route without `:name` segments (shared: a match's ids are read-only). */
const NO_IDS: readonly RecordId[] = Object.freeze([]);

function newNode<T>(): RouteNode<T> {
  return { literals: new Map(), idChild: undefined, idKind: 'integer', value: undefined };
}

export class Router<T> {
  readonly #root: RouteNode<T> = newNode();

  /**
   * Registers `pattern` (such as `/v1/users/:user_id/orders`), whose `:name` segments take ids of `idKinds`, outermost
   * first (integers where it has none). Throws on a duplicate, or on two kinds of id at one place.
   */
  add(pattern: string, value: T, idKinds: readonly IdKind[] = []): void {
    if (!pattern.startsWith('/')) throw new Error(`route pattern must start with "/": ${pattern}`);
    let node = this.#root;
    let idSegments = 0;
    for (const segment of pattern.slice(1).split('/')) {
      if (segment.startsWith(':')) {
        const kind = idKinds[idSegments++] ?? 'integer';
        if (node.idChild === undefined) {
          node.idChild = newNode();
          node.idKind = kind;
        } else if (node.idKind !== kind) throw new Error(`${pattern}: ${segment} takes two kinds of id`);
        node = node.idChild;
        continue;
      }
      let next = node.literals.get(segment);
      if (next === undefined) {
        next = newNode();
        node.literals.set(segment, next);
      }
      node = next;
    }
    if (node.value !== undefined) throw new Error(`route registered twice: ${pattern}`);
    node.value = value;
  }

  /**
   * Finds the value for a raw request path (no query string), or undefined. In plain words: split the path on "/",
   * and from the root take, for each segment, the literal child of that name, else the id child if the segment is an
   * id. Each segment ends at the next "/" (indexOf) and is looked up in its node's Map; an id is read in place, digit
   * by digit (bench/README.md, "What the measurements decided"). Not a cache: nothing is kept between requests, and
   * CACHES=false changes nothing here.
   */
  match(path: string): RouteMatch<T> | undefined {
    if (path.charCodeAt(0) !== 47) return undefined; // '/'
    let node = this.#root;
    let ids: RecordId[] | undefined;
    const length = path.length;
    let start = 1;
    for (;;) {
      const slash = path.indexOf('/', start);
      const end = slash === -1 ? length : slash;
      const literal = node.literals.size === 0 ? undefined : node.literals.get(path.slice(start, end));
      if (literal !== undefined) {
        node = literal;
      } else {
        if (node.idChild === undefined) return undefined;
        const id = node.idKind === 'integer' ? parseIdAt(path, start, end) : idAt(node.idKind, path, start, end);
        if (id === undefined) return undefined;
        if (ids === undefined) ids = [id];
        else ids.push(id);
        node = node.idChild;
      }
      if (slash === -1) break;
      start = slash + 1;
    }
    return node.value === undefined ? undefined : { value: node.value, ids: ids ?? NO_IDS };
  }
}
