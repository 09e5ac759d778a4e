// Durable persistence (README: Storage and durability): every commit is appended to the journal and acknowledged only
// once it is on disk (journal-writer.ts). Past a size the journal is compacted: snapshots are written atomically in the
// background and the segments they cover deleted, but for those holding events the change feed keeps. A crash at any
// point leaves either the old segments or snapshots that cover them.

import { rm, stat } from 'node:fs/promises';
import type { Logger } from '../logging/logger.ts';
import { redactSecrets } from '../logging/redact.ts';
import type { StoredRecord } from '../records/json.ts';
import { syncDirectory } from './atomic-file.ts';
import type { CollectionState } from './collection-state.ts';
import { snapshotPath } from './data-directory.ts';
import type { DataLock } from './data-lock.ts';
import type { JournalWriter } from './journal-writer.ts';
import type { EntryPlace, Persistence, Change, StoredCollection } from './store.ts';
import { segmentsBefore } from './journal-format.ts';
import type { WrittenSnapshot } from './snapshot-file.ts';
import { writeSnapshot } from './snapshot-file.ts';

interface Captured {
  readonly collection: StoredCollection;
  readonly nextId: number;
  readonly records: readonly StoredRecord[];
}

export class JournalPersistence implements Persistence {
  readonly #dataDir: string;
  readonly #journal: JournalWriter;
  readonly #stateOf: (collection: StoredCollection) => CollectionState;
  /** The collections a compaction writes a snapshot of: the declared ones and the idempotency keys. */
  readonly #collections: readonly StoredCollection[];
  readonly #lock: DataLock;
  readonly #compactAfterBytes: number;
  readonly #logger: Logger;
  /** The oldest number the change feed still keeps: segments holding it or later ones stay. */
  readonly #keptFrom: () => number;
  /** The compaction running or waiting to run, newest; undefined when none is. */
  #compaction: Promise<void> | undefined;
  /** Size of the snapshots the last compaction wrote, in bytes; 0 before the first. */
  #snapshotBytes = 0;
  /** The snapshot files this process wrote last, for the next compaction to copy unchanged records from. */
  readonly #written = new Map<StoredCollection, WrittenSnapshot>();

  constructor(options: {
    dataDir: string;
    journal: JournalWriter;
    stateOf: (collection: StoredCollection) => CollectionState;
    collections: readonly StoredCollection[];
    lock: DataLock;
    compactAfterBytes: number;
    logger: Logger;
    keptFrom: () => number;
  }) {
    this.#keptFrom = options.keptFrom;
    this.#dataDir = options.dataDir;
    this.#journal = options.journal;
    this.#stateOf = options.stateOf;
    this.#collections = options.collections;
    this.#lock = options.lock;
    this.#compactAfterBytes = options.compactAfterBytes;
    this.#logger = options.logger;
  }

  get writable(): boolean {
    return !this.#journal.failed;
  }

  persist(changes: readonly Change[], place: EntryPlace): Promise<void> {
    const durable = this.#journal.append(changes, place.seq, place.at);
    // Past the configured bytes, or the size of the last snapshots if that is more: writing snapshots then costs a
    // constant share of each write, however large the data grows.
    if (
      this.#compaction === undefined &&
      this.#journal.bytesInSegment >= Math.max(this.#compactAfterBytes, this.#snapshotBytes)
    ) {
      this.compact().catch((error: unknown) =>
        this.#logger.error(`journal compaction failed (the journal is kept): ${redactSecrets(String(error))}`),
      );
    }
    return durable;
  }

  /**
   * Writes snapshots of the current state and deletes the journal segments they cover,
   * after any compaction already under way (two at once would write the same files), such as the start's after a
   * seed whose entry began one.
   */
  compact(): Promise<void> {
    const previous = this.#compaction ?? Promise.resolve();
    const compaction = previous.catch(() => undefined).then(() => this.#compactNow());
    this.#compaction = compaction;
    const forget = (): void => {
      if (this.#compaction === compaction) this.#compaction = undefined;
    };
    compaction.then(forget, forget);
    return compaction;
  }

  async #compactNow(): Promise<void> {
    // Capture and rotate in one synchronous step, so the capture is exactly the state at `seq` (records are immutable:
    // copying the lists is enough).
    const seq = this.#journal.lastSeq;
    const captured: Captured[] = this.#collections.map((collection) => {
      const state = this.#stateOf(collection);
      return { collection, nextId: state.nextId, records: [...state.records.values()] };
    });
    const covered = await this.#journal.rotate();
    let snapshotBytes = 0;
    for (const { collection, nextId, records } of captured) {
      const previous = this.#written.get(collection);
      // Forgotten until the new file is in place: after a failure, what is on disk is not known.
      this.#written.delete(collection);
      const written = await writeSnapshot(snapshotPath(this.#dataDir, collection), records, nextId, seq, previous);
      this.#written.set(collection, written);
      snapshotBytes += written.bytes;
    }
    this.#snapshotBytes = snapshotBytes;
    // Only once the snapshots are written; segments still holding events the change feed keeps stay (keptFrom).
    const removable = segmentsBefore(covered, seq + 1, this.#keptFrom());
    for (const path of removable) await rm(path, { force: true });
    this.#journal.dropFinished(removable);
    await syncDirectory(this.#dataDir);
  }

  /**
   * At shutdown: every acknowledged write is already in the journal, which the next start replays, so no snapshot is
   * rewritten and a stop takes the same time at any size; a compaction under way is let finish, then the journal is
   * closed and the lock released.
   */
  async close(): Promise<void> {
    try {
      await this.#compaction?.catch(() => undefined);
    } finally {
      await this.#journal.close().catch(() => undefined);
      // A segment no write reached is not kept: starts and stops without writes leave the directory as they found it.
      const current = this.#journal.currentSegment;
      if ((await stat(current).catch(() => undefined))?.size === 0) await rm(current, { force: true }).catch(() => {});
      await this.#lock.release();
    }
  }
}
