// Creates that arrive together written by one statement (statement-batches.ts), as the data directory's journal
// writes them with one flush (group commit). Creates of one table and shape (with or without the caller's check, with
// or without events) go out together as manyCreatesText: the rows inserted in their order, then their events under
// the feed's lock, numbered in the same order, and one NOTIFY; one commit for all.

import pg from 'pg';
import { EVENTS_CHANNEL, EVENTS_LOCK, EVENTS_SEQUENCE, EVENTS_TABLE } from './event-schema.ts';
import type { Statement } from './event-sql.ts';
import type { TablePlan } from './schema.ts';
import { quoted } from './schema.ts';
import type { CallerGuard } from './sql-records.ts';
import { callerCondition, PROVISIONAL_ID } from './sql-records.ts';
import type { BatchShape } from './statement-batches.ts';
import { StatementBatches } from './statement-batches.ts';

type Row = Record<string, unknown>;

/** One create, as insertTakingId and withEvents give it. */
export interface Create {
  /** The single statement: its row has "created" (null: the caller no longer holds) and, with events, "last". */
  readonly alone: Statement;
  /** The record's column values, in the order of the table's columns but `id` (insertTakingId's values). */
  readonly columns: readonly unknown[];
  readonly caller: CallerGuard | undefined;
  /** The create's events as one JSON array (event-sql.ts eventsJson), when it has any. */
  readonly events: string | undefined;
}

/** Sends a statement by name (postgres-store.ts runNamed) and gives its rows. */
export type SendRows = (text: string, values: unknown[]) => Promise<readonly Row[]>;

/** A create's row ("created", "last"), or why its statement failed. */
export type Created = PromiseSettledResult<Row>;

export class CreateBatches {
  readonly #send: SendRows;
  readonly #batches: StatementBatches<Create, Created>;

  /** `maxInFlight`: the statements sent at once, the pool's size. */
  constructor(send: SendRows, maxInFlight: number) {
    this.#send = send;
    this.#batches = new StatementBatches(maxInFlight);
  }

  /**
   * The row of `create`'s statement, or its failure: written at once when a connection is free, else with the creates
   * waiting with it.
   */
  async create(plan: TablePlan, create: Create): Promise<Row> {
    const checked = create.caller !== undefined;
    const withEvents = create.events !== undefined;
    const key = `${checked ? '+' : '-'}${withEvents ? '+' : '-'}${plan.table}`;
    const created = await this.#batches.send(key, () => this.#shape(plan, checked, withEvents), create);
    if (created.status === 'rejected') throw created.reason;
    return created.value;
  }

