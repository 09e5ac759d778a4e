// When each API key was last used (README: API keys): a key's `last_used_at` is written in a write of its own, after
// the request that used it, at most once per five minutes per key, so that a program calling many times a second
// costs no write per call. The request never waits for it, and a failed write is only logged.

import type { StoredRecord } from '../records/json.ts';
import { KEY_FIELDS } from '../declarations/built-in-keys.ts';
import type { Logger } from '../logging/logger.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import { recordToStore } from '../handlers/write-record.ts';
import type { Store } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';

/** How stale `last_used_at` may grow before a use writes it again. */
const KEY_USE_RESOLUTION_MS = 5 * 60 * 1000;

/** Notes uses of API keys; `keyUsed` is the Authenticator's (auth/authenticate.ts) callback. */
export class KeyUse {
  readonly #keys: ResourceDefinition;
  readonly #store: Store;
  readonly #logger: Logger;
  /** Keys whose `last_used_at` is being written: a burst of requests makes one write. */
  readonly #writing = new Set<number>();

  constructor(keys: ResourceDefinition, store: Store, logger: Logger) {
    this.#keys = keys;
    this.#store = store;
    this.#logger = logger;
  }

  readonly keyUsed = (key: StoredRecord): void => {
    const id = key.id as number; // keys' ids are integers (declarations/check-ids.ts)
    if (!isStale(key, Date.now()) || this.#writing.has(id)) return;
    this.#writing.add(id);
    // After the request's own turn: the authentication that noticed the use is still reading.
    setImmediate(() => {
      this.#write(id)
        .catch((error: unknown) => this.#logger.warn(`last_used_at of API key ${id} not written: ${String(error)}`))
        .finally(() => this.#writing.delete(id));
    });
  };

  async #write(id: number): Promise<void> {
    // Taken before deciding: a store may run the decision twice (a retry), and both runs must write the same time.
    const now = isoTimestamp();
    await this.#store.serve(NO_PLAN, (store) =>
      store.write(() => {
        const key = store.get(this.#keys.collection, id);
        // Deleted meanwhile, or written by another process since.
        if (key === undefined || !isStale(key, Date.parse(now))) return { changes: [], result: undefined };
        const next = { ...key, [KEY_FIELDS.lastUsedAt]: now };
        // Not a change of the key's own (updated_at stays): the server noting when it was used.
        const record = recordToStore(this.#keys, next, id, key.created_at, key.updated_at);
        return { changes: [{ kind: 'put', collection: this.#keys.collection, record }], result: undefined };
      }),
    );
  }
}

function isStale(key: StoredRecord, now: number): boolean {
  const lastUsedAt = key[KEY_FIELDS.lastUsedAt];
  return typeof lastUsedAt !== 'string' || Date.parse(lastUsedAt) <= now - KEY_USE_RESOLUTION_MS;
}
