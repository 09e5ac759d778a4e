// The statements behind a request's reads (postgres-view.ts): records by id, a page of a list, a lookup by value and a
// count. Outside a transaction, records by id are one named statement that also checks the caller remembered for the
// request; inside one, several statements in one round trip, led by the transaction's BEGIN when it is not yet sent.

import type pg from 'pg';
import type { Query, QueryResult, RecordId, StoredCollection, StoredRecord } from 'plainrest';
import type { Database } from './database.ts';
import type { RememberedRecords } from './remembered-records.ts';
import type { TablePlan } from './schema.ts';
import { quoted } from './schema.ts';
import type { CallerGuard } from './sql-records.ts';
import { listQuery, recordOf, recordOfJson } from './sql-records.ts';

/** A write's transaction: serializable, so that a decision and its commit see one state of the data. */
export const BEGIN = 'BEGIN ISOLATION LEVEL SERIALIZABLE';

/** What the reads use of the store (postgres-store.ts). */
export interface RowSource {
  readonly database: Database;
  readonly remembered: RememberedRecords;
  plan(collection: StoredCollection): TablePlan;
  /** Records by id in one named statement, with other requests' reads arriving at once (read-batches.ts). */
  readRows(
    tables: readonly string[],
    ids: readonly RecordId[],
    caller: CallerGuard | undefined,
  ): Promise<Record<string, unknown>>;
}

export interface WantedRecord {
  readonly collection: StoredCollection;
  /** Of the collection's kind (postgres-view.ts checks it): a safe integer, a uuid or a chosen string. */
  readonly id: RecordId;
}

/** What a read found: the records, and whether the remembered caller it checked still holds (undefined: none). */
export interface Found<T> {
  readonly found: T;
  readonly callerHolds: boolean | undefined;
}

/**
 * Records by id outside a transaction: one named statement (parsed once per connection) reads them all and checks
 * `guard`, the caller remembered for the request.
 */
export async function recordsById(
  source: RowSource,
  wanted: readonly WantedRecord[],
  guard: CallerGuard | undefined,
): Promise<Found<(StoredRecord | undefined)[]>> {
  const plans = wanted.map((want) => source.plan(want.collection));
  const row = await source.readRows(
    plans.map((plan) => plan.table),
    wanted.map((want) => want.id),
    guard,
  );
  const found = wanted.map((want, index) => {
    const value = row[`r${index}`] as Record<string, unknown> | null | undefined;
    return value === null || value === undefined
      ? undefined
      : source.remembered.sameAsLastRead(want.collection, recordOfJson(plans[index] as TablePlan, value));
  });
  return { found, callerHolds: guard === undefined ? undefined : row['caller'] === true };
}

/** Records by id in a transaction, in one round trip, after its BEGIN when `begin`. */
export async function recordsInTransaction(
  source: RowSource,
  wanted: readonly WantedRecord[],
  begin: boolean,
  client: pg.PoolClient,
): Promise<(StoredRecord | undefined)[]> {
  // Ids are written into the text (the simple protocol takes no parameters): integers, or a uuid's or a chosen id's
  // characters (letters, digits and `._~-`), quoted all the same.
  const selects = wanted.map(
    (want) => `SELECT * FROM ${quoted(source.plan(want.collection).table)} WHERE "id" = ${literal(want.id)}`,
  );
  const results = await source.database.runMany(begin ? [BEGIN, ...selects] : selects, client);
  const answers = begin ? results.slice(1) : results;
  return wanted.map((_, index) => {
    const row = answers[index]?.rows[0];
    return row === undefined ? undefined : recordOf(row);
  });
}

/** An id as an SQL literal: a number as it is, a string in single quotes (doubled within). */
function literal(id: RecordId): string {
  return typeof id === 'number' ? String(id) : `'${id.replaceAll("'", "''")}'`;
}

/** A page of a list and its total, checking `guard` outside a transaction. */
export async function pageOf(
  source: RowSource,
  collection: StoredCollection,
  query: Query,
  guard: CallerGuard | undefined,
  client: pg.PoolClient | undefined,
): Promise<Found<QueryResult>> {
  const { text, values } = listQuery(source.plan(collection), query, guard);
  const result = await source.database.runNamed(text, values, client);
  const total = Number(result.rows[0]?.['__total'] ?? 0);
  const records = result.rows
    .filter((row) => row['id'] !== null)
    .map((row) => {
      const { __total: _total, __caller: _caller, ...fields } = row;
      return source.remembered.sameAsLastRead(collection, recordOf(fields));
    });
  const callerHolds = guard === undefined ? undefined : result.rows[0]?.['__caller'] === true;
  return { found: { records, total }, callerHolds };
}

/** The first record whose `field` equals `value` ignoring case, by id. */
export async function firstIgnoringCase(
  source: RowSource,
  collection: StoredCollection,
  field: string,
  value: string,
  client: pg.PoolClient | undefined,
): Promise<StoredRecord | undefined> {
  const table = quoted(source.plan(collection).table);
  const result = await source.database.run(
    `SELECT * FROM ${table} WHERE lower(${quoted(field)}) = lower($1) ORDER BY "id" LIMIT 1`,
    [value],
    client,
  );
  const row = result.rows[0];
  return row === undefined ? undefined : recordOf(row);
}

export async function countOf(
  source: RowSource,
  collection: StoredCollection,
  client: pg.PoolClient | undefined,
): Promise<number> {
  const table = quoted(source.plan(collection).table);
  const result = await source.database.run(`SELECT count(*)::bigint AS n FROM ${table}`, [], client);
  return Number(result.rows[0]?.['n'] ?? 0);
}
