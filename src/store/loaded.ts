// Running the synchronous code that decides a request on any store (store.ts). With the memory store it runs once, in
// the same turn. With a store that loads (PostgreSQL), a read of something not yet loaded throws NeedData: it is
// loaded, and the code runs again from the start, until it needs nothing more. So that code must not change anything
// before its last read: it decides, and the caller then acts.

import type { Decision, Store } from './store.ts';
import { NeedData } from './store.ts';

/** `read()`'s value, at once when the store had everything it read, else once it is loaded. */
export function loaded<T>(read: () => T | Promise<T>): T | Promise<T> {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof NeedData)) throw error;
    return error.fetch().then(() => loaded(read));
  }
}

/**
 * Decides a write and commits its changes (none: nothing is written); resolves with the decision's result once they are
 * durable.
 */
export async function decideAndCommit<T>(store: Store, decide: () => Decision<T>): Promise<T> {
  if (store.transact !== undefined) return store.transact(decide);
  const { changes, result } = decide();
  if (changes.length > 0) await store.commit(changes);
  return result;
}
