// The caller a request on the PostgreSQL store may answer from memory (docs/deploying.md): as this process last read
// it, when the request allows, until the request's first read or its write confirms it; when one finds it changed, it
// is forgotten and the request runs again with its caller read afresh.

import type { StoredRecord } from 'plainrest';
import type { RememberedRecords } from './remembered-records.ts';
import { CallerChanged } from './request-runs.ts';
import type { CallerGuard } from './sql-records.ts';

/** One request's caller as answered from memory (PostgresView.caller), until it is confirmed or found changed. */
export class RememberedCaller {
  /** The store's memory of callers between requests. */
  readonly #memory: RememberedRecords;
  /** The request's first read or its write can confirm a caller answered from memory (mayRememberCaller). */
  #mayRemember = false;
  /** The caller answered from memory, until a write or confirmCaller confirms it. */
  #remembered: StoredRecord | undefined;
  /** The caller once confirmed: the request answered again after a load is answered with it, confirmed. */
  #confirmed: StoredRecord | undefined;

  constructor(memory: RememberedRecords) {
    this.#memory = memory;
  }

  allow(): void {
    this.#mayRemember = true;
  }

  /** The caller as this process last read it, when the request allows; else undefined, and it is read. */
  recall(id: number): StoredRecord | undefined {
    if (!this.#mayRemember) return undefined;
    if (this.#confirmed?.id === id) return this.#confirmed;
    const remembered = this.#memory.caller(id);
    if (remembered !== undefined) this.#remembered = remembered;
    return remembered;
  }

  /** The caller answered from memory and not yet confirmed, if any. */
  get unconfirmed(): StoredRecord | undefined {
    return this.#remembered;
  }

  confirmed(): void {
    this.#confirmed = this.#remembered ?? this.#confirmed;
    this.#remembered = undefined;
  }

  /** The remembered caller had changed: the request runs again with its caller read afresh. */
  changed(): void {
    this.#remembered = undefined;
    this.#confirmed = undefined;
    this.#mayRemember = false;
  }

  /** What the next read outside a transaction checks of the caller answered from memory, if it is not yet confirmed. */
  guard(): CallerGuard | undefined {
    return this.#remembered === undefined ? undefined : guardOf(this.#remembered);
  }

  /**
   * A read or a write found the remembered caller changed: forgotten here and by the store, and the request runs again
   * with its caller read afresh.
   */
  noLongerHolds(): never {
    const remembered = this.#remembered;
    if (remembered !== undefined) this.#memory.rememberCaller(remembered.id as number, undefined);
    this.changed();
    throw new CallerChanged();
  }
}

export function guardOf(caller: StoredRecord): CallerGuard {
  return { id: caller.id as number, role: caller['role'] }; // users' ids are integers
}

/** The remembered caller still holds: the user exists with the same role (what guardOf has a write check). */
export function isStill(remembered: StoredRecord, user: StoredRecord | undefined): boolean {
  return user !== undefined && user['role'] === remembered['role'];
}
