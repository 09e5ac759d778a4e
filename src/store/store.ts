// The Store interface (README: Storage and durability): what the HTTP layer may ask of the data, nothing about HTTP.
// A missing record is `undefined`; the caller chooses the status. `commit` is the single way to change data: all
// changes of one request are applied together and the promise resolves only once they are on disk. Reads are
// synchronous for every store; one whose data is elsewhere (PostgreSQL) answers through a view (`view()`).

import type { StoredRecord } from '../records/json.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { ChangeFeed } from '../feed/change-feed.ts';
import type { EventType } from '../feed/feed-event.ts';

/**
 * What the store keeps: the declared resources' collections (by their declared plural),
 * plus the idempotency keys that must be saved in the same commit as the record they created.
 */
export type StoredCollection = string;

/** The collection of saved Idempotency-Key answers (http/idempotency.ts). */
export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

/** A collection name that can be a snapshot file's name and a journal entry's collection. */
export const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * What the change feed (README: Events; feed/) needs to know of a change beyond the
 * record itself, worked out once when it is committed and kept with it in the journal:
 * whether a put created the record, the ids above it on its path and its owner.
 */
export interface EventFacts {
  readonly type: EventType;
  /** The ids of the records above it on its path, outermost first (`/v1/users/5/orders/7`: [5]). */
  readonly under: readonly number[];
  /** The user who owns the record (permissions.ts), when it has one. */
  readonly owner?: number;
}

export type Change =
  | {
      readonly kind: 'put';
      readonly collection: StoredCollection;
      readonly record: StoredRecord;
      /** `JSON.stringify(record)`, when the writer has it already: a store that saves JSON need not serialise again. */
      readonly json?: string;
      /** Set by a writer that knows the record is new (a POST), so the feed need not look for an earlier version. */
      readonly created?: boolean;
      /** Set at commit for a declared collection's change (store/describe-changes.ts). */
      readonly event?: EventFacts;
    }
  | {
      readonly kind: 'delete';
      readonly collection: StoredCollection;
      readonly id: number;
      readonly event?: EventFacts;
    };

export interface Filter {
  readonly field: string;
  readonly value: string | number | boolean;
  readonly ignoreCase?: boolean;
}

/** A bound on a number, a date or a timestamp (`price[gte]=10`); dates and timestamps compare as ISO 8601 text. */
export interface RangeFilter {
  readonly field: string;
  readonly op: 'gt' | 'gte' | 'lt' | 'lte';
  readonly value: number | string;
}

export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

export interface Query {
  readonly filters: readonly Filter[];
  /** Bounds every record must also be within (none when absent). */
  readonly ranges?: readonly RangeFilter[];
  /** `q`: records whose searchable `fields` hold every one of `words` (store/search-words.ts). */
  readonly search?: { readonly fields: readonly string[]; readonly words: readonly string[] };
  /** Empty means by id ascending; ties are always broken by id ascending. */
  readonly sort: readonly SortKey[];
  readonly offset: number;
  readonly limit: number;
}

export interface QueryResult {
  readonly records: readonly StoredRecord[];
  /** How many records match the filters, ignoring offset and limit. */
  readonly total: number;
}

/**
 * Thrown by a view's read of something it has not loaded: `fetch()` loads it, then the
 * reading code runs again (store/loaded.ts). Not an Error: it is no failure but the seam's way of asking,
 * thrown on most requests, and an Error would record a stack trace every time. The memory store never throws it,
 * so its requests run in one turn.
 */
export class NeedData {
  readonly fetch: () => Promise<void>;

  constructor(fetch: () => Promise<void>) {
    this.fetch = fetch;
  }
}

/**
 * A store that answered a request's caller from an earlier request (Store.mayRememberCaller) found,
 * when it read or wrote, that the caller is no longer so: nothing was written, and the request
 * runs again with its caller read afresh (server/app.ts). Not an Error, like NeedData: no failure.
 */
export class CallerChanged {}

