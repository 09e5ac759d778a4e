// The in-memory Store: one Map per collection, and list indexes beside it
// (collection-index.ts) so that lists and lookups by value do not scan. Reads never
// touch the disk; a commit applies its changes at once (so a user and their orders go
// together) and then waits for the persistence behind it, if any, to make them
// durable. If persistence fails, every change not yet durable is rolled back, newest
// first, so no reader keeps seeing a write that was never acknowledged.

import type { StoredRecord } from '../json.js';
import { CollectionIndex } from './collection-index.js';
import type { CollectionState } from './collection-state.js';
import { applyChange, emptyCollection } from './collection-state.js';
import type { Change, Query, QueryResult, Store, StoredCollection } from './store.js';

/** Makes committed changes durable; absent for a memory-only store. */
export interface Persistence {
  readonly writable: boolean;
  persist(changes: readonly Change[]): Promise<void>;
  close(): Promise<void>;
}

/** What a change replaced, to put it back if the change never becomes durable. */
interface Undo {
  readonly collection: StoredCollection;
  readonly id: number;
  readonly previous: StoredRecord | undefined;
}

export class MemoryStore implements Store {
  readonly #collections: Map<StoredCollection, CollectionState>;
  /** Counts every change applied or undone, per collection (Store.version). */
  readonly #versions = new Map<StoredCollection, number>();
  /** Built the first time a collection is queried, then kept in step with every change. */
  readonly #indexes = new Map<StoredCollection, CollectionIndex>();
  #persistence: Persistence | undefined;
  /** Commits applied in memory and not yet durable, oldest first. */
  readonly #notYetDurable = new Set<readonly Undo[]>();

  constructor(collections: ReadonlyMap<StoredCollection, CollectionState>, persistence?: Persistence) {
    this.#collections = new Map(collections);
    this.#persistence = persistence;
  }

  /** Attaches persistence after loading (the persistence reads this store's state). */
  persistWith(persistence: Persistence): void {
    this.#persistence = persistence;
  }

  /** The live state of a collection, for snapshot writers. */
  collectionState(collection: StoredCollection): CollectionState {
    let state = this.#collections.get(collection);
    if (state === undefined) {
      state = emptyCollection();
      this.#collections.set(collection, state);
    }
    return state;
  }

  get writable(): boolean {
    return this.#persistence?.writable ?? true;
  }

  get(collection: StoredCollection, id: number): StoredRecord | undefined {
    return this.collectionState(collection).records.get(id);
  }

  count(collection: StoredCollection): number {
    return this.collectionState(collection).records.size;
  }

  version(collection: StoredCollection): number {
    return this.#versions.get(collection) ?? 0;
  }

  query(collection: StoredCollection, query: Query): QueryResult {
    return this.#index(collection).query(query);
  }

  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    return this.#index(collection).findIgnoringCase(field, value);
  }

  #index(collection: StoredCollection): CollectionIndex {
    let index = this.#indexes.get(collection);
    if (index === undefined) {
      index = new CollectionIndex(this.collectionState(collection).records.values());
      this.#indexes.set(collection, index);
    }
    return index;
  }

  allocateId(collection: StoredCollection): number {
    const state = this.collectionState(collection);
    const id = state.nextId;
    state.nextId = id + 1;
    return id;
  }

  commit(changes: readonly Change[]): Promise<void> {
    const undo: Undo[] = [];
    for (const change of changes) {
      const state = this.collectionState(change.collection);
      const id = change.kind === 'put' ? change.record.id : change.id;
      const previous = state.records.get(id);
      undo.push({ collection: change.collection, id, previous });
      applyChange(state, change);
      this.#indexes.get(change.collection)?.update(previous, state.records.get(id));
      this.#changed(change.collection);
    }
    if (this.#persistence === undefined) return Promise.resolve();
    this.#notYetDurable.add(undo);
    return this.#persistence.persist(changes).then(
      () => {
        this.#notYetDurable.delete(undo);
      },
      (error: unknown) => {
        this.#rollBack();
        throw error;
      },
    );
  }

  /** Persistence fails every later commit too (fail-stop), so all pending ones are undone, newest first. */
  #rollBack(): void {
    for (const undo of [...this.#notYetDurable].reverse()) {
      for (const { collection, id, previous } of [...undo].reverse()) {
        const records = this.collectionState(collection).records;
        const current = records.get(id);
        if (previous === undefined) records.delete(id);
        else records.set(id, previous);
        this.#indexes.get(collection)?.update(current, previous);
        this.#changed(collection);
      }
    }
    this.#notYetDurable.clear();
  }

  #changed(collection: StoredCollection): void {
    this.#versions.set(collection, this.version(collection) + 1);
  }

  close(): Promise<void> {
    return this.#persistence === undefined ? Promise.resolve() : this.#persistence.close();
  }
}
