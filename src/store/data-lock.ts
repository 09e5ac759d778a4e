// One process per data directory (CONTRACT §9): a lock file holding the owner's pid,
// created with O_EXCL. A second process refuses to start and names the lock; a lock
// left by a process that no longer runs (after kill -9) is taken over.

import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { StartupError } from './data-directory.js';

export const LOCK_FILE = 'plainrest.lock';

export interface DataLock {
  readonly path: string;
  release(): Promise<void>;
}

export async function acquireLock(dataDir: string): Promise<DataLock> {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const file = await open(path, 'wx', 0o600);
      await file.writeFile(`${process.pid}\n`);
      await file.sync();
      await file.close();
      return { path, release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (isRunning(owner)) {
      throw new StartupError(
        `cannot start: ${dataDir} is in use by process ${owner} (lock file ${path}); ` +
          'stop that process, or delete the lock file if it is not plainrest',
      );
    }
    await rm(path, { force: true }); // stale: its owner is gone
  }
  throw new StartupError(`cannot start: could not take the lock file ${path}`);
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0 checks existence without sending anything
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
