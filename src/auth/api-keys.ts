// API keys (README: API keys): a user's long-lived bearer credential for programs, `prk_` and 32 random bytes in
// base64url. The server keeps only the secret's SHA-256, and finds the key by it: a secret that random needs no slow,
// salted hash (a password does), and a guess is as hard as guessing the 256 bits themselves.

import { createHash, randomBytes } from 'node:crypto';
import { API_KEYS, KEY_FIELDS, KEY_PREFIX, KEY_SECRET_PATTERN } from '../declarations/built-in-keys.ts';
import type { StoredRecord } from '../records/json.ts';
import type { RecordReads } from '../store/store.ts';

const SECRET_BYTES = 32;
const KEY_SHAPE = new RegExp(KEY_SECRET_PATTERN);

/** A stored key, as authentication reads it. */
export interface ApiKey {
  readonly id: number;
  /** Whose key it is: it acts as this user. */
  readonly userId: number;
  /**
   * When it stops working, in seconds since the epoch; a key without `expires_at` never does, and one whose
   * `expires_at` cannot be placed in time (refused on create; only a hand-edited file holds one) already has.
   */
  readonly expiresAt: number;
  readonly readOnly: boolean;
  readonly record: StoredRecord;
}

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
export function apiKeyBySecret(token: string, reads: Pick<RecordReads, 'query'>): ApiKey | undefined {
  if (!KEY_SHAPE.test(token)) return undefined;
  const filters = [{ field: KEY_FIELDS.secretHash, value: secretHash(token) }];
  const record = reads.query(API_KEYS, { filters, sort: [], offset: 0, limit: 1 }).records[0];
  return record === undefined ? undefined : apiKeyOf(record);
}

/** The key with this id, read now (a deleted one: undefined). */
export function apiKeyById(id: number, reads: Pick<RecordReads, 'get'>): ApiKey | undefined {
  const record = reads.get(API_KEYS, id);
  return record === undefined ? undefined : apiKeyOf(record);
}

function apiKeyOf(record: StoredRecord): ApiKey {
  const expiresAt = record[KEY_FIELDS.expiresAt];
  const at = typeof expiresAt === 'string' ? Date.parse(expiresAt) : Number.POSITIVE_INFINITY;
  return {
    id: record.id as number, // keys' and users' ids are integers (declarations/check-ids.ts)
    userId: record[KEY_FIELDS.user] as number,
    expiresAt:
      at === Number.POSITIVE_INFINITY ? Number.MAX_SAFE_INTEGER : Number.isFinite(at) ? Math.floor(at / 1000) : 0,
    readOnly: record[KEY_FIELDS.readOnly] === true,
    record,
  };
}

function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
