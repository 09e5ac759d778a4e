// plainrest's Store on PostgreSQL (docs/deploying.md). Each request reads through its own view (postgres-view.ts) that
// answers what it has loaded and loads the rest (request-runs.ts), so the core's decisions run unchanged.
// Reads outside a write are single statements at READ COMMITTED: a read sees all that was committed before it began,
// in any process. A write is decided inside one SERIALIZABLE transaction (write-transactions.ts).

import type pg from 'pg';
import type {
  ChangeFeed,
  Decision,
  RecordId,
  RequestPlan,
  RequestStore,
  ResourceTable,
  Retention,
  Store,
  StoredCollection,
  StoredRecord,
} from 'plainrest';
import type { CoreKit } from './core-kit.ts';
import { CreateBatches } from './create-batches.ts';
import { Database } from './database.ts';
import { DEFAULT_RETENTION, PostgresFeed } from './event-feed.ts';
import type { ViewBacking } from './postgres-view.ts';
import { PostgresView } from './postgres-view.ts';
import { ReadBatches } from './read-batches.ts';
import { RememberedRecords } from './remembered-records.ts';
import { confirmedAnswer, loaded } from './request-runs.ts';
import type { TablePlan } from './schema.ts';
import { ID_TYPES, quoted } from './schema.ts';
import type { CallerGuard } from './sql-records.ts';
import { recordOf } from './sql-records.ts';
import { WriteTransactions } from './write-transactions.ts';

export interface PostgresStoreOptions {
  readonly pool: pg.Pool;
  readonly plans: readonly TablePlan[];
  readonly kit: CoreKit;
  /** A new connection outside the pool, for the change feed to LISTEN on. */
  readonly listen: () => pg.Client;
  /** How much of the change feed's history is kept (plainrest's config.events). */
  readonly retention?: Retention;
  /** Attempts of one write before it is answered 503 (each decided again on fresher data). */
  readonly maxAttempts?: number;
}

export class PostgresStore implements Store, ViewBacking {
  readonly database: Database;
  readonly remembered: RememberedRecords;
  readonly #plans: ReadonlyMap<string, TablePlan>;
  readonly #feed: PostgresFeed;
  /** Reads by id outside a transaction, sent together when they arrive together (read-batches.ts). */
  readonly #reads: ReadBatches;
  readonly #writes: WriteTransactions;
  readonly #kit: CoreKit;
  /** The declared resources, whose changes become events (set by describeEvents). */
  #table: ResourceTable | undefined;
  /** Any number of processes share the database: webhooks are delivered under leases (plainrest's docs/webhooks.md). */
  readonly shared = true;
  #closed = false;

  constructor(options: PostgresStoreOptions) {
    this.database = new Database(options.pool, options.kit.unavailable);
    this.#kit = options.kit;
    this.remembered = new RememberedRecords(options.kit.jsonEqual);
    this.#plans = new Map(options.plans.map((plan) => [plan.table, plan]));
    this.#feed = new PostgresFeed({
      run: (text, values) => this.database.run(text, values),
      connect: options.listen,
      retention: options.retention ?? DEFAULT_RETENTION,
    });
    const sendRows = async (text: string, values: unknown[]): Promise<readonly Record<string, unknown>[]> =>
      (await this.database.runNamed(text, values)).rows;
    this.#reads = new ReadBatches(sendRows, this.database.size, (table) => ID_TYPES[this.plan(table).idKind]);
    this.#writes = new WriteTransactions({
      database: this.database,
      kit: options.kit,
      feed: this.#feed,
      creates: new CreateBatches(sendRows, this.database.size),
      remembered: this.remembered,
      maxAttempts: options.maxAttempts ?? 20,
      plan: (collection) => this.plan(collection),
      table: () => this.#table,
      readCaller: (id, client) => this.readCaller(id, client),
    });
  }

  /**
   * Each request reads through a view of its own, loading its path's records with the first thing it loads. One that
   * is repeatable may be answered with its caller as last read, confirmed by its first read or its write (one
   * statement instead of two), and runs again if that caller had changed.
   */
  serve<T>(plan: RequestPlan, handle: (store: RequestStore) => T | Promise<T>): T | Promise<T> {
    const view = new PostgresView(this);
    plan.pathCollections.forEach((collection, index) => view.willRead(collection, plan.ids[index] as RecordId));
    const run = (): T | Promise<T> => loaded(() => handle(view));
    if (!plan.repeatable) return run();
    view.mayRememberCaller();
    return confirmedAnswer(view, run);
  }

  /**
   * The row rowsByIdQuery gives for the records `ids` of `tables`, checking `caller` when given; sent with other reads
   * arriving at once (read-batches.ts).
   */
  readRows(
    tables: readonly string[],
    ids: readonly RecordId[],
    caller: CallerGuard | undefined,
  ): Promise<Record<string, unknown>> {
    return this.#reads.read(tables, ids, caller);
  }

  /**
   * The user as the database holds it now, remembered for later requests: in a transaction on
   * its `client` (whose failure the write handles, as its other statements'), else on the pool.
   */
  async readCaller(id: number, client?: pg.PoolClient): Promise<StoredRecord | undefined> {
    const text = `SELECT * FROM "users" WHERE "id" = $1`;
    const row = (await (client === undefined ? this.database.run(text, [id]) : client.query(text, [id]))).rows[0];
    const user = row === undefined ? undefined : recordOf(row);
    this.remembered.rememberCaller(id, user);
    return user;
  }

  /** The next value of the collection's identity sequence: never reused, even when the write then fails. */
  async nextId(collection: StoredCollection, client?: pg.PoolClient): Promise<number> {
    const result = await this.database.runNamed(
      `SELECT nextval(pg_get_serial_sequence($1, 'id'))::bigint AS id`,
      [quoted(this.plan(collection).table)],
      client,
    );
    return Number(result.rows[0]?.['id']);
  }

  /** Runs `decide` with `view` inside a serializable transaction, then its changes; again on a conflict. */
  transactOn<T>(view: PostgresView, decide: () => Decision<T>): Promise<T> {
    return this.#writes.run(view, decide);
  }

  /** Whether `id` may be an id of `collection`'s (a read of any other finds nothing). */
  isIdOf(collection: StoredCollection, id: RecordId): boolean {
    return this.#kit.isIdOfKind(id, this.plan(collection).idKind);
  }

  plan(collection: StoredCollection): TablePlan {
    const plan = this.#plans.get(collection);
    if (plan === undefined) throw new Error(`no table for the collection ${collection}`);
    return plan;
  }

  get feed(): ChangeFeed {
    return this.#feed;
  }

  describeEvents(table: ResourceTable): void {
    this.#table = table;
  }

  /** The tables are ready (open.ts): the feed follows the events table from `latest`, its newest id then. */
  startFeed(latest: number): void {
    this.#feed.start(latest);
  }

  /** Why the server is not ready: the database could not be reached (plainrest's /readyz answers 503 with it). */
  get unavailable(): string | undefined {
    return this.database.unavailable;
  }

  /** Opened in the background (open.ts): not ready until `opening` settles with no reason, for good if it gives one. */
  openLater(opening: Promise<string | undefined>): void {
    this.database.openLater(opening);
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#feed.close();
    await this.database.close();
  }
}
