// Cross-origin requests (Fetch standard, "CORS protocol"): an allowed Origin gets Access-Control-Allow-Origin and the
// headers a browser script may read; a preflight (OPTIONS with Access-Control-Request-Method) gets 204 with the allowed
// methods and headers. A foreign origin gets no CORS header at all. `Vary: Origin` tells caches that the answer
// depends on the Origin header.

import type { IncomingHttpHeaders } from 'node:http';
import type { Headers } from './respond.ts';

/** Response headers a browser script may read (Fetch, "CORS-safelisted" ones need no listing). */
const EXPOSED = [
  'Location',
  'ETag',
  'Link',
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'WWW-Authenticate',
].join(', ');

/** Request headers a browser script may send. */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'X-Request-Id',
].join(', ');

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

export type CorsOrigins = readonly string[] | '*';

/** CORS headers for a request; `allow` is the path's Allow value, used for preflights. */
export function corsHeaders(
  origins: CorsOrigins,
  request: IncomingHttpHeaders,
  allow: string | undefined,
): Headers | undefined {
  if (origins !== '*' && origins.length === 0) return undefined;
  const vary: Headers = origins === '*' ? {} : { Vary: 'Origin' };
  const origin = request.origin;
  if (origin === undefined || (origins !== '*' && !origins.includes(origin))) return vary;
  const headers: Headers = { ...vary, 'Access-Control-Allow-Origin': origins === '*' ? '*' : origin };
  if (request['access-control-request-method'] !== undefined && allow !== undefined) {
    headers['Access-Control-Allow-Methods'] = allow;
    headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
    headers['Access-Control-Max-Age'] = String(PREFLIGHT_MAX_AGE);
  } else {
    headers['Access-Control-Expose-Headers'] = EXPOSED;
  }
  return headers;
}

/** `*`, or a comma-separated list of origins such as `https://app.example.com`. */
export function parseCorsOrigins(text: string): CorsOrigins {
  if (text.trim() === '*') return '*';
  return text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}
