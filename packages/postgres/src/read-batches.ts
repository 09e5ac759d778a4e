// Reads by id that arrive together share one statement. Under load a read's round trip
// costs more than the row it brings: the pool, the protocol's messages and a system call
// each way cost the node process some 90 µs per statement, and PostgreSQL its own share,
// where a row more in a statement costs either a few µs. So while as many reads are in
// flight as the pool has connections, a new read waits here with the others of its
// shape (the same tables, with or without the caller's check); when a read returns, the
// waiting reads of a shape go out together as one statement taking arrays
// (sql-records.ts rowsByIdBatchQuery), one row per read. A read that finds a connection
// free goes out at once as the single statement it always was (rowsByIdQuery): without
// load nothing waits and nothing changes. A read is sent after it began, so it sees
// every write acknowledged before it, as a statement of its own would.

import type { CallerGuard } from './sql-records.js';
import { rowsByIdBatchQuery, rowsByIdQuery } from './sql-records.js';

export type Row = Record<string, unknown>;

/** Sends a statement by name (postgres-store.ts runNamed) and gives its rows. */
export type SendRows = (text: string, values: unknown[]) => Promise<readonly Row[]>;

/** At most this many reads in one statement: the rest wait for the next. */
export const MAX_BATCH = 100;

interface Read {
  readonly ids: readonly number[];
  readonly caller: CallerGuard | undefined;
  readonly resolve: (row: Row) => void;
  readonly reject: (error: unknown) => void;
}

/** The reads waiting to be sent, of one shape. */
interface Waiting {
  readonly tables: readonly string[];
  readonly checked: boolean;
  readonly reads: Read[];
}

export class ReadBatches {
  readonly #send: SendRows;
  readonly #maxInFlight: number;
  /** By shape: the tables read and whether the caller is checked. */
  readonly #waiting = new Map<string, Waiting>();
  #inFlight = 0;

  /** `maxInFlight`: the statements sent at once, the pool's size (a read never waits here for a connection that is free). */
  constructor(send: SendRows, maxInFlight: number) {
    this.#send = send;
    this.#maxInFlight = maxInFlight;
  }

  /** The row rowsByIdQuery gives for the records `ids` of `tables` (and `caller`'s check): at once when a connection is free, else with the reads waiting with it. */
  read(tables: readonly string[], ids: readonly number[], caller: CallerGuard | undefined): Promise<Row> {
    const checked = caller !== undefined;
    const shape = checked ? `checked ${tables.join(' ')}` : tables.join(' ');
    return new Promise((resolve, reject) => {
      let waiting = this.#waiting.get(shape);
      if (waiting === undefined) {
        waiting = { tables, checked, reads: [] };
        this.#waiting.set(shape, waiting);
      }
      waiting.reads.push({ ids, caller, resolve, reject });
      this.#sendWaiting();
    });
  }

  /** Sends what waits, a statement per shape, while fewer than maxInFlight are in flight. */
  #sendWaiting(): void {
    for (const [shape, waiting] of this.#waiting) {
      if (this.#inFlight >= this.#maxInFlight) return;
      const reads = waiting.reads.splice(0, MAX_BATCH);
      if (waiting.reads.length === 0) this.#waiting.delete(shape);
      this.#inFlight += 1;
      this.#sendTogether(waiting, reads).then(
        (rows) => this.#settled(() => reads.forEach((read, index) => read.resolve(rows[index] as Row))),
        (error: unknown) => this.#settled(() => reads.forEach((read) => read.reject(error))),
      );
    }
  }

  /** A statement returned: what waits goes out at once, then its reads are answered. */
  #settled(answer: () => void): void {
    this.#inFlight -= 1;
    this.#sendWaiting();
    answer();
  }

  async #sendTogether({ tables, checked }: Waiting, reads: readonly Read[]): Promise<readonly Row[]> {
    if (reads.length === 1) {
      const { ids, caller } = reads[0] as Read;
      const { text, values } = rowsByIdQuery(tables.map((table, index) => ({ table, id: ids[index] as number })), caller);
      return [(await this.#send(text, values))[0] ?? {}];
    }
    const values: unknown[] = tables.map((_, index) => reads.map((read) => read.ids[index]));
    if (checked) values.push(reads.map((read) => read.caller?.id), reads.map((read) => read.caller?.role ?? null));
    const rows = await this.#send(rowsByIdBatchQuery(tables, checked), values);
    if (rows.length !== reads.length) throw new Error(`a batch of ${reads.length} reads by id returned ${rows.length} rows`);
    return rows;
  }
}
