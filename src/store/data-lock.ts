// One process per data directory (README: Storage and durability): a lock file holding the owner's pid. A second
// process refuses to start and names the lock; a lock whose process no longer runs (after kill -9) is taken over.

import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StartupError } from './data-directory.ts';

export const LOCK_FILE = 'plainrest.lock';

export interface DataLock {
  readonly path: string;
  release(): Promise<void>;
}

/**
 * Lock files this process holds right now. A lock with this process's own pid is stale unless listed here: a
 * container restarts its server as pid 1 again.
 */
const HELD = new Set<string>();

export async function acquireLock(dataDir: string): Promise<DataLock> {
  const path = join(dataDir, LOCK_FILE);
  if (HELD.has(path)) throw inUse(dataDir, path, process.pid);
  // Written under a temporary name, then hard-linked into place, so the lock never exists without its pid.
  const candidate = `${path}.${process.pid}.tmp`;
  await writeFile(candidate, `${process.pid}\n`, { mode: 0o600, flush: true });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(candidate, path); // atomic: fails with EEXIST if a lock is there
        HELD.add(path);
        return {
          path,
          release: async () => {
            HELD.delete(path);
            await rm(path, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const text = await readFile(path, 'utf8').catch(() => '');
      const owner = /^\d+\n$/.test(text) ? Number(text) : undefined;
      // A lock this code did not write (no pid) is someone else's: do not guess.
      if (owner === undefined || (owner !== process.pid && isRunning(owner))) throw inUse(dataDir, path, owner);
      await rm(path, { force: true }); // stale: its owner is gone
    }
    throw new StartupError(`could not take the lock file ${path}; another process took it at the same moment: retry`);
  } finally {
    await rm(candidate, { force: true });
  }
}

function inUse(dataDir: string, path: string, owner: number | undefined): StartupError {
  const who = owner === undefined ? 'another program' : `process ${owner}`;
  return new StartupError(
    `${dataDir} is in use by ${who} (lock file ${path}); ` +
      'stop that process, or delete the lock file if it is not plainrest',
  );
}

/** Whether a process `pid` runs on this machine. */
export function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0 checks existence without sending anything
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
