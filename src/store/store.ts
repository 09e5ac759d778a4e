// The storage interfaces (README: Storage and durability), nothing about HTTP. A write hands the store its changes,
// applied together and acknowledged only once they are on disk. Each request goes through one door (`Store.serve`)
// and gets its RequestStore: reads answered at once (a missing record is `undefined`; the caller chooses the status)
// and one write. Behind the memory store, a Persistence makes commits durable (the journal, or an embedder's own).

import type { StoredRecord } from '../records/json.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { ChangeFeed } from '../feed/change-feed.ts';
import type { Query, QueryResult } from './query.ts';
import { NAME } from '../resources/names.ts';
import type { EventType } from '../feed/feed-event.ts';
import type { RecordId } from '../records/record-id.ts';

/**
 * What the store keeps: the declared resources' collections (by their declared plural),
 * plus the idempotency keys that must be saved in the same commit as the record they created.
 */
export type StoredCollection = string;

/** The collection of saved Idempotency-Key answers (http/idempotency.ts). */
export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

/** A collection name that can be a snapshot file's name and a journal entry's collection. */
export const COLLECTION_NAME_PATTERN = NAME;

/**
 * What the change feed (README: Events; feed/) needs to know of a change beyond the
 * record itself, worked out once when it is committed and kept with it in the journal:
 * whether a put created the record, the ids above it on its path and its owner.
 */
export interface EventFacts {
  readonly type: EventType;
  /** The ids of the records above it on its path, outermost first (`/v1/users/5/orders/7`: [5]). */
  readonly under: readonly RecordId[];
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
      readonly id: RecordId;
      readonly event?: EventFacts;
    };

/** What a write decided: the changes to commit together, and the answer once they are committed. */
export interface Decision<T> {
  readonly changes: readonly Change[];
  readonly result: T;
}

/** The store cannot be reached (a database down, or not reached yet): the request is answered 503 with Retry-After. */
export class StoreUnavailable extends Error {}

/** The reads every store answers at once, so that the code deciding a request is plain code over them. */
export interface RecordReads {
  get(collection: StoredCollection, id: RecordId): StoredRecord | undefined;
  query(collection: StoredCollection, query: Query): QueryResult;
  /** The first record whose `field` equals `value` ignoring case (for unique emails). */
  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined;
  count(collection: StoredCollection): number;
  /**
   * A number that changes with every change to the collection, committed or rolled back,
   * so that caches built from it (list pages) know when they are stale. A store that
   * cannot tell returns NaN: nothing is then kept.
   */
  version(collection: StoredCollection): number;
}

/** What a request tells the store before it starts (Store.serve). */
export interface RequestPlan {
  /** The collections its path names, outermost first (`/v1/users/5/orders/7`: users, orders)… */
  readonly pathCollections: readonly StoredCollection[];
  /** …and their ids (5, 7): records it will likely read. */
  readonly ids: readonly RecordId[];
  /**
   * It does nothing but read and write through the store before it answers (a resource's list, read or create), so
   * the store may run it again from the start even after it has waited (PostgreSQL: when its caller, answered from
   * memory, had changed). Any request runs again when a read before its first wait was not at hand.
   */
  readonly repeatable: boolean;
}

/** A plan for work that is no request's (the administrator's bootstrap, the home page's counts). */
export const NO_PLAN: RequestPlan = { pathCollections: [], ids: [], repeatable: false };

/** One request's way to the data (Store.serve): its reads, its caller, and one write decided from them. */
export interface RequestStore extends RecordReads {
  /**
   * `reads()`'s value: at once, or, when something it read was not at hand yet (a search while its word index is
   * being built), once it is; `reads` then runs again from the start, so it must change nothing.
   * In one line: read runs `reads` again if an index it needed was still being built.
   */
  read<T>(reads: () => T | Promise<T>): T | Promise<T>;
  /** The user record of the request's caller, as `get('users', id)` answers it (auth/authenticate.ts). */
  caller(id: number): StoredRecord | undefined;
  /** Reserves the next id of a collection; ids are never reused, even if the write then fails. */
  allocateId(collection: StoredCollection): number;
  /**
   * Runs `decide` and commits the changes it returns together (none: nothing is written); resolves with its result once
   * they are durable. A store may decide again on fresher data, so a decision only reads (and takes ids: one taken by
   * a decision made again is never used), and gives the same changes from the same reads (a create takes its time
   * before deciding).
   */
  write<T>(decide: () => Decision<T>): Promise<T>;
}

/** What the server is given: the door each request goes through to the data, and the store's health. */
export interface Store {
  /**
   * Runs `handle` (the rest of one request) with the store it reads and writes through; when something it read before
   * it first waited was not at hand yet, runs it again from the start once it is (as RequestStore.read).
   */
  serve<T>(plan: RequestPlan, handle: (store: RequestStore) => T | Promise<T>): T | Promise<T>;
  /**
   * False once writes can no longer be made durable (a failed disk): the server is then not ready. Absent means true.
   */
  readonly writable?: boolean;
  /**
   * Why the store cannot answer for now (a database that cannot be reached), else undefined: the server is then not
   * ready.
   */
  readonly unavailable?: string | undefined;
  /** Waits for pending writes to be durable, then lets go of the data (a data directory's lock). */
  close(): Promise<void>;
  /** The history of changes to the declared records (feed/change-feed.ts); absent: `GET /v1/events` answers 503. */
  readonly feed?: ChangeFeed;
  /** Names the declared resources, whose changes the store records as events (store/describe-changes.ts). */
  describeEvents?(table: ResourceTable): void;
  /**
   * True when several processes share the data (PostgreSQL): work that one process must do at a time, such as
   * delivering a webhook's events in order, is then leased (docs/webhooks.md). Absent: this process has it alone.
   */
  readonly shared?: boolean;
}

/** Where a commit sits in the journal's history: its first number and when it was made. */
export interface EntryPlace {
  readonly seq: number;
  readonly at: string;
}

/** Makes committed changes durable; absent for a memory-only store. */
export interface Persistence {
  readonly writable: boolean;
  persist(changes: readonly Change[], place: EntryPlace): Promise<void>;
  close(): Promise<void>;
}
