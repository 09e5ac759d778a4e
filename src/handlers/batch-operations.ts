// A batch's body (README: Batches; docs/batches.md): `{"operations": […]}`, at most 100 writes, each to a resource's
// path under /v1 with its body and preconditions, which may name a record an earlier operation creates (`$0.id`).
// Checked whole before any runs: every fault in one 422 naming its field (`operations[2].path`), and the first
// operation at fault.

import { HttpError, type FieldError } from '../errors/errors.ts';
import { routePathOf } from '../http/base-path.ts';
import { withUnreservedDecoded } from '../http/request-target.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../records/json.ts';
import { API_PREFIX } from '../routing/route-table.ts';
import type { RecordId } from '../records/record-id.ts';

/** The most operations one batch may hold. */
export const MAX_OPERATIONS = 100;

/** The methods an operation may use: the writes. */
const BATCH_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type BatchMethod = (typeof BATCH_METHODS)[number];

/** The headers an operation may carry (RFC 9110 §13.1.1, §13.1.2), by their lower-case names. */
const OPERATION_HEADERS: ReadonlySet<string> = new Set(['if-match', 'if-none-match']);

/** A precondition's value: what a header line could carry, within a bound (the OpenAPI document says the same). */
const PRECONDITION = /^[\x20-\x7e]{0,1024}$/;

/** The members an operation may have. */
const OPERATION_MEMBERS: ReadonlySet<string> = new Set(['method', 'path', 'body', 'headers']);

/** `$3.id`: the id of the record operation 3 created, as a whole path segment or a whole string in a body. */
const REFERENCE = /^\$(0|[1-9][0-9]{0,2})\.id$/;

/**
 * The ids standing for a reference while a path's route is looked up, before the record exists: an integer, else a
 * uuid, which a string id's route takes too (README: Your own resources, ids).
 */
const ANY_IDS = ['1', '00000000-0000-4000-8000-000000000000'];

