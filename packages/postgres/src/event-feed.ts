// The PostgreSQL store's change feed (README: Events): plainrest's EventLog's behaviour, its history in the events
// table (event-schema.ts) that every process writes in the same transaction as its changes (event-sql.ts withEvents),
// so all processes see one history in one order. The window and pages are read through the request pool; subscribers
// are fed by one dedicated connection that LISTENs and reads each commit's rows in id order, this process's included.

import type pg from 'pg';
import type { ChangeFeed, EventFilter, EventPage, EventWindow, FeedEvent, Retention } from 'plainrest';
import { EVENTS_CHANNEL } from './event-schema.ts';
import { eventsAfterQuery, feedEventOf, pageQuery, trimStatement, WINDOW_QUERY } from './event-sql.ts';
import { quoted } from './schema.ts';

type Rows = pg.QueryResult<Record<string, unknown>>;

export interface FeedOptions {
  /** Runs a statement on the request pool (the store's `run`: an unreachable database is the core's 503). */
  readonly run: (text: string, values: readonly unknown[]) => Promise<Rows>;
  /** A new connection, outside the pool, to LISTEN on. */
  readonly connect: () => pg.Client;
  readonly retention: Retention;
}

/** plainrest's defaults (feed/event-log.ts DEFAULT_RETENTION), for a store opened without settings. */
export const DEFAULT_RETENTION: Retention = { kept: 10_000, keptForMs: 24 * 60 * 60 * 1000 };

/** Rows read at a time when catching up with the table. */
const BATCH = 1000;
/** A dropped listening connection is opened again after 1 s, doubling to 30 s, and reads what it missed. */
const FIRST_RETRY_MS = 1000;
const LONGEST_RETRY_MS = 30_000;

export class PostgresFeed implements ChangeFeed {
  readonly #run: FeedOptions['run'];
  readonly #connect: FeedOptions['connect'];
  readonly #retention: Retention;
  /** The writing process trims each time event ids pass a multiple of this: a tenth of `kept`, at most 1,000. */
  readonly #trimEvery: number;
  readonly #listeners = new Set<(events: readonly FeedEvent[]) => void>();
  readonly #lostListeners = new Set<() => void>();
  /** The last id handed to subscribers; undefined until the store has opened (start). */
  #published: number | undefined;
  #listener: pg.Client | undefined;
  #reconnect: NodeJS.Timeout | undefined;
  #retryMs = FIRST_RETRY_MS;
  /** Whether the listener is reading new rows, and whether it must read again when done. */
  #reading = false;
  #readAgain = false;
  #trimming: Promise<void> | undefined;
  #trimAgain = false;
  #closed = false;

  constructor(options: FeedOptions) {
    this.#run = options.run;
    this.#connect = options.connect;
    this.#retention = options.retention;
    this.#trimEvery = Math.max(1, Math.min(1000, Math.ceil(options.retention.kept / 10)));
  }

