// What Express 4's res.jsonp and res.send do to an answer of json-server 0.17 (docs/json-server.md: Serving
// json-server's dialect): JSONP for `?callback=` on a GET, a weak ETag of the body's bytes on every answer, and 304 to
// a GET whose If-None-Match names it, as Express's `fresh` decides (RFC 9110 §13.1.2, but never with no-cache asked).

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Reply } from '../http/respond.ts';

/** JSONP's type, as res.jsonp sets it and res.send adds the charset. */
const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** A request's `Cache-Control: no-cache`, which makes Express's `fresh` answer stale (the fresh package's test). */
const NO_CACHE = /(?:^|,)\s*?no-cache\s*?(?:,|$)/;

/**
 * `reply` as res.jsonp sends it for `callback`: the name kept to `[]`, word characters, `$` and `.`, the JSON with
 * U+2028 and U+2029 escaped, in `/**\/ typeof fn === 'function' && fn(…);` (the comment against "Rosetta Flash").
 */
export function asJsonp(reply: Reply, callback: string): Reply {
  const name = callback.replace(/[^[\]\w$.]/g, '');
  const json = (reply.body ?? '')
    .toString()
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  const body = `/**/ typeof ${name} === 'function' && ${name}(${json});`;
  return { ...reply, body, contentType: JAVASCRIPT, bodyLength: undefined };
}

/** The weak ETag Express's default `etag fn` makes: the body's length and a SHA-1 of its bytes (the etag package). */
export function weakEntityTag(body: string | Buffer): string {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const hash = createHash('sha1').update(bytes).digest('base64').slice(0, 27);
  return `W/"${bytes.length.toString(16)}-${hash}"`;
}

/**
 * `reply` as res.send ends it for a request of `method` with `headers`: with a weak ETag unless it has one, and a 304
 * without a body, its other headers kept, when the request is fresh. Either way the server makes no other 304 of it.
 */
export function asExpressSends(method: string, headers: IncomingHttpHeaders, reply: Reply): Reply {
  if (reply.body === undefined) return reply;
  const etag = reply.headers?.['ETag'] ?? weakEntityTag(reply.body);
  const sent: Reply = { ...reply, headers: { ...reply.headers, ETag: etag }, conditionsWeighed: true };
  if (!isFresh(method, reply.status, headers, etag, reply.headers?.['Last-Modified'])) return sent;
  return { status: 304, headers: sent.headers, conditionsWeighed: true };
}

/**
 * Express's req.fresh (the fresh package): a GET or HEAD answered 2xx whose request has a condition, no `no-cache`,
 * an If-None-Match that is `*` or names `etag` (weakly: `W/` on either side), and an If-Modified-Since only where the
 * answer has a Last-Modified no later than it.
 */
function isFresh(
  method: string,
  status: number,
  headers: IncomingHttpHeaders,
  etag: string,
  lastModified: string | undefined,
): boolean {
  if ((method !== 'GET' && method !== 'HEAD') || status < 200 || status >= 300) return false;
  const noneMatch = headers['if-none-match'];
  const modifiedSince = headers['if-modified-since'];
  if (noneMatch === undefined && modifiedSince === undefined) return false;
  const cacheControl = headers['cache-control'];
  if (cacheControl !== undefined && NO_CACHE.test(cacheControl)) return false;
  if (noneMatch !== undefined && noneMatch !== '*') {
    const named = noneMatch.split(',').map((tag) => tag.trim());
    if (!named.some((tag) => tag === etag || `W/${tag}` === etag || tag === `W/${etag}`)) return false;
  }
  if (modifiedSince !== undefined) {
    if (lastModified === undefined) return false;
    if (!(Date.parse(lastModified) <= Date.parse(modifiedSince))) return false;
  }
  return true;
}
