// `npm test`: builds dist/ and compiles the tests once, then runs every test/*.test.ts as
// compiled JavaScript under node:test. Loading tsx in each of the ~70 test processes cost
// about 0.4 s of CPU apiece, the suite's largest avoidable cost. One file still runs from
// its source: `node --import tsx --test test/x.test.ts`. Arguments are passed to node:test
// (`npm test -- --test-name-pattern=ETag`).
//
// The compiled tree is .test-build/ (git-ignored), a mirror of the repository's layout:
// .test-build/test/, .test-build/src/, … A dotted directory at the root rather than one
// under node_modules/, because Node reads a .js file as an ES module from the nearest
// package.json ("type": "module"), and that search stops at node_modules/. The files run
// are those of test/*.test.ts: one compiled from a test since removed is left behind in
// .test-build/, never run.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILD = '.test-build';
const NODE_TEST_FLAGS = ['--test', '--test-force-exit', '--test-timeout=180000', '--test-concurrency=3', '--test-reporter=spec'];
process.chdir(fileURLToPath(new URL('..', import.meta.url)));

// dist/ for the tests that start the command line, and the type-check of src/, test/,
// bench/ and packages/postgres/src that also writes the compiled tree (test/tsconfig.json):
// independent, each on one core, so side by side.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = await Promise.all([run('npm', ['run', 'build']), run(process.execPath, [tsc, '-p', 'test'])]);
if (built.some((code) => code !== 0)) process.exit(1);

// The compiled src/ finds the example data two directories above itself, as src/ does.
if (!existsSync(join(BUILD, 'data'))) symlinkSync(join('..', 'data'), join(BUILD, 'data'), 'dir');

const names = readdirSync('test').filter((name) => name.endsWith('.test.ts'));
const files = names.sort().map((name) => join(BUILD, 'test', name.replace(/\.ts$/, '.js')));
process.exitCode = await run(process.execPath, [...NODE_TEST_FLAGS, ...process.argv.slice(2), ...files]);

/** Runs a command with this process's output; resolves to its exit code (1 if a signal ended it). */
function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}
