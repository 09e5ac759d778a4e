// The core's operations as json-server's dialect calls them (docs/json-server.md: Serving json-server's dialect): each
// runs the handler of its own route under /v1 with the caller of the request, on its store, with a body already read
// (http/body.ts: giveJsonBody), as a batch's operations are run (README: Batches). A refusal is the core's HttpError.

import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors/errors.ts';
import type { RequestContext } from '../handlers/context.ts';
import { giveJsonBody } from '../http/body.ts';
import type { Headers, Reply } from '../http/respond.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import { API_PREFIX } from '../routing/route-table.ts';

/** A route of the core as the dialect needs it (server/routes.ts: Endpoint). */
export interface CoreEndpoint {
  readonly handlers: ReadonlyMap<string, (context: RequestContext) => Reply | Promise<Reply>>;
  /** Methods answered without a token. */
  readonly tokenless: ReadonlySet<string>;
  readonly impliedIds?: readonly RecordId[];
}

/** The core's router (routing/router.ts), on paths under /v1. */
export interface CoreRouter {
  match(path: string): { readonly value: CoreEndpoint; readonly ids: readonly RecordId[] } | undefined;
}

/** What a call answered: its status and headers, its body parsed. */
export interface CoreAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: JsonValue | undefined;
}

/** The path of a collection under /v1, and of one of its records. */
export function corePath(collection: string, id?: RecordId): string {
  return id === undefined ? `${API_PREFIX}/${collection}` : `${API_PREFIX}/${collection}/${encodeURIComponent(id)}`;
}

/** Runs core operations within one request of the dialect, whose context (caller, store) they share. */
export class CoreCalls {
  readonly #context: RequestContext;
  readonly #router: CoreRouter;

  constructor(context: RequestContext, router: CoreRouter) {
    this.#context = context;
    this.#router = router;
  }

  get context(): RequestContext {
    return this.#context;
  }

  /** Whether the core's route at `path` answers `method` without a token. */
  isTokenless(method: string, path: string): boolean {
    return this.#router.match(path)?.value.tokenless.has(method) === true;
  }

  /**
   * `method` on `path` (under /v1) with `queryString` and `body`: the core's answer, or its HttpError. Without a token,
   * a route that needs one is a 401, unless `tokenChecked` (the caller checked what it needs: a batch's operations).
   * `ifMatch` is sent as If-Match: the write is made only on the record as it was read (else 412, RFC 9110 §13.1.1).
   */
  async call(
    method: string,
    path: string,
    queryString = '',
    body?: JsonObject,
    { tokenChecked = false, ifMatch }: { tokenChecked?: boolean; ifMatch?: string } = {},
  ): Promise<CoreAnswer> {
    const match = this.#router.match(path);
    const handler = match?.value.handlers.get(method);
    if (match === undefined || handler === undefined)
      throw new HttpError('route_not_found', `nothing is served at ${path} for ${method}`);
    const context = this.#context;
    if (context.actor === undefined && !tokenChecked && !match.value.tokenless.has(method))
      throw new HttpError(
        'unauthenticated',
        'send a bearer token: Authorization: Bearer <token> (from POST /v1/tokens)',
        {
          headers: { 'WWW-Authenticate': 'Bearer realm="plainrest"' },
        },
      );
    const own: RequestContext = {
      req: operationRequest(context.req, method, body, ifMatch),
      method,
      path: context.services.config.basePath + path,
      queryString,
      requestId: context.requestId,
      ids: match.value.impliedIds ?? match.ids,
      actor: context.actor,
      store: context.store,
      services: context.services,
      valuesToRedact: context.valuesToRedact,
    };
    // A read not at hand yet (a database's) runs the handler again once it is, as a batch's operations are run.
    const reply = await context.store.read(() => handler(own));
    const text = reply.body === undefined ? '' : reply.body.toString();
    return { status: reply.status, headers: reply.headers ?? {}, body: text === '' ? undefined : JSON.parse(text) };
  }
}

/** The most records a page of the core's lists holds (README: Lists). */
const PAGE_LIMIT = 100;

/** The records of a list's page, and how many the list holds. */
interface Page {
  readonly records: readonly JsonObject[];
  readonly total: number;
}

/**
 * Page `page` of `limit` records of the list at `path` (as the core represents them), sorted by `sort` or by id, and
 * filtered by `filter` (the core's parameters) when given.
 */
export async function listPage(
  calls: CoreCalls,
  path: string,
  page: number,
  limit: number,
  sort = '',
  filter = '',
): Promise<Page> {
  const query = `page=${page}&limit=${limit}${sort === '' ? '' : `&sort=${sort}`}${filter === '' ? '' : `&${filter}`}`;
  const body = (await calls.call('GET', path, query)).body as { data: JsonObject[]; meta: { total: number } };
  return { records: body.data, total: body.meta.total };
}

/** Every record of the list at `path` (by `sort`, `filter`), read a page of PAGE_LIMIT at a time. */
export async function listAll(calls: CoreCalls, path: string, sort = '', filter = ''): Promise<JsonObject[]> {
  const first = await listPage(calls, path, 1, PAGE_LIMIT, sort, filter);
  const records = [...first.records];
  for (let page = 2; (page - 1) * PAGE_LIMIT < first.total; page++)
    records.push(...(await listPage(calls, path, page, PAGE_LIMIT, sort, filter)).records);
  return records;
}

/**
 * Every record of `definition`'s collection (by `filter`) in json-server's order as near as plainrest keeps it: by id
 * for integer ids (a file's order, new ones last); else by creation, then id (imported records by id, new ones last).
 */
export function everyRecord(calls: CoreCalls, definition: ResourceDefinition, filter = ''): Promise<JsonObject[]> {
  return listAll(calls, corePath(definition.collection), definition.idKind === 'integer' ? '' : 'created_at', filter);
}

/** Records `from` (from 0) to `to` (excluded) of the list at `path` (by id, `filter`), and how many it holds. */
export async function listRange(calls: CoreCalls, path: string, from: number, to: number, filter = ''): Promise<Page> {
  const length = to - from;
  if (length > 0 && length <= PAGE_LIMIT && from % length === 0)
    return listPage(calls, path, from / length + 1, length, '', filter);
  const records: JsonObject[] = [];
  let total = 0;
  for (let page = Math.floor(from / PAGE_LIMIT) + 1; ; page++) {
    const found = await listPage(calls, path, page, PAGE_LIMIT, '', filter);
    total = found.total;
    const start = (page - 1) * PAGE_LIMIT;
    records.push(...found.records.slice(Math.max(0, from - start), Math.max(0, to - start)));
    if (page * PAGE_LIMIT >= Math.min(to, total)) break;
  }
  return { records, total };
}

/** The request a call's handler reads: the dialect's, with the call's method, its condition only, `body` given. */
function operationRequest(
  req: IncomingMessage,
  method: string,
  body: JsonObject | undefined,
  ifMatch: string | undefined,
): IncomingMessage {
  const headers: Record<string, string | string[] | undefined> = {};
  for (const name of ['authorization', 'host', 'user-agent', 'x-forwarded-for']) headers[name] = req.headers[name];
  if (ifMatch !== undefined) headers['if-match'] = ifMatch;
  const own = Object.create(req, { method: { value: method }, headers: { value: headers } }) as IncomingMessage;
  if (body !== undefined) giveJsonBody(own, body);
  return own;
}
