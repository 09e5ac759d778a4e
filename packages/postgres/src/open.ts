// Opening the PostgreSQL store (docs/deploying.md): a bounded pool of connections, each with a statement timeout; the
// tables brought to the declaration (schema-migration.ts), and the facts of any stored data that no longer fits handed
// back for plainrest to word. The change feed then follows the events table from its newest event, on a connection
// of its own (event-feed.ts), outside the pool.

import pg from 'pg';
import type { ResourceTable, Retention } from 'plainrest';
import { LATEST_QUERY } from './event-sql.ts';
import type { CoreKit } from './core-kit.ts';
import { isConnectionFailure } from './database.ts';
import { PostgresStore } from './postgres-store.ts';
import type { SchemaProblem } from 'plainrest';
import { migrateSchema } from './schema-migration.ts';
import type { TablePlan } from './schema.ts';
import { ID_TYPES, quoted, schemaOf, SEARCH_COLUMN } from './schema.ts';
import { isoTimestamp, recordOf } from './sql-records.ts';

export interface OpenOptions {
  /** postgres://user:password@host:port/database */
  readonly url: string;
  readonly resources: ResourceTable;
  readonly kit: CoreKit;
  /** Connections at most (default 10). */
  readonly poolSize?: number;
  /** A statement running longer is cancelled (default 5 s). */
  readonly statementTimeoutMs?: number;
  /** How much of the change feed's history is kept (plainrest's config.events; its defaults when absent). */
  readonly events?: Retention;
  /** Told of each failed attempt to reach the database at start: why, and the delay before the next. */
  readonly onUnreachable?: (reason: string, retryInMs: number) => void;
  /**
   * Told when a database first reached after the start holds data the declaration no longer fits (the store then stays
   * not ready).
   */
  readonly onRefused?: (problems: readonly SchemaProblem[]) => void;
  /**
   * Told when a database first reached after the start could not be prepared for another reason (the store then stays
   * not ready).
   */
  readonly onFailed?: (reason: string) => void;
  /** Told when a database first reached after the start is ready. */
  readonly onReady?: () => void;
}

export type OpenResult =
  | { readonly store: PostgresStore; readonly problems?: undefined }
  | { readonly store?: undefined; readonly problems: readonly SchemaProblem[] };

/**
 * bigint comes back as a number: ids and counts stay within JavaScript's safe integers (uuids and chosen ids come
 * back as text, a uuid in lower case).
 */
const INT8 = 20;
const TIMESTAMPTZ = 1184;
const FIRST_RETRY_MS = 1000;
const LONGEST_RETRY_MS = 30_000;
/** The feed's listening connection's name in pg_stat_activity. */
export const FEED_APPLICATION = 'plainrest change feed';
const REFUSED =
  'the data in the database no longer fits the declaration (the server log says how); nothing was changed';

/**
 * The type parsers every connection uses: ids as numbers, timestamps as ISO 8601 strings with milliseconds, as the
 * data directory has them (copy.ts uses them too).
 */
export const types = {
  getTypeParser(oid: number, format?: string): (text: string) => unknown {
    if (oid === INT8) return Number;
    if (oid === TIMESTAMPTZ) return isoTimestamp;
    return pg.types.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  },
};