  #shape(plan: TablePlan, checked: boolean, withEvents: boolean): BatchShape<Create, Created> {
    const alone = async ({ alone: { text, values } }: Create): Promise<Created> => {
      try {
        return { status: 'fulfilled', value: (await this.#send(text, values))[0] ?? {} };
      } catch (error) {
        return { status: 'rejected', reason: error };
      }
    };
    return {
      alone,
      together: async (creates) => {
        const values: unknown[] = insertedColumns(plan).map((_, index) =>
          creates.map((create) => create.columns[index]),
        );
        if (checked)
          values.push(
            creates.map((create) => create.caller?.id),
            creates.map((create) => create.caller?.role ?? null),
          );
        if (withEvents) values.push(creates.map((create) => create.events));
        try {
          const rows = await this.#send(manyCreatesText(plan, checked, withEvents), values);
          return rows.map((row) => ({ status: 'fulfilled', value: row }));
        } catch (error) {
          // Only a statement PostgreSQL refused is known to have written nothing: a connection lost on the way may have
          // committed it.
          if (!refusedByTheDatabase(error)) throw error;
          // Refused (a row another write made impossible, a foreign key gone): sent again one create at a time, so each
          // gets the answer it would have had alone.
          return Promise.all(creates.map(alone));
        }
      },
    };
  }
}

/** An error PostgreSQL answered for the statement (node-postgres's DatabaseError): the statement was rolled back. */
function refusedByTheDatabase(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

/** The columns a create writes: all but `id`, which the identity gives (as insertTakingId). */
function insertedColumns(plan: TablePlan): TablePlan['columns'] {
  return plan.columns.filter((column) => column.name !== 'id');
}

/**
 * Many creates of one table in one statement: parameters are arrays, one per column
 * written (insertTakingId's order), then with `checked` the callers' ids and roles, then
 * with `withEvents` each create's events (a JSON array, its placeholder id replaced by the
 * row's as withEvents does). A row per create, in order: "created", its id or null when
 * its caller no longer holds; with events, "last" and "events", the newest event id of the
 * statement and how many it wrote (the same on every row).
 */
export function manyCreatesText(plan: TablePlan, checked: boolean, withEvents: boolean): string {
  const key = `${checked ? 'checked' : ''} ${withEvents ? 'events' : ''}`;
  let texts = manyCreatesTexts.get(plan);
  if (texts === undefined) {
    texts = new Map();
    manyCreatesTexts.set(plan, texts);
  }
  let text = texts.get(key);
  if (text === undefined) {
    text = buildManyCreatesText(plan, checked, withEvents);
    texts.set(key, text);
  }
  return text;
}

/** manyCreatesText's texts per table and shape, built once each. */
const manyCreatesTexts = new WeakMap<TablePlan, Map<string, string>>();

function buildManyCreatesText(plan: TablePlan, checked: boolean, withEvents: boolean): string {
  const columns = insertedColumns(plan);
  const table = quoted(plan.table);
  const arrays = columns.map((column, index) => `$${index + 1}::${column.type}[]`);
  const names = columns.map((_, index) => `"c${index}"`);
  if (checked) {
    arrays.push(`$${arrays.length + 1}::bigint[]`, `$${arrays.length + 2}::text[]`);
    names.push('"caller_id"', '"caller_role"');
  }
  if (withEvents) {
    arrays.push(`$${arrays.length + 1}::jsonb[]`);
    names.push('"events"');
  }
  const nextId = `nextval(pg_get_serial_sequence('${table}', 'id'))`;
  const id = checked
    ? `CASE WHEN ${callerCondition('"u"."caller_id"', '"u"."caller_role"')} THEN ${nextId} END`
    : nextId;
  const inserted = columns.map((column) => quoted(column.name)).join(', ');
  const values = columns.map((_, index) => `"c${index}"`).join(', ');
  const parts = [
    `"given" AS MATERIALIZED (
      SELECT "u".*, ${id} AS "id"
      FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS "u"(${names.join(', ')}, "n")
    )`,
    `"changed" AS (
      INSERT INTO ${table} ("id", ${inserted}) OVERRIDING SYSTEM VALUE
      SELECT "id", ${values} FROM "given" WHERE "id" IS NOT NULL ORDER BY "n"
      RETURNING "id"
    )`,
  ];
  if (!withEvents) {
    return `WITH ${parts.join(',\n    ')}
    SELECT "given"."id" AS "created" FROM "given" ORDER BY "given"."n"`;
  }
  parts.push(
    `"locked" AS MATERIALIZED (
      SELECT pg_advisory_xact_lock(${EVENTS_LOCK}) FROM (SELECT count(*) FROM "changed") AS "done"
    )`,
    `"added" AS (
      INSERT INTO ${quoted(EVENTS_TABLE)} ("id", "type", "collection", "record_id", "under", "owner", "at", "record")
      SELECT nextval('${quoted(EVENTS_SEQUENCE)}'), e->>'type', e->>'collection', to_jsonb("given"."id"), e->'under',
        CASE WHEN e->>'owner' = '${PROVISIONAL_ID}' THEN "given"."id" ELSE (e->>'owner')::bigint END,
        clock_timestamp(), jsonb_set(e->'record', '{id}', to_jsonb("given"."id"))
      FROM "locked", "given", jsonb_array_elements("given"."events") WITH ORDINALITY AS "event"(e, m)
      WHERE "given"."id" IS NOT NULL
      ORDER BY "given"."n", "event"."m"
      RETURNING "id"
    )`,
  );
  return `WITH ${parts.join(',\n    ')}
    SELECT "given"."id" AS "created", "summary"."last", "summary"."events"
    FROM "given"
    LEFT JOIN (
      SELECT max("id") AS "last", count(*)::integer AS "events",
        pg_notify('${EVENTS_CHANNEL}', max("id")::text) AS "notified"
      FROM "added" HAVING count(*) > 0
    ) AS "summary" ON true
    ORDER BY "given"."n"`;
}
