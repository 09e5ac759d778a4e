// A write on PostgreSQL (docs/deploying.md): decided inside one SERIALIZABLE transaction and its changes applied with
// their events, decided again on a conflict; a create that read nothing is one statement that takes its id as it is
// written, and the caller remembered for the request is confirmed before COMMIT.

import type pg from 'pg';
import type { Change, Decision, ResourceTable, StoredRecord } from 'plainrest';
import type { CoreKit } from './core-kit.ts';
import type { CreateBatches } from './create-batches.ts';
import type { Database } from './database.ts';
import { isConnectionFailure } from './database.ts';
import type { PostgresFeed } from './event-feed.ts';
import type { Statement } from './event-sql.ts';
import { eventsJson, withEvents } from './event-sql.ts';
import { named } from './named-statements.ts';
import type { PostgresView } from './postgres-view.ts';
import { guardOf, isStill } from './remembered-caller.ts';
import type { RememberedRecords } from './remembered-records.ts';
import { CallerChanged, loaded } from './request-runs.ts';
import type { TablePlan } from './schema.ts';
import { quoted } from './schema.ts';
import { insertTakingId, PROVISIONAL_ID, upsert } from './sql-records.ts';

/**
 * SQLSTATEs after which a write is rolled back and decided again on the data as it is then: serialization_failure,
 * deadlock_detected, unique_violation, foreign_key_violation. So two racing creates of one unique value give one 201
 * and one 409, two racing transitions one 200 and one 409.
 */
const RETRYABLE = new Set(['40001', '40P01', '23505', '23503']);

/** What the writes use of the store (postgres-store.ts). */
export interface WriteParts {
  readonly database: Database;
  readonly kit: CoreKit;
  readonly feed: PostgresFeed;
  /** Creates that read nothing, written together when they arrive together. */
  readonly creates: CreateBatches;
  readonly remembered: RememberedRecords;
  /** Attempts of one write before it is answered 503 (each decided again on fresher data). */
  readonly maxAttempts: number;
  plan(collection: string): TablePlan;
  /** The declared resources, once known: their changes are written with their events. */
  table(): ResourceTable | undefined;
  readCaller(id: number, client?: pg.PoolClient): Promise<StoredRecord | undefined>;
}

export class WriteTransactions {
  readonly #parts: WriteParts;

  constructor(parts: WriteParts) {
    this.#parts = parts;
  }

  /**
   * Runs `decide` with `view` inside a serializable transaction, then its changes; again on
   * a conflict. The transaction begins with the decision's first read (the view sends
   * BEGIN with it); taking an id reads nothing (a sequence is outside transactions).
   */
  async run<T>(view: PostgresView, decide: () => Decision<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#parts.database.connect();
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
        if (last !== undefined) this.#parts.feed.written(events?.count ?? 0, last);
        this.#forgetWrittenUsers(changes);
        return result;
      } catch (error) {
        broken = isConnectionFailure(error);
        if (!broken && view.begun) await client.query('ROLLBACK').catch(() => {});
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'string' || !RETRYABLE.has(code)) throw this.#parts.database.translate(error);
        if (attempt >= this.#parts.maxAttempts)
          throw this.#parts.kit.unavailable('the write kept meeting other writes; retry it');
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
    const table = this.#parts.table();
    if (table === undefined || decision.changes.length === 0) return decision;
    const changes = this.#parts.kit.describeChanges(table, decision.changes, view);
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
    const plan = this.#parts.plan(change.collection);
    const remembered = view.unconfirmedCaller;
    const caller = remembered === undefined ? undefined : guardOf(remembered);
    const insert = insertTakingId(plan, change.record, this.#wordsOf(plan, change.record), caller);
    const events = eventsJson(first.changes);
    const alone =
      events === undefined
        ? { text: `${insert.text} RETURNING "id" AS "created"`, values: insert.values }
        : withEvents(insert, events.json, true);
    const columns = caller === undefined ? insert.values : insert.values.slice(0, -2);
    const row = await this.#parts.creates.create(plan, { alone, columns, caller, events: events?.json });
    if (row['created'] === null || row['created'] === undefined) view.callerNoLongerHolds();
    view.callerConfirmed();
    // Written together with others, the statement's events are counted together (create-batches.ts).
    if (events !== undefined)
      this.#parts.feed.written(row['events'] === undefined ? events.count : Number(row['events']), Number(row['last']));
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
    if (isStill(caller, await this.#parts.readCaller(caller.id as number, client))) {
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
      if (change.collection !== 'users') continue;
      const id = change.kind === 'put' ? change.record.id : change.id;
      this.#parts.remembered.rememberCaller(id as number, undefined); // users' ids are integers
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
    const plan = this.#parts.plan(change.collection);
    if (change.kind === 'delete')
      return { text: `DELETE FROM ${quoted(plan.table)} WHERE "id" = $1`, values: [change.id] };
    return upsert(plan, change.record, this.#wordsOf(plan, change.record));
  }

  /** The record's search words, for the table's words column (none without `x-search` properties). */
  #wordsOf(plan: TablePlan, record: StoredRecord): string[] | undefined {
    return plan.searchFields === undefined ? undefined : this.#parts.kit.recordWords(record, plan.searchFields);
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
