// plainrest's Store on PostgreSQL (docs/deploying.md). Each request reads through its own view (postgres-view.ts) that
// answers what it has loaded and loads the rest (request-runs.ts), so the core's decisions run unchanged.
// Reads outside a write are single statements at READ COMMITTED: a read sees all that was committed before it began,
// in any process. A write is decided inside one SERIALIZABLE transaction; only callers are cached across requests.

import pg from 'pg';
import type {
  Change,
  ChangeFeed,
  Decision,
  RequestPlan,
  RequestStore,
  ResourceTable,
  Retention,
  Store,
  StoredCollection,
  StoredRecord,
} from 'plainrest';
import { DEFAULT_RETENTION, PostgresFeed } from './event-feed.ts';
import type { Statement } from './event-sql.ts';
import { eventsJson, withEvents } from './event-sql.ts';
import { named } from './named-statements.ts';
import type { TablePlan } from './schema.ts';
import { quoted } from './schema.ts';
import type { CallerGuard } from './sql-records.ts';
import { insertTakingId, PROVISIONAL_ID, recordOf, upsert } from './sql-records.ts';
import { ReadBatches } from './read-batches.ts';
import { CreateBatches } from './create-batches.ts';
import type { CoreKit } from './core-kit.ts';
import { guardOf, isStill, PostgresView, recordKey } from './postgres-view.ts';
import { CallerChanged, confirmedAnswer, loaded } from './request-runs.ts';

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

/**
 * SQLSTATEs after which a write is rolled back and decided again on the data as it is then: serialization_failure,
 * deadlock_detected, unique_violation, foreign_key_violation. So two racing creates of one unique value give one 201
 * and one 409, two racing transitions one 200 and one 409.
 */
const RETRYABLE = new Set(['40001', '40P01', '23505', '23503']);
const UNREACHABLE = 'the database cannot be reached; retry shortly';
const NOT_YET_REACHED = 'the database has not been reached since the start; retry shortly';
/** How often an unreachable database is tried again. */
const PROBE_MS = 1000;
/** Callers remembered for later requests (PostgresView.caller), at most; the oldest is forgotten first. */
const MAX_REMEMBERED_CALLERS = 10_000;
/** Records kept by sameAsLastRead, at most; past it, they are all forgotten at once. */
const MAX_LAST_READ = 2000;