  async window(): Promise<EventWindow> {
    const row = (await this.#run(WINDOW_QUERY, [])).rows[0];
    return { lostThrough: Number(row?.['lost'] ?? 0), latest: Number(row?.['latest'] ?? 0) };
  }

  async page(filter: EventFilter, offset: number, limit: number): Promise<EventPage> {
    const { text, values } = pageQuery(filter, offset, limit);
    const result = await this.#run(text, values);
    const total = Number(result.rows[0]?.['__total'] ?? 0);
    const events = result.rows.filter((row) => row['id'] !== null).map(feedEventOf);
    return { events, total };
  }

  subscribe(listener: (events: readonly FeedEvent[]) => void, lost?: () => void): () => void {
    this.#listeners.add(listener);
    if (lost !== undefined) this.#lostListeners.add(lost);
    return () => {
      this.#listeners.delete(listener);
      if (lost !== undefined) this.#lostListeners.delete(lost);
    };
  }

  /** Follows the table from `latest` (its newest id when the store opened): subscribers get every later event. */
  start(latest: number): void {
    if (this.#published !== undefined || this.#closed) return;
    this.#published = latest;
    void this.#listen();
  }

  /**
   * A commit of this process wrote `count` events, the last numbered `last`: retention runs when they pass a multiple
   * of the interval.
   */
  written(count: number, last: number): void {
    const first = last - count + 1;
    if (Math.floor(last / this.#trimEvery) !== Math.floor((first - 1) / this.#trimEvery)) this.#trim();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnect);
    const listener = this.#listener;
    this.#listener = undefined;
    await Promise.all([listener?.end().catch(() => {}), this.#trimming]);
  }

  /** Opens the listening connection; once it listens, reads what was committed since the last event handed on. */
  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = this.#connect();
    this.#listener = client;
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (message.channel === EVENTS_CHANNEL) this.#wake(Number(message.payload));
    });
    try {
      await client.connect();
      // Waiting for notifications must not keep the process alive (a server lives by its HTTP server).
      (client as pg.Client & { unref?: () => void }).unref?.();
      await client.query(`LISTEN ${quoted(EVENTS_CHANNEL)}`);
      await this.#checkPlace(client);
    } catch {
      this.#lost(client);
      return;
    }
    this.#retryMs = FIRST_RETRY_MS;
    this.#wake();
  }

  /**
   * Once listening again: if retention deleted events after the last one handed on (the
   * connection was down longer than the history is kept), they cannot be handed on. The
   * subscribers are told (their streams end, and resume with `event: reset`), and the
   * feed goes on from the newest event.
   */
  async #checkPlace(client: pg.Client): Promise<void> {
    const published = this.#published;
    if (published === undefined) return;
    const row = (await client.query<Record<string, unknown>>(WINDOW_QUERY)).rows[0];
    const lostThrough = Number(row?.['lost'] ?? 0);
    if (lostThrough <= published) return;
    this.#published = Math.max(published, Number(row?.['latest'] ?? 0));
    for (const lost of this.#lostListeners) lost();
  }

  /** The listening connection failed or ended: it is closed and opened again after a growing delay. */
  #lost(client: pg.Client): void {
    if (this.#listener !== client) return;
    this.#listener = undefined;
    client.end().catch(() => {});
    if (this.#closed) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(delay * 2, LONGEST_RETRY_MS);
    this.#reconnect = setTimeout(() => {
      this.#reconnect = undefined;
      void this.#listen();
    }, delay);
    this.#reconnect.unref();
  }

  /** New rows to read (up to `upTo`, when a notification says): one reader at a time, again if woken meanwhile. */
  #wake(upTo?: number): void {
    const published = this.#published;
    if (published === undefined) return;
    if (upTo !== undefined && (upTo <= published || this.#listeners.size === 0)) {
      // Nobody to hand them to: a later subscriber reads from the table what came before it subscribed.
      this.#published = Math.max(published, upTo);
      return;
    }
    this.#readAgain = true;
    if (this.#reading) return;
    this.#reading = true;
    void this.#readNew().finally(() => {
      this.#reading = false;
    });
  }

  async #readNew(): Promise<void> {
    while (this.#readAgain && !this.#closed) {
      this.#readAgain = false;
      const client = this.#listener;
      const after = this.#published;
      if (client === undefined || after === undefined) return;
      let rows: Record<string, unknown>[];
      try {
        rows = (await client.query<Record<string, unknown>>(eventsAfterQuery(BATCH), [after])).rows;
      } catch {
        // A failed connection reconnects and reads again; any other failure waits for the next notification.
        return;
      }
      if (rows.length === BATCH) this.#readAgain = true;
      this.#publish(rows.map(feedEventOf));
    }
  }

  /** Hands on the events after the position (which a notification may have moved on while they were read). */
  #publish(read: readonly FeedEvent[]): void {
    const after = this.#published ?? 0;
    const events = read.filter((event) => event.id > after);
    if (events.length === 0) return;
    this.#published = (events[events.length - 1] as FeedEvent).id;
    for (const listener of this.#listeners) listener(events);
  }

  /**
   * Deletes what retention no longer keeps, on the pool; one trim at a time (a failed one waits for the next interval).
   */
  #trim(): void {
    if (this.#trimming !== undefined) {
      this.#trimAgain = true;
      return;
    }
    const { text, values } = trimStatement(this.#retention);
    this.#trimming = this.#run(text, values).then(
      () => {},
      () => {},
    );
    void this.#trimming.then(() => {
      this.#trimming = undefined;
      if (this.#trimAgain && !this.#closed) {
        this.#trimAgain = false;
        this.#trim();
      }
    });
  }
}
