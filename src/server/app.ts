// The request listener (README: Errors): reads the target, hands the request to the
// pipeline (dispatch.ts), writes the answer with the headers every answer gets, and logs
// it. One catch site turns every error into a problem-details answer; a client that went
// away is logged once, as an access line, never as an error.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config, ServerOptions } from '../config/config.ts';
import { HttpError } from '../errors/errors.ts';
import { accessLogWriter, CLIENT_CLOSED_REQUEST } from '../http/access-log.ts';
import { BodyNotReceived } from '../http/body.ts';
import { requestsInProgress } from '../http/client-errors.ts';
import { headersForEveryResponse } from '../http/every-response.ts';
import { problemReply } from '../http/problem.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import { requestIdFor } from '../http/request-id.ts';
import { MAX_URL_LENGTH, pathOfTarget, unservedTarget } from '../http/request-target.ts';
import type { Reply } from '../http/respond.ts';
import { writeReply } from '../http/respond.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { Store } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';
import { dispatch, type Exchange, type Pipeline } from './dispatch.ts';
import { buildRouter } from './routes.ts';
import { openServices } from './services.ts';

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
  /** Waits for pending writes to be durable, then closes the store. */
  close(): Promise<void>;
}

export async function createApp(options: ServerOptions = {}): Promise<App> {
  const { config, resources, services, shutdown, closing } = await openServices(options);
  const { store, eventStreams, adminReady } = services;
  const { router, allMethods } = buildRouter(resources);
  const limiter = config.rateLimit === 0 ? undefined : new RateLimiter(config.rateLimit, config.clock);
  const pipeline: Pipeline = { router, allMethods, services, limiter };

  const logAccess = accessLogWriter(config.accessLog, config.logger);

  /** Writes the answer with the headers every answer gets, then logs it. */
  const finish = (exchange: Exchange, reply: Reply): void => {
    const { req, res } = exchange;
    const extra = headersForEveryResponse(
      req,
      reply,
      exchange.admission?.headers,
      limiter,
      config.corsOrigins,
      shutdown.begun,
    );
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
    logAccess({
      requestId,
      method: req.method ?? '',
      path,
      status,
      bytes,
      durationMs: performance.now() - exchange.started,
      userId,
    });
  };
  /**
   * True, having logged it, when the request was already answered by client-errors.ts (a 408 to a body too slow to
   * arrive).
   */
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
      admission: undefined,
      secrets: [],
      answeredHere: undefined,
    };
    let reply: Reply | Promise<Reply>;
    try {
      if (tooLong)
        throw new HttpError('uri_too_long', `the request target is longer than ${MAX_URL_LENGTH} characters`);
      if (target === undefined) throw unservedTarget();
      const search = queryStart === -1 ? '' : target.slice(queryStart + 1);
      reply = dispatch(exchange, path, search, pipeline);
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
      return shared.serve(NO_PLAN, (view) =>
        view.read(() =>
          Object.fromEntries(resources.resources.map(({ collection }) => [collection, view.count(collection)])),
        ),
      );
    },
    beginShutdown: () => {
      shutdown.begun = true;
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
