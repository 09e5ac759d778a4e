// One request's view of the PostgreSQL store (docs/deploying.md): its reads loaded on first use and kept for the
// request (in a transaction, read from it afresh), the caller it may answer from memory until a read or a write
// confirms it, and the placeholder id a create is decided with.

import type pg from 'pg';
import type { Decision, Query, QueryResult, RequestStore, StoredCollection, StoredRecord } from 'plainrest';
import type { TablePlan } from './schema.ts';
import { quoted } from './schema.ts';
import type { CallerGuard } from './sql-records.ts';
import { listQuery, PROVISIONAL_ID, recordOf, recordOfJson } from './sql-records.ts';
import { CallerChanged, loaded, NeedRows } from './request-runs.ts';

/** A write's transaction: serializable, so that a decision and its commit see one state of the data. */
const BEGIN = 'BEGIN ISOLATION LEVEL SERIALIZABLE';

/** What a view asks of the store it reads through (postgres-store.ts). */
export interface ViewBacking {
  plan(collection: StoredCollection): TablePlan;
  readRows(
    tables: readonly string[],
    ids: readonly number[],
    caller: CallerGuard | undefined,
  ): Promise<Record<string, unknown>>;
  run(
    text: string,
    values: readonly unknown[],
    client?: pg.PoolClient,
  ): Promise<pg.QueryResult<Record<string, unknown>>>;
  runNamed(
    text: string,
    values: readonly unknown[],
    client?: pg.PoolClient,
  ): Promise<pg.QueryResult<Record<string, unknown>>>;
  runMany(statements: readonly string[], client?: pg.PoolClient): Promise<pg.QueryResult<Record<string, unknown>>[]>;
  rememberedCaller(id: number): StoredRecord | undefined;
  rememberCaller(id: number, user: StoredRecord | undefined): void;
  sameAsLastRead(collection: StoredCollection, record: StoredRecord): StoredRecord;
  readCaller(id: number, client?: pg.PoolClient): Promise<StoredRecord | undefined>;
  nextId(collection: StoredCollection, client?: pg.PoolClient): Promise<number>;
  transactOn<T>(view: PostgresView, decide: () => Decision<T>): Promise<T>;
}

/** One request's reads: loaded on first use and kept for the request; in a transaction, from it, afresh. */
export class PostgresView implements RequestStore {
  readonly #store: ViewBacking;
  readonly #answers = new Map<string, unknown>();
  /** Records the request will likely read (its path's), loaded with the first record it must load. */
  readonly #hints: { readonly collection: StoredCollection; readonly id: number }[] = [];
  #transaction: pg.PoolClient | undefined;
  #begun = false;
  /** The request's first read or its write can confirm a caller answered from memory (mayRememberCaller). */
  #mayRemember = false;
  /** The caller answered from memory, until a write or confirmCaller confirms it. */
  #remembered: StoredRecord | undefined;
  /** The collection whose id allocateId answered with the placeholder, in this attempt of a transaction. */
  #provisional: StoredCollection | undefined;

  constructor(store: ViewBacking) {
    this.#store = store;
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
    this.#mayRemember = true;
  }

  /**
   * The caller: as this process last read it when the request allows (confirmed later: mayRememberCaller); else read
   * now, and remembered.
   */
  caller(id: number): StoredRecord | undefined {
    if (this.#mayRemember && this.#transaction === undefined) {
      const remembered = this.#store.rememberedCaller(id);
      if (remembered !== undefined) {
        this.#remembered = remembered;
        return remembered;
      }
    }
    const user = this.get('users', id);
    this.#store.rememberCaller(id, user);
    return user;
  }

  /** The caller answered from memory and not yet confirmed, if any. */
  get unconfirmedCaller(): StoredRecord | undefined {
    return this.#remembered;
  }

  callerConfirmed(): void {
    this.#remembered = undefined;
  }

  /** The remembered caller had changed: the request runs again with its caller read afresh. */
  callerChanged(): void {
    this.#remembered = undefined;
    this.#mayRemember = false;
  }

