// Rate limiting with a token bucket per client (the IETF draft "RateLimit header fields for HTTP"; 429 and Retry-After
// from RFC 6585 §4 and RFC 9110 §10.2.3). A client is its user id once authenticated, else its address. Each bucket
// holds up to `perMinute` tokens and refills continuously; a request takes one.

import type { IncomingMessage } from 'node:http';
import type { Headers } from './respond.ts';
import { RecentlyUsed } from '../store/recently-used.ts';

/** Buckets kept at most; past it a client not seen lately is forgotten, which only ever gives it a full bucket back. */
export const MAX_CLIENTS = 10_000;

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in ms. */
  updated: number;
}

export interface Admission {
  readonly allowed: boolean;
  /** RateLimit-* (and Retry-After when refused) headers for the response. */
  readonly headers: Headers;
}

export class RateLimiter {
  readonly #capacity: number;
  /** Tokens gained per millisecond. */
  readonly #refillPerMs: number;
  readonly #now: () => number;
  readonly #buckets = new RecentlyUsed<string, Bucket>(MAX_CLIENTS);

  constructor(perMinute: number, now: () => number) {
    this.#capacity = perMinute;
    this.#refillPerMs = perMinute / 60_000;
    this.#now = now;
  }

  /** Takes a token for `client` if one is left. */
  take(client: string): Admission {
    const bucket = this.#refilled(client);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const headers = this.#headers(bucket);
    if (!allowed)
      headers['Retry-After'] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / this.#refillPerMs / 1000)));
    return { allowed, headers };
  }

  /** The headers for `client` without taking a token (for answers given before the limit is checked). */
  peek(client: string): Headers {
    const bucket = this.#buckets.peek(client);
    return this.#headers(
      bucket === undefined ? { tokens: this.#capacity, updated: this.#now() } : this.#advance(bucket),
    );
  }

  #refilled(client: string): Bucket {
    const bucket = this.#buckets.get(client);
    if (bucket !== undefined) return this.#advance(bucket);
    const fresh = { tokens: this.#capacity, updated: this.#now() };
    this.#buckets.set(client, fresh);
    return fresh;
  }

  #advance(bucket: Bucket): Bucket {
    const now = this.#now();
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.updated) * this.#refillPerMs);
    bucket.updated = now;
    return bucket;
  }

  #headers(bucket: Bucket): Headers {
    const secondsToFull = Math.ceil((this.#capacity - bucket.tokens) / this.#refillPerMs / 1000);
    return {
      'RateLimit-Limit': String(this.#capacity),
      'RateLimit-Remaining': String(Math.floor(bucket.tokens)),
      'RateLimit-Reset': String(secondsToFull),
    };
  }

  /** How many clients are remembered (for tests of the memory bound). */
  get clients(): number {
    return this.#buckets.size;
  }
}

/** The rate-limit key of a request not (yet) tied to a user: its remote address. */
export function addressKey(req: IncomingMessage): string {
  return `address ${req.socket.remoteAddress ?? 'unknown'}`;
}
