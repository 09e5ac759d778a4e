// The request pipeline (the README's Errors section gives the order of checks). First what HTTP itself
// requires of a request (RFC 9112 §3.2: a target a server accepts, one Host; RFC 9110
// §10.1.1: no unknown Expect; `OPTIONS *`), then route 404 → method 405 →
// authentication 401 → Accept 406 (`/` and `/v1`, which also serve HTML, negotiate in
// their handlers) → the handler, which checks query 400 → permission 403 → record 404 →
// body 413/415/400 → permission on the body 403 → If-Match 412 → validation 422 →
// conflicts 409. One catch site turns every error into a problem-details reply (koa's
// `.then(respond).catch(onerror)`); one function writes it. A client that goes away is
// not a server error: its request is logged once, as an access line, never as an error.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Socket } from 'node:net';
import type { Config, ServerOptions } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { Authenticator } from '../auth/authenticate.ts';
import type { AdminBootstrap } from './bootstrap-admin.ts';
import { ensureAdmin } from './bootstrap-admin.ts';
import { loadTokenSecret } from '../auth/token-secret.ts';
import { resolveConfig } from '../config/config.ts';
import type { RequestContext, Services } from '../handlers/context.ts';
import { accessLogWriter, CLIENT_CLOSED_REQUEST } from '../http/access-log.ts';
import { BodyNotReceived } from '../http/body.ts';
import type { RequestInProgress } from '../http/client-errors.ts';
import { requestsInProgress } from '../http/client-errors.ts';
import { headersForEveryResponse } from '../http/every-response.ts';
import { IdempotencyKeys } from '../http/idempotency.ts';
import { addressKey, RateLimiter } from '../http/rate-limit.ts';
import { HttpError } from '../errors/errors.ts';
import { requireJsonAcceptable } from '../http/negotiation.ts';
import { BodyBudget } from '../http/body-budget.ts';
import { PageCache } from '../http/page-cache.ts';
import { problemReply } from '../http/problem.ts';
import { requestIdFor } from '../http/request-id.ts';
import { MAX_URL_LENGTH, pathOfTarget, requireOneHost, unservedTarget } from '../http/request-target.ts';
import type { Headers, Reply } from '../http/respond.ts';
import { writeReply } from '../http/respond.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import { resolveResources } from '../declarations/resolve-resources.ts';
import { exampleResources } from '../declarations/example-domain.ts';
import type { Endpoint, Handler } from './routes.ts';
import { buildRouter, notFound, serverWideOptions } from './routes.ts';
import type { Router } from '../routing/router.ts';
import { openStore } from '../store/open-store.ts';
import { EventStreams } from '../events/event-streams.ts';
import { openDatabase } from '../store/open-database.ts';
import { loaded } from '../store/loaded.ts';
import type { Store } from '../store/store.ts';
import { CallerChanged, StoreUnavailable } from '../store/store.ts';
import type { Actor } from '../auth/permissions.ts';

export interface App {
  /** A `node:http` request listener: `http.createServer(app.handle)`. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  readonly config: Config;
  /** The resources served, compiled from the declaration. */
  readonly resources: ResourceTable;
  /** How many records each collection holds (for the start banner); read through a view where the store has them. */
  recordCounts(): Promise<Record<string, number>>;
  /**
   * The answer being prepared on `socket` for a request that has fully arrived (server/server.ts,
   * for a malformed request pipelined after it, and for a connection whose answer has
   * stalled). While a body is still arriving there is none: Node's requestTimeout applies.
   */
  pendingAnswer(socket: Socket): ServerResponse | undefined;
  /** From now on, answers ask clients to close their connections (`Connection: close`). */
  beginShutdown(): void;
  /** Waits for pending writes and writes a final snapshot. */
  close(): Promise<void>;
}

/** One request as the pipeline knows it, filled in along the way, for the answer's headers and the access log. */
interface Exchange extends RequestInProgress {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  /** The path errors and the log may echo (cut short when the target is too long). */
  readonly shownPath: string;
  /** performance.now() at arrival, when the access log is on. */
  readonly started: number;
  userId: number | undefined;
  rateLimit: Headers | undefined;
  /** Passwords the request carried, kept out of error log lines. */
  readonly secrets: string[];
}


