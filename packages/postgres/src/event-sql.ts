// The change feed in SQL (README: Events): a commit's events written with its last change in one statement, numbered
// in commit order for every process; the feed's window, a page with the same filter as plainrest's EventLog, the rows
// after a position, and the retention that deletes the oldest. Rows become plainrest's FeedEvent here.

import type { Change, EventFilter, FeedEvent, RecordId, Retention, StoredRecord } from 'plainrest';
import { EVENTS_CHANNEL, EVENTS_LOCK, EVENTS_SEQUENCE, EVENTS_TABLE, KEPT_TABLE } from './event-schema.ts';
import { quoted } from './schema.ts';
import { PROVISIONAL_ID, recordOf } from './sql-records.ts';

export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

const EVENTS = quoted(EVENTS_TABLE);
const KEPT = quoted(KEPT_TABLE);

/**
 * The events of `changes` (those with event facts) as one JSON array for the statement below, and how many; undefined
 * when there are none.
 */
export function eventsJson(changes: readonly Change[]): { readonly json: string; readonly count: number } | undefined {
  const parts: string[] = [];
  for (const change of changes) {
    const facts = change.event;
    if (facts === undefined) continue;
    const recordId = change.kind === 'put' ? change.record.id : change.id;
    const owner = facts.owner === undefined ? '' : `,"owner":${facts.owner}`;
    // A put's record as the writer serialised it, when it did (Change.json).
    const record = change.kind === 'put' ? `,"record":${change.json ?? JSON.stringify(change.record)}` : '';
    parts.push(
      `{"type":"${facts.type}","collection":${JSON.stringify(change.collection)},` +
        `"record_id":${JSON.stringify(recordId)},` +
        `"under":${JSON.stringify(facts.under)}${owner}${record}}`,
    );
  }
  return parts.length === 0 ? undefined : { json: `[${parts.join(',')}]`, count: parts.length };
}

/**
 * `change` (an INSERT or a DELETE) and the commit's `events` in one statement; it answers
 * the last event id (`last`). Once the change has been made — so that a commit waiting
 * here on another's row holds no lock that one needs — it takes the advisory lock
 * EVENTS_LOCK, then one id per event from the sequence, in order. The lock is held until
 * the transaction is visible, so ids are taken in commit order and a reader that has seen
 * an id has seen every smaller one that will ever commit. pg_notify is delivered at the
 * commit, to every process's feed. In an autocommit statement it is all one transaction.
 *
 * `takesId`: `change` is a create that lets its table's identity take the id (sql-records.ts insertTakingId)
 * and returns it, perhaps inserting nothing; the events then carry that id where the
 * decision had the placeholder (PROVISIONAL_ID: the record's id, and its owner when it
 * owns itself, a user), there are none when nothing was inserted, and `created` answers the id.
 */
export function withEvents(change: Statement, events: string, takesId = false): Statement {
  const texts = takesId ? withEventsTexts.takingId : withEventsTexts.given;
  let text = texts.get(change.text);
  if (text === undefined) {
    text = withEventsText(change, takesId);
    if (texts.size < MAX_REMEMBERED_TEXTS) texts.set(change.text, text);
  }
  return { text, values: [...change.values, events] };
}

/**
 * withEvents's texts by the change's text, built once each: a create's text is the same
 * string every time (sql-records.ts insertTakingId), so finding it costs no hashing of
 * its thousand characters, nor does finding the statement's name (named-statements.ts).
 */
const withEventsTexts = { given: new Map<string, string>(), takingId: new Map<string, string>() };
/** Texts kept at most (a write's text is one of a few per table; the bound is a guard). */
const MAX_REMEMBERED_TEXTS = 500;

function withEventsText(change: Statement, takesId: boolean): string {
  const at = change.values.length + 1;
  const recordId = takesId ? 'to_jsonb("changed"."id")' : "e->'record_id'";
  const owner = takesId
    ? `CASE WHEN e->>'owner' = '${PROVISIONAL_ID}' THEN "changed"."id" ELSE (e->>'owner')::bigint END`
    : "(e->>'owner')::bigint";
  const record = takesId ? `jsonb_set(e->'record', '{id}', to_jsonb("changed"."id"))` : "e->'record'";
  const answer = takesId
    ? `SELECT (SELECT "id" FROM "changed") AS "created", (SELECT max("id") FROM "added") AS "last",
        (SELECT pg_notify('${EVENTS_CHANNEL}', max("id")::text) FROM "added" HAVING count(*) > 0)`
    : `SELECT max("id") AS "last", pg_notify('${EVENTS_CHANNEL}', max("id")::text) FROM "added"`;
  return `WITH "changed" AS (${change.text} RETURNING ${takesId ? '"id"' : '1'}),
    "locked" AS MATERIALIZED (
      SELECT pg_advisory_xact_lock(${EVENTS_LOCK}) FROM (SELECT count(*) FROM "changed") AS "done"
    ),
    "added" AS (
      INSERT INTO ${EVENTS} ("id", "type", "collection", "record_id", "under", "owner", "at", "record")
      SELECT nextval('${quoted(EVENTS_SEQUENCE)}'), e->>'type', e->>'collection', ${recordId}, e->'under', ${owner},
        clock_timestamp(), ${record}
      FROM "locked", ${takesId ? '"changed", ' : ''}jsonb_array_elements($${at}::jsonb) WITH ORDINALITY AS "given"(e, n)
      ORDER BY "given".n
      RETURNING "id"
    )
    ${answer}`;
}

