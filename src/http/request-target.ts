// The request target and Host (RFC 9112 §3.2). Clients send the origin-form (`/v1/products?page=2`); the
// absolute-form (`http://host/v1/products`, §3.2.2) is served as its path and query; the asterisk-form (`*`, §3.2.4)
// is for OPTIONS only. Any other target, an absolute URI with an empty host or with user information (RFC 9110
// §4.2.1, §4.2.4), and a request with more than one Host header (§3.2) is a 400.

import { HttpError } from '../errors/errors.ts';

/** Longer request targets get 414 (RFC 9110 §4.1 suggests supporting at least 8000 octets). */
export const MAX_URL_LENGTH = 8192;

/** `http://` or `https://`, then a host that is not empty and carries no `user@`. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#@]+(?=[/?#]|$)/i;

/**
 * The path and query of a target that does not start with "/": those of an
 * absolute-form target, or `*` itself; undefined for a target no server accepts.
 */
export function pathOfTarget(target: string): string | undefined {
  if (target === '*') return target;
  const authority = ABSOLUTE_FORM.exec(target);
  if (authority === null) return undefined;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** The path of an origin-form target: all of it before the first `?` (RFC 9112 §3.2.1: path ["?" query]). */
export function pathPart(target: string): string {
  const queryStart = target.indexOf('?');
  return queryStart === -1 ? target : target.slice(0, queryStart);
}

/** A percent-encoded unreserved character (RFC 3986 §2.3): a letter, a digit, `-`, `.`, `_` or `~`. */
const ENCODED_UNRESERVED = /%(?:4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2[DE]|5F|7E)/gi;

/** `path` with its percent-encoded unreserved characters decoded: the same path (RFC 3986 §6.2.2.2, §2.3). */
export function withUnreservedDecoded(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(ENCODED_UNRESERVED, (encoded) => String.fromCharCode(Number.parseInt(encoded.slice(1), 16)));
}

/** The query of `target`, whose `pathPart` is `path`: all of it after that `?`, or '' when there is none. */
export function queryPart(target: string, path: string): string {
  return target.length === path.length ? '' : target.slice(path.length + 1);
}

/** The 400 for a target `pathOfTarget` refuses. */
export function unservedTarget(): HttpError {
  return new HttpError(
    'malformed_request',
    'the request target is a path such as /v1/products (or an absolute http URL)',
  );
}

/** Throws 400 unless the request has exactly one Host line (an HTTP/1.0 request may have none). */
export function requireOneHost(
  rawHeaders: readonly string[],
  host: string | undefined,
  httpVersionMinor: number,
): void {
  if (host === undefined) {
    if (httpVersionMinor === 1) throw new HttpError('malformed_request', 'an HTTP/1.1 request needs a Host header');
    return;
  }
  if (hasSecondHost(rawHeaders))
    throw new HttpError('malformed_request', 'a request carries one Host header, not several');
}

/**
 * True when more than one raw header line is named Host (Node keeps only the first in `req.headers`). Runs on every
 * request, so it allocates nothing.
 */
function hasSecondHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (!isHost(rawHeaders[index] as string)) continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/** `name` is "host" in any case. */
function isHost(name: string): boolean {
  if (name.length !== 4) return false;
  if (name === 'Host' || name === 'host') return true;
  return name.toLowerCase() === 'host';
}
