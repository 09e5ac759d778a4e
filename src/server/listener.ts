// The request listener (README: Errors): reads the target, hands the request to the pipeline (dispatch.ts), writes
// the answer with the headers every answer gets, and logs it. One function, `fail`, turns every error into a
// problem-details answer; a client that went away is logged once, as an access line, never as an error.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/config.ts';
import { HttpError } from '../errors/errors.ts';
import { accessLogWriter, CLIENT_CLOSED_REQUEST } from '../http/access-log.ts';
import { BodyNotReceived } from '../http/body.ts';
import { requestsInProgress } from '../http/client-errors.ts';
import { corsHeaders } from '../http/cors.ts';
import { problemReply } from '../http/problem.ts';
import { requestIdFor } from '../http/request-id.ts';
import {
  MAX_URL_LENGTH,
  pathOfTarget,
  pathPart,
  queryPart,
  unservedTarget,
  withUnreservedDecoded,
} from '../http/request-target.ts';
import type { Headers, Reply } from '../http/respond.ts';
import { negotiatedReply, writeReply } from '../http/respond.ts';
import { addressKey } from '../http/rate-limit.ts';
import { addressedPath, routePathOf } from '../http/base-path.ts';
import { API_PREFIX } from '../routing/route-table.ts';
import { dispatch, type Exchange, type Pipeline } from './dispatch.ts';

/**
 * Another dialect served beside /v1 at the paths it claims (json-server's, json-server/, which server.ts loads only
 * when asked for): its answers go out as the routes' do, held back by DELAY_MS as API answers are, with the CORS
 * headers it chose (CORS_ORIGINS is /v1's).
 */
export interface Edge {
  serves(routePath: string): boolean;
  answer(exchange: Exchange, routePath: string, queryString: string): Promise<Reply>;
}

/**
 * A `node:http` request listener answering through `pipeline` (and `edge`, at the paths it serves); `shutdown.begun`
 * once a graceful stop has begun.
 */
