// The source is laid out by one formatter (Prettier, .prettierrc.json: lines of at most 120
// characters where a line can be broken), so that no change argues about layout; and every module
// says what it is in a short header, its comments kept to 120 characters too (src/README.md).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { REPOSITORY_ROOT } from './repository.ts';

/**
 * The files the formatter keeps (as `npm run format` names them): every TypeScript and script file of the source, the
 * package, the tests and the bench, and the one-file build's script; each folder's files by their endings, under it
 * (`deep`) or in it alone.
 */
const FORMATTED = [
  { folder: '.build', endings: ['.mjs'], deep: false },
  { folder: 'src', endings: ['.ts'], deep: true },
  { folder: 'packages/postgres/src', endings: ['.ts'], deep: true },
  { folder: 'test', endings: ['.ts', '.mjs'], deep: true },
  { folder: 'bench', endings: ['.ts', '.mjs'], deep: true },
];
/** Folders Prettier leaves alone (node_modules/ always, the tests' screenshots as .gitignore says). */
const LEFT_ALONE = /(^|\/)node_modules\/|^test\/artifacts\//;
/** What decides the layout besides a file's content and Prettier's version: its settings and what it ignores. */
const SETTINGS = ['.prettierrc.json', '.prettierignore', '.editorconfig'];
/**
 * The record of the files Prettier found laid out (git-ignored, beside the compiled tests): one line per file, a hash
 * of its path, its content, Prettier's version and SETTINGS. Not of Node's version, as Prettier's own --cache is keyed:
 * the same file lays out the same on every Node line, and CI runs the suite on five in one checkout.
 */
const RECORD = '.test-build/formatted';

/** Every file FORMATTED names, as a path from the repository's root. */
function formattedFiles(): string[] {
  return FORMATTED.flatMap(({ folder, endings, deep }) =>
    filesIn(folder, deep).filter((path) => endings.some((ending) => path.endsWith(ending))),
  ).sort();
}

/**
 * The files in `folder` (a path from the repository's root), and in its folders when `deep`, but for LEFT_ALONE's:
 * never read, as other test files write into test/artifacts/ and remove what they wrote meanwhile.
 */
function filesIn(folder: string, deep: boolean): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(REPOSITORY_ROOT, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`;
    if (!entry.isDirectory()) files.push(path);
    else if (deep && !LEFT_ALONE.test(`${path}/`)) files.push(...filesIn(path, deep));
  }
  return files;
}

/** A file's line in RECORD: what Prettier's verdict on it depends on, hashed. */
function recordLine(path: string, prettierVersion: string, settings: string): string {
  const hash = createHash('sha256').update(`${prettierVersion}\0${settings}\0${path}\0`);
  return hash.update(readFileSync(join(REPOSITORY_ROOT, path))).digest('hex');
}

// Prettier over the whole tree takes about 20 s on an idle machine (27 s of CPU) and well over a minute on a busy one;
// it is given only the files RECORD does not hold, none when nothing changed.
test('every source file is as the formatter lays it out', { timeout: 300_000 }, () => {
  const load = createRequire(import.meta.url);
  const prettier = load.resolve('prettier/bin/prettier.cjs');
  const prettierVersion = (load('prettier/package.json') as { version: string }).version;
  const settings = SETTINGS.map((name) => {
    const path = join(REPOSITORY_ROOT, name);
    return `${name}\0${existsSync(path) ? readFileSync(path, 'utf8') : ''}`;
  }).join('\0');
  const recordPath = join(REPOSITORY_ROOT, RECORD);
  const recorded = new Set(existsSync(recordPath) ? readFileSync(recordPath, 'utf8').split('\n') : []);
  const lines = new Map(formattedFiles().map((path) => [path, recordLine(path, prettierVersion, settings)]));
  const unchecked = [...lines].filter(([, line]) => !recorded.has(line)).map(([path]) => path);
  if (unchecked.length === 0) return;

  // Its garbage collector on the main thread alone, as test/run-suite.mjs runs the tests: 2 s of CPU less on the tree.
  const result = spawnSync(process.execPath, ['--single-threaded-gc', prettier, '--list-different', ...unchecked], {
    cwd: REPOSITORY_ROOT,
    encoding: 'utf8',
  });
  const different = result.stdout.split('\n').filter((path) => path !== '');
  if (result.stderr === '' && (result.status === 0 || result.status === 1)) {
    // Kept: the lines of files as they are now (a changed file's old line goes), the files found different left out.
    const passed = [...lines].filter(([path, line]) => recorded.has(line) || !different.includes(path));
    mkdirSync(dirname(recordPath), { recursive: true });
    writeFileSync(`${recordPath}.${process.pid}`, passed.map(([, line]) => `${line}\n`).join(''));
    renameSync(`${recordPath}.${process.pid}`, recordPath);
  }
  assert.equal(result.stderr, '');
  assert.deepEqual(different, [], 'files the formatter would change');
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
