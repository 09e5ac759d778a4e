// Bearer-token authentication (RFC 6750; README: Authentication and permissions): plainrest's own tokens, an identity
// provider's (provider-auth.ts) and API keys (api-keys.ts) come in `Authorization: Bearer …`; the server keeps no
// session. The user (and an API key) is read from the current record on every request, so a deleted user's token or a
// deleted key stops working and a demotion takes effect at once.

import { HttpError } from '../errors/errors.ts';
import type { StoredRecord } from '../records/json.ts';
import type { RequestStore } from '../store/store.ts';
import { apiKeyById, apiKeyBySecret, isApiKey } from './api-keys.ts';
import type { TokenClaims } from './jwt.ts';
import { looksLikeOwnToken, signToken, verifyToken } from './jwt.ts';
import type { Actor, Role } from './permissions.ts';
import type { ProviderAuthenticator } from './provider-auth.ts';
import { TokenCache } from './token-cache.ts';

export const REALM = 'plainrest';
/** How long a client waits before asking again while the provider cannot be reached. */
const PROVIDER_RETRY_SECONDS = 5;
const BEARER_PREFIX = /^bearer +/i; // the auth-scheme is case-insensitive (RFC 9110 §11.1)

export interface IssuedToken {
  readonly token: string;
  readonly expiresIn: number;
}

/** A verified token: whose it is, when it expires (seconds since the epoch), for a provider's the role it gives. */
interface Verified {
  readonly userId: number;
  readonly exp: number;
  readonly role?: Role;
  /** An API key's id: the key is read again on every request, so a deleted one stops working at once. */
  readonly keyId?: number;
}

/** What a request's authentication reads: the caller, and an API key (by id, or by its secret's hash). */
export type AuthenticationReads = Pick<RequestStore, 'caller' | 'get' | 'query'>;

export interface AuthenticatorOptions {
  /** The clock, in seconds since the epoch (tests move it). */
  readonly nowSeconds?: () => number;
  /** Tokens of an OpenID Connect provider, accepted beside plainrest's own; absent: none. */
  readonly provider?: ProviderAuthenticator;
  /** Told of every request an API key authenticates (server/key-use.ts notes when it was last used). */
  readonly keyUsed?: (key: StoredRecord) => void;
}

export class Authenticator {
  readonly #secret: string;
  readonly #ttlSeconds: number;
  readonly #nowSeconds: () => number;
  /** Headers verified before, by value and per connection, until their tokens expire (token-cache.ts). */
  readonly #tokens = new TokenCache<Verified>();

  readonly #provider: ProviderAuthenticator | undefined;
  readonly #keyUsed: ((key: StoredRecord) => void) | undefined;

  constructor(secret: string, ttlSeconds: number, options: AuthenticatorOptions = {}) {
    this.#secret = secret;
    this.#ttlSeconds = ttlSeconds;
    this.#nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
    this.#provider = options.provider;
    this.#keyUsed = options.keyUsed;
  }