export async function createApp(options: ServerOptions = {}): Promise<App> {
  const config = resolveConfig(options);
  const resources = await resolveResources(options.resources, options.hooks);
  // The example dataset belongs to the example domain; declared resources start empty.
  const seed = config.seed && resources === exampleResources();
  const store = options.store ?? (config.database !== undefined ? await openDatabase(config.database, resources, config.logger, config.events) : await openStore({ ...config, seed }, resources));
  store.describeEvents?.(resources);
  let authenticator: Authenticator;
  let adminReady: Promise<void>;
  let secret: string;
  const closing = new AbortController();
  try {
    // The token secret first: a start that fails on it must not have created (and
    // printed, then lost) a generated administrator password.
    secret = await loadTokenSecret(config.tokenSecret, config.dataDir);
    authenticator = new Authenticator(secret, config.tokenTtlSeconds, store);
    const bootstrap = async (): Promise<AdminBootstrap> => {
      const ensured = await ensureAdmin(resources.get('users') as ResourceDefinition, store, config.adminEmail, config.adminPassword, config.logger);
      announceAdmin(ensured, config);
      return ensured;
    };
    // A database not reached yet (README: Several processes): the administrator is ensured once it answers.
    adminReady = (store as Store).unavailable === undefined ? (await bootstrap()).passwordSynced : onceReachable(bootstrap, config.logger, closing.signal);
  } catch (error) {
    // Release the data directory (lock, journal) that this start opened.
    if (options.store === undefined) await store.close().catch(() => undefined);
    throw error;
  }
  const { router, allMethods } = buildRouter(resources);
  const limiter = config.rateLimit === 0 ? undefined : new RateLimiter(config.rateLimit, config.clock);
  let shuttingDown = false;
  const idempotencyKeys = new IdempotencyKeys(config.clock, secret);
  const listPages = new PageCache();
  const bodyBudget = new BodyBudget(config.maxBodyBytesInFlight);
  const eventStreams = store.feed === undefined ? undefined : new EventStreams(store.feed, resources, config.events);
  const services: Services = { store, config, authenticator, idempotencyKeys, listPages, bodyBudget, adminReady, eventStreams, isShuttingDown: () => shuttingDown };

  const logAccess = accessLogWriter(config.accessLog, config.logger);

  /** Writes the answer with the headers every answer gets, then logs it. */
  const finish = (exchange: Exchange, reply: Reply): void => {
    const { req, res } = exchange;
    const extra = headersForEveryResponse(req, reply, exchange.rateLimit, limiter, config.corsOrigins, shuttingDown);
    const bytes = writeReply(res, reply, exchange.requestId, req.method === 'HEAD', extra);
    if (logAccess === undefined) return;
    logAccess({
      requestId: exchange.requestId,
      method: req.method ?? '',
      path: exchange.shownPath,
      status: reply.status,
      bytes,
      durationMs: performance.now() - exchange.started,
      userId: exchange.userId,
    });
  };
  /** Logs a request that got no answer of the app's: `status` is what went out or would have. */
  const logUnanswered = (exchange: Exchange, status: number, bytes: number): void => {
    if (logAccess === undefined) return;
    const { requestId, req, shownPath: path, userId } = exchange;
    logAccess({ requestId, method: req.method ?? '', path, status, bytes, durationMs: performance.now() - exchange.started, userId });
  };
  /** True, having logged it, when the request was already answered by client-errors.ts (a 408 to a body too slow to arrive). */
  const answeredElsewhere = (exchange: Exchange): boolean => {
    if (exchange.answeredHere === undefined) return false;
    logUnanswered(exchange, exchange.answeredHere.status, exchange.answeredHere.bytes);
    return true;
  };
  const fail = (exchange: Exchange, error: unknown): void => {
    if (answeredElsewhere(exchange)) return;
    // The client closed the connection mid-body: no answer can reach it, and nothing
    // failed on the server. Logged as CLIENT_CLOSED_REQUEST (access-log.ts), not as an error.
    if (error instanceof BodyNotReceived) {
      logUnanswered(exchange, CLIENT_CLOSED_REQUEST, 0);
      return;
    }
    const { shownPath, requestId, req, secrets } = exchange;
    finishSafely(exchange, problemReply(error, shownPath, requestId, req.headers.accept, config.logger, secrets));
  };
  const finishSafely = (exchange: Exchange, reply: Reply): void => {
    if (answeredElsewhere(exchange)) return;
    try {
      finish(exchange, reply);
    } catch (error) {
      config.logger.error(`request ${exchange.requestId}: could not write the response: ${String(error)}`);
      exchange.res.destroy();
    }
  };

  // Most answers (reads, errors) are ready at once and are written in the same turn;
  // only a handler that waits (a body to read, a write to make durable) goes async.
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const raw = req.url ?? '/';
    // Clients send a path; another form of target is read in request-target.ts (undefined: none a server accepts).
    const target = raw.charCodeAt(0) === 47 /* "/" */ ? raw : pathOfTarget(raw);
    const shownTarget = target ?? raw;
    const queryStart = shownTarget.indexOf('?');
    const path = queryStart === -1 ? shownTarget : shownTarget.slice(0, queryStart);
    const tooLong = raw.length > MAX_URL_LENGTH;
    const exchange: Exchange = {
      req,
      res,
      requestId: requestIdFor(req.headers['x-request-id']),
      shownPath: tooLong ? path.slice(0, 100) : path,
      started: logAccess === undefined ? 0 : performance.now(),
      userId: undefined,
      rateLimit: undefined,
      secrets: [],
      answeredHere: undefined,
    };
    let reply: Reply | Promise<Reply>;
    try {
      if (tooLong) throw new HttpError('uri_too_long', `the request target is longer than ${MAX_URL_LENGTH} characters`);
      if (target === undefined) throw unservedTarget();
      const search = queryStart === -1 ? '' : target.slice(queryStart + 1);
      reply = dispatch(exchange, path, search, router, allMethods, services, limiter);
    } catch (error) {
      fail(exchange, error);
      return;
    }
    if (reply instanceof Promise) {
      const socket = req.socket;
      requestsInProgress.set(socket, exchange);
      reply.then(
        (ready) => {
          requestsInProgress.delete(socket);
          finishSafely(exchange, ready);
        },
        (error: unknown) => {
          requestsInProgress.delete(socket);
          fail(exchange, error);
        },
      );
    } else {
      finishSafely(exchange, reply);
    }
  };

  return {
    handle,
    config,
    pendingAnswer: (socket) => {
      const res = requestsInProgress.get(socket)?.res;
      return res?.req.complete === true ? res : undefined;
    },
    resources,
    recordCounts: async () => {
      const shared: Store = store;
      const view = shared.view?.() ?? shared;
      return loaded(() => Object.fromEntries(resources.resources.map(({ collection }) => [collection, view.count(collection)])));
    },
    beginShutdown: () => {
      shuttingDown = true;
      eventStreams?.closeAll();
    },
    close: async () => {
      closing.abort();
      eventStreams?.closeAll();
      await adminReady;
      await store.close();
    },
  };
}

