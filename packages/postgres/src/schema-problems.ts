// What a migration reports when stored data no longer fits the declaration (README: Your own resources;
// docs/deploying.md): the count of the records behind each problem and their first ids, and the query that finds
// them.

import type pg from 'pg';
import type { RecordId } from 'plainrest';
import { quoted } from './schema.ts';

const FIRST_IDS = 5;

/** How many records of `table` satisfy `condition`, and the first ids. */
export async function recordsWhere(
  client: pg.ClientBase,
  table: string,
  condition: string,
  parameters: unknown[] = [],
): Promise<{ count: number; firstIds: RecordId[] }> {
  // Ids as JSON, whatever the connection's type parsers: integers as numbers, uuids and chosen ids as strings.
  const result = await client.query<{ id: RecordId; total: string }>(
    `SELECT to_jsonb("t"."id") AS "id", count(*) OVER () AS total FROM ${quoted(table)} AS "t" WHERE ${condition} ` +
      `ORDER BY "t"."id" LIMIT ${FIRST_IDS}`,
    parameters,
  );
  const first = result.rows[0];
  return { count: first === undefined ? 0 : Number(first.total), firstIds: result.rows.map((row) => row.id) };
}
