// A test double of a store whose data is elsewhere (store/store.ts: Store.serve), over a
// MemoryStore: each request's view starts empty, and its first read of anything throws
// NotLoaded, whose load resolves on a later turn of the event loop — as a database
// query would. Every handler must then load what it reads and run again, and still
// answer as with the memory store (test/store-seam.test.ts). A write's decision runs in
// the view, loading what it needs, then its changes are committed to the memory store.
// It counts the loads, so a test can tell it suspended.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { StoredRecord } from '../src/records/json.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import type { Decision, StoredCollection, RequestPlan, RequestStore, Store } from '../src/store/store.ts';
import type { Query, QueryResult } from '../src/store/query.ts';

/** Thrown by a view's read of what it has not loaded: `load()` loads it. */
class NotLoaded {
  readonly load: () => Promise<void>;

  constructor(load: () => Promise<void>) {
    this.load = load;
  }
}

/** `read()`'s value once everything it read is loaded, running it again after each load. */
function loaded<T>(read: () => T | Promise<T>): T | Promise<T> {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof NotLoaded)) throw error;
    return error.load().then(() => loaded(read));
  }
}

export class LoadingStore implements Store {
  readonly inner = new MemoryStore(new Map());
  /** How many times a view had to load something. */
  loads = 0;

  serve<T>(_plan: RequestPlan, handle: (store: RequestStore) => T | Promise<T>): T | Promise<T> {
    const view = new LoadingView(this);
    return loaded(() => handle(view));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** One request's view: answers only what it has loaded. */
class LoadingView implements RequestStore {
  readonly #store: LoadingStore;
  readonly #loaded = new Set<string>();
  readonly #ids = new Map<string, number>();

  constructor(store: LoadingStore) {
    this.#store = store;
  }

  /** `read()`'s value once `key` is loaded; before that, NotLoaded. */
  #readLoaded<T>(key: string, read: () => T): T {
    if (this.#loaded.has(key)) return read();
    throw new NotLoaded(async () => {
      this.#store.loads++;
      await nextTurn();
      this.#loaded.add(key);
    });
  }

  get(collection: StoredCollection, id: number): StoredRecord | undefined {
    return this.#readLoaded(`get ${collection} ${id}`, () => this.#store.inner.get(collection, id));
  }
  query(collection: StoredCollection, query: Query): QueryResult {
    return this.#readLoaded(`query ${collection} ${JSON.stringify(query)}`, () =>
      this.#store.inner.query(collection, query),
    );
  }
  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    return this.#readLoaded(`find ${collection} ${field} ${value}`, () =>
      this.#store.inner.findIgnoringCase(collection, field, value),
    );
  }
  count(collection: StoredCollection): number {
    return this.#readLoaded(`count ${collection}`, () => this.#store.inner.count(collection));
  }
  version(): number {
    return Number.NaN;
  }
  /** An id is reserved when it is loaded, once per view, so a decision run again gets the same one. */
  allocateId(collection: StoredCollection): number {
    const key = `id ${collection}`;
    const known = this.#ids.get(key);
    if (known !== undefined) return known;
    throw new NotLoaded(async () => {
      this.#store.loads++;
      await nextTurn();
      this.#ids.set(key, this.#store.inner.allocateId(collection));
    });
  }
  read<T>(reads: () => T | Promise<T>): T | Promise<T> {
    return loaded(reads);
  }
  caller(id: number): StoredRecord | undefined {
    return this.get('users', id);
  }
  async write<T>(decide: () => Decision<T>): Promise<T> {
    const { changes, result } = await loaded(decide);
    if (changes.length > 0) await this.#store.inner.commit(changes);
    return result;
  }
}
