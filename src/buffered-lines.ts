// Lines for a stream, written in batches: everything logged during one turn of the event
// loop goes out in a single write. The access log writes a line per request, and when
// stdout is a file every write is a system call (Node writes files synchronously), so
// batching keeps logging off the request's cost. A line waits at most until the current
// turn ends, and `flush` empties the buffer at once (before printing elsewhere, or exiting).

import type { Writable } from 'node:stream';

/** Past this many buffered characters the batch is written without waiting for the turn to end. */
const MAX_BUFFERED = 64 * 1024;

export class BufferedLines {
  readonly #stream: Writable;
  #pending = '';
  #scheduled = false;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  write(line: string): void {
    this.#pending += `${line}\n`;
    if (this.#pending.length >= MAX_BUFFERED) {
      this.flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flushAfterTurn);
    }
  }

  flush(): void {
    if (this.#pending === '') return;
    const batch = this.#pending;
    this.#pending = '';
    this.#stream.write(batch);
  }

  readonly #flushAfterTurn = (): void => {
    this.#scheduled = false;
    this.flush();
  };
}
