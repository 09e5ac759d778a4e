// Bringing a database's tables to a declaration at start (README: Your own resources; docs/deploying.md): what the
// declaration adds is added (tables, columns, foreign keys, indexes), and stored data that no longer fits is refused
// exactly as the data directory refuses it: every problem reported, with the count and the first ids, and then
// nothing changed. The change feed's tables (event-schema.ts) are made alongside, with the data fitting or not at all.

import type pg from 'pg';
import type { ColumnPlan, TablePlan } from './schema.ts';
import {
  addForeignKeyStatement,
  createIndexStatement,
  createTableStatement,
  foreignKeyName,
  quoted,
  SEARCH_COLUMN,
} from './schema.ts';
import { eventSchemaStatements } from './event-schema.ts';

/** Stored data the declaration no longer fits: the facts, which plainrest words as for a data directory. */
export type SchemaProblem =
  | {
      readonly kind: 'removed-collection';
      readonly collection: string;
      readonly count: number;
      readonly firstIds: readonly number[];
    }
  | {
      readonly kind: 'missing-required';
      readonly collection: string;
      readonly property: string;
      readonly count: number;
      readonly firstIds: readonly number[];
    }
  | {
      readonly kind: 'wrong-kind';
      readonly collection: string;
      readonly property: string;
      /** What the declaration now wants, as the column's type or the enum's values. */
      readonly declared: string;
      readonly count: number;
      readonly firstIds: readonly number[];
    }
  | {
      readonly kind: 'undeclared-property';
      readonly collection: string;
      readonly property: string;
      readonly count: number;
      readonly firstIds: readonly number[];
    };

export interface MigrationResult {
  /** Empty when the data fits; then `applied` holds the statements run. */
  readonly problems: readonly SchemaProblem[];
  readonly applied: readonly string[];
}

/** The table listing plainrest's collections, so a table of someone else's in the same schema is never touched. */
export const COLLECTIONS_TABLE = 'plainrest_collections';
/**
 * The advisory lock held while a start migrates, in one transaction, so several processes starting together apply it
 * once (any constant unlikely to collide: "plnr" in ASCII).
 */
const MIGRATION_LOCK = 0x706c6e72;
const FIRST_IDS = 5;

interface StoredColumn {
  readonly type: string;
  readonly nullable: boolean;
}

/**
 * Compares the database with `plans` and, when every stored record fits, applies the difference; else changes nothing.
 */
