// What a migration reports when stored data no longer fits the declaration (README: Your own resources;
// docs/deploying.md): each kind of problem with the count of the records behind it and their first ids, and the
// query that finds them.

import type pg from 'pg';
import { quoted } from './schema.ts';

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

const FIRST_IDS = 5;

/** How many records of `table` satisfy `condition`, and the first ids. */
export async function recordsWhere(
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