/** The store cannot be reached (a database down, or not reached yet): the request is answered 503 with Retry-After. */
export class StoreUnavailable extends Error {}

/** What a write decided: the changes to commit together, and the answer once they are committed. */
export interface Decision<T> {
  readonly changes: readonly Change[];
  readonly result: T;
  /**
   * A create's answer had its record been given the id `id` instead (allocateId): a store
   * that lets the database take the id as it writes the record answers with this rather
   * than deciding again. Absent, such a store decides again with the id taken.
   */
  readonly resultWithId?: (id: number) => T;
}

export interface Store {
  get(collection: StoredCollection, id: number): StoredRecord | undefined;
  query(collection: StoredCollection, query: Query): QueryResult;
  /** The first record whose `field` equals `value` ignoring case (for unique emails). */
  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined;
  count(collection: StoredCollection): number;
  /**
   * A number that changes with every change to the collection, committed or rolled back,
   * so that caches built from it (list pages) know when they are stale. A store that
   * cannot tell may return a new number on every call: nothing is then reused.
   */
  version(collection: StoredCollection): number;
  /**
   * Reserves the next id of a collection; ids are never reused, even if the write then fails.
   * In `transact`, a store may answer a placeholder and let the database take the id as it
   * writes the record, then answer with the decision's `resultWithId`, or else run `decide`
   * once more with the id taken: so a decision must give the same changes from the same
   * reads (a create takes its time before deciding).
   */
  allocateId(collection: StoredCollection): number;
  /** Applies the changes at once in memory and resolves when they are durable. */
  commit(changes: readonly Change[]): Promise<void>;
  /**
   * False once writes can no longer be made durable (a failed disk): the server is then not ready. Absent means true.
   */
  readonly writable?: boolean;
  /**
   * Why the store cannot answer for now (a database that cannot be reached), else undefined: the server is then not
   * ready.
   */
  readonly unavailable?: string | undefined;
  /** Waits for pending writes and writes a final snapshot. */
  close(): Promise<void>;
  /** The history of changes to the declared records (feed/change-feed.ts); absent: `GET /v1/events` answers 503. */
  readonly feed?: ChangeFeed;
  /** Names the declared resources, whose changes the store records as events (store/describe-changes.ts). */
  describeEvents?(table: ResourceTable): void;
  /**
   * A store whose data is elsewhere: the store one request reads and writes through, answering from what it has
   * loaded (NeedData for the rest). Reads stay synchronous so that the code deciding a request is the same for every
   * store, and a write's checks and its commit cannot be interleaved.
   */
  view?(): Store;
  /**
   * A view's hint: this request will likely read this record (its path names it), so a
   * store that loads may load it together with the next thing it must load (one round
   * trip for the caller and the path's records, rather than one each).
   */
  willRead?(collection: StoredCollection, id: number): void;
  /**
   * A view's hint: this request (a declared resource's create, or a read of its records)
   * will likely read or write records. A store that loads may then answer its caller
   * (`caller`) from an earlier request instead of reading it, and confirm it instead with
   * the request's first read or its write: the read or the write is made only if the caller
   * is still as it was, else it rejects with CallerChanged. A request that neither reads
   * nor writes that way confirms it at its end (`confirmCaller`). So a create or a read can
   * be one statement, and a deleted or demoted user is still refused or demoted at once.
   */
  mayRememberCaller?(): void;
  /** The request's caller, as `get('users', id)` would answer it (auth/authenticate.ts); see mayRememberCaller. */
  caller?(id: number): StoredRecord | undefined;
  /**
   * After the request's decision: false (and forgotten) when its caller was answered from an earlier request and is no
   * longer so.
   */
  confirmCaller?(): Promise<boolean>;
  /**
   * A store whose data is elsewhere: runs `decide` on its current data and commits the
   * changes it returns as one transaction, deciding again (on fresher data) when another
   * process's write came between. Without it, `decide` runs and `commit` follows at once.
   */
  transact?<T>(decide: () => Decision<T>): Promise<T>;
}
