// Where every answer of the app is written (koa's respond(); client-errors.ts answers requests whose bytes failed).
// Handlers return a Reply; it goes out in the representation chosen last (compressed when the client accepts a coding,
// RFC 9110 §12.5.3; 304 when If-None-Match matches, §13.1.2), with its length, and no body for HEAD, 204 or 304.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { chooseCoding } from './negotiation.ts';
import { codedEntityTag, compressed, MIN_COMPRESSED_BYTES } from './compression.ts';
import { matchesIfNoneMatch } from './conditional.ts';
import { entityTag } from '../resources/representation.ts';

export type Headers = Record<string, string>;

export interface Reply {
  readonly status: number;
  readonly headers?: Headers;
  /** Serialised JSON text (or its compressed bytes: negotiatedReply), or undefined for an empty body. */
  readonly body?: string | Buffer;
  /**
   * The body's length in bytes when it is known already (a cached representation or page); else it is measured here.
   */
  readonly bodyLength?: number;
  /**
   * The object the body lives as long as (a cached representation, page or document); compressed forms are cached on
   * it (http/compression.ts). Absent: the body is compressed anew each time it is sent compressed.
   */
  readonly bodyOwner?: object;
  /** Defaults to application/json. */
  readonly contentType?: string;
  /** If-None-Match was weighed already, by another dialect's rules (json-server/): no 304 is made of it here. */
  readonly conditionsWeighed?: boolean;
  /**
   * An answer that goes on after its headers (the change feed's event stream): the
   * headers are written without a length, then `stream` writes the body as it comes.
   */
  readonly stream?: (res: ServerResponse) => void;
}

export const JSON_TYPE = 'application/json';
export const PROBLEM_TYPE = 'application/problem+json';

export function jsonReply(status: number, value: unknown, headers?: Headers): Reply {
  return { status, headers, body: JSON.stringify(value) };
}

/** The headers a 304 repeats from the 200 it stands for (RFC 9110 §15.4.5). */
const REPEATED_ON_304 = ['ETag', 'Cache-Control', 'Content-Location', 'Expires', 'Vary'];

/**
 * `reply` as it goes to this client; its compressed forms kept with `reply.bodyOwner` when `useCaches` (README:
 * Caches). A client that asks for no coding and sends no If-None-Match gets `reply` itself: nothing is copied for it.
 */
export function negotiatedReply(req: IncomingMessage, reply: Reply, useCaches: boolean): Reply {
  // An event stream goes out as written, and an answer without a body has nothing to code.
  const { status, body } = reply;
  if (reply.stream !== undefined || body === undefined || status === 204 || status === 304) return reply;
  const { coding: accepted, identity } = chooseCoding(req.headers['accept-encoding']);
  const length = reply.bodyLength ?? Buffer.byteLength(body);
  const coding = accepted !== undefined && (!identity || length >= MIN_COMPRESSED_BYTES) ? accepted : undefined;
  // A success's tag names its body, so its coding too; another answer's (a 412's) names the record as it is now.
  const etag = reply.headers?.['ETag'];
  const success = status >= 200 && status < 300;
  const sentTag = coding !== undefined && etag !== undefined && success ? codedEntityTag(etag, coding) : etag;
  const ifNoneMatch = req.headers['if-none-match'];
  const isRead = req.method === 'GET' || req.method === 'HEAD';
  const weigh = isRead && status === 200 && sentTag !== undefined && reply.conditionsWeighed !== true;
  if (weigh && matchesIfNoneMatch(ifNoneMatch, sentTag)) {
    return notModified({ ...reply.headers, ETag: sentTag, Vary: variedBy(reply.headers) });
  }
  if (coding === undefined) return reply;
  const coded = compressed(body, coding, useCaches ? reply.bodyOwner : undefined);
  const headers: Headers = { ...reply.headers, 'Content-Encoding': coding };
  if (sentTag !== undefined) headers['ETag'] = sentTag;
  return { ...reply, headers, body: coded, bodyLength: coded.length };
}

/** 304 with the headers it repeats from the 200 it stands for (RFC 9110 §15.4.5). */
function notModified(headers: Headers): Reply {
  const repeated: Headers = {};
  for (const name of REPEATED_ON_304) if (headers[name] !== undefined) repeated[name] = headers[name];
  return { status: 304, headers: repeated };
}

/**
 * The Vary of an answer with a body: the reply's own, and Accept-Encoding, since any body may be sent compressed
 * (RFC 9110 §12.5.5).
 */
function variedBy(headers: Headers | undefined): string {
  const vary = headers?.['Vary'];
  return vary === undefined ? 'Accept-Encoding' : `${vary}, Accept-Encoding`;
}

/**
 * Writes the reply, with `extra` headers added to its own (those every answer gets), and
 * returns the body length in bytes (0 when there is none). An answer with a body varies by Accept-Encoding. The
 * headers go to writeHead as one flat list, and Content-Length is always set, so Node never chunks a body.
 */
export function writeReply(
  res: ServerResponse,
  reply: Reply,
  requestId: string,
  isHead: boolean,
  extra?: Headers,
): number {
  const status = reply.status;
  const mayHaveBody = reply.stream === undefined && status !== 204 && status !== 304 && reply.body !== undefined;
  const headers: string[] = [];
  if (reply.headers !== undefined) {
    for (const name in reply.headers) if (name !== 'Vary') headers.push(name, reply.headers[name] as string);
  }
  if (mayHaveBody) headers.push('Vary', variedBy(reply.headers));
  else if (reply.headers?.['Vary'] !== undefined) headers.push('Vary', reply.headers['Vary']);
  if (extra !== undefined) for (const name in extra) headers.push(name, extra[name] as string);
  headers.push('X-Request-Id', requestId);
  if (reply.stream !== undefined) {
    if (reply.contentType !== undefined) headers.push('Content-Type', reply.contentType);
    res.writeHead(status, headers);
    if (isHead) res.end();
    else reply.stream(res);
    return 0;
  }
  const length = mayHaveBody ? (reply.bodyLength ?? Buffer.byteLength(reply.body as string | Buffer)) : 0;
  if (mayHaveBody) headers.push('Content-Type', reply.contentType ?? JSON_TYPE, 'Content-Length', String(length));
  else if (status !== 204 && status !== 304) headers.push('Content-Length', '0');
  res.writeHead(status, headers);
  res.end(mayHaveBody && !isHead ? reply.body : undefined);
  return isHead ? 0 : length;
}

/**
 * A document as it is served: its body, a strong ETag of it, and `headers` beside; its compressed forms are kept with
 * a new object, which lives as long as the document.
 */
export function documentReply(body: string, headers: Headers = {}, contentType?: string): Reply {
  return { status: 200, headers: { ETag: entityTag(body), ...headers }, body, contentType, bodyOwner: {} };
}
