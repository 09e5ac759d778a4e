// One request's way to the memory store (README: Storage and durability): its reads go to the store, each noting the
// newest commit to the collection it read, so that the store holds the request's answer until that commit is durable.
// No client is shown a change (a record, a 404, a 412, a 409) that a crash before the journal's write would take back.

import type { StoredRecord } from '../records/json.ts';
import type { Query, QueryResult } from './query.ts';
import type { Decision, RequestStore, StoredCollection } from './store.ts';
import type { RecordId } from '../records/record-id.ts';

/** The store behind the view, which numbers its commits (store/memory-store.ts). */
export interface CommittingStore extends RequestStore {
  /** The last journal sequence number of the newest commit applied to `collection` (0: none since the start). */
  lastAppliedTo(collection: StoredCollection): number;
}

export class RequestView implements RequestStore {
  readonly #store: CommittingStore;
  /** The newest commit (its last journal sequence number) a read of this request could have seen. */
  newestSeqRead = 0;

  constructor(store: CommittingStore) {
    this.#store = store;
  }

  get(collection: StoredCollection, id: RecordId): StoredRecord | undefined {
    this.#noteRead(collection);
    return this.#store.get(collection, id);
  }

  query(collection: StoredCollection, query: Query): QueryResult {
    this.#noteRead(collection);
    return this.#store.query(collection, query);
  }

  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    this.#noteRead(collection);
    return this.#store.findIgnoringCase(collection, field, value);
  }

  count(collection: StoredCollection): number {
    this.#noteRead(collection);
    return this.#store.count(collection);
  }

  /** A list page kept from an earlier request is as new as the versions it was found by. */
  version(collection: StoredCollection): number {
    this.#noteRead(collection);
    return this.#store.version(collection);
  }

  caller(id: number): StoredRecord | undefined {
    this.#noteRead('users');
    return this.#store.caller(id);
  }

  #noteRead(collection: StoredCollection): void {
    this.newestSeqRead = Math.max(this.newestSeqRead, this.#store.lastAppliedTo(collection));
  }

  read<T>(reads: () => T | Promise<T>): T | Promise<T> {
    return this.#store.read(reads);
  }

  allocateId(collection: StoredCollection): number {
    return this.#store.allocateId(collection);
  }

  /** The decision reads through this view; once its own commit is durable, so is everything it read before it. */
  write<T>(decide: () => Decision<T>): Promise<T> {
    return this.#store.write(decide);
  }
}