  /** What the next read outside a transaction checks of the caller answered from memory, if it is not yet confirmed. */
  #guard(): CallerGuard | undefined {
    return this.#remembered === undefined ? undefined : guardOf(this.#remembered);
  }

  /**
   * After a read that checked the remembered caller: confirmed, or (it no longer holds)
   * forgotten, everything read dropped, and the request runs again with its caller read afresh.
   */
  #checked(holds: boolean): void {
    if (holds) {
      this.callerConfirmed();
      return;
    }
    this.#answers.clear();
    this.callerNoLongerHolds();
  }

  /**
   * A read or a write found the remembered caller changed: forgotten here and by the store, and the request runs again
   * with its caller read afresh.
   */
  callerNoLongerHolds(): never {
    const remembered = this.#remembered;
    if (remembered !== undefined) this.#store.rememberCaller(remembered.id, undefined);
    this.callerChanged();
    throw new CallerChanged();
  }

  /** Reads the caller answered from memory, unless a read or a write confirmed it: true when it is as it was. */
  async confirmCaller(): Promise<boolean> {
    const remembered = this.#remembered;
    if (remembered === undefined) return true;
    const user = await this.#store.readCaller(remembered.id);
    if (isStill(remembered, user)) {
      this.callerConfirmed();
      return true;
    }
    this.callerChanged();
    // The request runs again with this read.
    this.#answers.set(recordKey('users', remembered.id), user);
    return false;
  }

  /** The collection given the placeholder id in this attempt, if any (PostgresStore.transactOn). */
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
    await this.#store.run(BEGIN, [], this.#transaction);
    this.#begun = true;
  }

  /** The answer to `key`, or NeedData that loads it with `load` (in a transaction, begun first unless `outside`). */
  #answer<T>(key: string, load: (client: pg.PoolClient | undefined) => Promise<T>, outside = false): T {
    if (this.#answers.has(key)) return this.#answers.get(key) as T;
    const client = this.#transaction;
    throw new NeedRows(async () => {
      if (!outside) await this.begin();
      this.#answers.set(key, await load(client));
    });
  }

  willRead(collection: StoredCollection, id: number): void {
    if (Number.isSafeInteger(id)) this.#hints.push({ collection, id });
  }

  /**
   * One round trip for the record and whatever may go with it: outside a transaction the
   * records the request's path names (willRead), inside one its BEGIN if not yet sent.
   */
  get(collection: StoredCollection, id: number): StoredRecord | undefined {
    const key = recordKey(collection, id);
    if (this.#answers.has(key)) return this.#answers.get(key) as StoredRecord | undefined;
    if (!Number.isSafeInteger(id)) {
      return this.#answer(key, async (client) => {
        const result = await this.#store.run(
          `SELECT * FROM ${quoted(this.#store.plan(collection).table)} WHERE "id" = $1`,
          [id],
          client,
        );
        const row = result.rows[0];
        return row === undefined ? undefined : recordOf(row);
      });
    }
    const transaction = this.#transaction;
    const hinted =
      transaction === undefined
        ? this.#hints
            .splice(0)
            .filter(
              (hint) =>
                !this.#answers.has(recordKey(hint.collection, hint.id)) && recordKey(hint.collection, hint.id) !== key,
            )
        : [];
    const wanted = [{ collection, id }, ...hinted];
    const begin = transaction !== undefined && !this.#begun;
    const guard = transaction === undefined ? this.#guard() : undefined;
    throw new NeedRows(async () => {
      if (transaction === undefined) {
        // Outside a transaction, one named statement (parsed once per connection) reads them all, and checks the
        // remembered caller; with the reads of other requests when they arrive together (read-batches.ts).
        const plans = wanted.map((want) => this.#store.plan(want.collection));
        const row = await this.#store.readRows(
          plans.map((plan) => plan.table),
          wanted.map((want) => want.id),
          guard,
        );
        if (guard !== undefined) this.#checked(row['caller'] === true);
        wanted.forEach((want, index) => {
          const value = row[`r${index}`] as Record<string, unknown> | null | undefined;
          const record =
            value === null || value === undefined
              ? undefined
              : this.#store.sameAsLastRead(want.collection, recordOfJson(plans[index] as TablePlan, value));
          this.#answers.set(recordKey(want.collection, want.id), record);
        });
        return;
      }
      // Only integers are written into the text: the simple protocol takes no parameters.
      const selects = wanted.map(
        (want) => `SELECT * FROM ${quoted(this.#store.plan(want.collection).table)} WHERE "id" = ${want.id}`,
      );
      const results = await this.#store.runMany(begin ? [BEGIN, ...selects] : selects, transaction);
      if (begin) this.#begun = true;
      const answers = begin ? results.slice(1) : results;
      wanted.forEach((want, index) => {
        const row = answers[index]?.rows[0];
        this.#answers.set(recordKey(want.collection, want.id), row === undefined ? undefined : recordOf(row));
      });
    });
  }

  query(collection: StoredCollection, query: Query): QueryResult {
    const guard = this.#transaction === undefined ? this.#guard() : undefined;
    return this.#answer(`query ${collection} ${JSON.stringify(query)}`, async (client) => {
      const { text, values } = listQuery(this.#store.plan(collection), query, guard);
      const result = await this.#store.runNamed(text, values, client);
      if (guard !== undefined) this.#checked(result.rows[0]?.['__caller'] === true);
      const total = Number(result.rows[0]?.['__total'] ?? 0);
      const records = result.rows
        .filter((row) => row['id'] !== null)
        .map((row) => {
          const { __total: _total, __caller: _caller, ...fields } = row;
          return this.#store.sameAsLastRead(collection, recordOf(fields));
        });
      this.#known(collection, records, client);
      return { records, total };
    });
  }

  findIgnoringCase(collection: StoredCollection, field: string, value: string): StoredRecord | undefined {
    return this.#answer(`find ${collection} ${field} ${value}`, async (client) => {
      const table = quoted(this.#store.plan(collection).table);
      const result = await this.#store.run(
        `SELECT * FROM ${table} WHERE lower(${quoted(field)}) = lower($1) ORDER BY "id" LIMIT 1`,
        [value],
        client,
      );
      const row = result.rows[0];
      const record = row === undefined ? undefined : recordOf(row);
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
    return this.#answer(`count ${collection}`, async (client) => {
      const result = await this.#store.run(
        `SELECT count(*)::bigint AS n FROM ${quoted(this.#store.plan(collection).table)}`,
        [],
        client,
      );
      return Number(result.rows[0]?.['n'] ?? 0);
    });
  }

  version(): number {
    return Number.NaN;
  }

  /**
   * The next value of the table's identity sequence: never reused, even when the write then
   * fails. In a transaction that has read nothing yet, the placeholder PROVISIONAL_ID: the
   * create may then take its id as it is written (PostgresStore.transactOn).
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

export function guardOf(caller: StoredRecord): CallerGuard {
  return { id: caller.id, role: caller['role'] };
}

/** The remembered caller still holds: the user exists with the same role (what guardOf has a write check). */
export function isStill(remembered: StoredRecord, user: StoredRecord | undefined): boolean {
  return user !== undefined && user['role'] === remembered['role'];
}

export function recordKey(collection: StoredCollection, id: number): string {
  return `get ${collection} ${id}`;
}
