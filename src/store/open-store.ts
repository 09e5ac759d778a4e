// Opening the data directory at start (README: Configuration, Storage and durability): take the lock, load the
// snapshots, replay the journal, cut a torn last journal line (a write that was never acknowledged) with a warning, and
// start a new journal segment; a first start with `seed` on begins from the example dataset, snapshotted at once.
// Anything corrupt stops the start with a message naming the file and line, and nothing is changed.

import { mkdir, open } from 'node:fs/promises';
import type { Logger } from '../logging/logger.ts';
import { removeLeftoverTemporaryFiles } from './atomic-file.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { readDataDirectory, StartupError } from './data-directory.ts';
import { declarationFitProblems } from './declaration-fit.ts';
import { acquireLock } from './data-lock.ts';
import { JournalPersistence } from './journal-persistence.ts';
import { JournalWriter } from './journal-writer.ts';
import { MemoryStore } from './memory-store.ts';
import { requireHeapFor } from './heap-fit.ts';
import type { Retention } from '../feed/event-log.ts';
import { EventLog } from '../feed/event-log.ts';
import { decodedEvents, hasUndecoded, loadHistory } from './journal-history.ts';
import type { Change, StoredCollection } from './store.ts';
import { IDEMPOTENCY_COLLECTION } from './store.ts';
import type { CollectionState } from './collection-state.ts';
import { parseSnapshot } from './parse-snapshot.ts';
import { exampleFileText } from '../declarations/example-files.ts';

export { StartupError };

export interface StoreOptions {
  readonly dataDir: string | null;
  /** Seeds the example dataset; only when `resources` is the example domain. */
  readonly seed: boolean;
  readonly compactAfterBytes: number;
  readonly logger: Logger;
  /** How much of the change feed's history is kept (feed/event-log.ts; config.events has it). */
  readonly events?: Retention;
}

/** The example dataset: the snapshot of each declared collection that data/example/ has (example-files.ts). */
function exampleCollections(resources: ResourceTable): Map<StoredCollection, CollectionState> {
  const collections = new Map<StoredCollection, CollectionState>();
  for (const { collection } of resources.resources) {
    const text = exampleFileText(`${collection}.json`);
    if (text !== undefined) collections.set(collection, parseSnapshot(text).state);
  }
  return collections;
}

/** The example dataset as one commit: a put for every record (ids in the example are dense, so next ids follow). */
function exampleDataChanges(resources: ResourceTable): Change[] {
  const changes: Change[] = [];
  for (const [collection, state] of exampleCollections(resources)) {
    for (const record of state.records.values()) changes.push({ kind: 'put', collection, record });
  }
  return changes;
}

export async function openStore(options: StoreOptions, resources: ResourceTable): Promise<MemoryStore> {
  const { dataDir, seed, logger } = options;
  if (dataDir === null) {
    const store = new MemoryStore(
      seed ? exampleCollections(resources) : new Map(),
      undefined,
      new EventLog([], 0, 0, options.events),
    );
    store.describeEvents(resources);
    return store;
  }
  await requireHeapFor(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 }); // never world-writable, whatever the umask
  const lock = await acquireLock(dataDir);
  try {
    await removeLeftoverTemporaryFiles(dataDir);
    const contents = await readDataDirectory(dataDir, resources);
    const misfits = declarationFitProblems(resources, contents.collections);
    if (misfits.length > 0) {
      throw new StartupError(
        `the data in ${dataDir} no longer fits the declaration: ${misfits.join('; ')}; nothing was changed`,
      );
    }
    if (contents.tornTail !== undefined) {
      const { path, goodBytes } = contents.tornTail;
      logger.warn(`journal ${path}: skipped a torn last line (a write that was never acknowledged)`);
      const file = await open(path, 'r+');
      await file.truncate(goodBytes);
      await file.sync();
      await file.close();
    }
    // The history the snapshots cover is decoded after the start (journal-history.ts), when there is any.
    const undecoded = hasUndecoded(contents.history);
    const feed = new EventLog(
      undecoded ? [] : decodedEvents(contents.history),
      contents.eventsLostThrough,
      contents.lastSeq,
      options.events,
    );
    if (undecoded)
      feed.loadEarlier(loadHistory(contents.history, contents.eventsLostThrough, contents.lastSeq, logger));
    const store = new MemoryStore(contents.collections, undefined, feed);
    store.describeEvents(resources);
    const journal = await JournalWriter.open(dataDir, contents.lastSeq, contents.segments);
    const persistence = new JournalPersistence({
      dataDir,
      journal,
      stateOf: (collection) => store.collectionState(collection),
      collections: [...resources.resources.map((resource) => resource.collection), IDEMPOTENCY_COLLECTION],
      lock,
      compactAfterBytes: options.compactAfterBytes,
      logger,
      keptFrom: () => feed.keptFrom,
    });
    store.persistWith(persistence);
    if (contents.isEmpty) {
      // The example data goes in as one journal entry, so a start cut short keeps all of it or none.
      if (seed) await store.commit(exampleDataChanges(resources));
      await persistence.compact();
    }
    return store;
  } catch (error) {
    await lock.release();
    throw error;
  }
}
