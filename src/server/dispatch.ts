// The request pipeline's order of checks (README: Errors): what HTTP itself requires (RFC
// 9112 §3.2: one Host; RFC 9110 §10.1.1: no unknown Expect; `OPTIONS *`), route 404, method
// 405, authentication 401, rate limit 429, Accept and Accept-Encoding 406, then the handler, which checks the
// rest (query 400, permission 403, record 404, body, If-Match 412, validation 422, 409).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors/errors.ts';
import type { RequestContext, Services } from '../handlers/context.ts';
import type { RequestInProgress } from '../http/client-errors.ts';
import { requireJsonAcceptable, requireSomeCodingAcceptable } from '../http/negotiation.ts';
import { addressKey, type Admission, type RateLimiter } from '../http/rate-limit.ts';
import { requireOneHost } from '../http/request-target.ts';
import type { Reply } from '../http/respond.ts';
import type { Router } from '../routing/router.ts';
import type { RequestStore } from '../store/store.ts';
import type { RecordId } from '../records/record-id.ts';
import type { Endpoint, Handler } from './routes.ts';
import { notFound, serverWideOptions } from './unrouted.ts';

/** One request as the pipeline knows it, filled in along the way, for the answer's headers and the access log. */
export interface Exchange extends RequestInProgress {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  /**
   * The path as the client addressed it, under the base path (http/base-path.ts): what errors and the log echo (cut
   * short when the target is too long).
   */
  readonly shownPath: string;
  /** performance.now() at arrival, when the access log is on. */
  readonly started: number;
  userId: number | undefined;
  /** The rate limit's verdict, taken once though a store may run the request again (store/store.ts: Store.serve). */
  admission: Admission | undefined;
  /** Passwords the request carried, kept out of error log lines. */
  readonly valuesToRedact: string[];
}

/** What answers every request of a server, made once at its start. */
export interface Pipeline {
  readonly router: Router<Endpoint>;
  /** The Allow header of `OPTIONS *`. */
  readonly allMethods: string;
  readonly services: Services;
  readonly limiter: RateLimiter | undefined;
}

/**
 * Checks Host and Expect, routes `routePath` (`path` without the base path), checks the method, authenticates, limits
 * and negotiates, then runs the handler, whose links start from `path`; throws an HttpError to refuse.
 */
export function dispatch(
  exchange: Exchange,
  path: string,
  routePath: string,
  queryString: string,
  pipeline: Pipeline,
): Reply | Promise<Reply> {
  const { router, allMethods } = pipeline;
  const { req } = exchange;
  requireHostAndExpectation(req);
  // Node 20.19 parses QUERY yet leaves req.method undefined (later lines name it): a method no route serves.
  const method = req.method ?? 'QUERY';
  if (routePath === '*') return serverWideOptions(method, allMethods);
  const match = router.match(routePath);
  if (match === undefined) throw notFound(path, routePath, router);

  const endpoint = match.value;
  const ids = endpoint.impliedIds ?? match.ids;
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: endpoint.allow } };
  const handler = endpoint.handlers.get(method === 'HEAD' ? 'GET' : method);
  if (handler === undefined) {
    throw new HttpError('method_not_allowed', `${method} is not allowed here; allowed: ${endpoint.allow}`, {
      headers: { Allow: endpoint.allow },
    });
  }
  return runHandler(exchange, { path, queryString, method, endpoint, ids, handler }, pipeline);
}

/**
 * RFC 9112 §3.2: one Host, no fewer (in HTTP/1.1) and no more; RFC 9110 §10.1.1: an expectation other than
 * 100-continue cannot be met, 417.
 */
export function requireHostAndExpectation(req: IncomingMessage): void {
  requireOneHost(req.rawHeaders, req.headers.host, req.httpVersionMinor);
  const expect = req.headers.expect;
  if (expect !== undefined && expect.toLowerCase() !== '100-continue')
    throw new HttpError('expectation_failed', 'only "Expect: 100-continue" is understood');
}

/** A request routed: its path and query, its method, the endpoint and ids the path found, the handler to run. */
export interface RoutedRequest {
  readonly path: string;
  readonly queryString: string;
  readonly method: string;
  readonly endpoint: Endpoint;
  readonly ids: readonly RecordId[];
  readonly handler: Handler;
}

/**
 * Authenticates as `routed.endpoint` asks for its method, limits and negotiates, then runs `routed.handler` with the
 * store; the handler may be the endpoint's own, or one that answers for it in another dialect (json-server/).
 */
export function runHandler(exchange: Exchange, routed: RoutedRequest, pipeline: Pipeline): Reply | Promise<Reply> {
  const { services, limiter } = pipeline;
  const { req } = exchange;
  const { path, queryString, method, endpoint, ids, handler } = routed;
  // Authentication (README: Authentication and permissions): after routing and the method check, before
  // anything else is looked at and before the body is read.
  // A resource's `public` method needs no token, but one that is sent is still checked: it names the caller.
  const checksToken =
    !endpoint.tokenless.has(method) || (endpoint.checksTokenIfSent && req.headers.authorization !== undefined);
  // What the request will likely read, for a store that fetches ahead (PostgreSQL); the memory store needs none.
  const plan = {
    pathCollections: endpoint.pathCollections,
    ids,
    repeatable: endpoint.repeatable.has(method),
  };
  // The rest runs with the store the request reads and writes through, maybe more than once (store.ts: Store.serve).
  const handleWithStore = (store: RequestStore): Reply | Promise<Reply> => {
    const actor = checksToken
      ? services.authenticator.authenticate(req.headers.authorization, req.socket, store)
      : undefined;
    exchange.userId = actor?.id;

    if (limiter !== undefined) {
      // Taken once, though the store may run the request again.
      exchange.admission ??= limiter.take(actor === undefined ? addressKey(req) : `user ${actor.id}`);
      if (!exchange.admission.allowed)
        throw new HttpError('rate_limited', 'too many requests; retry after the time in Retry-After');
    }

    if (!endpoint.negotiates) requireJsonAcceptable(req.headers.accept);
    requireSomeCodingAcceptable(req.headers['accept-encoding'], method);
    const context: RequestContext = {
      req,
      method: method === 'HEAD' ? 'GET' : method,
      path,
      queryString,
      requestId: exchange.requestId,
      ids,
      actor,
      store,
      services,
      valuesToRedact: exchange.valuesToRedact,
    };
    return handler(context);
  };
  // A provider's token not seen yet is verified, and its user found, before the request reaches the store.
  const preparing = checksToken ? services.authenticator.prepare(req.headers.authorization) : undefined;
  // The memory store runs it at once, with a view of itself that notes what it reads (store/request-view.ts).
  if (preparing !== undefined) return preparing.then(() => services.store.serve(plan, handleWithStore));
  return services.store.serve(plan, handleWithStore);
}
