// JSON Web Tokens (RFC 7519) signed with HMAC-SHA256 (JWS, RFC 7515; "HS256" in RFC 7518 §3.2), using node:crypto
// only. Verification accepts exactly one algorithm, so `alg: none` and algorithm substitution are refused (RFC 8725
// §2.1, §3.1); signatures are compared in constant time; `exp` is required (RFC 7519 §4.1.4).

import { createHmac, timingSafeEqual } from 'node:crypto';

export interface TokenClaims {
  /** The user id, as a decimal string (RFC 7519 §4.1.2: `sub` is a string). */
  readonly sub: string;
  /** Issued at and expiry, in seconds since the epoch. */
  readonly iat: number;
  readonly exp: number;
}

export type VerifyResult =
  { readonly ok: true; readonly claims: TokenClaims } | { readonly ok: false; readonly reason: string };

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** Whether `token` begins as plainrest's own tokens do (the same header, always): an OpenID provider's does not. */
export function looksLikeOwnToken(token: string): boolean {
  return token.startsWith(`${HEADER}.`);
}
const SIGNATURE_BYTES = 32;
/** 32 bytes in unpadded base64url: 43 characters, the last carrying 4 bits and 2 unused ones that must be zero. */
const SIGNATURE_CHARS = 43;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function sign(input: string, secret: string | Buffer): Buffer {
  return createHmac('sha256', secret).update(input).digest();
}

export function signToken(claims: TokenClaims, secret: string | Buffer): string {
  const payload = base64url(JSON.stringify({ sub: claims.sub, iat: claims.iat, exp: claims.exp }));
  const input = `${HEADER}.${payload}`;
  return `${input}.${sign(input, secret).toString('base64url')}`;
}

/** Checks shape, algorithm, signature and expiry, in that order; `now` is in seconds. */
export function verifyToken(token: string, secret: string | Buffer, now: number): VerifyResult {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'the token is not a JWT' };
  const [header, payload, signature] = parts as [string, string, string];
  if (!BASE64URL.test(header) || !BASE64URL.test(payload) || !BASE64URL.test(signature)) {
    return { ok: false, reason: 'the token is not a JWT' };
  }
  const headerFields = parseJsonObject(header);
  if (headerFields === undefined) return { ok: false, reason: 'the token header is not JSON' };
  if (headerFields['alg'] !== 'HS256') return { ok: false, reason: 'the token must be signed with HS256' };
  if (headerFields['typ'] !== undefined && headerFields['typ'] !== 'JWT')
    return { ok: false, reason: 'the token type is not JWT' };
  if (headerFields['crit'] !== undefined) return { ok: false, reason: 'the token has critical extensions' };

  // Decoding ignores the unused bits of the last character, so four spellings give the
  // same bytes; only the one that re-encodes to itself (those bits zero) is accepted, the canonical base64url
  // (RFC 7515 §2, RFC 4648 §3.5), so a token cannot be varied into others that still verify.
  // (Comparing the caller's text with its own re-encoding reveals nothing of the secret.)
  if (signature.length !== SIGNATURE_CHARS) return { ok: false, reason: 'the token signature is invalid' };
  const given = Buffer.from(signature, 'base64url');
  if (given.toString('base64url') !== signature)
    return { ok: false, reason: 'the token signature is not canonical base64url' };
  const expected = sign(`${header}.${payload}`, secret);
  if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'the token signature is invalid' };
  }

  const claims = parseJsonObject(payload);
  const { sub, iat, exp } = claims ?? {};
  if (typeof sub !== 'string' || typeof exp !== 'number' || typeof iat !== 'number') {
    return { ok: false, reason: 'the token lacks its claims' };
  }
  // RFC 7519 §4.1.4: the current time must be before `exp`.
  if (now >= exp) return { ok: false, reason: 'the token has expired' };
  return { ok: true, claims: { sub, iat, exp } };
}

/** A token's header or claims: base64url JSON that must be an object; undefined when it is not. */
export function parseJsonObject(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
