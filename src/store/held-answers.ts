// Answers held until what they read is durable (README: Storage and durability). The memory store applies a commit at
// once, so the next write is decided on it, and makes it durable after; an answer that read it (a record, a list, a
// 404, a 409, a 412) is released only once it is, so no client acts on a change a crash would take back.

import type { RequestView } from './request-view.ts';

interface Held {
  /** The commit the answer waits for (its last journal sequence number). */
  readonly seq: number;
  readonly release: () => void;
  readonly fail: (error: Error) => void;
}

export class HeldAnswers {
  /** The journal sequence number up to which every commit is durable. */
  readonly #lastDurable: () => number;
  #held: Held[] = [];

  constructor(lastDurable: () => number) {
    this.#lastDurable = lastDurable;
  }

  /**
   * `handle()`'s outcome, a value or an error, once every commit `view` saw it read is durable: at once, unless a write
   * to a collection it read is still on its way to disk.
   */
  outcome<T>(view: RequestView, handle: () => T | Promise<T>): T | Promise<T> {
    let answered: T | Promise<T>;
    try {
      answered = handle();
    } catch (error) {
      return this.#whenDurable(view.newestSeqRead, () => {
        throw error;
      });
    }
    if (!(answered instanceof Promise)) return this.#whenDurable(view.newestSeqRead, () => answered);
    return answered.then(
      (value) => this.#whenDurable(view.newestSeqRead, () => value),
      (error: unknown) =>
        this.#whenDurable(view.newestSeqRead, () => {
          throw error;
        }),
    );
  }

  /** `settle()` now if the commit numbered up to `seq` is durable, else once it is (release); fails if undone. */
  #whenDurable<T>(seq: number, settle: () => T): T | Promise<T> {
    if (seq <= this.#lastDurable()) return settle();
    return new Promise<void>((release, fail) => this.#held.push({ seq, release, fail })).then(settle);
  }

  /** Called as commits become durable: releases the answers that waited for them. */
  release(): void {
    if (this.#held.length === 0) return;
    const durable = this.#lastDurable();
    const stillHeld = this.#held.filter((answer) => answer.seq > durable);
    for (const answer of this.#held) if (answer.seq <= durable) answer.release();
    this.#held = stillHeld;
  }

  /** Called when commits were undone: every held answer fails with `error` (a 503), never sent as it was. */
  failAll(error: Error): void {
    for (const answer of this.#held) answer.fail(error);
    this.#held = [];
  }
}