/**
 * A refused, lost or timed-out connection, or a server shutting down or out of connections (SQLSTATE classes 08,
 * 57P, 53).
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (/^(08|57P|53)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code))
  )
    return true;
  return (
    error instanceof Error &&
    /timeout exceeded when trying to connect|Connection terminated|connection is closed|Client has encountered a connection error/i.test(
      error.message,
    )
  );
}

export class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #plans: ReadonlyMap<string, TablePlan>;
  readonly #kit: CoreKit;
  readonly #maxAttempts: number;
  #closed = false;
  /** Set when a query found the database unreachable; cleared by the next that reaches it (or the probe). */
  #unreachable: string | undefined;
  #probe: NodeJS.Timeout | undefined;
  /**
   * Set while the tables have not yet been brought to the declaration (a database unreachable at start, open.ts), or
   * for good when that failed.
   */
  #notOpen: string | undefined;
  readonly #feed: PostgresFeed;
  /** The declared resources, whose changes become events (set by describeEvents). */
  #table: ResourceTable | undefined;
  /**
   * Callers as last read, by id: a create or a read is decided with its caller from here and confirmed by its write or
   * first read, which checks that the user still has that role (else CallerChanged: the request runs again). So a read
   * of a record or a page, and a create that reads nothing else, stays one statement (PostgresView.caller).
   */
  readonly #callers = new Map<number, StoredRecord>();
  /** Records as this process last read them by id or in a page, by collection and id (sameAsLastRead). */
  readonly #lastRead = new Map<string, StoredRecord>();
  /** Reads by id outside a transaction, sent together when they arrive together (read-batches.ts). */
  readonly #reads: ReadBatches;
  /** Creates that read nothing, written together when they arrive together (create-batches.ts). */
  readonly #creates: CreateBatches;

  constructor(options: PostgresStoreOptions) {
    this.#pool = options.pool;
    this.#plans = new Map(options.plans.map((plan) => [plan.table, plan]));
    this.#kit = options.kit;
    this.#maxAttempts = options.maxAttempts ?? 20;
    this.#feed = new PostgresFeed({
      run: (text, values) => this.run(text, values),
      connect: options.listen,
      retention: options.retention ?? DEFAULT_RETENTION,
    });
    const sendRows = async (text: string, values: unknown[]): Promise<readonly Record<string, unknown>[]> =>
      (await this.runNamed(text, values)).rows;
    this.#reads = new ReadBatches(sendRows, options.pool.options.max ?? 10);
    this.#creates = new CreateBatches(sendRows, options.pool.options.max ?? 10);
  }

  /**
   * The row rowsByIdQuery gives for the records `ids` of `tables`, checking `caller` when given; sent with other reads
   * arriving at once (read-batches.ts).
   */
  readRows(
    tables: readonly string[],
    ids: readonly number[],
    caller: CallerGuard | undefined,
  ): Promise<Record<string, unknown>> {
    return this.#reads.read(tables, ids, caller);
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

  plan(collection: StoredCollection): TablePlan {
    const plan = this.#plans.get(collection);
    if (plan === undefined) throw new Error(`no table for the collection ${collection}`);
    return plan;
  }

  /** Why the server is not ready: the database could not be reached (plainrest's /readyz answers 503 with it). */
  get unavailable(): string | undefined {
    return this.#notOpen ?? this.#unreachable;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Opened in the background (open.ts): not ready until `opening` settles with no reason, for good if it gives one. */
  openLater(opening: Promise<string | undefined>): void {
    this.#notOpen = NOT_YET_REACHED;
    void opening.then((reason) => {
      this.#notOpen = reason;
    });
  }

  /** Runs one statement on `client` (a transaction's) or the pool; an unreachable database is the core's 503. */
  run(
    text: string,
    values: readonly unknown[],
    client?: pg.PoolClient,
  ): Promise<pg.QueryResult<Record<string, unknown>>> {
    return this.#send({ text, values: values as unknown[] }, client);
  }

  /**
   * `run` for a statement whose result has the same columns whatever the schema becomes
   * (no `SELECT *`: another process may add a column, and a named statement's plan must
   * not change its result), sent by name (named-statements.ts).
   */
  runNamed(
    text: string,
    values: readonly unknown[],
    client?: pg.PoolClient,
  ): Promise<pg.QueryResult<Record<string, unknown>>> {
    return this.#send(named(text, values), client);
  }

  async #send(
    statement: pg.QueryConfig,
    client: pg.PoolClient | undefined,
  ): Promise<pg.QueryResult<Record<string, unknown>>> {
    if (this.#notOpen !== undefined) throw this.#kit.unavailable(this.#notOpen);
    try {
      const result = await (client ?? this.#pool).query<Record<string, unknown>>(statement);
      this.#unreachable = undefined;
      return result;
    } catch (error) {
      throw this.#translate(error);
    }
  }

  /**
   * Several statements in one round trip (the simple query protocol: no parameters, so only integers may be written
   * into them).
   */
  async runMany(
    statements: readonly string[],
    client?: pg.PoolClient,
  ): Promise<pg.QueryResult<Record<string, unknown>>[]> {
    if (this.#notOpen !== undefined) throw this.#kit.unavailable(this.#notOpen);
    try {
      const results = (await (client ?? this.#pool).query(statements.join('; '))) as unknown as
        pg.QueryResult<Record<string, unknown>>[] | pg.QueryResult<Record<string, unknown>>;
      this.#unreachable = undefined;
      return Array.isArray(results) ? results : [results];
    } catch (error) {
      throw this.#translate(error);
    }
  }

  /**
   * A lost or refused connection becomes the core's 503 (with Retry-After), and the store not ready until the database
   * answers again.
   */
  #translate(error: unknown): unknown {
    if (!isConnectionFailure(error)) return error;
    this.#markUnreachable();
    return this.#kit.unavailable(UNREACHABLE);
  }

  #markUnreachable(): void {
    this.#unreachable = UNREACHABLE;
    if (this.#probe !== undefined || this.#closed) return;
    // Readiness comes back without waiting for a request: a balancer that took traffic away sends none.
    this.#probe = setInterval(() => {
      this.#pool.query('SELECT 1').then(
        () => {
          this.#unreachable = undefined;
          clearInterval(this.#probe);
          this.#probe = undefined;
        },
        () => {},
      );
    }, PROBE_MS);
    this.#probe.unref();
  }

  /**
   * Each request reads through a view of its own, loading its path's records with the first thing it loads. One that
   * is repeatable may be answered with its caller as last read, confirmed by its first read or its write (one
   * statement instead of two), and runs again if that caller had changed.
   */
  serve<T>(plan: RequestPlan, answer: (store: RequestStore) => T | Promise<T>): T | Promise<T> {
    const view = new PostgresView(this);
    plan.pathCollections.forEach((collection, index) => view.willRead(collection, plan.ids[index] as number));
    if (!plan.repeatable) return answer(view);
    view.mayRememberCaller();
    return confirmedAnswer(view, () => answer(view));
  }

  rememberedCaller(id: number): StoredRecord | undefined {
    return this.#callers.get(id);
  }

  /** Remembers the user as read (none: forgets it). */
  rememberCaller(id: number, user: StoredRecord | undefined): void {
    this.#callers.delete(id);
    if (user === undefined) return;
    if (this.#callers.size >= MAX_REMEMBERED_CALLERS) this.#callers.delete(this.#callers.keys().next().value as number);
    this.#callers.set(id, user);
  }

  /**
   * `record` as read now from `collection`, or, when it is equal to what this process
   * read last time (nested values included), the object it read then. Records are frozen, so the two are
   * interchangeable; and the core keeps a record's representation and ETag per object
   * (resources/representation.ts), so a record read again unchanged is not serialised and hashed
   * again. Not a cache of the database: every read still asks it.
   */
  sameAsLastRead(collection: StoredCollection, record: StoredRecord): StoredRecord {
    const key = recordKey(collection, record.id);
    const last = this.#lastRead.get(key);
    if (last !== undefined && this.#kit.jsonEqual(last, record)) return last;
    if (this.#lastRead.size >= MAX_LAST_READ) this.#lastRead.clear();
    this.#lastRead.set(key, record);
    return record;
  }

  /**
   * The user as the database holds it now, remembered for later requests: in a transaction on
   * its `client` (whose failure transactOn handles, as its writes'), else through run().
   */
  async readCaller(id: number, client?: pg.PoolClient): Promise<StoredRecord | undefined> {
    const text = `SELECT * FROM "users" WHERE "id" = $1`;
    const row = (await (client === undefined ? this.run(text, [id]) : client.query(text, [id]))).rows[0];
    const user = row === undefined ? undefined : recordOf(row);
    this.rememberCaller(id, user);
    return user;
  }

  /** The next value of the collection's identity sequence: never reused, even when the write then fails. */
  async nextId(collection: StoredCollection, client?: pg.PoolClient): Promise<number> {
    const result = await this.runNamed(
      `SELECT nextval(pg_get_serial_sequence($1, 'id'))::bigint AS id`,
      [quoted(this.plan(collection).table)],
      client,
    );
    return Number(result.rows[0]?.['id']);
  }

  /**
   * Runs `decide` with `view` inside a serializable transaction, then its changes; again on
   * a conflict. The transaction begins with the decision's first read (the view sends
   * BEGIN with it); taking an id reads nothing (a sequence is outside transactions).
   */
  async transactOn<T>(view: PostgresView, decide: () => Decision<T>): Promise<T> {
    if (this.#notOpen !== undefined) throw this.#kit.unavailable(this.#notOpen);
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.#pool.connect();
      } catch (error) {
        throw this.#translate(error);
      }
      view.beginTransaction(client);
      let broken = false;
      let released = false;
      try {
        // Described inside the loop: a lookup the description needs is loaded like the decision's reads.
        let decision = await loaded(() => this.#described(decide(), view));
        if (view.provisional !== undefined) {
          if (takesIdAsWritten(decision, view)) {
            // One statement on the pool, with the creates arriving with it (create-batches.ts): this connection is not
            // needed.
            view.endTransaction();
            client.release();
            released = true;
            return await this.#createTakingId(view, decide, decision);
          }
          // The placeholder cannot be written: the id is taken first, and the decision made with it.
          await view.takeId();
          decision = await loaded(() => this.#described(decide(), view));
        }
        const { changes, result } = decision;
        const events = eventsJson(changes);
        const caller = view.unconfirmedCaller;
        let last: number | undefined;
        // A decision that read nothing (a create checking no other record) is one statement, atomic by
        // itself: with its events too, as data-modifying CTEs of that statement (event-sql.ts withEvents).
        if (!view.begun && changes.length === 1 && caller === undefined)
          last = await this.#applyLast(client, changes[0] as Change, events);
        else if (changes.length > 0) {
          await view.begin();
          for (const change of changes.slice(0, -1)) await this.#apply(client, change);
          last = await this.#applyLast(client, changes[changes.length - 1] as Change, events);
          if (caller !== undefined) await this.#confirmCallerIn(client, view, caller);
          await client.query('COMMIT');
        } else if (view.begun) await client.query('COMMIT');
        if (last !== undefined) this.#feed.written(events?.count ?? 0, last);
        this.#forgetWrittenUsers(changes);
        return result;
      } catch (error) {
        broken = isConnectionFailure(error);
        if (!broken && view.begun) await client.query('ROLLBACK').catch(() => {});
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'string' || !RETRYABLE.has(code)) throw this.#translate(error);
        if (attempt >= this.#maxAttempts) throw this.#kit.unavailable('the write kept meeting other writes; retry it');
      } finally {
        view.endTransaction();
        // A connection that failed is closed, not handed to the next request.
        if (!released) client.release(broken);
      }
    }
  }

  /**
   * The decision with its changes' event facts, once the resources are known (describeEvents): described here, while
   * the view holds the decision's reads to answer the lookups.
   */
  #described<T>(decision: Decision<T>, view: PostgresView): Decision<T> {
    if (this.#table === undefined || decision.changes.length === 0) return decision;
    const changes = this.#kit.describeChanges(this.#table, decision.changes, (collection, id) =>
      view.get(collection, id),
    );
    return changes === decision.changes ? decision : { ...decision, changes };
  }

  /**
   * A create that read nothing, in one statement: the record with the id its table's
   * identity takes as it is written, and its events, made only if the caller remembered for
   * the request (if any) is still as it was; then the answer for that id (the decision
   * again with that id). Nothing inserted means the caller had changed: the request runs again.
   */
  async #createTakingId<T>(view: PostgresView, decide: () => Decision<T>, first: Decision<T>): Promise<T> {
    const change = first.changes[0] as Extract<Change, { kind: 'put' }>;
    const plan = this.plan(change.collection);
    const remembered = view.unconfirmedCaller;
    const caller = remembered === undefined ? undefined : guardOf(remembered);
    const insert = insertTakingId(plan, change.record, this.#wordsOf(plan, change.record), caller);
    const events = eventsJson(first.changes);
    const alone =
      events === undefined
        ? { text: `${insert.text} RETURNING "id" AS "created"`, values: insert.values }
        : withEvents(insert, events.json, true);
    const columns = caller === undefined ? insert.values : insert.values.slice(0, -2);
    const row = await this.#creates.create(plan, { alone, columns, caller, events: events?.json });
    if (row['created'] === null || row['created'] === undefined) view.callerNoLongerHolds();
    view.callerConfirmed();
    // Written together with others, the statement's events are counted together (create-batches.ts).
    if (events !== undefined)
      this.#feed.written(row['events'] === undefined ? events.count : Number(row['events']), Number(row['last']));
    const id = Number(row['created']);
    view.idTaken(change.collection, id);
    const again = await loaded(decide);
    const made = again.changes[0];
    // The record written must be the one decided: a decision gives the same changes from the same reads (plainrest's
    // store.ts: RequestStore.write).
    if (
      again.changes.length !== 1 ||
      made?.kind !== 'put' ||
      JSON.stringify({ ...made.record, id: PROVISIONAL_ID }) !== JSON.stringify(change.record)
    ) {
      throw new Error(`the decision for a new ${change.collection} record changed when decided again with its id`);
    }
    return again.result;
  }

  /**
   * Before COMMIT: the caller remembered for the request is still as it was, else the transaction is rolled back and
   * the request runs again.
   */
  async #confirmCallerIn(client: pg.PoolClient, view: PostgresView, caller: StoredRecord): Promise<void> {
    if (isStill(caller, await this.readCaller(caller.id, client))) {
      view.callerConfirmed();
      return;
    }
    view.callerChanged();
    throw new CallerChanged();
  }

  /**
   * A user this process changed is read again at its next request, not taken from memory (its write would be refused
   * there anyway).
   */
  #forgetWrittenUsers(changes: readonly Change[]): void {
    for (const change of changes) {
      if (change.collection === 'users')
        this.rememberCaller(change.kind === 'put' ? change.record.id : change.id, undefined);
    }
  }

  async #apply(client: pg.PoolClient, change: Change): Promise<void> {
    const { text, values } = this.#statementOf(change);
    await client.query(named(text, values));
  }

  /**
   * The commit's last change, with the commit's events when it has any, in the same transaction (event-sql.ts), which
   * the feed (event-feed.ts) reads back; the last event's id, or undefined without events.
   */
  async #applyLast(
    client: pg.PoolClient,
    change: Change,
    events: { readonly json: string } | undefined,
  ): Promise<number | undefined> {
    if (events === undefined) {
      await this.#apply(client, change);
      return undefined;
    }
    const { text, values } = withEvents(this.#statementOf(change), events.json);
    const result = await client.query<{ last: number }>(named(text, values));
    return Number(result.rows[0]?.last);
  }

  #statementOf(change: Change): Statement {
    const plan = this.plan(change.collection);
    if (change.kind === 'delete')
      return { text: `DELETE FROM ${quoted(plan.table)} WHERE "id" = $1`, values: [change.id] };
    return upsert(plan, change.record, this.#wordsOf(plan, change.record));
  }

  /** The record's search words, for the table's words column (none without `x-search` properties). */
  #wordsOf(plan: TablePlan, record: StoredRecord): string[] | undefined {
    return plan.searchFields === undefined ? undefined : this.#kit.recordWords(record, plan.searchFields);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#probe);
    await this.#feed.close();
    await this.#pool.end();
  }
}

/**
 * A decision whose one change is the create given the placeholder id, made with no read: the database may take its id
 * as it writes it.
 */
function takesIdAsWritten(decision: Decision<unknown>, view: PostgresView): boolean {
  const only = decision.changes.length === 1 ? decision.changes[0] : undefined;
  return (
    !view.begun &&
    only?.kind === 'put' &&
    only.created === true &&
    only.collection === view.provisional &&
    only.record.id === PROVISIONAL_ID
  );
}
