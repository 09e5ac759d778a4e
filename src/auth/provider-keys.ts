// An OpenID Connect provider's signing keys (OpenID Connect Discovery 1.0 §3–4, RFC 7517 §5): found through
// `<issuer>/.well-known/openid-configuration`, or at a JWKS address given, each answer read to 1 MiB at most; kept as
// the answer's Cache-Control says, within 5 minutes and a day; fetched again for a key id not known yet (a rotation) at
// most every 10 s; and still used while the provider cannot be reached (README: Provider tokens).

import type { ProviderKey } from './provider-token.ts';
import { providerKeyOf } from './provider-token.ts';
import { requireProviderUrl } from './provider-url.ts';

export const MIN_KEEP_SECONDS = 300;
export const MAX_KEEP_SECONDS = 86_400;
/** An unknown key id fetches the keys again, but not more often than this: made-up ids do not flood the provider. */
export const REFETCH_AFTER_MS = 10_000;
const FETCH_TIMEOUT_MS = 5_000;
/** A discovery document or JWKS past this many bytes is cut off as it arrives, whatever its headers said. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** The provider could not be asked, or answered with nothing usable, and no key is at hand: answered 503. */
export class ProviderUnreachable extends Error {}

export interface ProviderAddress {
  /** `iss` exactly as the provider's tokens carry it. */
  readonly issuer: string;
  /** The keys' address, for a provider without discovery; else discovery finds it. */
  readonly jwksUrl?: string | undefined;
}

export interface ProviderKeysOptions {
  /** Milliseconds since the epoch (tests move it). */
  readonly now?: () => number;
  readonly timeoutMs?: number;
}

