// Tokens from an OpenID Connect provider: a JWS (RFC 7515) checked against the provider's public keys (JWK, RFC 7517)
// with the algorithm fixed by the key, never by the token (RFC 8725 §2.1, §3.1: no HS256 with a public key, no
// `none`): RS256, PS256, ES256 or EdDSA (RFC 7518 §3.3–3.5, RFC 8037). Then `iss` exactly, `aud` when one is expected,
// `exp` and `nbf` with a leeway (RFC 7519 §4.1); critical extensions and oversized tokens are refused.

import type { JsonWebKey, KeyObject } from 'node:crypto';
import { constants, createPublicKey, verify } from 'node:crypto';
import { parseJsonObject } from './jwt.ts';

export type ProviderAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

/** One of a provider's signing keys, made once from its JWK. */
export interface ProviderKey {
  readonly kid: string;
  readonly key: KeyObject;
  /** The algorithms a token signed with it may name: the JWK's `alg`, else every one its type allows. */
  readonly algorithms: readonly ProviderAlgorithm[];
}

/** What a token must say of its provider. */
export interface ExpectedProvider {
  readonly issuer: string;
  /** When set, `aud` must be it or contain it. */
  readonly audience?: string | undefined;
}

export type ProviderTokenResult =
  | { readonly ok: true; readonly subject: string; readonly claims: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly reason: string }
  /** Signed with a key the keys given do not hold: the provider's keys may have rotated. */
  | { readonly ok: 'unknown-key'; readonly kid: string };

/** Longer tokens are refused before anything is parsed. */
export const MAX_PROVIDER_TOKEN_CHARS = 8192;
/** Clocks differ: `exp` and `nbf` are allowed this much either way. */
export const LEEWAY_SECONDS = 60;
/** RSA keys shorter than this are not trusted (RFC 7518 §3.3). */
const MIN_RSA_BITS = 2048;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const TOKEN_TYPES = new Set(['jwt', 'at+jwt', 'application/at+jwt']);

/** The key a JWK describes, or undefined for one plainrest will not verify with (symmetric, weak, unknown, `enc`). */
export function providerKeyOf(jwk: Readonly<Record<string, unknown>>): ProviderKey | undefined {
  const { kid, kty, crv, alg, use } = jwk;
  if (typeof kid !== 'string' || kid === '' || (use !== undefined && use !== 'sig')) return undefined;
  const allowed: readonly ProviderAlgorithm[] =
    kty === 'RSA'
      ? ['RS256', 'PS256']
      : kty === 'EC' && crv === 'P-256'
        ? ['ES256']
        : kty === 'OKP' && crv === 'Ed25519'
          ? ['EdDSA']
          : [];
  const algorithms = alg === undefined ? allowed : allowed.filter((name) => name === alg);
  if (algorithms.length === 0) return undefined;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch {
    return undefined;
  }
  if (kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return undefined;
  return { kid, key, algorithms };
}

/** Checks size, shape, header, key and signature, then the claims; `now` is in seconds. */
export function verifyProviderToken(
  token: string,
  keys: ReadonlyMap<string, ProviderKey>,
  expected: ExpectedProvider,
  now: number,
): ProviderTokenResult {
  if (token.length > MAX_PROVIDER_TOKEN_CHARS) return refused(`the token is longer than ${MAX_PROVIDER_TOKEN_CHARS}`);
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) return refused('the token is not a JWT');
  const [header, payload, signature] = parts as [string, string, string];
  const fields = parseJsonObject(header);
  if (fields === undefined) return refused('the token header is not JSON');
  const { alg, kid, typ, crit } = fields;
  if (crit !== undefined) return refused('the token has critical extensions');
  if (typ !== undefined && !(typeof typ === 'string' && TOKEN_TYPES.has(typ.toLowerCase())))
    return refused('the token type is not JWT');
  if (typeof kid !== 'string') return refused('the token names no key (kid)');
  const key = keys.get(kid);
  if (key === undefined) return { ok: 'unknown-key', kid };
  if (typeof alg !== 'string' || !(key.algorithms as readonly string[]).includes(alg))
    return refused("the token's algorithm is not its key's");
  const given = Buffer.from(signature, 'base64url');
  // Only the canonical spelling (unused bits zero), so a token cannot be varied into others that verify.
  if (
    given.toString('base64url') !== signature ||
    !signedBy(key.key, alg as ProviderAlgorithm, `${header}.${payload}`, given)
  )
    return refused('the token signature is invalid');
  const claims = parseJsonObject(payload);
  if (claims === undefined) return refused('the token claims are not JSON');
  return checkedClaims(claims, expected, now);
}

function signedBy(key: KeyObject, algorithm: ProviderAlgorithm, input: string, signature: Buffer): boolean {
  const data = Buffer.from(input, 'ascii');
  switch (algorithm) {
    case 'RS256':
      return verify('sha256', data, key, signature);
    case 'PS256':
      // RFC 7518 §3.5: MGF1 with SHA-256, a salt as long as the hash.
      return verify('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, signature);
    case 'ES256':
      // RFC 7518 §3.4: R and S side by side, 32 bytes each (not DER).
      return signature.length === 64 && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    case 'EdDSA':
      return verify(null, data, key, signature);
  }
}

function checkedClaims(
  claims: Readonly<Record<string, unknown>>,
  { issuer, audience }: ExpectedProvider,
  now: number,
): ProviderTokenResult {
  const { iss, aud, exp, nbf, sub } = claims;
  if (iss !== issuer) return refused('the token is from another issuer');
  if (audience !== undefined && !(aud === audience || (Array.isArray(aud) && aud.includes(audience))))
    return refused('the token is for another audience');
  if (typeof exp !== 'number') return refused('the token has no expiry (exp)');
  if (now - LEEWAY_SECONDS >= exp) return refused('the token has expired');
  if (nbf !== undefined && (typeof nbf !== 'number' || now + LEEWAY_SECONDS < nbf))
    return refused('the token is not valid yet (nbf)');
  if (typeof sub !== 'string' || sub === '') return refused('the token names no subject (sub)');
  return { ok: true, subject: sub, claims };
}

function refused(reason: string): ProviderTokenResult {
  return { ok: false, reason };
}
