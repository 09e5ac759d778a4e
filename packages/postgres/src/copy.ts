// A whole database at once, for plainrest's command line (docs/deploying.md): `plainrest copy` reads every record with
// each table's next id, or writes them into an empty database in one transaction, ids kept; `plainrest token` finds a
// user by email. A database that cannot be reached is an answer (`unreachable`), not an exception.

import pg from 'pg';
import type { ResourceTable, StoredRecord } from 'plainrest';
import { describeFailure, types } from './open.ts';
import { isConnectionFailure } from './database.ts';
import type { SchemaProblem } from 'plainrest';
import { COLLECTIONS_TABLE, migrateSchema } from './schema-migration.ts';
import type { TablePlan } from './schema.ts';
import { quoted, schemaOf } from './schema.ts';
import { recordOf, upsert } from './sql-records.ts';

/** One collection as it moves between stores: its records in id order, and the id the next record created gets. */
export interface CollectionCopy {
  readonly records: readonly StoredRecord[];
  readonly nextId: number;
}

export type Unreachable = { readonly kind: 'unreachable'; readonly reason: string };
export type ReadResult =
  | { readonly kind: 'read'; readonly collections: ReadonlyMap<string, CollectionCopy> }
  | { readonly kind: 'misfit'; readonly problems: readonly SchemaProblem[] }
  | Unreachable;
export type WriteResult =
  | { readonly kind: 'written' }
  | { readonly kind: 'not-empty'; readonly tables: readonly string[] }
  | { readonly kind: 'misfit'; readonly problems: readonly SchemaProblem[] }
  | Unreachable;
export type FindResult =
  | { readonly kind: 'found'; readonly record: StoredRecord }
  | { readonly kind: 'missing' }
  | { readonly kind: 'no-table' }
  | Unreachable;

const CONNECT_TIMEOUT_MS = 5000;
/** PostgreSQL takes at most 65,535 parameters in one statement; a thousand rows at a time stays well within it. */
const ROWS_PER_INSERT = 1000;
const MAX_PARAMETERS = 65_535;
/** SQLSTATE undefined_table. */
const UNDEFINED_TABLE = '42P01';

/**
 * Every record of every declared table, and the idempotency keys, read in one
 * REPEATABLE READ transaction so that they belong together. The tables are first brought
 * to the declaration as a start would (migrateSchema): stored data it no longer fits is
 * reported and nothing is read.
 */
export async function readAllRecords(url: string, resources: ResourceTable): Promise<ReadResult> {
  return withClient(url, async (client) => {
    const plans = schemaOf(resources);
    const { problems } = await migrateSchema(client, plans);
    if (problems.length > 0) return { kind: 'misfit', problems };
    const collections = new Map<string, CollectionCopy>();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    for (const plan of plans) {
      const rows = await client.query<Record<string, unknown>>(`SELECT * FROM ${quoted(plan.table)} ORDER BY "id"`);
      const records = rows.rows.map(recordOf);
      // Uuids and chosen ids are taken from no sequence: such a collection's next id stays 1, unused.
      const highest = plan.idKind === 'integer' ? ((records.at(-1)?.id as number | undefined) ?? 0) : 0;
      const next = plan.idKind === 'integer' ? await sequenceNext(client, plan.table) : 1;
      collections.set(plan.table, { records, nextId: Math.max(next, highest + 1) });
    }
    await client.query('COMMIT');
    return { kind: 'read', collections };
  });
}

/**
 * Writes `collections` into a database none of whose plainrest tables holds a row: the
 * tables from the declaration (migrateSchema), then every record with its id, parents
 * and referenced tables first, and each table's sequence set to the collection's next
 * id, all in one transaction that also locks the tables against writers. A database
 * holding any row is refused before anything is changed (`not-empty`, naming the tables).
 */
