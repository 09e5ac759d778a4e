// A hand-rolled path router with two verbs, `add` and `match` (after hono's router).
// Patterns are literal segments and `:name` segments; a `:name` segment matches only
// a positive integer id (CONTRACT §2), so `/v1/users/abc` and `/v1/users/0` are 404s.
// Matching walks a tree of segments: one Map lookup per segment, no regular
// expressions and no backtracking beyond "literal first, then id".

export interface RouteMatch<T> {
  readonly value: T;
  /** The ids captured by `:name` segments, outermost first. */
  readonly ids: readonly number[];
}

interface RouteNode<T> {
  readonly literals: Map<string, RouteNode<T>>;
  idChild: RouteNode<T> | undefined;
  value: T | undefined;
}

/** Ids are decimal positive integers without leading zeros, up to 2^53 − 1. */
const MAX_ID_DIGITS = 16;

export function parseId(segment: string): number | undefined {
  const length = segment.length;
  if (length === 0 || length > MAX_ID_DIGITS) return undefined;
  const first = segment.charCodeAt(0);
  if (first < 49 || first > 57) return undefined; // '1'..'9'
  for (let i = 1; i < length; i++) {
    const code = segment.charCodeAt(i);
    if (code < 48 || code > 57) return undefined; // '0'..'9'
  }
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined;
}

function newNode<T>(): RouteNode<T> {
  return { literals: new Map(), idChild: undefined, value: undefined };
}

export class Router<T> {
  readonly #root: RouteNode<T> = newNode();

  /** Registers `pattern` (such as `/v1/users/:user_id/orders`). Throws on a duplicate. */
  add(pattern: string, value: T): void {
    if (!pattern.startsWith('/')) throw new Error(`route pattern must start with "/": ${pattern}`);
    let node = this.#root;
    for (const segment of pattern.slice(1).split('/')) {
      if (segment.startsWith(':')) {
        node.idChild ??= newNode();
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

  /** Finds the value for a raw request path (no query string), or undefined. */
  match(path: string): RouteMatch<T> | undefined {
    if (path.charCodeAt(0) !== 47) return undefined; // '/'
    let node: RouteNode<T> | undefined = this.#root;
    const ids: number[] = [];
    let start = 1;
    while (node !== undefined) {
      let end = path.indexOf('/', start);
      if (end === -1) end = path.length;
      const segment = path.slice(start, end);
      const literal = node.literals.get(segment);
      if (literal !== undefined) {
        node = literal;
      } else {
        const id = node.idChild === undefined ? undefined : parseId(segment);
        if (id === undefined) return undefined;
        ids.push(id);
        node = node.idChild;
      }
      if (end === path.length) break;
      start = end + 1;
    }
    if (node === undefined || node.value === undefined) return undefined;
    return { value: node.value, ids };
  }
}