export function requestListener(
  pipeline: Pipeline,
  config: Config,
  shutdown: { readonly begun: boolean },
  edge?: Edge,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { limiter } = pipeline;
  const { basePath } = config;
  const logAccess = accessLogWriter(config.accessLog, config.logger);
  /** `/v1` and what is under it, under the base path: the API's answers, which DELAY_MS holds back. */
  const apiPrefix = basePath + API_PREFIX;
  const isApiPath = (path: string): boolean =>
    path.startsWith(apiPrefix) && (path.length === apiPrefix.length || path.charCodeAt(apiPrefix.length) === 47);
  /** Requests the edge answers: held back as API answers are. */
  const atEdge = new WeakSet<Exchange>();

  /** Writes the access log's line for a request answered with `status` in `bytes` (sent, or that would have been). */
  const writeAccessLine = (exchange: Exchange, status: number, bytes: number): void => {
    if (logAccess === undefined) return;
    const { requestId, req, shownPath: path, userId } = exchange;
    const durationMs = performance.now() - exchange.started;
    logAccess({ requestId, method: req.method ?? '', path, status, bytes, durationMs, userId });
  };
  /**
   * Headers added to whatever the answer is (README: Headers): CORS for allowed origins (the Fetch standard); the
   * RateLimit-* fields while limiting is on (answers given before the limit was checked, 404, 405 or 401, show the
   * address's bucket without taking from it); and Connection: close during a shutdown.
   */
  const headersForEveryResponse = (exchange: Exchange, reply: Reply): Headers | undefined => {
    const { req } = exchange;
    // The edge's answers carry its own CORS headers (json-server's: the Origin reflected), never a second set.
    const cors = atEdge.has(exchange)
      ? undefined
      : corsHeaders(config.corsOrigins, req.headers, reply.headers?.['Allow']);
    const limits = limiter === undefined ? undefined : (exchange.admission?.headers ?? limiter.peek(addressKey(req)));
    if (cors === undefined && limits === undefined && !shutdown.begun) return undefined;
    const closing = shutdown.begun && reply.headers?.['Connection'] === undefined;
    return { ...cors, ...limits, ...(closing ? { Connection: 'close' } : {}) };
  };
  /** Writes `reply` in the representation chosen for this client, with the headers every answer gets; logs it. */
  const writeAndLog = (exchange: Exchange, reply: Reply): void => {
    const { req, res } = exchange;
    const sent = negotiatedReply(req, reply, config.caches);
    const extra = headersForEveryResponse(exchange, sent);
    writeAccessLine(exchange, sent.status, writeReply(res, sent, exchange.requestId, req.method === 'HEAD', extra));
  };
  /**
   * True, having logged it, when the request was already answered by client-errors.ts (a 408 to a body too slow to
   * arrive).
   */
  const answeredElsewhere = (exchange: Exchange): boolean => {
    if (exchange.answeredByClientErrors === undefined) return false;
    writeAccessLine(exchange, exchange.answeredByClientErrors.status, exchange.answeredByClientErrors.bytes);
    return true;
  };
  /** Writes `reply` now; a failure to write it is logged and the connection dropped. */
  const sendNow = (exchange: Exchange, reply: Reply): void => {
    if (answeredElsewhere(exchange)) return;
    try {
      writeAndLog(exchange, reply);
    } catch (error) {
      config.logger.error(`request ${exchange.requestId}: could not write the response: ${String(error)}`);
      exchange.res.destroy();
    }
  };
  /** DELAY_MS (README: Configuration): an API answer waits, as on a slow network; probes and the home page do not. */
  const sendAfterDelay = (exchange: Exchange, reply: Reply): void => {
    if (isApiPath(exchange.shownPath) || atEdge.has(exchange))
      setTimeout(() => sendNow(exchange, reply), config.delayMs);
    else sendNow(exchange, reply);
  };
  /** Sends a handler's reply, or the problem answer `fail` made of an error. */
  const send = config.delayMs > 0 ? sendAfterDelay : sendNow;
  /** Sends the problem answer (RFC 9457) `error` stands for, unless the client is gone. */
  const fail = (exchange: Exchange, error: unknown): void => {
    if (answeredElsewhere(exchange)) return;
    // The client closed the connection mid-body: no answer can reach it, and nothing
    // failed on the server. Logged as CLIENT_CLOSED_REQUEST (access-log.ts), not as an error.
    if (error instanceof BodyNotReceived) {
      writeAccessLine(exchange, CLIENT_CLOSED_REQUEST, 0);
      return;
    }
    const { shownPath, requestId, req, valuesToRedact } = exchange;
    send(exchange, problemReply(error, shownPath, requestId, req.headers.accept, config.logger, valuesToRedact));
  };

  // Most replies (reads, errors) are ready at once and are written in the same turn; a request that waits (for its
  // body, for a write, or a read of one, to be durable: store/held-answers.ts; for a provider's keys) goes async.
  return (req: IncomingMessage, res: ServerResponse): void => {
    const raw = req.url ?? '/';
    // Clients send a path: its first character code tells, with no call on every request. Another form of target is
    // read in request-target.ts (undefined: none a server accepts).
    const target = raw.charCodeAt(0) === 47 /* "/" */ ? raw : pathOfTarget(raw);
    // A refused target's path is still logged: taken from the raw text. A percent-encoded letter, digit, `-`, `.`,
    // `_` or `~` is that character (RFC 3986 §6.2.2.2): the routes read the path decoded so.
    const sentPath = pathPart(target ?? raw);
    const path = withUnreservedDecoded(sentPath);
    // Under a base path (http/base-path.ts) the routes read the path without it, and links are built on the path as
    // addressed, with it; at the root both are the path.
    const routePath = basePath === '' ? path : routePathOf(path, basePath);
    const addressed = basePath === '' ? path : addressedPath(path, routePath, basePath);
    const tooLong = raw.length > MAX_URL_LENGTH;
    const exchange: Exchange = {
      req,
      res,
      requestId: requestIdFor(req.headers['x-request-id']),
      shownPath: tooLong ? path.slice(0, 100) : addressed,
      started: logAccess === undefined ? 0 : performance.now(),
      userId: undefined,
      admission: undefined,
      valuesToRedact: [],
      answeredByClientErrors: undefined,
    };
    let reply: Reply | Promise<Reply>;
    try {
      if (tooLong)
        throw new HttpError('uri_too_long', `the request target is longer than ${MAX_URL_LENGTH} characters`);
      if (target === undefined) throw unservedTarget();
      const queryString = queryPart(target, sentPath);
      if (edge !== undefined && edge.serves(routePath)) {
        atEdge.add(exchange);
        reply = edge.answer(exchange, routePath, queryString);
      } else reply = dispatch(exchange, addressed, routePath, queryString, pipeline);
    } catch (error) {
      fail(exchange, error);
      return;
    }
    if (reply instanceof Promise) {
      const socket = req.socket;
      // While it waits, client-errors.ts may answer a stalled body with 408 and mark the exchange as answered.
      requestsInProgress.set(socket, exchange);
      reply.then(
        (ready) => {
          requestsInProgress.delete(socket);
          send(exchange, ready);
        },
        (error: unknown) => {
          requestsInProgress.delete(socket);
          fail(exchange, error);
        },
      );
    } else {
      send(exchange, reply);
    }
  };
}
