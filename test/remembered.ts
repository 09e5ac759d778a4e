// What a slow tool answered for an input (a linter's findings, a compiler's diagnostics), kept in
// .test-build/remembered/ with a hash of all the answer depends on: the input, the calling test's own source (its
// settings), and the packages installed. A run that changed none of them reads the answer instead of running the tool
// again; a fresh checkout, or a removed .test-build/, runs every tool (docs/testing.md).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPOSITORY_ROOT } from './repository.ts';

const FOLDER = join(REPOSITORY_ROOT, '.test-build', 'remembered');
/** npm's record of the tree it installed: a package added, removed or changed anywhere, a tool's too, changes it. */
const INSTALLED = join(REPOSITORY_ROOT, 'node_modules', '.package-lock.json');
/** INSTALLED's text (160 KB), read once for every answer a process asks for; null without it. */
let installedTree: string | null | undefined;

/** A kept answer, and the hash of what it was computed from. */
interface Kept {
  readonly key: string;
  readonly answer: unknown;
}

/**
 * `compute()`'s answer, read from the record `name` when it was kept for the same `inputs`, the same source of the
 * test `caller` (its import.meta.url) and the same installed packages; else computed and kept (one record a name: a new
 * answer replaces the old). The answer is returned as JSON gives it back, kept or not. Without npm's record of the
 * tree, always computed.
 */
export async function remembered<T>(
  name: string,
  caller: string,
  inputs: readonly string[],
  compute: () => Promise<T>,
): Promise<T> {
  installedTree ??= existsSync(INSTALLED) ? readFileSync(INSTALLED, 'utf8') : null;
  if (installedTree === null) return compute();
  const hash = createHash('sha256');
  for (const part of [readFileSync(fileURLToPath(caller), 'utf8'), installedTree, ...inputs])
    hash.update(`${part.length}\0${part}`);
  const key = hash.digest('hex');
  const path = join(FOLDER, `${name}.json`);
  const kept = readKept(path);
  if (kept !== undefined && kept.key === key) return kept.answer as T;
  const text = JSON.stringify({ key, answer: await compute() } satisfies Kept);
  mkdirSync(FOLDER, { recursive: true });
  // Written aside and renamed into place: a process reading it meanwhile sees the old record or the new, whole.
  writeFileSync(`${path}.${process.pid}`, text);
  renameSync(`${path}.${process.pid}`, path);
  // As a later run reads it, so that the first run and the later ones compare the same answer.
  return (JSON.parse(text) as Kept).answer as T;
}

/** The record at `path`; undefined when there is none or it cannot be read, and the answer is then computed again. */
function readKept(path: string): Kept | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Kept;
  } catch {
    return undefined;
  }
}