  /**
   * For a provider's token not verified yet: verifies it and finds (or makes) its user, which may wait for the
   * provider's keys and for a write, so that authenticate() then answers at once; undefined when there is nothing to
   * wait for (plainrest's own tokens are checked in authenticate()).
   */
  prepare(authorization: string | undefined): Promise<void> | undefined {
    const provider = this.#provider;
    if (provider === undefined || authorization === undefined || !BEARER_PREFIX.test(authorization)) return undefined;
    const now = this.#nowSeconds();
    if (this.#tokens.has(authorization, now)) return undefined;
    const token = authorization.replace(BEARER_PREFIX, '').trim();
    if (looksLikeOwnToken(token) || isApiKey(token)) return undefined;
    return provider.verify(token, now).then((verdict) => {
      // Kept as long as it verifies: its expiry with the leeway its verification allows.
      if (verdict.ok)
        this.#tokens.remember(authorization, { userId: verdict.userId, exp: verdict.exp, role: verdict.role });
      else if (verdict.unreachable === true) throw providerUnreachable(verdict.reason);
      else throw invalidToken(verdict.reason);
    });
  }

  issue(userId: number): IssuedToken {
    const iat = this.#nowSeconds();
    const claims: TokenClaims = { sub: String(userId), iat, exp: iat + this.#ttlSeconds };
    return { token: signToken(claims, this.#secret), expiresIn: this.#ttlSeconds };
  }

  /**
   * The caller named by the Authorization header, or a 401 (RFC 6750 §3); `connection` is
   * the request's socket, `store` the request's (store/store.ts). The user, and an API key, are read on
   * every request, so a deleted or demoted user, or a deleted key, is refused or demoted at once.
   */
  authenticate(authorization: string | undefined, connection: object | undefined, store: AuthenticationReads): Actor {
    if (authorization === undefined) throw noToken();
    const now = this.#nowSeconds();
    const entry = this.#verifiedEntry(authorization, connection, now, store);
    const key = entry.keyId === undefined ? undefined : apiKeyById(entry.keyId, store);
    if (entry.keyId !== undefined && key === undefined) {
      this.#tokens.forget(authorization);
      // Worded as when nothing was remembered (verifiedKey): the answer does not depend on this connection's history.
      throw invalidToken(UNKNOWN_KEY);
    }
    const user = store.caller(entry.userId);
    if (user === undefined) throw invalidToken('the user of this token no longer exists');
    // A provider's token carries the role; plainrest's own tokens and API keys take the user's.
    const role = entry.role ?? (user['role'] === 'admin' ? 'admin' : 'user');
    // Users' ids are integers (declarations/check-ids.ts).
    const id = user.id as number;
    if (key === undefined) return { id, role };
    this.#keyUsed?.(key.record);
    return { id, role, key: { id: key.id, readOnly: key.readOnly } };
  }

  /**
   * When the token of an Authorization header already accepted by authenticate() expires, in seconds since the epoch.
   */
  expiryOf(authorization: string | undefined, store: AuthenticationReads): number {
    if (authorization === undefined) throw noToken();
    return this.#verifiedByHeader(authorization, this.#nowSeconds(), store).exp;
  }

  #verify(authorization: string, now: number, store: AuthenticationReads): Verified {
    if (!BEARER_PREFIX.test(authorization)) throw noToken();
    const token = authorization.replace(BEARER_PREFIX, '').trim();
    if (isApiKey(token)) return verifiedKey(token, now, store);
    // A provider's token is verified by prepare(), before this: one that reaches here was not.
    if (this.#provider !== undefined && !looksLikeOwnToken(token))
      throw invalidToken('the token could not be checked in time; send it again');
    const result = verifyToken(token, this.#secret, now);
    if (!result.ok) throw invalidToken(result.reason);
    const userId = /^[1-9][0-9]{0,15}$/.test(result.claims.sub) ? Number(result.claims.sub) : NaN;
    if (!Number.isSafeInteger(userId)) throw invalidToken('the token names no user');
    return { userId, exp: result.claims.exp };
  }

  // The two token caches (token-cache.ts). A reader may skip them: #verifiedEntry(…) and #verifiedByHeader(…) are
  // #verify(authorization, now, store), remembered until the token expires.

  /** What the header verified to last on this connection, else as #verifiedByHeader gives it, noted for the next. */
  #verifiedEntry(
    authorization: string,
    connection: object | undefined,
    now: number,
    store: AuthenticationReads,
  ): Verified {
    return (
      this.#tokens.lastOnConnection(connection, authorization, now) ??
      this.#tokens.noteOnConnection(connection, authorization, this.#verifiedByHeader(authorization, now, store))
    );
  }

  /** What the header verified to before, on any connection, else verified now and kept: a repeat skips even parsing. */
  #verifiedByHeader(authorization: string, now: number, store: AuthenticationReads): Verified {
    return (
      this.#tokens.get(authorization, now) ??
      this.#tokens.remember(authorization, this.#verify(authorization, now, store))
    );
  }
}

const UNKNOWN_KEY = 'no API key has this secret: it was deleted, or never made';

/** The key whose secret `token` is, unless it has expired. */
function verifiedKey(token: string, now: number, store: AuthenticationReads): Verified {
  const key = apiKeyBySecret(token, store);
  if (key === undefined) throw invalidToken(UNKNOWN_KEY);
  if (key.expiresAt <= now) throw invalidToken('this API key has expired');
  return { userId: key.userId, exp: key.expiresAt, keyId: key.id };
}

/** No bearer token at all (RFC 6750 §3.1: no error code). */
function noToken(): HttpError {
  return new HttpError(
    'unauthenticated',
    'send a bearer token: Authorization: Bearer <token> (get one from POST /v1/tokens)',
    {
      headers: { 'WWW-Authenticate': `Bearer realm="${REALM}"` },
    },
  );
}

function providerUnreachable(reason: string): HttpError {
  return new HttpError('not_ready', `the identity provider cannot check this token now (${reason}); retry later`, {
    headers: { 'Retry-After': String(PROVIDER_RETRY_SECONDS) },
  });
}

function invalidToken(reason: string): HttpError {
  const description = reason.replace(/["\\]/g, '');
  return new HttpError('invalid_token', reason, {
    headers: {
      'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`,
    },
  });
}
