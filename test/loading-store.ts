// A test double of a store whose data is elsewhere (store/store.ts: the seam), over a
// MemoryStore: each request's view starts empty, and its first read of anything throws
// NeedData, whose fetch resolves on a later turn of the event loop — as a database
// query would. Every handler must then load what it reads and run again, and still
// answer as with the memory store (test/store-seam.test.ts). Writes go through
// `transact`: the decision runs in a view that loads what it needs, then its changes
// are committed to the memory store. It counts the loads, so a test can tell it suspended.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { StoredRecord } from '../src/records/json.ts';
import { loaded } from '../src/store/loaded.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import type { Change, Decision, Query, QueryResult, Store, StoredCollection } from '../src/store/store.ts';
import { NeedData } from '../src/store/store.ts';

export class LoadingStore implements Store {
  readonly inner = new MemoryStore(new Map());
  /** How many times a view had to load something. */
  loads = 0;

  get(collection: StoredCollection, id: number): StoredRecord | undefined {
    return this.inner.get(collection, id);
  }
  query(collection: StoredCollection, query: Query): QueryResult {
    return this.inner.query(collection, query);
  }
  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    return this.inner.findIgnoringCase(collection, field, value);
  }
  count(collection: StoredCollection): number {
    return this.inner.count(collection);
  }
  version(): number {
    // A store that cannot tell when a collection changed: no list page is reused.
    return Number.NaN;
  }
  allocateId(collection: StoredCollection): number {
    return this.inner.allocateId(collection);
  }
  commit(changes: readonly Change[]): Promise<void> {
    return this.inner.commit(changes);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  view(): Store {
    return new LoadingView(this);
  }
  transact<T>(decide: () => Decision<T>): Promise<T> {
    const view = new LoadingView(this);
    // The decision reads through its own view: the handler's `decide` closes over the
    // request's view, which loads on its own; both end up answered by the memory store.
    return Promise.resolve(loaded(decide)).then(async ({ changes, result }) => {
      if (changes.length > 0) await view.commit(changes);
      return result;
    });
  }
}

/** One request's view: answers only what it has loaded. */
class LoadingView implements Store {
  readonly #store: LoadingStore;
  readonly #loaded = new Set<string>();
  readonly #ids = new Map<string, number>();

  constructor(store: LoadingStore) {
    this.#store = store;
  }

  /** The value once `key` is loaded; before that, NeedData. */
  #answer<T>(key: string, read: () => T): T {
    if (this.#loaded.has(key)) return read();
    throw new NeedData(async () => {
      this.#store.loads++;
      await nextTurn();
      this.#loaded.add(key);
    });
  }

  get(collection: StoredCollection, id: number): StoredRecord | undefined {
    return this.#answer(`get ${collection} ${id}`, () => this.#store.inner.get(collection, id));
  }
  query(collection: StoredCollection, query: Query): QueryResult {
    return this.#answer(`query ${collection} ${JSON.stringify(query)}`, () =>
      this.#store.inner.query(collection, query),
    );
  }
  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    return this.#answer(`find ${collection} ${field} ${value}`, () =>
      this.#store.inner.findIgnoringCase(collection, field, value),
    );
  }
  count(collection: StoredCollection): number {
    return this.#answer(`count ${collection}`, () => this.#store.inner.count(collection));
  }
  version(): number {
    return Number.NaN;
  }
  /** An id is reserved when it is loaded, once per view, so a decision run again gets the same one. */
  allocateId(collection: StoredCollection): number {
    const key = `id ${collection}`;
    const known = this.#ids.get(key);
    if (known !== undefined) return known;
    throw new NeedData(async () => {
      this.#store.loads++;
      await nextTurn();
      this.#ids.set(key, this.#store.inner.allocateId(collection));
    });
  }
  commit(changes: readonly Change[]): Promise<void> {
    return this.#store.inner.commit(changes);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  transact<T>(decide: () => Decision<T>): Promise<T> {
    return this.#store.transact(decide);
  }
}