export async function openPostgresStore(options: OpenOptions): Promise<OpenResult> {
  const connection = {
    connectionString: options.url,
    statement_timeout: options.statementTimeoutMs ?? 5000,
    connectionTimeoutMillis: 5000,
    types: types as unknown as pg.CustomTypesConfig,
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // An idle connection the server drops must not crash the process: the next query reconnects.
  pool.on('error', () => {});
  // Nor one checked out (a transaction between two statements), which the pool does not listen to:
  // its next statement fails as a lost connection, and it is released as broken.
  pool.on('connect', (client) => client.on('error', () => {}));
  const plans = schemaOf(options.resources);
  // The feed's connection waits for notifications: keep-alive lets it notice a network that went away.
  const listen = (): pg.Client => new pg.Client({ ...connection, keepAlive: true, application_name: FEED_APPLICATION });
  const store = new PostgresStore({
    pool,
    plans,
    kit: options.kit,
    listen,
    ...(options.events === undefined ? {} : { retention: options.events }),
  });
  let migrated: Migrated;
  try {
    migrated = await migrate(pool, plans, options.kit);
  } catch (error) {
    if (!isConnectionFailure(error)) {
      await pool.end();
      throw error;
    }
    // Unreachable at start is not a failed start: the store is returned at once and answers 503 (not ready) meanwhile.
    store.openLater(retryUntilMigrated(pool, plans, store, options, describeFailure(error)));
    return { store };
  }
  if (migrated.problems.length > 0) {
    await pool.end();
    return { problems: migrated.problems };
  }
  store.startFeed(migrated.latestEvent);
  return { store };
}

/**
 * What bringing the tables to the declaration found: stored data that no longer fits, or else the newest event's id.
 */
interface Migrated {
  readonly problems: readonly SchemaProblem[];
  readonly latestEvent: number;
}

async function migrate(pool: pg.Pool, plans: readonly TablePlan[], kit: CoreKit): Promise<Migrated> {
  const client = await pool.connect();
  let broken = false;
  try {
    const { problems } = await migrateSchema(client, plans);
    if (problems.length > 0) return { problems, latestEvent: 0 };
    await fillSearchWords(client, plans, kit);
    const latest = (await client.query<{ latest: number }>(LATEST_QUERY)).rows[0]?.latest;
    return { problems, latestEvent: Number(latest ?? 0) };
  } catch (error) {
    broken = isConnectionFailure(error);
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Tries again with a doubling delay (1 s, 2 s, 4 s … at most 30 s) until the tables are brought to the declaration:
 * undefined then, or why the store stays not ready.
 */
async function retryUntilMigrated(
  pool: pg.Pool,
  plans: readonly TablePlan[],
  store: PostgresStore,
  options: OpenOptions,
  firstFailure: string,
): Promise<string | undefined> {
  let failure = firstFailure;
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, LONGEST_RETRY_MS)) {
    options.onUnreachable?.(failure, delay);
    await new Promise<void>((resolve) => setTimeout(resolve, delay).unref());
    if (store.closed) return 'the server is stopping';
    try {
      const { problems, latestEvent } = await migrate(pool, plans, options.kit);
      if (problems.length === 0) {
        store.startFeed(latestEvent);
        options.onReady?.();
        return undefined;
      }
      options.onRefused?.(problems);
      return REFUSED;
    } catch (error) {
      if (!isConnectionFailure(error)) {
        options.onFailed?.(describeFailure(error));
        return `the database could not be prepared: ${describeFailure(error)}`;
      }
      failure = describeFailure(error);
    }
  }
}

/** Rows written before their table was searchable (or by a copy) get their words, a thousand at a time. */
async function fillSearchWords(client: pg.PoolClient, plans: readonly TablePlan[], kit: CoreKit): Promise<void> {
  for (const plan of plans) {
    const fields = plan.searchFields;
    if (fields === undefined) continue;
    const table = quoted(plan.table);
    for (;;) {
      const rows = (
        await client.query(`SELECT * FROM ${table} WHERE ${quoted(SEARCH_COLUMN)} IS NULL ORDER BY "id" LIMIT 1000`)
      ).rows as Record<string, unknown>[];
      if (rows.length === 0) break;
      const records = rows.map(recordOf);
      await client.query(
        `UPDATE ${table} SET ${quoted(SEARCH_COLUMN)} = filled.words ` +
          `FROM unnest($1::${ID_TYPES[plan.idKind]}[], $2::jsonb[]) AS filled(id, words) ` +
          `WHERE ${table}."id" = filled.id`,
        [records.map((record) => record.id), records.map((record) => JSON.stringify(kit.recordWords(record, fields)))],
      );
    }
  }
}

/** A connection failure in a few words: the system's code (ECONNREFUSED) or PostgreSQL's message. */
export function describeFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  return error instanceof Error ? error.message : String(error);
}
