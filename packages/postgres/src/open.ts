// Opening the PostgreSQL store (CONTRACT §12): a bounded pool of connections, each with a
// statement timeout; the tables brought to the declaration (schema-migration.ts), and
// the facts of any stored data that no longer fits handed back for plainrest to word.
// Ids come back as numbers (bigint is within JavaScript's safe integers here: ids and
// counts) and timestamps as ISO 8601 strings with milliseconds, as the data directory has them.

import pg from 'pg';
import type { ResourceTable } from 'plainrest';
import type { CoreKit } from './postgres-store.js';
import { PostgresStore } from './postgres-store.js';
import type { SchemaProblem } from './schema-migration.js';
import { migrateSchema } from './schema-migration.js';
import { schemaOf } from './schema.js';

export interface OpenOptions {
  /** postgres://user:password@host:port/database */
  readonly url: string;
  readonly resources: ResourceTable;
  readonly kit: CoreKit;
  /** Connections at most (default 10). */
  readonly poolSize?: number;
  /** A statement running longer is cancelled (default 5 s). */
  readonly statementTimeoutMs?: number;
}

export type OpenResult = { readonly store: PostgresStore; readonly problems?: undefined } | { readonly store?: undefined; readonly problems: readonly SchemaProblem[] };

const INT8 = 20;
const TIMESTAMPTZ = 1184;

const types = {
  getTypeParser(oid: number, format?: string): (text: string) => unknown {
    if (oid === INT8) return Number;
    if (oid === TIMESTAMPTZ) return (text: string) => new Date(text).toISOString();
    return pg.types.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  },
};

export async function openPostgresStore(options: OpenOptions): Promise<OpenResult> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    statement_timeout: options.statementTimeoutMs ?? 5000,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    types: types as unknown as pg.CustomTypesConfig,
  });
  // An idle connection the server drops must not crash the process: the next query reconnects.
  pool.on('error', () => {});
  const plans = schemaOf(options.resources);
  const client = await pool.connect();
  try {
    const { problems } = await migrateSchema(client, plans);
    if (problems.length > 0) {
      client.release();
      await pool.end();
      return { problems };
    }
  } catch (error) {
    client.release();
    await pool.end();
    throw error;
  }
  client.release();
  return { store: new PostgresStore({ pool, plans, kit: options.kit }) };
}
