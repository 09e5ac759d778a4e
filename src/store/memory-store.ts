// The in-memory Store (README: Storage and durability): one Map per collection, and list indexes beside it
// (collection-index.ts). Reads never touch the disk; a commit applies its changes at once (so a user and their orders
// go together), then waits for its persistence, if any, to make them durable before it hands its events to the change
// feed (feed/event-log.ts, README: Events); an answer that read a change not yet durable waits for it too.

import type { StoredRecord } from '../records/json.ts';
import { CollectionIndex } from './collection-index.ts';
import { IndexBuilding } from './index-building.ts';
import type { CollectionState } from './collection-state.ts';
import { applyChange, emptyCollection, MAX_NEXT_ID } from './collection-state.ts';
import type { Change, Decision, StoredCollection, RequestPlan, RequestStore, Store, Persistence } from './store.ts';
import type { Query, QueryResult } from './query.ts';
import { StoreUnavailable } from './store.ts';
import { RequestView } from './request-view.ts';
import { HeldAnswers } from './held-answers.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { searchableFields } from '../resources/definition.ts';
import { describeChanges, eventsOfEntry } from './describe-changes.ts';
import { EventLog } from '../feed/event-log.ts';
import { seqsTaken } from './journal-format.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import type { HeapUse } from './heap-fit.ts';
import { currentHeap, heapNearlyFull } from './heap-fit.ts';
import type { RecordId } from '../records/record-id.ts';

/** What a change replaced, to put it back if the change never becomes durable. */
interface Undo {
  readonly collection: StoredCollection;
  readonly id: RecordId;
  readonly previous: StoredRecord | undefined;
}

export class MemoryStore implements Store, RequestStore {
  readonly #collections: Map<StoredCollection, CollectionState>;
  /** Counts every change applied or undone, per collection (Store.version). */
  readonly #versions = new Map<StoredCollection, number>();
  /** Built the first time a collection is queried, then kept in step with every change. */
  readonly #indexes = new Map<StoredCollection, CollectionIndex>();
  #persistence: Persistence | undefined;
  /** Commits applied in memory and not yet durable, oldest first, each with its first journal sequence number. */
  readonly #notYetDurable = new Map<readonly Undo[], number>();
  /** Per collection, the last journal sequence number of the newest commit applied to it. */
  readonly #appliedSeq = new Map<StoredCollection, number>();
  /** Answers waiting for commits to be durable. */
  readonly #heldAnswers = new HeldAnswers(() => this.#lastDurable());
  readonly #feed: EventLog;
  /** The last number of the journal's sequence a commit has taken. */
  #lastSeq: number;
  /** The declared resources, whose changes become events (set by describeEvents). */
  #table: ResourceTable | undefined;
  /** How full the heap the records live in is. */
  readonly #heap: () => HeapUse;

  /**
   * `feed`: the history loaded from the journal (store/open-store.ts), by default an empty one; `heap`: how full the
   * heap is (heap-fit.ts), by default this process's.
   */
  constructor(
    collections: ReadonlyMap<StoredCollection, CollectionState>,
    persistence?: Persistence,
    feed: EventLog = new EventLog([], 0, 0),
    heap: () => HeapUse = currentHeap,
  ) {
    this.#heap = heap;
    this.#collections = new Map(collections);
    this.#persistence = persistence;
    this.#feed = feed;
    this.#lastSeq = feed.latest;
  }

  get feed(): EventLog {
    return this.#feed;
  }

  describeEvents(table: ResourceTable): void {
    this.#table = table;
  }

