// Atomic file replacement (after steno, json-server's writer): write a temporary file in the same directory, fsync it,
// rename it over the target, then fsync the directory so the rename itself is durable. A crash leaves either the old
// file or the new one.

import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * `.users.json.1234.5.tmp`: hidden, named after the file, the writing process and the
 * write; it also matches the `.users.json.1234.tmp` of earlier versions, which a crash
 * may have left.
 */
export const TEMPORARY_FILE = /^\..+\.\d+\.tmp$/;

/** Writes started by this process, numbering their temporary files. */
let writesStarted = 0;

/**
 * A temporary path beside `path` that no other write, in this process or another, uses: two overlapping writes of
 * one file cannot rename each other's (the last rename wins, whole).
 */
export function temporaryPathFor(path: string): string {
  writesStarted += 1;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${writesStarted}.tmp`);
}

/** Removes temporary files a crash left behind (their target files are intact). */
export async function removeLeftoverTemporaryFiles(directory: string): Promise<void> {
  for (const name of await readdir(directory)) {
    if (TEMPORARY_FILE.test(name)) await rm(join(directory, name), { force: true });
  }
}

/** Replaces `path` with `content`: text (UTF-8), or byte blocks written one after the other. */
export async function writeFileAtomically(path: string, content: string | readonly Uint8Array[]): Promise<void> {
  const temporary = temporaryPathFor(path);
  try {
    const file = await open(temporary, 'w', 0o600);
    try {
      if (typeof content === 'string') await file.writeFile(content, 'utf8');
      else for (const block of content) await file.writeFile(block);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
}

/**
 * Makes the names in `directory` durable (a rename, a new file). On Windows a directory cannot be opened to be synced,
 * and NTFS journals its names itself: nothing is done there (README: Running anywhere).
 */
export async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
