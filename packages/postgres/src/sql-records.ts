// Records as rows and back, and the list query in SQL (README: Lists): its filters, bounds and other operators
// (sql-conditions.ts), a search (the words column contains every word asked, through its GIN index), the sort keys
// then `id` for ties, offset and limit, and the total of matching rows in the same round trip.

import type { Condition, Query, RecordId, StoredRecord } from 'plainrest';
import type { ColumnPlan, TablePlan } from './schema.ts';
import { quoted, SEARCH_COLUMN } from './schema.ts';
import { conditionSql } from './sql-conditions.ts';

/**
 * A row as plainrest stores it: no null members (an absent optional property), integer ids as numbers (uuids and
 * chosen ids as text), timestamps in ISO 8601.
 */
export function recordOf(row: Record<string, unknown>): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const name in row) {
    if (name === SEARCH_COLUMN) continue;
    const value = row[name];
    if (value === null || value === undefined) continue;
    record[name] = value instanceof Date ? value.toISOString() : value;
  }
  return Object.freeze(record) as StoredRecord;
}

/**
 * Rows by id from several tables in one named statement (named-statements.ts): one
 * column per row asked, the row as `to_jsonb`, so the result's columns stay the same
 * whatever columns the tables gain. With `caller`, a column "caller" too: whether that
 * caller still holds.
 */
export function rowsByIdQuery(
  wanted: readonly { readonly table: string; readonly id: RecordId }[],
  caller: CallerGuard | undefined,
): { text: string; values: unknown[] } {
  const values: unknown[] = wanted.map((want) => want.id);
  if (caller !== undefined) values.push(caller.id, caller.role);
  const texts = caller === undefined ? rowsByIdTexts.unchecked : rowsByIdTexts.checked;
  const tables =
    wanted.length === 1 ? (wanted[0] as { readonly table: string }).table : wanted.map((want) => want.table).join('\n');
  let text = texts.get(tables);
  if (text === undefined) {
    const rows = wanted.map(
      (want, index) => `(SELECT to_jsonb(t) FROM ${quoted(want.table)} t WHERE "id" = $${index + 1}) AS "r${index}"`,
    );
    if (caller !== undefined) rows.push(`${callerCheck(wanted.length + 1)} AS "caller"`);
    text = `SELECT ${rows.join(', ')}`;
    texts.set(tables, text);
  }
  return { text, values };
}

/**
 * rowsByIdQuery for many reads of the same tables in one statement (read-batches.ts): the
 * parameters are arrays, one per table read (the ids, of the table's `idTypes`) and with `checked` two more (each
 * read's caller's id and role); one row per read, in the arrays' order, with the columns
 * rowsByIdQuery gives one read.
 */
export function rowsByIdBatchQuery(tables: readonly string[], idTypes: readonly string[], checked: boolean): string {
  const texts = checked ? rowsByIdTexts.checkedBatch : rowsByIdTexts.uncheckedBatch;
  const key = tables.join('\n');
  let text = texts.get(key);
  if (text === undefined) {
    const arrays = tables.map((_, index) => `$${index + 1}::${idTypes[index] ?? 'bigint'}[]`);
    const names = tables.map((_, index) => `"i${index}"`);
    const rows = tables.map(
      (table, index) =>
        `(SELECT to_jsonb(t) FROM ${quoted(table)} t WHERE t."id" = "__read"."i${index}") AS "r${index}"`,
    );
    if (checked) {
      arrays.push(`$${tables.length + 1}::bigint[]`, `$${tables.length + 2}::text[]`);
      names.push('"caller_id"', '"caller_role"');
      rows.push(`${callerCondition('"__read"."caller_id"', '"__read"."caller_role"')} AS "caller"`);
    }
    text =
      `SELECT ${rows.join(', ')} FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS ` +
      `"__read"(${names.join(', ')}, "n") ORDER BY "__read"."n"`;
    texts.set(key, text);
  }
  return text;
}

/**
 * rowsByIdQuery's and rowsByIdBatchQuery's texts by the tables read (as many as a path has
 * levels), with and without the caller's check: each built once, so that a read finds its
 * statement's name (named-statements.ts) without building its text and hashing it again.
 */