  /**
   * Builds, one after another, the indexes of every declared collection a list may ask for: the word index of its
   * searchable fields (`x-search`), then a view sorted by each sortable one (`x-sort`), each in slices while requests
   * are answered, so that no search or sort has to build one (one asked meanwhile waits for it); settles once all are
   * built. An index whose build fails is built again when a list needs it.
   */
  async prepareIndexes(table: ResourceTable): Promise<void> {
    for (const definition of table.resources) {
      const index = this.#index(definition.collection);
      const fields = searchableFields(definition);
      if (fields.length > 0) await index.prepareSearch(fields).catch(() => undefined);
      for (const rule of definition.fields)
        if (rule.sort === true) await index.prepareSort(rule.name).catch(() => undefined);
    }
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

  /** Why writes are refused for now: the heap nearly full (the server is then not ready). */
  get unavailable(): string | undefined {
    return heapNearlyFull(this.#heap());
  }

  /**
   * Each request reads and writes through a view of its own (store/request-view.ts), and its answer, success or error,
   * is released once every commit it read is durable (store/held-answers.ts).
   * `outcome` holds the answer until what it read is durable; `read` runs it again if an index it needed was still
   * being built.
   */
  serve<T>(_plan: RequestPlan, handle: (store: RequestStore) => T | Promise<T>): T | Promise<T> {
    const view = new RequestView(this);
    return this.#heldAnswers.outcome(view, () => this.read(() => handle(view)));
  }

  lastAppliedTo(collection: StoredCollection): number {
    return this.#appliedSeq.get(collection) ?? 0;
  }

  /** The journal sequence number up to which every commit is durable. */
  #lastDurable(): number {
    let durable = this.#lastSeq;
    for (const first of this.#notYetDurable.values()) durable = Math.min(durable, first - 1);
    return durable;
  }

  /** Reads answer at once, but for a search while its word index is built, or a list while its view is sorted. */
  read<T>(reads: () => T | Promise<T>): T | Promise<T> {
    try {
      return reads();
    } catch (error) {
      if (!(error instanceof IndexBuilding)) throw error;
      return error.built.then(() => this.read(reads));
    }
  }

  caller(id: number): StoredRecord | undefined {
    return this.get('users', id);
  }

  /**
   * Decided and applied in one turn, so no other request's write comes between its checks and its changes; decided
   * again once an index it read was built, if it was being built.
   */
  async write<T>(decide: () => Decision<T>): Promise<T> {
    const full = this.unavailable;
    if (full !== undefined) throw new StoreUnavailable(full);
    for (;;) {
      let decision: Decision<T>;
      try {
        decision = decide();
      } catch (error) {
        if (!(error instanceof IndexBuilding)) throw error;
        await error.built;
        continue;
      }
      // Applied at once: the commit's changes are in memory before anything else runs.
      if (decision.changes.length > 0) await this.commit(decision.changes);
      return decision.result;
    }
  }

  get(collection: StoredCollection, id: RecordId): StoredRecord | undefined {
    return this.#collections.get(collection)?.records.get(id);
  }

  count(collection: StoredCollection): number {
    return this.#collections.get(collection)?.records.size ?? 0;
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
      index = new CollectionIndex(this.collectionState(collection).records);
      this.#indexes.set(collection, index);
    }
    return index;
  }

  allocateId(collection: StoredCollection): number {
    const state = this.collectionState(collection);
    const id = state.nextId;
    // The next id must stay one a start accepts (collection-state.ts): the last id given is MAX_NEXT_ID − 1.
    if (id >= MAX_NEXT_ID) throw new StoreUnavailable(`${collection} has given every id up to ${MAX_NEXT_ID - 1}`);
    state.nextId = id + 1;
    return id;
  }

  /** Applies the changes at once in memory and resolves when they are durable. */
  commit(given: readonly Change[]): Promise<void> {
    // Described before they are applied: a deletion's facts come from the record as it was. A server always names its
    // resources (describeEvents); a store used on its own, as in unit tests, records no events.
    const changes = this.#table === undefined ? given : describeChanges(this.#table, given, this);
    const undo: Undo[] = [];
    for (const change of changes) {
      const state = this.collectionState(change.collection);
      const id = change.kind === 'put' ? change.record.id : change.id;
      const previous = state.records.get(id);
      undo.push({ collection: change.collection, id, previous });
      applyChange(state, change);
      this.#indexes.get(change.collection)?.update(previous, state.records.get(id));
      this.#countChange(change.collection);
    }
    // The next numbers of the journal's sequence.
    const seq = this.#lastSeq + 1;
    this.#lastSeq += seqsTaken(changes);
    const lastSeq = this.#lastSeq;
    for (const change of changes) this.#appliedSeq.set(change.collection, lastSeq);
    const at = isoTimestamp();
    if (this.#persistence === undefined) {
      this.#feed.publish(eventsOfEntry(seq, at, changes), lastSeq);
      return Promise.resolve();
    }
    this.#notYetDurable.set(undo, seq);
    return this.#persistence.persist(changes, { seq, at }).then(
      () => {
        this.#notYetDurable.delete(undo);
        this.#feed.publish(eventsOfEntry(seq, at, changes), lastSeq);
        this.#heldAnswers.release();
      },
      (error: unknown) => {
        this.#rollBack();
        throw error;
      },
    );
  }

  /**
   * Persistence fails every later commit too (fail-stop), so all pending ones are undone, newest first: no reader keeps
   * seeing a write that was never acknowledged.
   */
  #rollBack(): void {
    for (const undo of [...this.#notYetDurable.keys()].reverse()) {
      for (const { collection, id, previous } of [...undo].reverse()) {
        const records = this.collectionState(collection).records;
        const current = records.get(id);
        if (previous === undefined) records.delete(id);
        else records.set(id, previous);
        this.#indexes.get(collection)?.update(current, previous);
        this.#countChange(collection);
      }
    }
    this.#notYetDurable.clear();
    this.#heldAnswers.failAll(new StoreUnavailable('a change this answer read could not be made durable'));
  }

  /** Moves `collection`'s version on (Store.version): a change was applied or undone. */
  #countChange(collection: StoredCollection): void {
    this.#versions.set(collection, this.version(collection) + 1);
  }

  close(): Promise<void> {
    return this.#persistence === undefined ? Promise.resolve() : this.#persistence.close();
  }
}
