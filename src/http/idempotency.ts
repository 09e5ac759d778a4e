// Idempotency keys on POST (IETF draft "The Idempotency-Key HTTP Header Field"; README: Methods): a client may retry a
// POST with the same `Idempotency-Key` and get the first answer again (status, body, Location, ETag, plus
// `Idempotent-Replayed: true`) without a second record being created. The key is scoped to the caller; the same key
// with another request is a 422, and while the first request is still being handled a 409.

import { createHmac } from 'node:crypto';
import type { JsonObject, StoredRecord } from '../records/json.ts';
import type { Change, RecordReads, RequestStore } from '../store/store.ts';
import { HttpError } from '../errors/errors.ts';
import type { Reply } from './respond.ts';
import { isoTimestamp } from '../records/timestamps.ts';

/** How long a key lasts; stored in the same commit as the record it created, it survives restarts and crashes. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Expired keys removed by each new one, oldest first (keeps the purge cheap and steady). */
const EXPIRED_REMOVED_PER_WRITE = 10;
/** 1–255 visible ASCII characters (the draft leaves the syntax to the server). */
const KEY_SYNTAX = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  /** The caller and the key: `user 3 <key>`. */
  readonly scope: string;
  /**
   * A keyed hash (HMAC-SHA-256 with the server's secret) of the method, path and body: a
   * retry must be the same request. Keyed, because the body may hold a password and the
   * fingerprint is stored for a day: an unkeyed hash could be guessed at from the files.
   */
  readonly fingerprint: string;
}

export class IdempotencyKeys {
  readonly #now: () => number;
  readonly #fingerprintKey: string;
  readonly #inFlight = new Set<string>();

  constructor(now: () => number, fingerprintKey: string) {
    this.#now = now;
    this.#fingerprintKey = fingerprintKey;
  }

  /**
   * The request a POST's Idempotency-Key header makes (the caller's key and the request's fingerprint); undefined
   * without one. A key of another syntax is a malformed request (400 `malformed_request`, README: Errors): it is a
   * header, not a query parameter.
   */
  keyedRequest(
    header: string | undefined,
    caller: string,
    path: string,
    body: JsonObject,
  ): IdempotentRequest | undefined {
    if (header === undefined) return undefined;
    if (!KEY_SYNTAX.test(header)) {
      throw new HttpError('malformed_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
        errors: [
          { field: 'Idempotency-Key', code: 'invalid_value', message: 'must be 1 to 255 visible ASCII characters' },
        ],
      });
    }
    const fingerprint = createHmac('sha256', this.#fingerprintKey)
      .update(`POST ${path}\n${JSON.stringify(body)}`)
      .digest('base64url');
    return { scope: `${caller} ${header}`, fingerprint };
  }

  /**
   * The first answer to replay, or undefined when this request is new (it is then marked
   * in flight until `finish`). Throws 409 for a key in flight and 422 for a reused one.
   * In flight comes first: the memory store shows a write before it is durable, and an
   * answer saved with it must not be replayed until the write is acknowledged.
   * `store`: the request's (store.ts).
   */
  replayOrBegin(request: IdempotentRequest, store: RecordReads): Reply | undefined {
    if (this.#inFlight.has(request.scope)) {
      throw new HttpError(
        'idempotency_key_in_flight',
        'a request with this Idempotency-Key is still being handled; retry later',
      );
    }
    const saved = this.savedAnswer(request, store);
    if (saved !== undefined) return saved;
    this.#inFlight.add(request.scope);
    return undefined;
  }

  /**
   * The answer saved under the key, to replay (422 if the key was used for another
   * request), or undefined. Asked again inside the write's decision: another process
   * sharing the database may have saved it since `replayOrBegin` (the retry is then a replay).
   */
  savedAnswer(request: IdempotentRequest, store: RecordReads): Reply | undefined {
    const saved = this.#find(request.scope, store);
    if (saved === undefined) return undefined;
    if (saved['fingerprint'] !== request.fingerprint) {
      throw new HttpError('idempotency_key_reused', 'this Idempotency-Key was already used for a different request');
    }
    return replay(saved);
  }

  finish(request: IdempotentRequest): void {
    this.#inFlight.delete(request.scope);
  }

  /** The changes that save `reply` under the key (to commit with the record), and purge a few expired keys. */
  changesToSave(request: IdempotentRequest, reply: Reply, store: RequestStore): Change[] {
    const now = this.#now();
    const time = isoTimestamp(now);
    const headers = reply.headers ?? {};
    const record: StoredRecord = Object.freeze({
      id: store.allocateId('idempotency_keys'),
      scope: request.scope,
      fingerprint: request.fingerprint,
      status: reply.status,
      body: reply.body?.toString() ?? '',
      location: headers['Location'] ?? null,
      etag: headers['ETag'] ?? null,
      created_at: time,
      updated_at: time,
    });
    const changes: Change[] = [{ kind: 'put', collection: 'idempotency_keys', record }];
    const oldest = store.query('idempotency_keys', {
      filters: [],
      sort: [],
      offset: 0,
      limit: EXPIRED_REMOVED_PER_WRITE,
    });
    for (const entry of oldest.records) {
      if (!isExpired(entry, now)) break;
      changes.push({ kind: 'delete', collection: 'idempotency_keys', id: entry.id });
    }
    return changes;
  }

  #find(scope: string, store: RecordReads): StoredRecord | undefined {
    const found = store.query('idempotency_keys', {
      filters: [{ field: 'scope', value: scope }],
      sort: [],
      offset: 0,
      limit: 1,
    });
    const entry = found.records[0];
    return entry === undefined || isExpired(entry, this.#now()) ? undefined : entry;
  }
}

function isExpired(entry: StoredRecord, now: number): boolean {
  return Date.parse(entry.created_at) + IDEMPOTENCY_KEY_LIFETIME_MS <= now;
}

function replay(saved: StoredRecord): Reply {
  const headers: Record<string, string> = { 'Idempotent-Replayed': 'true' };
  if (typeof saved['location'] === 'string') headers['Location'] = saved['location'];
  if (typeof saved['etag'] === 'string') headers['ETag'] = saved['etag'];
  return { status: saved['status'] as number, headers, body: saved['body'] as string };
}
