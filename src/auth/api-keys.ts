// API keys (README: API keys): a user's long-lived bearer credential for programs, `prk_` and 32 random bytes in
// base64url. The server keeps only the secret's SHA-256, and finds the key by it: a secret that random needs no slow,
// salted hash (a password does), and a guess is as hard as guessing the 256 bits themselves.

import { createHash, randomBytes } from 'node:crypto';
import { API_KEYS, KEY_FIELDS } from '../declarations/built-in-keys.ts';
import type { StoredRecord } from '../records/json.ts';
import type { RecordReads } from '../store/store.ts';

export const KEY_PREFIX = 'prk_';
const SECRET_BYTES = 32;
const KEY_SHAPE = /^prk_[A-Za-z0-9_-]{43}$/;

/** A new key's secret, and what is kept of it. */
export function newKeySecret(): { readonly plain: string; readonly stored: string } {
  const plain = KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  return { plain, stored: secretHash(plain) };
}

/** True for a bearer token that is meant as an API key (it may still name none). */
export function isApiKey(token: string): boolean {
  return token.startsWith(KEY_PREFIX);
}

/** The key whose secret `token` is, if any (deleted or never made: undefined). */
export function keyOfSecret(token: string, reads: Pick<RecordReads, 'query'>): StoredRecord | undefined {
  if (!KEY_SHAPE.test(token)) return undefined;
  const filters = [{ field: KEY_FIELDS.secretHash, value: secretHash(token) }];
  return reads.query(API_KEYS, { filters, sort: [], offset: 0, limit: 1 }).records[0];
}

/**
 * When `key` stops working, in seconds since the epoch; a key without `expires_at` never does, and one whose
 * `expires_at` cannot be placed in time (refused on create; only a hand-edited file holds one) already has.
 */
export function keyExpiry(key: StoredRecord): number {
  const expiresAt = key[KEY_FIELDS.expiresAt];
  if (typeof expiresAt !== 'string') return Number.MAX_SAFE_INTEGER;
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) ? Math.floor(at / 1000) : 0;
}

function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
