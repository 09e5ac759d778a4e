// What a PostgreSQL schema holds before a migration (docs/deploying.md), read from pg_catalog: the columns of its
// tables and views with their types and nullability, the names of its indexes and those of its constraints.

import type pg from 'pg';

export interface StoredColumn {
  readonly type: string;
  readonly nullable: boolean;
}

/**
 * The columns of the schema's tables (and views), by table, from pg_catalog: the same
 * query on information_schema.columns took 13 of a start's 28 ms of schema checks. The
 * type as information_schema spells it for the types plainrest declares: format_type
 * without the modifier (`numeric`, not `numeric(10,2)`).
 */
export async function readCatalog(client: pg.ClientBase): Promise<Map<string, Map<string, StoredColumn>>> {
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
export async function readIndexes(client: pg.ClientBase): Promise<Set<string>> {
  const result = await client.query<{ indexname: string }>(
    `SELECT indexname FROM pg_catalog.pg_indexes WHERE schemaname = current_schema()`,
  );
  return new Set(result.rows.map((row) => row.indexname));
}

/**
 * The names of the constraints on the schema's tables, as `constraintKey` spells them: one read, where a start asked
 * for each reference's foreign key by name (a round trip each).
 */
export async function readConstraints(client: pg.ClientBase): Promise<Set<string>> {
  const result = await client.query<{ table_name: string; constraint_name: string }>(
    `SELECT c.relname AS table_name, k.conname AS constraint_name FROM pg_catalog.pg_constraint k ` +
      `JOIN pg_catalog.pg_class c ON c.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ` +
      `WHERE n.nspname = current_schema()`,
  );
  return new Set(result.rows.map((row) => constraintKey(row.table_name, row.constraint_name)));
}

/** A constraint's entry in readConstraints's set: its table's name and its own (unique together, not alone). */
export function constraintKey(table: string, name: string): string {
  return `${table}\0${name}`;
}