/** The feed's window: what retention deleted up to, and the newest committed id (never below the former). */
export const WINDOW_QUERY = `SELECT COALESCE((SELECT "lost_through" FROM ${KEPT}), 0) AS "lost",
  GREATEST(
    COALESCE((SELECT max("id") FROM ${EVENTS}), 0),
    COALESCE((SELECT "lost_through" FROM ${KEPT}), 0)
  ) AS "latest"`;

/** The newest event id, 0 when there is none (where a feed starts at open). */
export const LATEST_QUERY = `SELECT COALESCE(max("id"), 0) AS "latest" FROM ${EVENTS}`;

/** The events after $1, oldest first, at most `limit`. */
export function eventsAfterQuery(limit: number): string {
  return `SELECT * FROM ${EVENTS} WHERE "id" > $1 ORDER BY "id" LIMIT ${Math.floor(limit)}`;
}

/**
 * A page of the events passing `filter` (plainrest's feed-event.ts `matches`) and their total, as listQuery does for
 * records: `__total` on each row, or one row of it alone.
 */
export function pageQuery(filter: EventFilter, offset: number, limit: number): Statement {
  const { readable } = filter;
  const values: unknown[] = [filter.after, [...readable.all], [...readable.own], readable.owner];
  const conditions = [
    '"id" > $1',
    '("collection" = ANY($2::text[]) OR ("collection" = ANY($3::text[]) AND "owner" = $4))',
  ];
  if (filter.collection !== undefined) {
    values.push(filter.collection);
    conditions.push(`"collection" = $${values.length}`);
  }
  if (filter.type !== undefined) {
    values.push(filter.type);
    conditions.push(`"type" = $${values.length}`);
  }
  const limitClause = Number.isFinite(limit) ? ` LIMIT ${Math.max(0, Math.floor(limit))}` : '';
  const offsetClause = offset > 0 ? ` OFFSET ${Math.floor(offset)}` : '';
  return {
    text: `WITH "matching" AS (SELECT * FROM ${EVENTS} WHERE ${conditions.join(' AND ')}),
      "page" AS (SELECT * FROM "matching" ORDER BY "id"${limitClause}${offsetClause})
      SELECT "page".*, "total".n AS "__total"
      FROM (SELECT count(*)::bigint AS n FROM "matching") "total" LEFT JOIN "page" ON true
      ORDER BY "page"."id"`,
    values,
  };
}

/**
 * Retention as plainrest's EventLog trims: the newest `kept` events stay; of the older
 * ones, those beyond the newest 10 × `kept` go, and then every one older than
 * `keptForMs` up to the first younger one. The highest id deleted becomes `lost_through`.
 */
export function trimStatement(retention: Retention): Statement {
  return {
    text: `WITH "candidates" AS (SELECT "id", "at" FROM ${EVENTS} ORDER BY "id" DESC OFFSET $1),
      "over" AS (SELECT COALESCE((SELECT "id" FROM ${EVENTS} ORDER BY "id" DESC OFFSET $2 LIMIT 1), 0) AS "id"),
      "young" AS (
        SELECT min("candidates"."id") AS "id" FROM "candidates", "over"
        WHERE "candidates"."id" > "over"."id" AND "at" > now() - $3::double precision * interval '1 millisecond'
      ),
      "cutoff" AS (
        SELECT GREATEST(
          "over"."id",
          COALESCE((SELECT "id" - 1 FROM "young"), (SELECT max("id") FROM "candidates"), 0)
        ) AS "id"
        FROM "over"
      ),
      "gone" AS (DELETE FROM ${EVENTS} WHERE "id" <= (SELECT "id" FROM "cutoff") RETURNING "id")
      INSERT INTO ${KEPT} ("one", "lost_through") SELECT true, max("id") FROM "gone" HAVING count(*) > 0
      ON CONFLICT ("one") DO UPDATE SET "lost_through" = GREATEST(${KEPT}."lost_through", EXCLUDED."lost_through")`,
    values: [retention.kept, retention.kept * 10, retention.keptForMs],
  };
}

/** A row of the events table as plainrest's FeedEvent, its record as any row's (sql-records.ts recordOf). */
export function feedEventOf(row: Record<string, unknown>): FeedEvent {
  const record = row['record'];
  const owner = row['owner'];
  const at = row['at'];
  return {
    id: Number(row['id']),
    type: row['type'] as FeedEvent['type'],
    collection: row['collection'] as string,
    // JSON: a number, or a uuid or chosen string (README: Your own resources, ids).
    recordId: row['record_id'] as RecordId,
    under: row['under'] as RecordId[],
    owner: owner === null || owner === undefined ? undefined : Number(owner),
    at: at instanceof Date ? at.toISOString() : String(at),
    record:
      record === null || record === undefined
        ? undefined
        : (recordOf(record as Record<string, unknown>) as StoredRecord),
  };
}
