// One request's view of the PostgreSQL store (docs/deploying.md): its reads loaded on first use and kept for the
// request (in a transaction, read from it afresh), the caller it may answer from memory until a read or a write
// confirms it (remembered-caller.ts), and the placeholder id a create is decided with.

import type pg from 'pg';
import type { Decision, Query, QueryResult, RecordId, RequestStore, StoredCollection, StoredRecord } from 'plainrest';
import { isStill, RememberedCaller } from './remembered-caller.ts';
import { loaded, NeedRows } from './request-runs.ts';
import { PROVISIONAL_ID } from './sql-records.ts';
import type { RowSource } from './view-reads.ts';
import { BEGIN, countOf, firstIgnoringCase, pageOf, recordsById, recordsInTransaction } from './view-reads.ts';

/** What a view asks of the store it reads through (postgres-store.ts). */
export interface ViewBacking extends RowSource {
  /** Whether `id` may be an id of `collection`'s (a read of any other finds nothing). */
  isIdOf(collection: StoredCollection, id: RecordId): boolean;
  readCaller(id: number, client?: pg.PoolClient): Promise<StoredRecord | undefined>;
  nextId(collection: StoredCollection, client?: pg.PoolClient): Promise<number>;
  transactOn<T>(view: PostgresView, decide: () => Decision<T>): Promise<T>;
}

/** One request's reads: loaded on first use and kept for the request; in a transaction, from it, afresh. */
export class PostgresView implements RequestStore {
  readonly #store: ViewBacking;
  readonly #answers = new Map<string, unknown>();
  /** Records the request will likely read (its path's), loaded with the first record it must load. */
  readonly #hints: { readonly collection: StoredCollection; readonly id: RecordId }[] = [];
  #transaction: pg.PoolClient | undefined;
  #begun = false;
  readonly #caller: RememberedCaller;
  /** The collection whose id allocateId answered with the placeholder, in this attempt of a transaction. */
  #provisional: StoredCollection | undefined;

  constructor(store: ViewBacking) {
    this.#store = store;
    this.#caller = new RememberedCaller(store.remembered);
  }

  beginTransaction(client: pg.PoolClient): void {
    // A decision reads everything again inside its transaction, where conflicts are detected.
    this.#answers.clear();
    this.#transaction = client;
    this.#begun = false;
    this.#provisional = undefined;
  }

  endTransaction(): void {
    this.#transaction = undefined;
    this.#begun = false;
    this.#provisional = undefined;
    this.#answers.clear();
  }

  mayRememberCaller(): void {
    this.#caller.allow();
  }

  /**
   * The caller: as this process last read it when the request allows (confirmed later: mayRememberCaller); else read
   * now, and remembered. Once read in this request, it is that read when the request runs again after a load.
   */
  caller(id: number): StoredRecord | undefined {
    if (this.#transaction === undefined && !this.#answers.has(recordKey('users', id))) {
      const remembered = this.#caller.recall(id);
      if (remembered !== undefined) return remembered;
    }
    const user = this.get('users', id);
    this.#store.remembered.rememberCaller(id, user);
    return user;
  }

  get unconfirmedCaller(): StoredRecord | undefined {
    return this.#caller.unconfirmed;
  }

  callerConfirmed(): void {
    this.#caller.confirmed();
  }

  callerChanged(): void {
    this.#caller.changed();
  }