/** The address of the provider's discovery document (OpenID Connect Discovery 1.0 §4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export class ProviderKeys {
  readonly #address: ProviderAddress;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  #keys: ReadonlyMap<string, ProviderKey> = new Map();
  /** Until when the keys held are as the provider last said. */
  #freshUntil = 0;
  /** When the keys were last asked for, answered or not. */
  #askedAt = Number.NEGATIVE_INFINITY;
  /** The fetch under way: requests arriving meanwhile wait for the same one. */
  #fetching: Promise<void> | undefined;
  /** Why the last fetch failed, until one succeeds. */
  #lastFailure: ProviderUnreachable | undefined;

  constructor(address: ProviderAddress, { now = Date.now, timeoutMs = FETCH_TIMEOUT_MS }: ProviderKeysOptions = {}) {
    requireProviderUrl(address.issuer, 'the issuer');
    if (address.jwksUrl !== undefined) requireProviderUrl(address.jwksUrl, 'the JWKS URL');
    this.#address = address;
    this.#now = now;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * The keys to verify with. Stale ones are answered with at once while they are fetched again in the background; with
   * none held, the request waits for the fetch. Either way the provider is asked at most every 10 s after a failure.
   */
  async current(): Promise<ReadonlyMap<string, ProviderKey>> {
    if (this.#now() < this.#freshUntil) return this.#keys;
    const mayAsk = this.#fetching !== undefined || this.#now() - this.#askedAt >= REFETCH_AFTER_MS;
    if (this.#keys.size > 0) {
      if (mayAsk) void this.#fetched();
      return this.#keys;
    }
    if (!mayAsk && this.#lastFailure !== undefined) throw this.#lastFailure;
    return this.#fetched();
  }

  /**
   * For a key id the keys lack: fetched again unless asked for in the last 10 s; the keys then. The keys held cannot
   * decide for that id, so a provider that could not be asked is ProviderUnreachable here whatever is held.
   */
  async afterUnknownKey(): Promise<ReadonlyMap<string, ProviderKey>> {
    // A fetch under way may bring the key: wait for it rather than answer with the keys it replaces.
    if (this.#fetching === undefined && this.#now() - this.#askedAt < REFETCH_AFTER_MS) {
      if (this.#lastFailure !== undefined) throw this.#lastFailure;
      return this.#keys;
    }
    return this.#fetched(true);
  }

  async #fetched(unknownKey = false): Promise<ReadonlyMap<string, ProviderKey>> {
    this.#fetching ??= this.#fetch().then(
      () => {
        this.#fetching = undefined;
        this.#lastFailure = undefined;
      },
      (error: unknown) => {
        this.#fetching = undefined;
        this.#lastFailure = error instanceof ProviderUnreachable ? error : new ProviderUnreachable(String(error));
        throw this.#lastFailure;
      },
    );
    try {
      await this.#fetching;
    } catch (error) {
      if (unknownKey || this.#keys.size === 0) throw error;
    }
    return this.#keys;
  }

  async #fetch(): Promise<void> {
    this.#askedAt = this.#now();
    const { issuer, jwksUrl } = this.#address;
    let keysAt = jwksUrl;
    if (keysAt === undefined) {
      const { body } = await this.#document(discoveryUrl(issuer));
      // OpenID Connect Discovery 1.0 §4.3: the document's issuer must be the one asked about.
      if (body['issuer'] !== issuer) throw new ProviderUnreachable(`the provider's discovery names another issuer`);
      if (typeof body['jwks_uri'] !== 'string')
        throw new ProviderUnreachable(`the provider's discovery has no jwks_uri`);
      keysAt = requireProviderUrl(body['jwks_uri'], 'the jwks_uri').href;
    }
    const { body, keepSeconds } = await this.#document(keysAt);
    const keys = new Map<string, ProviderKey>();
    for (const jwk of Array.isArray(body['keys']) ? body['keys'] : []) {
      const key = typeof jwk === 'object' && jwk !== null ? providerKeyOf(jwk as Record<string, unknown>) : undefined;
      if (key !== undefined && !keys.has(key.kid)) keys.set(key.kid, key);
    }
    if (keys.size === 0) throw new ProviderUnreachable('the provider publishes no key plainrest can verify with');
    this.#keys = keys;
    this.#freshUntil = this.#now() + keepSeconds * 1000;
  }

  /** A JSON object fetched from `url`, and how long the answer may be kept (Cache-Control max-age, within bounds). */
  async #document(url: string): Promise<{ body: Record<string, unknown>; keepSeconds: number }> {
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(this.#timeoutMs), redirect: 'error' });
    } catch (error) {
      throw new ProviderUnreachable(`the provider could not be reached at ${url}: ${(error as Error).message}`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (response.status !== 200 || declared > MAX_DOCUMENT_BYTES) {
      await response.body?.cancel();
      throw new ProviderUnreachable(`the provider answered ${response.status} at ${url}`);
    }
    let text: string | undefined;
    try {
      text = await boundedText(response, MAX_DOCUMENT_BYTES);
    } catch (error) {
      throw new ProviderUnreachable(`the provider's answer at ${url} could not be read: ${(error as Error).message}`);
    }
    if (text === undefined) throw new ProviderUnreachable(`the provider's answer at ${url} is over 1 MiB`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ProviderUnreachable(`the provider's answer at ${url} is not JSON`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ProviderUnreachable(`the provider's answer at ${url} is not a JSON object`);
    return { body: body as Record<string, unknown>, keepSeconds: keepSecondsOf(response.headers.get('cache-control')) };
  }
}

/**
 * The body as UTF-8 text, counted chunk by chunk as it arrives: past `limit` bytes the rest is cancelled (the
 * connection closed) and undefined returned, so a chunked answer without an end holds no more than `limit` and a chunk.
 */
async function boundedText(response: Response, limit: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Cache-Control's max-age (RFC 9111 §5.2.2.1), within MIN_KEEP_SECONDS and MAX_KEEP_SECONDS; no-store: the least. */
export function keepSecondsOf(cacheControl: string | null): number {
  const directives = (cacheControl ?? '').toLowerCase();
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(directives)?.[1];
  const seconds = /(?:^|,)\s*(no-store|no-cache)\b/.test(directives) || maxAge === undefined ? 0 : Number(maxAge);
  return Math.min(MAX_KEEP_SECONDS, Math.max(MIN_KEEP_SECONDS, seconds));
}
