// The source is laid out by one formatter (Prettier, .prettierrc.json: lines of at most 120
// characters where a line can be broken), so that no change argues about layout; and every module
// says what it is in a short header, its comments kept to 120 characters too (src/README.md).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPOSITORY_ROOT } from './repository.ts';

/**
 * The files the formatter keeps: every TypeScript and script file of the source, the package, the tests and the bench,
 * and the one-file build's script.
 */
const FORMATTED = [
  '.build/*.mjs',
  'src/**/*.ts',
  'packages/postgres/src/**/*.ts',
  'test/**/*.{ts,mjs}',
  'bench/**/*.{ts,mjs}',
];

/**
 * Prettier's record of the files it found laid out (git-ignored, beside the compiled tests), each by a checksum of
 * its content and a hash of Prettier's version, Node's and the options: it formats again only a file whose content,
 * or whose version or options, it has not yet passed, and a file it finds changed leaves the record.
 */
const CACHE = ['--cache', '--cache-strategy', 'content', '--cache-location', '.test-build/prettier-cache'];

// Prettier over the whole tree takes about 15 s on an idle machine and well over a minute on a busy one; about 1 s
// when it has passed every file before (CACHE).
test('every source file is as the formatter lays it out', { timeout: 300_000 }, () => {
  const prettier = createRequire(import.meta.url).resolve('prettier/bin/prettier.cjs');
  const result = spawnSync(process.execPath, [prettier, '--list-different', ...CACHE, ...FORMATTED], {
    cwd: REPOSITORY_ROOT,
    encoding: 'utf8',
  });
  assert.equal(result.stderr, '');
  assert.equal(result.stdout, '', 'files the formatter would change');
  assert.equal(result.status, 0);
});

/** The folders of shipped source whose modules are read as the project's textbook. */
const SOURCE_FOLDERS = ['src', 'packages/postgres/src'];
/** Strings of HTML, CSS and browser script, whose lines are the page's, not the module's. */
const BROWSER_ASSETS = 'src/home/';

/** Every `.ts` file under `folder`, as a path from the repository's root. */
function sourceFiles(folder: string): string[] {
  return readdirSync(join(REPOSITORY_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${folder}/${name}`);
}

test('every module opens with a header of two to four comment lines, and no line is longer than 120 characters', () => {
  const problems: string[] = [];
  for (const path of SOURCE_FOLDERS.flatMap(sourceFiles)) {
    const lines = readFileSync(join(REPOSITORY_ROOT, path), 'utf8').split('\n');
    const start = lines[0]?.startsWith('#!') === true ? 1 : 0;
    let header = 0;
    while (lines[start + header]?.startsWith('//') === true) header++;
    if (header < 2 || header > 4) problems.push(`${path}: a header of ${header} lines`);
    if (path.startsWith(BROWSER_ASSETS)) continue;
    lines.forEach((line, index) => {
      if (line.length > 120) problems.push(`${path}:${index + 1}: ${line.length} characters`);
    });
  }
  assert.deepEqual(problems, []);
});

test('the reading order (src/README.md) names files that exist, with their sizes as they are', () => {
  const guide = readFileSync(join(REPOSITORY_ROOT, 'src/README.md'), 'utf8');
  const problems: string[] = [];
  // A file named in backquotes, then its size in lines in parentheses: `server/listener.ts` (178).
  for (const [, path, given] of guide.matchAll(/`([a-z-]+\/[a-z-]+\.ts)` \((\d+)/g)) {
    let lines: number;
    try {
      lines = readFileSync(join(REPOSITORY_ROOT, 'src', path as string), 'utf8').split('\n').length - 1;
    } catch {
      problems.push(`${path}: no such file`);
      continue;
    }
    if (lines !== Number(given)) problems.push(`${path}: ${given} lines given, ${lines} in the file`);
  }
  assert.deepEqual(problems, []);
});
