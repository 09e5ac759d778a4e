// Bringing a database's tables to a declaration at start (README: Your own resources; docs/deploying.md): what the
// declaration adds is added (tables, columns, foreign keys, indexes), and stored data that no longer fits is refused
// exactly as the data directory refuses it: every problem reported, with the count and the first ids, and then
// nothing changed. The change feed's tables (event-schema.ts) are made alongside, with the data fitting or not at all.

import type pg from 'pg';
import type { TablePlan } from './schema.ts';
import {
  addForeignKeyStatement,
  createIndexStatement,
  createTableStatement,
  foreignKeyName,
  quoted,
} from './schema.ts';
import { eventSchemaStatements } from './event-schema.ts';
import { compareColumns } from './column-changes.ts';
import { constraintKey, readCatalog, readConstraints, readIndexes } from './schema-catalog.ts';
import type { SchemaProblem } from 'plainrest';
import { recordsWhere } from './schema-problems.ts';

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
      if (plan.singleton !== true) continue;
      const others = await recordsWhere(client, plan.table, `"id" <> 1`);
      if (others.count > 0) problems.push({ kind: 'not-the-singleton', collection: plan.table, ...others });
    }
    if (problems.length > 0) {
      await client.query('ROLLBACK');
      return { problems, applied: [] };
    }
    const referring = plans.some((plan) => plan.columns.some((column) => column.references !== undefined));
    const constraints = referring ? await readConstraints(client) : new Set<string>();
    for (const plan of plans) {
      for (const column of plan.columns) {
        if (column.references === undefined) continue;
        if (!constraints.has(constraintKey(plan.table, foreignKeyName(plan.table, column.name))))
          statements.push(addForeignKeyStatement(plan.table, column));
      }
      for (const index of plan.indexes)
        if (!indexes.has(index.name)) statements.push(createIndexStatement(plan.table, index));
    }
    statements.push(...eventSchemaStatements(catalog, indexes));
    for (const statement of orderStatements(statements)) await client.query(statement);
    // In one statement, and only the collections not listed yet: none on a start that changes nothing.
    const unlisted = plans.map((plan) => plan.table).filter((table) => !managed.includes(table));
    if (unlisted.length > 0)
      await client.query(
        `INSERT INTO ${quoted(COLLECTIONS_TABLE)} ("name") SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`,
        [unlisted],
      );
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
