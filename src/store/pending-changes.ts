// A batch's changes before they are committed (README: Batches; docs/batches.md): a RequestStore over the request's
// own whose reads see the changes the batch's earlier operations decided, and whose writes keep each decision instead
// of committing it. The batch then commits every change in one write, each decision made again in it on the data as it
// is then.

import type { StoredRecord } from '../records/json.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { HttpError, inOperation } from '../errors/errors.ts';
import { describeChanges } from './describe-changes.ts';
import type { Query, QueryResult } from './query.ts';
import { passesQuery } from './record-filters.ts';
import { BY_ID } from './sorted-records.ts';
import type { Change, Decision, RequestStore, StoredCollection } from './store.ts';
import type { RecordId } from '../records/record-id.ts';

/** Thrown by allocateId when no id reserved for the collection is left: the write reserves one and decides again. */
class NeedId {
  readonly collection: StoredCollection;

  constructor(collection: StoredCollection) {
    this.collection = collection;
  }
}

/** One operation's write: how it decides, and the result its first decision gave its handler. */
interface KeptDecision {
  readonly operation: number;
  readonly decide: () => Decision<unknown>;
  readonly firstResult: unknown;
}

/** A record an operation created: where, and its id. */
export interface CreatedRecord {
  readonly collection: StoredCollection;
  readonly id: RecordId;
}

/** What the decisions made again give: every change in order, and each operation's result. */
export interface DecidedAgain {
  readonly changes: readonly Change[];
  readonly results: ReadonlyMap<number, unknown>;
}

export class PendingChanges implements RequestStore {
  readonly #base: RequestStore;
  readonly #table: ResourceTable;
  /** A new id of the collection, from the store (never given twice, as RequestStore.allocateId). */
  readonly #reserve: (collection: StoredCollection) => Promise<number>;
  /** Per collection, the records the pending changes put (a record) or deleted (undefined). */
  #records = new Map<StoredCollection, Map<RecordId, StoredRecord | undefined>>();
  #changes: Change[] = [];
  /** Per collection, the ids reserved, given out in order; the same again when the decisions are made again. */
  readonly #reserved = new Map<StoredCollection, number[]>();
  /** Per collection, how many reserved ids the decisions so far have taken. */
  #taken = new Map<StoredCollection, number>();
  readonly #decisions: KeptDecision[] = [];
  /** The record each operation that created one made (its collection and id), by operation. */
  readonly #created = new Map<number, CreatedRecord>();
  #operation = 0;

  constructor(base: RequestStore, table: ResourceTable, reserve: (collection: StoredCollection) => Promise<number>) {
    this.#base = base;
    this.#table = table;
    this.#reserve = reserve;
  }

  /** The operations' writes from now on are operation `index`'s. */
  beginOperation(index: number): void {
    this.#operation = index;
  }

  /** The collection and id of the record operation `index` created, if it created one. */
  createdBy(index: number): CreatedRecord | undefined {
    return this.#created.get(index);
  }

  /** The result operation `index`'s write gave its handler, if it wrote. */
  firstResultOf(index: number): unknown {
    return this.#decisions.find((kept) => kept.operation === index)?.firstResult;
  }

  /**
   * Decides on the data with the earlier operations' changes, and keeps the changes and the decision without committing
   * them; an id the decision takes is reserved first (the decision is made again with it).
   */
  async write<T>(decide: () => Decision<T>): Promise<T> {
    if (this.#decisions.some((kept) => kept.operation === this.#operation))
      throw new Error(`operation ${this.#operation} of a batch writes twice: a batch takes one write per operation`);
    for (;;) {
      const taken = this.#taken;
      try {
        // Made again from the start when a read was not at hand (RequestStore.read): the ids taken with it.
        const decision = await this.#base.read(() => {
          this.#taken = new Map(taken);
          return decide();
        });
        this.#apply(decision.changes, false);
        this.#noteCreated(this.#operation, decision.changes);
        this.#decisions.push({ operation: this.#operation, decide, firstResult: decision.result });
        return decision.result;
      } catch (error) {
        this.#taken = taken;
        if (!(error instanceof NeedId)) throw error;
        const reserved = this.#reserved.get(error.collection) ?? [];
        reserved.push(await this.#reserve(error.collection));
        this.#reserved.set(error.collection, reserved);
      }
    }
  }

