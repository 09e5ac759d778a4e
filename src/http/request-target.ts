// The request target and Host (RFC 9112 §3.2). Clients send the origin-form
// (`/v1/products?page=2`); a server must also accept the absolute-form
// (`http://host/v1/products`, §3.2.2), which is read as its path and query; the
// asterisk-form (`*`, §3.2.4) names the server itself and is for OPTIONS only. Any
// other target, and a request with more than one Host header (§3.2), is a 400.

import { HttpError } from './errors.js';

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * A target that does not start with "/", in origin-form: the path and query of an
 * absolute-form target, `*` as it is, and undefined for anything else.
 */
export function originForm(url: string): string | undefined {
  if (url === '*') return url;
  const authority = ABSOLUTE_FORM.exec(url);
  if (authority === null) return undefined;
  const rest = url.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

export const BAD_TARGET = 'the request target is a path such as /v1/products (or an absolute http URL)';

/** Throws 400 unless the request has exactly one Host line (HTTP/1.0 may have none). */
export function requireOneHost(rawHeaders: readonly string[], host: string | undefined, httpVersionMinor: number): void {
  if (host === undefined && httpVersionMinor === 1) throw new HttpError('malformed_request', 'an HTTP/1.1 request needs a Host header');
  if (host !== undefined && hostLines(rawHeaders) > 1) throw new HttpError('malformed_request', 'a request carries one Host header, not several');
}

/** How many Host header lines the request carried (Node keeps only the first in `req.headers`). */
function hostLines(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') count += 1;
  }
  return count;
}
