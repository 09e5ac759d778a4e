// Opening the data directory at start (CONTRACT §1, §9): take the lock, load the
// snapshots, replay the journal, cut a torn last journal line (a write that was never
// acknowledged) with a warning, and start a new journal segment. On a first start
// (no snapshot, no journal) with `seed` on, begin from the example dataset in
// `data/example/` and snapshot it at once. Anything corrupt stops the start with a
// message naming the file and line, and nothing is changed.

import { mkdir, open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../config.js';
import { removeLeftoverTemporaryFiles } from './atomic-file.js';
import { readDataDirectory, StartupError } from './data-directory.js';
import { acquireLock } from './data-lock.js';
import { JournalPersistence } from './journal-persistence.js';
import { JournalWriter } from './journal-writer.js';
import { MemoryStore } from './memory-store.js';

export { StartupError };

/** The example dataset, relative to this module in both `src/store/` and `dist/store/`. */
export const EXAMPLE_DATA_DIR = fileURLToPath(new URL('../../data/example/', import.meta.url));

export interface StoreOptions {
  readonly dataDir: string | null;
  readonly seed: boolean;
  readonly compactAfterBytes: number;
  readonly logger: Logger;
}

export async function openStore(options: StoreOptions): Promise<MemoryStore> {
  const { dataDir, seed, logger } = options;
  if (dataDir === null) {
    return new MemoryStore(seed ? (await readDataDirectory(EXAMPLE_DATA_DIR)).collections : new Map());
  }
  await mkdir(dataDir, { recursive: true });
  const lock = await acquireLock(dataDir);
  try {
    await removeLeftoverTemporaryFiles(dataDir);
    const contents = await readDataDirectory(dataDir);
    if (contents.tornTail !== undefined) {
      const { path, goodBytes } = contents.tornTail;
      logger.warn(`journal ${path}: skipped a torn last line (a write that was never acknowledged)`);
      const file = await open(path, 'r+');
      await file.truncate(goodBytes);
      await file.sync();
      await file.close();
    }
    const seeding = contents.isEmpty && seed;
    const store = new MemoryStore(seeding ? (await readDataDirectory(EXAMPLE_DATA_DIR)).collections : contents.collections);
    const journal = await JournalWriter.open(dataDir, contents.lastSeq, contents.segments);
    const persistence = new JournalPersistence({
      dataDir,
      journal,
      stateOf: (collection) => store.collectionState(collection),
      lock,
      compactAfterBytes: options.compactAfterBytes,
      logger,
    });
    store.persistWith(persistence);
    if (contents.isEmpty) await persistence.compact();
    return store;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

