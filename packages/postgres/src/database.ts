// The pool of connections to PostgreSQL and its health (docs/deploying.md): every statement of the store goes through
// here. A refused or lost connection becomes plainrest's 503, and the store is not ready until the database answers
// again, which a probe checks every second without waiting for a request.

import pg from 'pg';
import { named } from './named-statements.ts';

const UNREACHABLE = 'the database cannot be reached; retry shortly';
const NOT_YET_REACHED = 'the database has not been reached since the start; retry shortly';
/** How often an unreachable database is tried again. */
const PROBE_MS = 1000;

type Rows = pg.QueryResult<Record<string, unknown>>;

/** What node-postgres says of a connection it could not open or lost. */
const CONNECTION_LOST = new RegExp(
  'timeout exceeded when trying to connect|Connection terminated|connection is closed|' +
    'Client has encountered a connection error',
  'i',
);

/**
 * A refused, lost or timed-out connection, or a server shutting down or out of connections (SQLSTATE classes 08,
 * 57P, 53).
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (/^(08|57P|53)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code))
  )
    return true;
  return error instanceof Error && CONNECTION_LOST.test(error.message);
}

export class Database {
  readonly #pool: pg.Pool;
  /** plainrest's 503 with Retry-After (core-kit.ts). */
  readonly #unavailableError: (detail: string) => Error;
  #closed = false;
  /** Set when a statement found the database unreachable; cleared by the next that reaches it (or the probe). */
  #unreachable: string | undefined;
  #probe: NodeJS.Timeout | undefined;
  /**
   * Set while the tables have not yet been brought to the declaration (a database unreachable at start, open.ts), or
   * for good when that failed.
   */
  #notOpen: string | undefined;

  constructor(pool: pg.Pool, unavailableError: (detail: string) => Error) {
    this.#pool = pool;
    this.#unavailableError = unavailableError;
  }

  /** Connections the pool opens at most. */
  get size(): number {
    return this.#pool.options.max ?? 10;
  }

  /** Why the store cannot answer for now (plainrest's /readyz answers 503 with it), else undefined. */
  get unavailable(): string | undefined {
    return this.#notOpen ?? this.#unreachable;
  }

  /** Opened in the background (open.ts): not ready until `opening` settles with no reason, for good if it gives one. */
  openLater(opening: Promise<string | undefined>): void {
    this.#notOpen = NOT_YET_REACHED;
    void opening.then((reason) => {
      this.#notOpen = reason;
    });
  }

  /** A 503 while the tables are not open. */
  requireOpen(): void {
    if (this.#notOpen !== undefined) throw this.#unavailableError(this.#notOpen);
  }

  /** A connection of the pool for a transaction, released by the caller. */
  async connect(): Promise<pg.PoolClient> {
    this.requireOpen();
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Runs one statement on `client` (a transaction's) or the pool. */
  run(text: string, values: readonly unknown[], client?: pg.PoolClient): Promise<Rows> {
    return this.#send({ text, values: values as unknown[] }, client);
  }

  /**
   * `run` for a statement whose result has the same columns whatever the schema becomes
   * (no `SELECT *`: another process may add a column, and a named statement's plan must
   * not change its result), sent by name (named-statements.ts).
   */
  runNamed(text: string, values: readonly unknown[], client?: pg.PoolClient): Promise<Rows> {
    return this.#send(named(text, values), client);
  }

  async #send(statement: pg.QueryConfig, client: pg.PoolClient | undefined): Promise<Rows> {
    this.requireOpen();
    try {
      const result = await (client ?? this.#pool).query<Record<string, unknown>>(statement);
      this.#unreachable = undefined;
      return result;
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * Several statements in one round trip (the simple query protocol: no parameters, so only integers may be written
   * into them).
   */
  async runMany(statements: readonly string[], client?: pg.PoolClient): Promise<Rows[]> {
    this.requireOpen();
    try {
      const results = (await (client ?? this.#pool).query(statements.join('; '))) as unknown as Rows[] | Rows;
      this.#unreachable = undefined;
      return Array.isArray(results) ? results : [results];
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** A lost or refused connection becomes the 503, and the store not ready until the database answers again. */
  translate(error: unknown): unknown {
    if (!isConnectionFailure(error)) return error;
    this.#markUnreachable();
    return this.#unavailableError(UNREACHABLE);
  }

  #markUnreachable(): void {
    this.#unreachable = UNREACHABLE;
    if (this.#probe !== undefined || this.#closed) return;
    // Readiness comes back without waiting for a request: a balancer that took traffic away sends none.
    this.#probe = setInterval(() => {
      this.#pool.query('SELECT 1').then(
        () => {
          this.#unreachable = undefined;
          clearInterval(this.#probe);
          this.#probe = undefined;
        },
        () => {},
      );
    }, PROBE_MS);
    this.#probe.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#probe);
    await this.#pool.end();
  }
}
