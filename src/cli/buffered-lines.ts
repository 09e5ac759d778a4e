// Lines for a stream, written in batches: a line waits at most FLUSH_AFTER_MS, or until 64 KiB are pending, and then
// everything pending goes out in a single write, like nginx's `access_log … buffer= flush=`. `flush` empties the
// buffer at once (before printing elsewhere, or exiting). The batch is kept as UTF-8 bytes; access-log entries are
// encoded into it (http/access-log-bytes.ts) together, at the end of the event loop's turn that answered them.

import type { Writable } from 'node:stream';
import type { AccessEntry } from '../logging/logger.ts';
import { formatAccessLine } from '../http/access-log.ts';
import { accessLineBound, writeAccessLine } from '../http/access-log-bytes.ts';

/** How long a line may wait for the lines after it: a tenth of a second, too short to notice when watching a log. */
export const FLUSH_AFTER_MS = 100;
/** Past this many buffered bytes the batch is written at once. */
const MAX_BUFFERED = 64 * 1024;
/** Room for a full batch and one more line of any access-log entry (a request target is at most 8 KiB). */
const CAPACITY = 2 * MAX_BUFFERED;

/**
 * Batched because the access log writes a line per request, and when stdout is a file every write is a system call
 * (Node writes files synchronously) behind a stream's bookkeeping.
 */
export class BufferedLines {
  readonly #stream: Writable;
  readonly #flushAfterMs: number;
  readonly #bytes = Buffer.allocUnsafe(CAPACITY);
  #length = 0;
  #scheduled = false;
  /** Access-log entries of this turn of the event loop, not yet encoded. */
  #entries: AccessEntry[] = [];

  constructor(stream: Writable, flushAfterMs: number = FLUSH_AFTER_MS) {
    this.#stream = stream;
    this.#flushAfterMs = flushAfterMs;
  }

  write(line: string): void {
    this.#encodeEntries(); // the entries before this line, first
    const text = `${line}\n`;
    if (text.length * 3 > CAPACITY - this.#length) {
      // Too long to be sure it fits: it goes out at once, after the lines before it, in the same write.
      this.#stream.write(Buffer.concat([this.#bytes.subarray(0, this.#length), Buffer.from(text)]));
      this.#length = 0;
      return;
    }
    this.#length += this.#bytes.write(text, this.#length);
    this.#written();
  }

  /**
   * An access-log entry as its JSON line, the same bytes as write(formatAccessLine(entry, 'json')), encoded with the
   * others of this turn once its answers are written: a request's own path only keeps the entry (bench/README.md,
   * "The access log off the request's path").
   */
  writeAccessLine(entry: AccessEntry): void {
    if (this.#entries.push(entry) === 1) setImmediate(this.#encodeEntries);
  }

  readonly #encodeEntries = (): void => {
    if (this.#entries.length === 0) return;
    const entries = this.#entries;
    this.#entries = [];
    for (const entry of entries) this.#encode(entry);
  };

  #encode(entry: AccessEntry): void {
    const bound = accessLineBound(entry);
    if (bound > CAPACITY - this.#length) {
      // a path of tens of thousands of characters
      if (bound > CAPACITY) return this.write(formatAccessLine(entry, 'json'));
      this.flush();
    }
    this.#length = writeAccessLine(this.#bytes, this.#length, entry);
    this.#written();
  }

  flush(): void {
    this.#encodeEntries();
    if (this.#length === 0) return;
    // A copy: the stream may hold on to the chunk until it is written, and the buffer is reused.
    const batch = Buffer.from(this.#bytes.subarray(0, this.#length));
    this.#length = 0;
    this.#stream.write(batch);
  }

  #written(): void {
    if (this.#length >= MAX_BUFFERED) {
      this.flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      // unref: a pending line does not keep the process alive (command-line.ts flushes on exit).
      setTimeout(this.#flushLater, this.#flushAfterMs).unref();
    }
  }

  readonly #flushLater = (): void => {
    this.#scheduled = false;
    this.flush();
  };
}