const rowsByIdTexts = {
  checked: new Map<string, string>(),
  unchecked: new Map<string, string>(),
  checkedBatch: new Map<string, string>(),
  uncheckedBatch: new Map<string, string>(),
};

/**
 * A row read by rowsByIdQuery: its timestamps in ISO 8601 in UTC, as the connections' type parsers give them in a row
 * (open.ts types).
 */
export function recordOfJson(plan: TablePlan, row: Record<string, unknown>): StoredRecord {
  for (const column of plan.columns) {
    const value = row[column.name];
    if (column.type === 'timestamp with time zone' && typeof value === 'string') row[column.name] = isoTimestamp(value);
  }
  return recordOf(row);
}

/**
 * A timestamp as PostgreSQL writes it (`2026-11-24 19:29:05.01+00` in a row,
 * `2026-11-24T19:29:05.01+00:00` in JSON) as `Date.prototype.toISOString` would give it
 * (`2026-11-24T19:29:05.010Z`: milliseconds, the rest cut off). A time in UTC, the
 * session's zone here, is rewritten as text; any other goes through Date.
 */
export function isoTimestamp(text: string): string {
  const utc = text.endsWith('+00') ? 3 : text.endsWith('+00:00') ? 6 : 0;
  const end = text.length - utc;
  if (utc === 0 || end < 19 || text.charCodeAt(4) !== 45 /* - */ || (end > 19 && text.charCodeAt(19) !== 46) /* . */)
    return new Date(text).toISOString();
  const milliseconds = end > 19 ? `${text.slice(20, Math.min(end, 23))}00`.slice(0, 3) : '000';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${milliseconds}Z`;
}

/**
 * INSERT … ON CONFLICT (id) DO UPDATE: a put replaces the whole record, absent members becoming NULL; `words`: its
 * search words (SEARCH_COLUMN).
 */
export function upsert(
  plan: TablePlan,
  record: StoredRecord,
  words?: readonly string[],
): { text: string; values: unknown[] } {
  const columns = plan.columns;
  const values = columns.map((column) =>
    columnValue(column, column.name === SEARCH_COLUMN ? words : record[column.name]),
  );
  const names = columns.map((column) => quoted(column.name));
  const updates = columns
    .filter((column) => column.name !== 'id')
    .map((column) => `${quoted(column.name)} = EXCLUDED.${quoted(column.name)}`);
  return {
    text:
      `INSERT INTO ${quoted(plan.table)} (${names.join(', ')}) OVERRIDING SYSTEM VALUE VALUES ` +
      `(${columns.map((_, index) => `$${index + 1}`).join(', ')}) ` +
      `ON CONFLICT ("id") DO UPDATE SET ${updates.join(', ')}`,
    values,
  };
}

/**
 * The id a decision is given for a record whose id the database takes as it writes it
 * (postgres-store.ts: a create in one statement). No record has it: identities start at 1.
 */
export const PROVISIONAL_ID = 0;

/**
 * Who the request's caller was when remembered (postgres-store.ts): the request is answered only if that user still
 * exists with that role.
 */
export interface CallerGuard {
  readonly id: number;
  readonly role: unknown;
}

/** SQL true when `caller`'s user still exists with its role; its id and role are added to `values` as parameters. */
function callerHolds(caller: CallerGuard, values: unknown[]): string {
  values.push(caller.id, caller.role);
  return callerCheck(values.length - 1);
}

/** The caller's check, its id and role the statement's parameters `first` and `first + 1`. */
function callerCheck(first: number): string {
  return callerCondition(`$${first}::bigint`, `$${first + 1}::text`);
}

/** SQL true when the user `id` exists with the role `role` (both SQL expressions). */
export function callerCondition(id: string, role: string): string {
  return `EXISTS (SELECT 1 FROM "users" WHERE "id" = ${id} AND "role" IS NOT DISTINCT FROM ${role})`;
}

/**
 * A new record, its id left to the table's identity (INSERT … SELECT without the id
 * column), inserted only if `caller` still holds; RETURNING "id" (none: not inserted).
 */
export function insertTakingId(
  plan: TablePlan,
  record: StoredRecord,
  words: readonly string[] | undefined,
  caller: CallerGuard | undefined,
): { text: string; values: unknown[] } {
  const columns = plan.columns.filter((column) => column.name !== 'id');
  const values = columns.map((column) =>
    columnValue(column, column.name === SEARCH_COLUMN ? words : record[column.name]),
  );
  if (caller !== undefined) values.push(caller.id, caller.role);
  let texts = insertTexts.get(plan);
  if (texts === undefined) {
    texts = {};
    insertTexts.set(plan, texts);
  }
  const checked = caller !== undefined;
  let text = checked ? texts.checked : texts.unchecked;
  if (text === undefined) {
    const names = columns.map((column) => quoted(column.name));
    // Typed: a parameter in a SELECT list takes no type from the column it goes to.
    const selected = columns.map((column, index) => `$${index + 1}::${column.type}`);
    text =
      `INSERT INTO ${quoted(plan.table)} (${names.join(', ')}) SELECT ` +
      `${selected.join(', ')}${checked ? ` WHERE ${callerCheck(columns.length + 1)}` : ''}`;
    if (checked) texts.checked = text;
    else texts.unchecked = text;
  }
  return { text, values };
}

/** insertTakingId's texts per table, with and without the caller's check: built once each, as rowsByIdQuery's are. */
const insertTexts = new WeakMap<TablePlan, { checked?: string; unchecked?: string }>();

function columnValue(column: ColumnPlan, value: unknown): unknown {
  if (value === undefined) return null;
  return column.type === 'jsonb' ? JSON.stringify(value) : value;
}

/**
 * One SQL statement for a page of a list and the total: rows of the page with `__total`
 * beside each, or one row of only `__total` when the page is empty. With `caller`, a
 * column `__caller` beside them: whether that caller still holds.
 */
export function listQuery(plan: TablePlan, query: Query, caller?: CallerGuard): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  // A value compared with a jsonb column (an enum of numbers and text) is sent as JSON.
  const jsonb = new Set(plan.columns.filter((column) => column.type === 'jsonb').map((column) => column.name));
  const uuids = new Set(plan.columns.filter((column) => column.type === 'uuid').map((column) => column.name));
  const sql = (condition: Condition): string =>
    conditionSql(condition, values, jsonb.has(condition.field), uuids.has(condition.field));
  const conditions = query.filters.map((filter) => sql({ ...filter, op: 'eq' }));
  if (query.search !== undefined) {
    values.push(JSON.stringify(query.search.words));
    conditions.push(`${quoted(SEARCH_COLUMN)} @> $${values.length}::jsonb`);
  }
  for (const range of query.ranges ?? []) conditions.push(sql(range));
  for (const condition of query.conditions ?? []) conditions.push(sql(condition));
  if (query.anyOf !== undefined) conditions.push(`(${query.anyOf.map(sql).join(' OR ')})`);
  const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
  const orderBy = (prefix: string): string =>
    [
      ...query.sort.map((key) => `${prefix}${quoted(key.field)} ${key.descending ? 'DESC' : 'ASC'}`),
      `${prefix}"id" ASC`,
    ].join(', ');
  const limit = Number.isFinite(query.limit) ? ` LIMIT ${Math.max(0, Math.floor(query.limit))}` : '';
  const offset = query.offset > 0 ? ` OFFSET ${Math.floor(query.offset)}` : '';
  const table = quoted(plan.table);
  // The plan's columns, not `*`: the statement is sent by name (named-statements.ts), and its result must not change if
  // another process adds one.
  const columns = plan.columns
    .filter((column) => column.name !== SEARCH_COLUMN)
    .map((column) => quoted(column.name))
    .join(', ');
  const guard = caller === undefined ? '' : `, ${callerHolds(caller, values)} AS "__caller"`;
  return {
    text:
      `WITH matching AS (SELECT ${columns} FROM ${table}${where}), ` +
      `page AS (SELECT * FROM matching ORDER BY ${orderBy('')}${limit}${offset}) ` +
      `SELECT page.*, total.n AS "__total"${guard} FROM (SELECT count(*)::bigint AS n FROM matching) total ` +
      `LEFT JOIN page ON true ORDER BY ${orderBy('page.')}`,
    values,
  };
}
