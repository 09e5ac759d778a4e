// The source is laid out by one formatter (Prettier, .prettierrc.json: lines of at most 120
// characters where a line can be broken), so that no change argues about layout. Run
// `npx prettier --write` on the files this test names to fix what it reports.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { REPOSITORY_ROOT } from './repository.ts';

/** The files the formatter keeps: every TypeScript and script file of the source, the package, the tests and the bench. */
const FORMATTED = ['src/**/*.ts', 'packages/postgres/src/**/*.ts', 'test/**/*.{ts,mjs}', 'bench/**/*.{ts,mjs}'];

test('every source file is as the formatter lays it out', { timeout: 60_000 }, () => {
  const prettier = createRequire(import.meta.url).resolve('prettier/bin/prettier.cjs');
  const result = spawnSync(process.execPath, [prettier, '--list-different', ...FORMATTED], {
    cwd: REPOSITORY_ROOT,
    encoding: 'utf8',
  });
  assert.equal(result.stderr, '');
  assert.equal(result.stdout, '', 'files the formatter would change');
  assert.equal(result.status, 0);
});
