// One start at a time prepares a source's folder (docs/json-server.md: One command): two `plainrest db.json` started
// at once would both move, write and remove the same folder. A file beside the folder holds the preparing process's
// id; a second start is refused while it runs, and a file left by a process that is gone is taken over.

import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { isRunning } from '../store/data-lock.ts';
import { JsonServerError } from './json-server-settings.ts';

/** Takes `<folder>.importing` for this process while it prepares `source`; gives back its release. */
export async function importLock(folder: string, source: string): Promise<() => Promise<void>> {
  const path = `${folder}.importing`;
  // Written under a temporary name, then linked into place: the lock never exists without its process's id.
  const candidate = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(candidate, `${process.pid}\n`);
  } catch (error) {
    // No directory for the folder: there is nothing to prepare at once, and the start says what is missing.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return async () => {};
    throw error;
  }
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(candidate, path); // fails with EEXIST while another start holds it
        return () => rm(path, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (isRunning(owner))
        throw new JsonServerError(
          `${source}: another start (process ${owner}) is importing it into ${folder} now (${path}): wait for it, ` +
            'then start again',
        );
      await rm(path, { force: true }); // its process is gone
    }
    throw new JsonServerError(`${source}: another start took ${path} at the same moment: start again`);
  } finally {
    await rm(candidate, { force: true });
  }
}
