// The two caches of verified bearer tokens (README: Authentication and permissions), which a reader may skip: what
// an Authorization header verified to is kept until its token expires, by the header and as its connection's last,
// so a repeat costs a lookup or a comparison instead of an HMAC (bench/README.md, "What the measurements decided").

import { createHash } from 'node:crypto';

/** Headers kept at most; past it the oldest is forgotten (and verified again when it comes back). */
const MAX_CACHED_TOKENS = 10_000;
/** Longer headers (a provider's token, or one padded with spaces) are kept by their hash: a small cache. */
const MAX_HEADER_KEY_LENGTH = 2048;

/**
 * What an Authorization header verified to, while its token is unexpired. The user is not kept: it is read on every
 * request, so a deleted or demoted user is refused or demoted at once. CACHES=false (README: Caches) leaves these
 * caches on: they keep no answer's bytes.
 */
export class TokenCache<T extends { readonly exp: number }> {
  /** Header (keyOf) → what it verified to; insertion order gives the oldest entry to evict. */
  readonly #byHeader = new Map<string, T>();
  /**
   * Per connection (its socket), the header last verified on it: a client sends the same header with every request on
   * a connection, and comparing with it costs less than hashing its few hundred characters for the Map.
   */
  readonly #lastOnConnection = new WeakMap<object, { readonly header: string; readonly verified: T }>();

  /** What `authorization` verified to, if it is the header last verified on `connection` and unexpired at `now`. */
  lastOnConnection(connection: object | undefined, authorization: string, now: number): T | undefined {
    const last = connection === undefined ? undefined : this.#lastOnConnection.get(connection);
    if (last === undefined || last.header !== authorization || last.verified.exp <= now) return undefined;
    return last.verified;
  }

  /** Notes `verified` as what the header last verified on `connection` verified to; returns it. */
  noteOnConnection(connection: object | undefined, authorization: string, verified: T): T {
    if (connection !== undefined) this.#lastOnConnection.set(connection, { header: authorization, verified });
    return verified;
  }

  /** What `authorization` verified to, while unexpired at `now`; an expired entry is forgotten. */
  get(authorization: string, now: number): T | undefined {
    const key = keyOf(authorization);
    const cached = this.#byHeader.get(key);
    if (cached !== undefined && cached.exp > now) return cached;
    if (cached !== undefined) this.#byHeader.delete(key);
    return undefined;
  }

  /** True while `authorization` is kept unexpired at `now` (an expired entry is left for `get` to forget). */
  has(authorization: string, now: number): boolean {
    return (this.#byHeader.get(keyOf(authorization))?.exp ?? 0) > now;
  }

  /** Keeps `verified` for `authorization`, forgetting the oldest entry when full; returns it. */
  remember(authorization: string, verified: T): T {
    if (this.#byHeader.size >= MAX_CACHED_TOKENS) {
      const oldest = this.#byHeader.keys().next().value;
      if (oldest !== undefined) this.#byHeader.delete(oldest);
    }
    this.#byHeader.set(keyOf(authorization), verified);
    return verified;
  }

  /** Forgets `authorization` (an API key deleted since), though a connection may still name it as its last. */
  forget(authorization: string): void {
    this.#byHeader.delete(keyOf(authorization));
  }
}

/**
 * A header as the cache keys it: itself, or the hash of a long one, after a NUL, which no header value can hold (RFC
 * 9110 §5.5), so no header sent is ever taken for another's hash.
 */
function keyOf(authorization: string): string {
  return authorization.length <= MAX_HEADER_KEY_LENGTH
    ? authorization
    : `\u0000${createHash('sha256').update(authorization).digest('base64url')}`;
}