export interface BatchOperation {
  readonly method: BatchMethod;
  /**
   * Without the base path if it was sent with one (http/base-path.ts), its `$n.id` segments not yet replaced, a query
   * string kept (the operation's handler refuses it, 400).
   */
  readonly path: string;
  readonly body: JsonObject | undefined;
  /** The preconditions, by lower-case name, as a request's headers are. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Where the batch is served: the server's base path ("" for none) and the batch endpoint's own path under it. */
export interface BatchPlace {
  readonly basePath: string;
  readonly batchPath: string;
}

/** The methods a resource's route serves at `path` (without a query), or undefined when none is there. */
export type MethodsAt = (path: string) => readonly string[] | undefined;

/**
 * The batch's operations, or a 422 `validation_failed` naming every fault (`operations[1].method`), with the index of
 * the first operation at fault as its `operation`.
 */
export function parseBatch(body: JsonObject, where: BatchPlace, methodsAt: MethodsAt): BatchOperation[] {
  const errors: FieldError[] = [];
  const fault = (field: string, code: string, message: string): void => {
    errors.push({ field, code, message });
  };
  for (const name of Object.keys(body))
    if (name !== 'operations') fault(name, 'unknown_field', 'is not a member of a batch: send {"operations": […]}');
  const list = body['operations'];
  if (!Array.isArray(list)) fault('operations', list === undefined ? 'required' : 'invalid_type', 'must be an array');
  else if (list.length === 0) fault('operations', 'too_few_items', 'must hold at least 1 operation');
  else if (list.length > MAX_OPERATIONS) fault('operations', 'too_many_items', `must hold at most ${MAX_OPERATIONS}`);
  if (errors.length > 0 || !Array.isArray(list)) throw malformed(errors, undefined);

  const operations: BatchOperation[] = [];
  // Each operation's method as sent, at its own index: a `$n.id` names operation n, well-formed or not.
  const methods = list.map((value: JsonValue) => (isJsonObject(value) ? value['method'] : undefined));
  let first: number | undefined;
  list.forEach((value: JsonValue, index) => {
    const before = errors.length;
    const operation = checkedOperation(value, index, where, methodsAt, fault);
    if (operation !== undefined) checkReferences(operation, index, methods, fault);
    if (errors.length > before) first ??= index;
    else operations.push(operation as BatchOperation);
  });
  if (first !== undefined) throw malformed(errors, first);
  return operations;
}

function malformed(errors: readonly FieldError[], operation: number | undefined): HttpError {
  const detail =
    operation === undefined
      ? 'the batch is malformed: see errors'
      : `the batch is malformed, from operation ${operation} on: see errors; no operation was run`;
  return new HttpError('validation_failed', detail, { errors, ...(operation === undefined ? {} : { operation }) });
}

type Fault = (field: string, code: string, message: string) => void;

/** One operation's members, each checked; undefined when one is at fault. */
function checkedOperation(
  value: JsonValue,
  index: number,
  where: BatchPlace,
  methodsAt: MethodsAt,
  fault: Fault,
): BatchOperation | undefined {
  const at = `operations[${index}]`;
  if (!isJsonObject(value)) {
    fault(at, 'invalid_type', 'must be an object: {"method", "path", "body"?, "headers"?}');
    return undefined;
  }
  for (const name of Object.keys(value))
    if (!OPERATION_MEMBERS.has(name)) fault(`${at}.${name}`, 'unknown_field', 'is not a member of an operation');
  const { method, path, body, headers } = value;
  const knownMethod = BATCH_METHODS.find((allowed) => allowed === method);
  if (knownMethod === undefined) fault(`${at}.method`, 'invalid_value', `must be one of ${BATCH_METHODS.join(', ')}`);
  const checkedPath =
    typeof path === 'string' ? withoutBasePath(withUnreservedDecoded(path), where.basePath) : undefined;
  if (checkedPath === undefined) fault(`${at}.path`, path === undefined ? 'required' : 'invalid_type', 'a string');
  else if (knownMethod !== undefined) checkPath(checkedPath, knownMethod, `${at}.path`, where, methodsAt, fault);
  if (body !== undefined && !isJsonObject(body)) fault(`${at}.body`, 'invalid_type', 'must be a JSON object');
  if (body !== undefined && method === 'DELETE') fault(`${at}.body`, 'invalid_value', 'a DELETE carries no body');
  const checkedHeaders = checkHeaders(headers, `${at}.headers`, fault);
  if (knownMethod === undefined || checkedPath === undefined || checkedHeaders === undefined) return undefined;
  if (body !== undefined && (!isJsonObject(body) || knownMethod === 'DELETE')) return undefined;
  return { method: knownMethod, path: checkedPath, body, headers: checkedHeaders };
}

/** `path` without the base path, as the router reads a request's (http/base-path.ts), its query kept. */
function withoutBasePath(path: string, basePath: string): string {
  const query = path.indexOf('?');
  if (query === -1) return routePathOf(path, basePath);
  return routePathOf(path.slice(0, query), basePath) + path.slice(query);
}

/** A path under /v1 (not the batch endpoint's own) whose resource route serves `method`. */
function checkPath(
  path: string,
  method: BatchMethod,
  field: string,
  { batchPath }: BatchPlace,
  methodsAt: MethodsAt,
  fault: Fault,
): void {
  const routePath = path.split('?', 1)[0] as string;
  if (!routePath.startsWith(`${API_PREFIX}/`)) {
    fault(field, 'invalid_value', `must be a path under ${API_PREFIX}, such as ${API_PREFIX}/products`);
    return;
  }
  if (routePath === batchPath || routePath.startsWith(`${batchPath}/`)) {
    fault(field, 'invalid_value', 'a batch cannot hold a batch');
    return;
  }
  const methods = methodsAtAnyIds(routePath.split('/'), methodsAt);
  if (methods === undefined) fault(field, 'route_not_found', "is no resource's path");
  else if (!methods.includes(method))
    fault(field, 'method_not_allowed', `takes no ${method}; its writes: ${methods.join(', ') || 'none'}`);
}

/**
 * The methods served at the path of `segments` with each `$n.id` segment standing for an id of either kind, each
 * independently (`/v1/boards/$0.id/columns/$1.id`: a string id, then an integer): the first shape a route takes.
 */
function methodsAtAnyIds(segments: readonly string[], methodsAt: MethodsAt): readonly string[] | undefined {
  const references = segments.flatMap((segment, index) => (REFERENCE.test(segment) ? [index] : []));
  // Every route has a few levels: a path with more references than that is no route's (and is not tried 2^n times).
  if (references.length > MAX_REFERENCES_IN_PATH) return undefined;
  for (let shape = 0; shape < ANY_IDS.length ** references.length; shape++) {
    const tried = [...segments];
    references.forEach((index, nth) => {
      tried[index] = ANY_IDS[Math.floor(shape / ANY_IDS.length ** nth) % ANY_IDS.length] as string;
    });
    const methods = methodsAt(tried.join('/'));
    if (methods !== undefined) return methods;
  }
  return undefined;
}

/** The most `$n.id` segments a path's route is looked up with. */
const MAX_REFERENCES_IN_PATH = 8;

/** The preconditions an operation sends, by lower-case name; undefined when they are at fault. */
function checkHeaders(value: JsonValue | undefined, field: string, fault: Fault): Record<string, string> | undefined {
  if (value === undefined) return {};
  if (!isJsonObject(value)) {
    fault(field, 'invalid_type', 'must be an object: {"If-Match": "…"}');
    return undefined;
  }
  const headers: Record<string, string> = {};
  let faulty = false;
  for (const [name, given] of Object.entries(value)) {
    const lower = name.toLowerCase();
    if (!OPERATION_HEADERS.has(lower)) {
      fault(`${field}.${name}`, 'unknown_field', 'an operation may send If-Match and If-None-Match only');
      faulty = true;
    } else if (typeof given !== 'string') {
      fault(`${field}.${name}`, 'invalid_type', 'must be a string');
      faulty = true;
    } else if (!PRECONDITION.test(given)) {
      fault(`${field}.${name}`, 'invalid_value', 'must be at most 1024 visible ASCII characters or spaces');
      faulty = true;
    } else headers[lower] = given;
  }
  return faulty ? undefined : headers;
}

/**
 * Each `$n.id` must name an earlier operation that creates a record: a POST. `methods` holds every operation's method
 * as sent (a method that is no string is at fault already, and not called one that creates nothing).
 */
function checkReferences(
  operation: BatchOperation,
  index: number,
  methods: readonly (JsonValue | undefined)[],
  fault: Fault,
): void {
  const check = (text: string, field: string): void => {
    const found = REFERENCE.exec(text);
    if (found === null) return;
    const named = Number(found[1]);
    if (named >= index) fault(field, 'invalid_reference', `${text} must name an earlier operation than this one`);
    else if (typeof methods[named] === 'string' && methods[named] !== 'POST')
      fault(field, 'invalid_reference', `${text} names operation ${named}, which creates no record (a POST does)`);
  };
  for (const segment of operation.path.split('?', 1)[0]?.split('/') ?? []) check(segment, `operations[${index}].path`);
  if (operation.body !== undefined) eachString(operation.body, `operations[${index}].body`, check);
}

/** Calls `visit` with every string in `value` at any depth and its field's name (`body.items[0].product_id`). */
function eachString(value: JsonValue, field: string, visit: (text: string, field: string) => void): void {
  if (typeof value === 'string') visit(value, field);
  else if (Array.isArray(value)) value.forEach((item, index) => eachString(item, `${field}[${index}]`, visit));
  else if (isJsonObject(value))
    for (const [name, member] of Object.entries(value)) eachString(member, `${field}.${name}`, visit);
}

/** Where in its path an operation names a record an earlier one created: the operation, and which of the path's ids. */
export interface PathReference {
  readonly operation: number;
  /** 0 for the path's first id (`/v1/users/$0.id/orders`), 1 for its second, … */
  readonly idIndex: number;
}

/**
 * The `$n.id` segments of `path`. A resource's path alternates a collection's name and an id after /v1
 * (`/v1/users/:user_id/orders/:order_id`), so the segment after the (2k + 1)-th name is the path's k-th id.
 */
export function pathReferences(path: string): PathReference[] {
  const references: PathReference[] = [];
  const after = API_PREFIX.split('/').length;
  path
    .split('?', 1)[0]
    ?.split('/')
    .forEach((segment, index) => {
      const found = REFERENCE.exec(segment);
      if (found !== null) references.push({ operation: Number(found[1]), idIndex: (index - after - 1) / 2 });
    });
  return references;
}

/** The id of the record operation `index` created (it was checked to be an earlier POST). */
export type CreatedId = (index: number) => RecordId;

/** `path` with each `$n.id` segment the id operation n gave its record (a query string, if any, kept as sent). */
export function resolvedPath(path: string, createdId: CreatedId): string {
  const query = path.indexOf('?');
  const routePath = query === -1 ? path : path.slice(0, query);
  const resolved = routePath
    .split('/')
    .map((segment) => {
      const found = REFERENCE.exec(segment);
      return found === null ? segment : String(createdId(Number(found[1])));
    })
    .join('/');
  return query === -1 ? resolved : resolved + path.slice(query);
}

/** `value` with each string that is a whole `$n.id` replaced by that id: a number, or a uuid or string id's text. */
export function resolvedBody(value: JsonValue, createdId: CreatedId): JsonValue {
  if (typeof value === 'string') {
    const found = REFERENCE.exec(value);
    return found === null ? value : createdId(Number(found[1]));
  }
  if (Array.isArray(value)) return value.map((item: JsonValue) => resolvedBody(item, createdId));
  if (!isJsonObject(value)) return value;
  // Made by fromEntries: a member named __proto__ stays a member, as JSON.parse made it.
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, resolvedBody(member, createdId)]));
}