export async function migrateSchema(client: pg.ClientBase, plans: readonly TablePlan[]): Promise<MigrationResult> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted(COLLECTIONS_TABLE)} ("name" text PRIMARY KEY)`);
    const managed = (await client.query<{ name: string }>(`SELECT "name" FROM ${quoted(COLLECTIONS_TABLE)}`)).rows.map(
      (row) => row.name,
    );
    const catalog = await readCatalog(client);
    const indexes = await readIndexes(client);
    const problems: SchemaProblem[] = [];
    const statements: string[] = [];
    const declared = new Set(plans.map((plan) => plan.table));

    for (const table of managed) {
      if (declared.has(table) || !catalog.has(table)) continue;
      const { count, firstIds } = await recordsWhere(client, table, 'true');
      if (count > 0) problems.push({ kind: 'removed-collection', collection: table, count, firstIds });
    }
    for (const plan of plans) {
      const stored = catalog.get(plan.table);
      if (stored === undefined) {
        statements.push(createTableStatement(plan));
        continue;
      }
      await compareColumns(client, plan, stored, problems, statements);
    }
    if (problems.length > 0) {
      await client.query('ROLLBACK');
      return { problems, applied: [] };
    }
    for (const plan of plans) {
      for (const column of plan.columns) {
        if (
          column.references !== undefined &&
          !(await hasConstraint(client, plan.table, foreignKeyName(plan.table, column.name)))
        ) {
          statements.push(addForeignKeyStatement(plan.table, column));
        }
      }
      for (const index of plan.indexes)
        if (!indexes.has(index.name)) statements.push(createIndexStatement(plan.table, index));
    }
    statements.push(...eventSchemaStatements(new Set(catalog.keys()), indexes));
    for (const statement of orderStatements(statements)) await client.query(statement);
    for (const plan of plans)
      await client.query(`INSERT INTO ${quoted(COLLECTIONS_TABLE)} ("name") VALUES ($1) ON CONFLICT DO NOTHING`, [
        plan.table,
      ]);
    await client.query('COMMIT');
    return { problems: [], applied: statements };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Tables first, then column changes, then foreign keys (their targets exist by then), then indexes. */
function orderStatements(statements: readonly string[]): string[] {
  const rank = (statement: string): number =>
    statement.startsWith('CREATE TABLE')
      ? 0
      : statement.includes('FOREIGN KEY')
        ? 2
        : statement.startsWith('CREATE')
          ? 3
          : 1;
  return [...statements].sort((a, b) => rank(a) - rank(b));
}

async function compareColumns(
  client: pg.ClientBase,
  plan: TablePlan,
  stored: ReadonlyMap<string, StoredColumn>,
  problems: SchemaProblem[],
  statements: string[],
): Promise<void> {
  const table = quoted(plan.table);
  const collection = plan.table;
  for (const column of plan.columns) {
    const name = quoted(column.name);
    const current = stored.get(column.name);
    if (current === undefined) {
      const lacking = column.notNull ? await recordsWhere(client, plan.table, 'true') : { count: 0, firstIds: [] };
      if (lacking.count > 0) problems.push({ kind: 'missing-required', collection, property: column.name, ...lacking });
      else
        statements.push(`ALTER TABLE ${table} ADD COLUMN ${name} ${column.type}${column.notNull ? ' NOT NULL' : ''}`);
      continue;
    }
    if (current.type !== column.type) {
      const change = await typeChange(client, plan.table, column, current.type);
      if (change.misfits.count > 0)
        problems.push({
          kind: 'wrong-kind',
          collection,
          property: column.name,
          declared: column.type,
          ...change.misfits,
        });
      else statements.push(`ALTER TABLE ${table} ALTER COLUMN ${name} TYPE ${column.type} USING ${change.using}`);
    }
    const values = column.values;
    if (values !== undefined && current.type === 'text') {
      const misfits = await recordsWhere(
        client,
        plan.table,
        `${name} IS NOT NULL AND NOT (${name} = ANY($1::text[]))`,
        [values],
      );
      if (misfits.count > 0)
        problems.push({
          kind: 'wrong-kind',
          collection,
          property: column.name,
          declared: `one of ${values.join(', ')}`,
          ...misfits,
        });
    }
    if (column.notNull && current.nullable) {
      const lacking = await recordsWhere(client, plan.table, `${name} IS NULL`);
      if (lacking.count > 0) problems.push({ kind: 'missing-required', collection, property: column.name, ...lacking });
      else statements.push(`ALTER TABLE ${table} ALTER COLUMN ${name} SET NOT NULL`);
    }
    if (!column.notNull && !current.nullable)
      statements.push(`ALTER TABLE ${table} ALTER COLUMN ${name} DROP NOT NULL`);
  }
  const declaredNames = new Set(plan.columns.map((column) => column.name));
  for (const name of stored.keys()) {
    // plainrest's own columns (the words of a search) are no property: one no longer planned is left as it is.
    if (declaredNames.has(name) || name === SEARCH_COLUMN) continue;
    const holding = await recordsWhere(client, plan.table, `${quoted(name)} IS NOT NULL`);
    if (holding.count > 0) problems.push({ kind: 'undeclared-property', collection, property: name, ...holding });
    else statements.push(`ALTER TABLE ${table} DROP COLUMN ${quoted(name)}`);
  }
}

/**
 * How a column's values become the declared type, and the records whose value would not:
 * an integer column may become a number one, a number column an integer one when every
 * value is whole; any other change only when the column holds nothing.
 */
async function typeChange(
  client: pg.ClientBase,
  table: string,
  column: ColumnPlan,
  from: string,
): Promise<{ using: string; misfits: { count: number; firstIds: number[] } }> {
  const name = quoted(column.name);
  if (from === 'bigint' && column.type === 'double precision')
    return { using: `${name}::double precision`, misfits: { count: 0, firstIds: [] } };
  if (from === 'double precision' && column.type === 'bigint') {
    return {
      using: `${name}::bigint`,
      misfits: await recordsWhere(client, table, `${name} IS NOT NULL AND ${name} <> trunc(${name})`),
    };
  }
  return { using: 'NULL', misfits: await recordsWhere(client, table, `${name} IS NOT NULL`) };
}

/** How many records of `table` satisfy `condition`, and the first ids. */
async function recordsWhere(
  client: pg.ClientBase,
  table: string,
  condition: string,
  parameters: unknown[] = [],
): Promise<{ count: number; firstIds: number[] }> {
  const result = await client.query<{ id: string; total: string }>(
    `SELECT "id", count(*) OVER () AS total FROM ${quoted(table)} WHERE ${condition} ORDER BY "id" LIMIT ${FIRST_IDS}`,
    parameters,
  );
  const first = result.rows[0];
  return { count: first === undefined ? 0 : Number(first.total), firstIds: result.rows.map((row) => Number(row.id)) };
}

/**
 * The columns of the schema's tables (and views), by table, from pg_catalog: the same
 * query on information_schema.columns took 13 of a start's 28 ms of schema checks. The
 * type as information_schema spells it for the types plainrest declares: format_type
 * without the modifier (`numeric`, not `numeric(10,2)`).
 */
async function readCatalog(client: pg.ClientBase): Promise<Map<string, Map<string, StoredColumn>>> {
  const result = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
  }>(
    `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, NULL) AS data_type, ` +
      `CASE WHEN a.attnotnull THEN 'NO' ELSE 'YES' END AS is_nullable ` +
      `FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid ` +
      `JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ` +
      `WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'f') ` +
      `AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`,
  );
  const catalog = new Map<string, Map<string, StoredColumn>>();
  for (const row of result.rows) {
    let columns = catalog.get(row.table_name);
    if (columns === undefined) {
      columns = new Map();
      catalog.set(row.table_name, columns);
    }
    columns.set(row.column_name, { type: row.data_type, nullable: row.is_nullable === 'YES' });
  }
  return catalog;
}

/**
 * The names of the schema's indexes: one made by an earlier start is not asked for again (each CREATE INDEX IF NOT
 * EXISTS is a round trip).
 */
async function readIndexes(client: pg.ClientBase): Promise<Set<string>> {
  const result = await client.query<{ indexname: string }>(
    `SELECT indexname FROM pg_catalog.pg_indexes WHERE schemaname = current_schema()`,
  );
  return new Set(result.rows.map((row) => row.indexname));
}

async function hasConstraint(client: pg.ClientBase, table: string, name: string): Promise<boolean> {
  const result = await client.query(`SELECT 1 FROM pg_constraint WHERE conname = $1 AND conrelid = to_regclass($2)`, [
    name,
    quoted(table),
  ]);
  return result.rowCount === 1;
}