  /**
   * After a read that checked the remembered caller (if any): confirmed, or (it no longer holds)
   * forgotten, everything read dropped, and the request runs again with its caller read afresh.
   */
  #checked(holds: boolean | undefined): void {
    if (holds === undefined) return;
    if (holds) {
      this.callerConfirmed();
      return;
    }
    this.#answers.clear();
    this.callerNoLongerHolds();
  }

  callerNoLongerHolds(): never {
    return this.#caller.noLongerHolds();
  }

  /** Reads the caller answered from memory, unless a read or a write confirmed it: true when it is as it was. */
  async confirmCaller(): Promise<boolean> {
    const remembered = this.#caller.unconfirmed;
    if (remembered === undefined) return true;
    const user = await this.#store.readCaller(remembered.id as number); // users' ids are integers
    if (isStill(remembered, user)) {
      this.callerConfirmed();
      return true;
    }
    this.callerChanged();
    // The request runs again with this read.
    this.#answers.set(recordKey('users', remembered.id), user);
    return false;
  }

  /** The collection given the placeholder id in this attempt, if any (write-transactions.ts). */
  get provisional(): StoredCollection | undefined {
    return this.#provisional;
  }

  /** The placeholder replaced by an id taken from the sequence now (one round trip). */
  async takeId(): Promise<void> {
    const collection = this.#provisional as StoredCollection;
    this.idTaken(collection, await this.#store.nextId(collection, this.#transaction));
  }

  /** allocateId answers `id` for the collection from now on. */
  idTaken(collection: StoredCollection, id: number): void {
    this.#answers.set(`id ${collection}`, id);
    this.#provisional = undefined;
  }

  /** Whether the transaction's BEGIN has been sent (with its first read, or by `begin`). */
  get begun(): boolean {
    return this.#begun;
  }

  /** Sends the transaction's BEGIN, unless a read has already sent it. */
  async begin(): Promise<void> {
    if (this.#begun || this.#transaction === undefined) return;
    await this.#store.database.run(BEGIN, [], this.#transaction);
    this.#begun = true;
  }

  /** The answer to `key`, or NeedRows that loads it with `load` (in a transaction, begun first unless `outside`). */
  #answer<T>(key: string, load: (client: pg.PoolClient | undefined) => Promise<T>, outside = false): T {
    if (this.#answers.has(key)) return this.#answers.get(key) as T;
    const client = this.#transaction;
    throw new NeedRows(async () => {
      if (!outside) await this.begin();
      this.#answers.set(key, await load(client));
    });
  }

  willRead(collection: StoredCollection, id: RecordId): void {
    if (this.#store.isIdOf(collection, id)) this.#hints.push({ collection, id });
  }

  /**
   * One round trip for the record and whatever may go with it: outside a transaction the
   * records the request's path names (willRead), inside one its BEGIN if not yet sent.
   */
  get(collection: StoredCollection, id: RecordId): StoredRecord | undefined {
    const key = recordKey(collection, id);
    if (this.#answers.has(key)) return this.#answers.get(key) as StoredRecord | undefined;
    // No record has an id of another kind (`abc` of an integer collection, a number of a uuid one, an upper-case uuid).
    if (!this.#store.isIdOf(collection, id)) return undefined;
    const transaction = this.#transaction;
    const hinted =
      transaction === undefined
        ? this.#hints.splice(0).filter((hint) => {
            const hintKey = recordKey(hint.collection, hint.id);
            return !this.#answers.has(hintKey) && hintKey !== key;
          })
        : [];
    const wanted = [{ collection, id }, ...hinted];
    const begin = transaction !== undefined && !this.#begun;
    const guard = transaction === undefined ? this.#caller.guard() : undefined;
    throw new NeedRows(async () => {
      let records: (StoredRecord | undefined)[];
      if (transaction === undefined) {
        const read = await recordsById(this.#store, wanted, guard);
        this.#checked(read.callerHolds);
        records = read.found;
      } else {
        records = await recordsInTransaction(this.#store, wanted, begin, transaction);
        if (begin) this.#begun = true;
      }
      wanted.forEach((want, index) => this.#answers.set(recordKey(want.collection, want.id), records[index]));
    });
  }

  query(collection: StoredCollection, query: Query): QueryResult {
    const guard = this.#transaction === undefined ? this.#caller.guard() : undefined;
    return this.#answer(`query ${collection} ${JSON.stringify(query)}`, async (client) => {
      const page = await pageOf(this.#store, collection, query, guard, client);
      this.#checked(page.callerHolds);
      this.#known(collection, page.found.records, client);
      return page.found;
    });
  }

  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    return this.#answer(`find ${collection} ${field} ${value}`, async (client) => {
      const record = await firstIgnoringCase(this.#store, collection, field, value, client);
      if (record !== undefined) this.#known(collection, [record], client);
      return record;
    });
  }

  /**
   * Records a transaction's list or search read answer its later get() of them too: one
   * snapshot, so they are what get() would load (the events of a deletion that takes
   * nested records with it need each record as it was: no round trip per record).
   */
  #known(collection: StoredCollection, records: readonly StoredRecord[], client: pg.PoolClient | undefined): void {
    if (client === undefined) return;
    for (const record of records) {
      const key = recordKey(collection, record.id);
      if (!this.#answers.has(key)) this.#answers.set(key, record);
    }
  }

  count(collection: StoredCollection): number {
    return this.#answer(`count ${collection}`, (client) => countOf(this.#store, collection, client));
  }

  version(): number {
    return Number.NaN;
  }

  /**
   * The next value of the table's identity sequence: never reused, even when the write then
   * fails. In a transaction that has read nothing yet, the placeholder PROVISIONAL_ID: the
   * create may then take its id as it is written (write-transactions.ts).
   */
  allocateId(collection: StoredCollection): number {
    if (this.#provisional === collection) return PROVISIONAL_ID;
    const key = `id ${collection}`;
    if (this.#transaction !== undefined && !this.#begun && this.#provisional === undefined && !this.#answers.has(key)) {
      this.#provisional = collection;
      return PROVISIONAL_ID;
    }
    return this.#answer(key, (client) => this.#store.nextId(collection, client), true);
  }

  /** The reads run again, each time what they read is loaded, until they need nothing more. */
  read<T>(reads: () => T | Promise<T>): T | Promise<T> {
    return loaded(reads);
  }

  /** Decided and committed in one serializable transaction, decided again when another write came between. */
  write<T>(decide: () => Decision<T>): Promise<T> {
    return this.#store.transactOn(this, decide);
  }
}

export function recordKey(collection: StoredCollection, id: number | string): string {
  return `get ${collection} ${id}`;
}
