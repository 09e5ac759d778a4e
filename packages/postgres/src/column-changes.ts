// One table's columns brought to its plan in a migration (docs/deploying.md): each column added, retyped, made
// required or optional, or dropped, as the declaration now says; or, where stored records do not fit the change,
// the problem they make instead.

import type pg from 'pg';
import type { ColumnPlan, TablePlan } from './schema.ts';
import { quoted, SEARCH_COLUMN } from './schema.ts';
import type { StoredColumn } from './schema-catalog.ts';
import type { RecordId, SchemaProblem } from 'plainrest';
import { recordsWhere } from './schema-problems.ts';

/** Each column of `plan` against the table's `stored` ones: the changes to `statements`, the misfits to `problems`. */
export async function compareColumns(
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
    if (column.name === 'id' && current.type !== column.type) {
      // Ids are never converted: records, references to them and their events would all change.
      const { count, firstIds } = await recordsWhere(client, plan.table, 'true');
      problems.push({
        kind: 'wrong-id-kind',
        collection,
        declared: plan.idKind,
        stored: current.type,
        count,
        firstIds,
      });
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
): Promise<{ using: string; misfits: { count: number; firstIds: RecordId[] } }> {
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
