// The addresses that are not resources: the home page (`/`), the API index (`/v1`), the OpenAPI document, and the
// health checks. The documents are built once at start and carry a strong ETag, so If-None-Match gets 304 (RFC 9110
// §13.1.2; http/respond.ts). `/` and `/v1` choose their representation on Accept (§12.5.1) and say so with
// `Vary: Accept`.

import type { RequestContext } from './context.ts';
import { HttpError, storeUnavailable } from '../errors/errors.ts';
import { rejectQueryParameters } from '../http/record-query.ts';
import { prefersHtml, requireHtmlAcceptable, requireJsonAcceptable } from '../http/negotiation.ts';
import type { Reply } from '../http/respond.ts';
import { jsonReply } from '../http/respond.ts';

/** The documents served as they are, each with its ETag. */
export interface Documents {
  openApi(): Promise<Reply>;
  /** The home page, which also carries `Vary: Accept`. */
  homePage(): Promise<Reply>;
  /** The API index as JSON, with `Vary: Accept`. */
  readonly apiIndex: Reply;
}

/** A document built at start, as it is (If-None-Match is answered in http/respond.ts). */
export function serveDocument(context: RequestContext, document: Reply): Reply {
  rejectQueryParameters(context.queryString);
  return document;
}

/** `/`: the home page, for any client that accepts HTML (406 otherwise: the API is under /v1). */
export async function homePage(context: RequestContext, documents: Documents): Promise<Reply> {
  requireHtmlAcceptable(context.req.headers.accept);
  return serveDocument(context, await documents.homePage());
}

/** `/v1`: the index as JSON, or the home page for a client that prefers HTML (a browser). */
export function apiIndex(context: RequestContext, documents: Documents): Reply | Promise<Reply> {
  const accept = context.req.headers.accept;
  if (prefersHtml(accept)) return documents.homePage().then((page) => serveDocument(context, page));
  requireJsonAcceptable(accept);
  return serveDocument(context, documents.apiIndex);
}

/** Liveness: the process answers. */
export function healthCheck(context: RequestContext): Reply {
  rejectQueryParameters(context.queryString);
  return jsonReply(200, { status: 'ok' });
}

/**
 * Readiness: 503 while shutting down, when writes can no longer be made durable, or while the database cannot be
 * reached, so a balancer moves traffic away.
 */
export function readinessCheck(context: RequestContext): Reply {
  rejectQueryParameters(context.queryString);
  const { services } = context;
  if (services.isShuttingDown())
    throw new HttpError('not_ready', 'the server is shutting down', { headers: { 'Retry-After': '10' } });
  if (services.store.writable === false)
    throw new HttpError('not_ready', 'the server cannot store writes (its disk failed)');
  const unavailable = services.store.unavailable;
  if (unavailable !== undefined) throw storeUnavailable(unavailable);
  return jsonReply(200, { status: 'ready' });
}
