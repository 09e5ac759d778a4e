// Persistence by snapshots (CONTRACT §9): after a commit, each changed collection is
// rewritten atomically as `<collection>.json` under the data directory, and the commit
// resolves once its change is on disk. Saves that overlap are coalesced: while one
// write runs, later commits share the next one (as steno does).
// Cost grows with the collection size; the journal of the durable-storage issue
// replaces this per-write rewrite.

import { join } from 'node:path';
import type { CollectionName } from '../resources/definition.js';
import { writeFileAtomically } from './atomic-file.js';
import type { CollectionState } from './collection-state.js';
import { serializeCollection } from './collection-state.js';
import type { Persistence } from './memory-store.js';
import type { Change } from './store.js';

export function snapshotPath(dataDir: string, collection: CollectionName): string {
  return join(dataDir, `${collection}.json`);
}

export class SnapshotPersistence implements Persistence {
  readonly #dataDir: string;
  readonly #stateOf: (collection: CollectionName) => CollectionState;
  readonly #dirty = new Set<CollectionName>();
  #running: Promise<void> = Promise.resolve();
  #next: Promise<void> | undefined;

  constructor(dataDir: string, stateOf: (collection: CollectionName) => CollectionState) {
    this.#dataDir = dataDir;
    this.#stateOf = stateOf;
  }

  persist(changes: readonly Change[]): Promise<void> {
    for (const change of changes) this.#dirty.add(change.collection);
    return this.#scheduleWrite();
  }

  /** Writes the given collections whether or not they changed (used after seeding). */
  writeAll(collections: readonly CollectionName[]): Promise<void> {
    for (const collection of collections) this.#dirty.add(collection);
    return this.#scheduleWrite();
  }

  async close(): Promise<void> {
    await this.#scheduleWrite();
  }

  #scheduleWrite(): Promise<void> {
    if (this.#next !== undefined) return this.#next;
    const write = (): Promise<void> => {
      this.#next = undefined;
      this.#running = this.#writeDirty();
      return this.#running;
    };
    this.#next = this.#running.then(write, write);
    return this.#next;
  }

  async #writeDirty(): Promise<void> {
    const batch = [...this.#dirty];
    this.#dirty.clear();
    try {
      for (const collection of batch) {
        const text = serializeCollection(this.#stateOf(collection));
        await writeFileAtomically(snapshotPath(this.#dataDir, collection), text);
      }
    } catch (error) {
      for (const collection of batch) this.#dirty.add(collection);
      throw error;
    }
  }
}
