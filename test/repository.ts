// Where the repository is, whichever tree a test runs from: test/*.ts itself (run one file
// with `node --import tsx --test test/x.test.ts`) or the compiled copy `npm test` runs
// (.test-build/test/*.js, made by test/run-suite.mjs). Tests find dist/, data/example/,
// the README and package.json from here, never from their own location.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory (no trailing slash): the nearest one above this module holding package.json. */
export const REPOSITORY_ROOT = nearestPackageDirectory(dirname(fileURLToPath(import.meta.url)));

function nearestPackageDirectory(start: string): string {
  for (let directory = start; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return directory;
    if (dirname(directory) === directory) throw new Error(`no package.json in ${start} or above`);
  }
}
