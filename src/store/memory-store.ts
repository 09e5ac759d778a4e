// The in-memory Store: one Map per collection. Reads never touch the disk; a commit
// applies its changes at once (so a user and their orders go together) and then
// waits for the persistence behind it, if any, to make them durable. If persistence
// fails, every change not yet durable is rolled back, newest first, so no reader
// keeps seeing a write that was never acknowledged.

import type { JsonValue, StoredRecord } from '../json.js';
import type { CollectionState } from './collection-state.js';
import { applyChange, emptyCollection } from './collection-state.js';
import type { Change, Filter, Query, QueryResult, SortKey, Store, StoredCollection } from './store.js';

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

  query(collection: StoredCollection, query: Query): QueryResult {
    const matches: StoredRecord[] = [];
    for (const record of this.collectionState(collection).records.values()) {
      if (matchesAll(record, query.filters)) matches.push(record);
    }
    // Records are iterated in ascending id order and Array.prototype.sort is stable
    // (ECMAScript 2019), so equal keys keep ascending id order: the tie-break is free.
    if (query.sort.length > 0) matches.sort((a, b) => compareRecords(a, b, query.sort));
    return { records: matches.slice(query.offset, query.offset + query.limit), total: matches.length };
  }

  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    const wanted = value.toLowerCase();
    for (const record of this.collectionState(collection).records.values()) {
      const candidate = record[field];
      if (typeof candidate === 'string' && candidate.toLowerCase() === wanted) return record;
    }
    return undefined;
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
      undo.push({ collection: change.collection, id, previous: state.records.get(id) });
      applyChange(state, change);
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
        if (previous === undefined) records.delete(id);
        else records.set(id, previous);
      }
    }
    this.#notYetDurable.clear();
  }

  close(): Promise<void> {
    return this.#persistence === undefined ? Promise.resolve() : this.#persistence.close();
  }
}

function matchesAll(record: StoredRecord, filters: readonly Filter[]): boolean {
  for (const filter of filters) {
    const value = record[filter.field];
    if (filter.ignoreCase && typeof value === 'string' && typeof filter.value === 'string') {
      if (value.toLowerCase() !== filter.value.toLowerCase()) return false;
    } else if (value !== filter.value) {
      return false;
    }
  }
  return true;
}

/** Numbers numerically, strings by code point; a missing value sorts after any present one. */
function compareRecords(a: StoredRecord, b: StoredRecord, keys: readonly SortKey[]): number {
  for (const key of keys) {
    const order = compareValues(a[key.field], b[key.field]);
    if (order !== 0) return key.descending ? -order : order;
  }
  return 0;
}

function compareValues(a: JsonValue | undefined, b: JsonValue | undefined): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