function announceAdmin({ generatedPassword, warning }: AdminBootstrap, config: Config): void {
  if (warning !== undefined) config.logger.warn(warning);
  if (generatedPassword !== undefined) {
    config.logger.info(
      `created the administrator ${config.adminEmail} with the generated password ${generatedPassword} ` +
        '(shown only now; set ADMIN_PASSWORD to choose one)',
    );
  }
}

/** Runs `bootstrap` once the store answers, trying again every second while it answers 503; settles when the password is in place. */
async function onceReachable(bootstrap: () => Promise<AdminBootstrap>, logger: Logger, closing: AbortSignal): Promise<void> {
  while (!closing.aborted) {
    try {
      return await (await bootstrap()).passwordSynced;
    } catch (error) {
      if (!(error instanceof StoreUnavailable)) {
        logger.error(`the administrator could not be ensured: ${String(error)}`);
        return;
      }
      await sleep(1000, undefined, { signal: closing }).catch(() => undefined);
    }
  }
}

/** Checks Host and Expect, routes, checks the method, authenticates, limits and negotiates, then runs the handler; throws an HttpError to refuse. */
function dispatch(
  exchange: Exchange,
  path: string,
  search: string,
  router: Router<Endpoint>,
  allMethods: string,
  services: Services,
  limiter: RateLimiter | undefined,
): Reply | Promise<Reply> {
  const { req } = exchange;
  // RFC 9112 §3.2: one Host, no fewer (in HTTP/1.1) and no more; RFC 9110 §10.1.1: an
  // expectation other than 100-continue cannot be met, 417.
  requireOneHost(req.rawHeaders, req.headers.host, req.httpVersionMinor);
  const expect = req.headers.expect;
  if (expect !== undefined && expect.toLowerCase() !== '100-continue') throw new HttpError('expectation_failed', 'only "Expect: 100-continue" is understood');
  // Node 20.19 parses QUERY yet leaves req.method undefined (later lines name it): a method no route serves.
  const method = req.method ?? 'QUERY';
  if (path === '*') return serverWideOptions(method, allMethods);
  const match = router.match(path);
  if (match === undefined) throw notFound(path, router);

  const endpoint = match.value;
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: endpoint.allow } };
  const handler = endpoint.handlers.get(method === 'HEAD' ? 'GET' : method);
  if (handler === undefined) {
    throw new HttpError('method_not_allowed', `${method} is not allowed here; allowed: ${endpoint.allow}`, {
      headers: { Allow: endpoint.allow },
    });
  }

  // Authentication (README: Authentication and permissions): after routing and the method check, before
  // anything else is looked at and before the body is read.
  // An open method of a resource (`public` access) still checks a token that is sent: it names the caller.
  const identify = !endpoint.open.has(method) || (endpoint.identifies && req.headers.authorization !== undefined);
  // A store whose data is elsewhere gives each request its own view (store/store.ts).
  const store = services.store.view?.() ?? services.store;
  if (store.willRead !== undefined) endpoint.pathCollections.forEach((collection, index) => store.willRead?.(collection, match.ids[index] as number));
  if (!identify) return admitted(exchange, match.ids, method, path, search, endpoint, handler, services, limiter, store, undefined);
  const authenticated = (limit: RateLimiter | undefined): Reply | Promise<Reply> => {
    const actor = loaded(() => services.authenticator.authenticate(req.headers.authorization, req.socket, store));
    return actor instanceof Promise
      ? actor.then((caller) => admitted(exchange, match.ids, method, path, search, endpoint, handler, services, limit, store, caller))
      : admitted(exchange, match.ids, method, path, search, endpoint, handler, services, limit, store, actor);
  };
  if (store.mayRememberCaller === undefined || !endpoint.remembersCaller.has(method)) return authenticated(limiter);
  store.mayRememberCaller();
  // Run again (once, its caller read afresh and the rate limit already counted) when its remembered caller had changed.
  return confirmedCaller(store, () => authenticated(limiter), () => authenticated(undefined));
}

