// What one process remembers of the database between requests (docs/deploying.md): each caller as last read, so that
// a request can be decided with it and have its first read or its write confirm it; and each record as last read, so
// that a record read again unchanged is the same object. Neither is a cache of the data: every read still asks.

import type { JsonValue, StoredCollection, StoredRecord } from 'plainrest';

/** Callers remembered, at most; the oldest is forgotten first. */
const MAX_REMEMBERED_CALLERS = 10_000;
/** Records kept by sameAsLastRead, at most; past it, they are all forgotten at once. */
const MAX_LAST_READ = 2000;

export class RememberedRecords {
  /**
   * Callers as last read, by id: a create or a read is decided with its caller from here and confirmed by its write or
   * first read, which checks that the user still has that role (else the request runs again). So a read of a record or
   * a page, and a create that reads nothing else, stays one statement (PostgresView.caller).
   */
  readonly #callers = new Map<number, StoredRecord>();
  /** Records as this process last read them by id or in a page, by collection and id. */
  readonly #lastRead = new Map<string, StoredRecord>();
  /** Whether two JSON values are equal, nested values included (the core's). */
  readonly #jsonEqual: (a: JsonValue, b: JsonValue) => boolean;

  constructor(jsonEqual: (a: JsonValue, b: JsonValue) => boolean) {
    this.#jsonEqual = jsonEqual;
  }

  caller(id: number): StoredRecord | undefined {
    return this.#callers.get(id);
  }

  /** Remembers the user as read (none: forgets it). */
  rememberCaller(id: number, user: StoredRecord | undefined): void {
    this.#callers.delete(id);
    if (user === undefined) return;
    if (this.#callers.size >= MAX_REMEMBERED_CALLERS) this.#callers.delete(this.#callers.keys().next().value as number);
    this.#callers.set(id, user);
  }

  /**
   * `record` as read now from `collection`, or, when it is equal to what this process read last time (nested values
   * included), the object it read then. Records are frozen, so the two are interchangeable; and the core keeps a
   * record's representation and ETag per object, so a record read again unchanged is not serialised and hashed again.
   */
  sameAsLastRead(collection: StoredCollection, record: StoredRecord): StoredRecord {
    const key = `${collection} ${record.id}`;
    const last = this.#lastRead.get(key);
    if (last !== undefined && this.#jsonEqual(last, record)) return last;
    if (this.#lastRead.size >= MAX_LAST_READ) this.#lastRead.clear();
    this.#lastRead.set(key, record);
    return record;
  }
}