export async function writeAllRecords(
  url: string,
  resources: ResourceTable,
  collections: ReadonlyMap<string, CollectionCopy>,
): Promise<WriteResult> {
  return withClient(url, async (client) => {
    const plans = schemaOf(resources);
    const before = await tablesWithRows(client, await existingTables(client, plans));
    if (before.length > 0) return { kind: 'not-empty', tables: before };
    const { problems } = await migrateSchema(client, plans);
    if (problems.length > 0) return { kind: 'misfit', problems };
    await client.query('BEGIN');
    try {
      await client.query(`LOCK TABLE ${plans.map((plan) => quoted(plan.table)).join(', ')} IN EXCLUSIVE MODE`);
      const meanwhile = await tablesWithRows(
        client,
        plans.map((plan) => plan.table),
      );
      if (meanwhile.length > 0) {
        await client.query('ROLLBACK');
        return { kind: 'not-empty', tables: meanwhile };
      }
      for (const plan of plans) await insertAll(client, plan, collections.get(plan.table)?.records ?? []);
      // Last: setval is not undone by a rollback, so it comes after everything that could fail.
      for (const plan of plans) {
        if (plan.idKind !== 'integer') continue;
        const nextId = collections.get(plan.table)?.nextId ?? 1;
        await client.query(`SELECT setval(pg_get_serial_sequence($1, 'id'), $2, false)`, [quoted(plan.table), nextId]);
      }
      await client.query('COMMIT');
      return { kind: 'written' };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}

/** The user with `email`, compared ignoring case as logins compare it; reads only, changes nothing. */
export async function findUserByEmail(url: string, email: string): Promise<FindResult> {
  return withClient(url, async (client) => {
    try {
      const result = await client.query<Record<string, unknown>>(
        `SELECT * FROM "users" WHERE lower("email") = lower($1) ORDER BY "id" LIMIT 1`,
        [email],
      );
      const row = result.rows[0];
      return row === undefined ? { kind: 'missing' } : { kind: 'found', record: recordOf(row) };
    } catch (error) {
      if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return { kind: 'no-table' };
      throw error;
    }
  });
}

/**
 * One connection for the work, with the store's type parsers (open.ts), always closed; a connection failure becomes
 * `unreachable`.
 */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T | Unreachable> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types: types as unknown as pg.CustomTypesConfig,
  });
  // A connection the server drops between statements must not crash the process: the statement fails instead.
  client.on('error', () => {});
  try {
    await client.connect();
    return await work(client);
  } catch (error) {
    if (isConnectionFailure(error)) return { kind: 'unreachable', reason: describeFailure(error) };
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The id the table's identity sequence hands out next (`last_value` is that id itself until the sequence is first
 * used).
 */
async function sequenceNext(client: pg.Client, table: string): Promise<number> {
  const name = (
    await client.query<{ name: string }>(`SELECT pg_get_serial_sequence($1, 'id') AS name`, [quoted(table)])
  ).rows[0]?.name;
  if (name === undefined) return 1;
  // pg_get_serial_sequence quotes the name as SQL needs it.
  const state = (
    await client.query<{ last_value: number; is_called: boolean }>(`SELECT last_value, is_called FROM ${name}`)
  ).rows[0];
  if (state === undefined) return 1;
  return state.is_called ? state.last_value + 1 : state.last_value;
}

/**
 * The declared tables that exist, and the tables of collections plainrest once created here (plainrest_collections).
 */
async function existingTables(client: pg.Client, plans: readonly TablePlan[]): Promise<string[]> {
  const present = async (table: string): Promise<boolean> =>
    (await client.query<{ found: string | null }>(`SELECT to_regclass($1)::text AS found`, [quoted(table)])).rows[0]
      ?.found !== null;
  const tables = new Set<string>();
  if (await present(COLLECTIONS_TABLE)) {
    for (const row of (await client.query<{ name: string }>(`SELECT "name" FROM ${quoted(COLLECTIONS_TABLE)}`)).rows)
      tables.add(row.name);
  }
  for (const plan of plans) tables.add(plan.table);
  const existing: string[] = [];
  for (const table of tables) if (await present(table)) existing.push(table);
  return existing;
}

async function tablesWithRows(client: pg.Client, tables: readonly string[]): Promise<string[]> {
  const holding: string[] = [];
  for (const table of tables) {
    const result = await client.query(`SELECT 1 FROM ${quoted(table)} LIMIT 1`);
    if (result.rowCount !== null && result.rowCount > 0) holding.push(table);
  }
  return holding;
}

/**
 * Many rows per INSERT, each converted as the store converts one (sql-records.ts `upsert`: jsonb as text, absent as
 * NULL).
 */
async function insertAll(client: pg.Client, plan: TablePlan, records: readonly StoredRecord[]): Promise<void> {
  const columns = plan.columns.map((column) => quoted(column.name)).join(', ');
  const perStatement = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / plan.columns.length)));
  for (let start = 0; start < records.length; start += perStatement) {
    const values: unknown[] = [];
    const rows: string[] = [];
    for (const record of records.slice(start, start + perStatement)) {
      const first = values.length;
      values.push(...upsert(plan, record).values);
      rows.push(`(${plan.columns.map((_, index) => `$${first + index + 1}`).join(', ')})`);
    }
    await client.query(
      `INSERT INTO ${quoted(plan.table)} (${columns}) OVERRIDING SYSTEM VALUE VALUES ${rows.join(', ')}`,
      values,
    );
  }
}