  /**
   * Every kept decision made again, in order, on the data as the base store has it now (inside the batch's one write),
   * each described for the change feed as its own request's would be; an HttpError names the operation it refused.
   */
  decideAgain(): DecidedAgain {
    this.#records = new Map();
    this.#changes = [];
    this.#taken = new Map();
    const results = new Map<number, unknown>();
    for (const { operation, decide } of this.#decisions) {
      let decision: Decision<unknown>;
      try {
        decision = decide();
      } catch (error) {
        if (error instanceof HttpError) throw inOperation(error, operation);
        throw error;
      }
      this.#apply(decision.changes, true);
      results.set(operation, decision.result);
    }
    return { changes: this.#changes, results };
  }

  #apply(given: readonly Change[], describe: boolean): void {
    // Described before they are applied, as a commit's (describe-changes.ts): a deletion from the record as it was.
    const changes = describe ? describeChanges(this.#table, given, this) : given;
    for (const change of changes) {
      let records = this.#records.get(change.collection);
      if (records === undefined) {
        records = new Map();
        this.#records.set(change.collection, records);
      }
      if (change.kind === 'put') records.set(change.record.id, change.record);
      else records.set(change.id, undefined);
      this.#changes.push(change);
    }
  }

  #noteCreated(operation: number, changes: readonly Change[]): void {
    const created = changes.find((change) => change.kind === 'put' && change.created === true);
    if (created?.kind === 'put')
      this.#created.set(operation, { collection: created.collection, id: created.record.id });
  }

  get(collection: StoredCollection, id: RecordId): StoredRecord | undefined {
    const records = this.#records.get(collection);
    if (records !== undefined && records.has(id)) return records.get(id);
    return this.#base.get(collection, id);
  }

  /**
   * The base store's answer with the pending changes laid over it: records they changed or deleted taken out, those
   * they put and that match added, in id order. Decisions ask only unsorted queries without words (uniqueness,
   * references, children); a list's sort or search over pending changes is not answered.
   */
  query(collection: StoredCollection, query: Query): QueryResult {
    const records = this.#records.get(collection);
    if (records === undefined) return this.#base.query(collection, query);
    if (query.sort.length > 0 || query.search !== undefined)
      throw new Error('a batch answers only unsorted queries without words over its pending changes');
    // Enough of the base's records to fill the page once those the changes replace are taken out.
    const wanted = query.offset + query.limit + records.size;
    const base = this.#base.query(collection, { ...query, offset: 0, limit: wanted });
    const matches = (record: StoredRecord): boolean => passesQuery(record, query.filters, query);
    let total = base.total;
    for (const id of records.keys()) {
      const before = this.#base.get(collection, id);
      if (before !== undefined && matches(before)) total -= 1;
    }
    const merged = base.records.filter((record) => !records.has(record.id));
    for (const record of records.values()) {
      if (record === undefined || !matches(record)) continue;
      merged.push(record);
      total += 1;
    }
    merged.sort(BY_ID);
    return { records: merged.slice(query.offset, query.offset + query.limit), total };
  }

  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    const records = this.#records.get(collection);
    if (records === undefined) return this.#base.findIgnoringCase(collection, field, value);
    return this.query(collection, { filters: [{ field, value, ignoreCase: true }], sort: [], offset: 0, limit: 1 })
      .records[0];
  }

  count(collection: StoredCollection): number {
    let count = this.#base.count(collection);
    for (const [id, record] of this.#records.get(collection) ?? []) {
      const before = this.#base.get(collection, id) !== undefined;
      count += (record !== undefined ? 1 : 0) - (before ? 1 : 0);
    }
    return count;
  }

  /** Not a number (nothing is kept from it) for a collection the batch changes: its records are not yet committed. */
  version(collection: StoredCollection): number {
    return this.#records.has(collection) ? Number.NaN : this.#base.version(collection);
  }

  caller(id: number): StoredRecord | undefined {
    return this.#records.get('users')?.has(id) === true ? this.get('users', id) : this.#base.caller(id);
  }

  read<T>(reads: () => T | Promise<T>): T | Promise<T> {
    return this.#base.read(reads);
  }

  /** The collection's next reserved id; none left: NeedId, and `write` reserves one. */
  allocateId(collection: StoredCollection): number {
    const taken = this.#taken.get(collection) ?? 0;
    const id = this.#reserved.get(collection)?.[taken];
    if (id === undefined) throw new NeedId(collection);
    this.#taken.set(collection, taken + 1);
    return id;
  }
}