/**
 * A request whose caller the store answered from an earlier request (store.ts:
 * mayRememberCaller) is answered once the caller is confirmed as it was: by its first read
 * or its write, or by the store afterwards. A request refused or answered with a caller
 * that has since changed is run again, so that a deleted or demoted user is refused or
 * demoted as at any other request.
 */
async function confirmedCaller(store: Store, first: () => Reply | Promise<Reply>, again: () => Reply | Promise<Reply>): Promise<Reply> {
  const confirmed = (): Promise<boolean> => store.confirmCaller?.() ?? Promise.resolve(true);
  let reply: Reply;
  try {
    reply = await first();
  } catch (error) {
    if (error instanceof CallerChanged || !(await confirmed())) return again();
    throw error;
  }
  return (await confirmed()) ? reply : again();
}

/** After authentication: the rate limit, negotiation, then the handler. */
function admitted(
  exchange: Exchange,
  ids: readonly number[],
  method: string,
  path: string,
  search: string,
  endpoint: Endpoint,
  handler: Handler,
  services: Services,
  limiter: RateLimiter | undefined,
  store: Store,
  actor: Actor | undefined,
): Reply | Promise<Reply> {
  const { req, requestId } = exchange;
  exchange.userId = actor?.id;

  if (limiter !== undefined) {
    const admission = limiter.take(actor === undefined ? addressKey(req) : `user ${actor.id}`);
    exchange.rateLimit = admission.headers;
    if (!admission.allowed) throw new HttpError('rate_limited', 'too many requests; retry after the time in Retry-After');
  }

  if (!endpoint.negotiates) requireJsonAcceptable(req.headers.accept);
  const context: RequestContext = {
    req,
    method: method === 'HEAD' ? 'GET' : method,
    path,
    search,
    requestId,
    ids,
    actor,
    store,
    services,
    secrets: exchange.secrets,
  };
  // A handler that reads and then answers at once runs again once what it read is loaded.
  return loaded(() => handler(context));
}
