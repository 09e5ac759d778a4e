// The change feed's tables (README: Events): `__events`, one row per event numbered from its own sequence, and
// `__events_kept`, one row saying up to which id retention has deleted the history (event-sql.ts trimStatement). The
// migration (schema-migration.ts) creates what is missing.

import { quoted } from './schema.ts';

/**
 * Names starting with `_`, which no declared collection's may (plainrest's COLLECTION_NAME_PATTERN), and not listed in
 * plainrest_collections, so a copy and the schema check of collections never see these tables.
 */
export const EVENTS_TABLE = '__events';
export const EVENTS_SEQUENCE = '__events_id_seq';
export const KEPT_TABLE = '__events_kept';
/** The channel a commit's NOTIFY wakes every process's feed on (event-feed.ts). */
export const EVENTS_CHANNEL = 'plainrest_events';
/**
 * The advisory lock a commit holds from taking its event ids until it is visible ("plne" in ASCII; the migration's is
 * "plnr").
 */
export const EVENTS_LOCK = 0x706c6e65;

/**
 * The statements creating what the schema lacks: `existing` holds its tables and their columns' types, `indexes` its
 * indexes (their names). A record's id is JSON, a number or a string (README: Your own resources, ids): a table made
 * when ids were all integers has its `record_id` converted once.
 */
export function eventSchemaStatements(
  existing: ReadonlyMap<string, ReadonlyMap<string, { readonly type: string }>>,
  indexes: ReadonlySet<string>,
): string[] {
  const statements: string[] = [];
  if (existing.get(EVENTS_TABLE)?.get('record_id')?.type === 'bigint')
    statements.push(
      `ALTER TABLE ${quoted(EVENTS_TABLE)} ALTER COLUMN "record_id" TYPE jsonb USING to_jsonb("record_id")`,
    );
  if (!existing.has(EVENTS_TABLE)) {
    statements.push(`CREATE SEQUENCE IF NOT EXISTS ${quoted(EVENTS_SEQUENCE)}`);
    statements.push(
      `CREATE TABLE ${quoted(EVENTS_TABLE)} (` +
        `"id" bigint PRIMARY KEY, "type" text NOT NULL, "collection" text NOT NULL, "record_id" jsonb NOT NULL, ` +
        `"under" jsonb NOT NULL, "owner" bigint, "at" timestamp with time zone NOT NULL, "record" jsonb)`,
    );
  }
  if (!existing.has(KEPT_TABLE)) {
    statements.push(
      `CREATE TABLE ${quoted(KEPT_TABLE)} ` +
        `("one" boolean PRIMARY KEY DEFAULT true CHECK ("one"), "lost_through" bigint NOT NULL)`,
    );
  }
  // A list or a stream of one collection reads its events in id order.
  const index = `${EVENTS_TABLE}_collection`;
  if (!indexes.has(index))
    statements.push(`CREATE INDEX IF NOT EXISTS ${quoted(index)} ON ${quoted(EVENTS_TABLE)} ("collection", "id")`);
  return statements;
}
