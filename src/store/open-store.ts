// Opening the data directory at start (CONTRACT §1, §9): load every snapshot that
// exists; on a first start (no snapshot at all) with `seed` on, begin from the example
// dataset shipped in `data/example/` and write it out at once. A snapshot that cannot
// be read stops the start with a message naming the file; nothing is overwritten.

import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CollectionName } from '../resources/definition.js';
import { COLLECTIONS } from '../resources/index.js';
import type { CollectionState } from './collection-state.js';
import { parseCollection } from './collection-state.js';
import { MemoryStore } from './memory-store.js';
import { SnapshotPersistence, snapshotPath } from './snapshot-persistence.js';

/** The example dataset, relative to this module in both `src/store/` and `dist/store/`. */
export const EXAMPLE_DATA_DIR = fileURLToPath(new URL('../../data/example/', import.meta.url));

export class StartupError extends Error {}

export async function openStore(dataDir: string | null, seed: boolean): Promise<MemoryStore> {
  if (dataDir === null) {
    return new MemoryStore(seed ? await readSnapshots(EXAMPLE_DATA_DIR) : new Map());
  }
  await mkdir(dataDir, { recursive: true });
  const existing = await readSnapshots(dataDir);
  const firstStart = existing.size === 0;
  const store = new MemoryStore(firstStart && seed ? await readSnapshots(EXAMPLE_DATA_DIR) : existing);
  const persistence = new SnapshotPersistence(dataDir, (collection) => store.collectionState(collection));
  store.persistWith(persistence);
  if (firstStart) await persistence.writeAll(COLLECTIONS);
  return store;
}

async function readSnapshots(directory: string): Promise<Map<CollectionName, CollectionState>> {
  const collections = new Map<CollectionName, CollectionState>();
  for (const collection of COLLECTIONS) {
    const path = snapshotPath(directory, collection);
    const text = await readIfExists(path);
    if (text === undefined) continue;
    try {
      collections.set(collection, parseCollection(text));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StartupError(`cannot start: snapshot ${path} is corrupt (${reason}); nothing was changed`);
    }
  }
  return collections;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

