// `npm test`: builds dist/ (the one-file build too) and compiles the tests once, then runs every test/*.test.ts as
// compiled JavaScript under node:test, as `node --test --test-timeout=600000 --test-concurrency=3 --test-reporter=spec`
// would, but in an order of its own (below; `node --test` sorts the files by name), and most files eight to a process
// (GROUP_SIZE). Not with --test-force-exit: on Node 24 and 26 it loses the last results of some files
// (nodejs/node#64833), so every file must end by itself; one that does not is named when the whole run passes
// SUITE_LIMIT_MS. Loading tsx in each test process cost about 0.4 s of CPU apiece. One file still runs from its
// source: `node --test test/x.test.ts` on Node 22.18+, `node --import tsx --test test/x.test.ts` on 20.
//
// The compiled tree is .test-build/ (git-ignored), a mirror of the repository's layout:
// .test-build/test/, .test-build/src/, … A dotted directory at the root rather than one
// under node_modules/, because Node reads a .js file as an ES module from the nearest
// package.json ("type": "module"), and that search stops at node_modules/. The files run
// are those of test/*.test.ts: one compiled from a test since removed is left behind in
// .test-build/, never run.

import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { buildOneFile, OUTPUT } from '../.build/one-file.mjs';

const BUILD = '.test-build';
/**
 * `npm run build`'s two compilations, each remembering what it emitted in a .tsbuildinfo inside
 * its own dist/ (removed with it): about 5 s of CPU when nothing changed, against 16 s. tsc
 * trusts that record and does not emit again a file removed from dist/ by hand, so a dist/
 * missing the output of any source is built afresh. They emit without checking (--noCheck: the
 * same JavaScript and declarations, half the CPU): the type-check of test/tsconfig.json, beside
 * them, covers both sources; `npm run build` checks as it emits. A build none of whose `inputs` (their .ts and .json
 * files: the sources, the settings, the first build's declarations for the second) is newer than its record is not
 * run at all, as `tsc -b` judges a project up to date: a run that changed nothing of src/ starts no tsc for dist/.
 */
const DIST_BUILDS = [
  { project: 'tsconfig.json', source: 'src', output: 'dist', inputs: ['src', 'tsconfig.json'] },
  {
    project: 'packages/postgres/tsconfig.json',
    source: 'packages/postgres/src',
    output: 'packages/postgres/dist',
    inputs: ['packages/postgres/src', 'packages/postgres/tsconfig.json', 'tsconfig.json', 'dist'],
  },
];
/**
 * The type-check and compile of src/, test/, bench/ and packages/postgres/src into BUILD (test/tsconfig.json), run in
 * build mode (`tsc -b`): with no input newer than its record (.test-build/test.tsbuildinfo) it reads none of the
 * ~1,000 files tsc -p parses even when nothing changed (0.5 s of CPU against 11). Build mode does not notice an output
 * removed by hand either, so a compiled tree missing any source's output is compiled afresh.
 */
const TEST_BUILD = { project: 'test', record: join(BUILD, 'test.tsbuildinfo') };
const TEST_SOURCES = ['src', 'test', 'bench', 'packages/postgres/src'];
/** A change of TypeScript itself makes every record stale. */
const TYPESCRIPT_PACKAGE = 'node_modules/typescript/package.json';

/**
 * A test (or test file) still running after ten minutes has failed (as --test-timeout). The
 * longest file takes about 25 s on an idle machine, and several times that on a busy one
 * (three busy loops beside the suite, README: Testing): the bound only catches a hang.
 */
const TEST_TIMEOUT_MS = 600_000;
/**
 * The whole run takes about three minutes on an idle machine (docs/testing.md, Timing), and
 * several times that on a busy one; at thirty, a file has left something running (a server, a
 * child, a timer).
 */
const SUITE_LIMIT_MS = 1_800_000;
/**
 * Processes run at once (a file alone, or a group): the suite is CPU-bound, and three keep two cores busy while one
 * waits (docs/testing.md, Timing).
 */
const CONCURRENCY = 3;
/**
 * The files that mostly wait (on timers, streams, a database restarting, a lease running out: 0.2-0.55 of a core,
 * measured alone: docs/testing.md, Timing), longest first. Each starts two places after the last, so that
 * it waits beside files that compute rather than beside another that waits: in name order the
 * three change-feed files ran together and left both cores idle for seven seconds.
 */
const MOSTLY_WAITING = [
  'slow-clients',
  'events.postgres',
  'events',
  'events-postgres',
  'webhooks.postgres',
  'postgres-failure',
  'client-abort',
  'http-limits',
  'api-keys',
  'provider-keys',
];
/**
 * The files that take longest (6-33 s each alone, with their PostgreSQL, Chromium, linters or child processes:
 * docs/testing.md, Timing) start first, longest first, so that no long one is left to run alone at the end.
 */
const HEAVIEST = [
  'http-suites.postgres',
  'home-page-browser',
  'openapi-lint',
  'import',
  'package',
  'json-server-command',
  'cli',
  'openapi-conformance',
  'authorization-fuzz',
  'json-server-dialect',
  'copy',
  'overload',
  'storage',
  'json-server-dialect-options',
  'crash',
  'cache-differential.postgres',
  'startup-failures',
];

/**
 * The other files run in groups of GROUP_SIZE, each group in one process (a file of `.test-build/groups/` that imports
 * them, by name), rather than each in its own: a process loads node:test, the helpers and src/ afresh, and compiles
 * the server's hot code again before it runs fast (30 light files alone cost 48 s of CPU, in three groups 27 s). Each
 * file is a suite of its own (test/file-suites.ts: its top-level hooks stay its own), and the suites run one after
 * another, once all the group's files are loaded.
 */
const GROUP_SIZE = 8;
const GROUP_HEAD = `// Written by test/run-suite.mjs: these test files in one process, each a suite.
import { fileSuites } from '../test/file-suites.js';
`;
/**
 * Files that run in a process of their own, though light: each changes, while one of its tests runs, something every
 * file of a process shares (the working directory, the umask, the environment, a listener for the process's warnings),
 * sets TEST_STORE for the whole process (the *.postgres files of HTTP suites), or looks at what the process has held
 * since it started (next-tick-shape).
 */
const ALONE = [
  'embedding',
  'events.postgres',
  'fuzz',
  'json-server-review-2',
  'json-server-sources',
  'next-tick-shape',
  'orders.postgres',
  'secrets',
  'storage-faults',
];

/**
 * `SUITE=long npm test` runs the same files, each with its load, crash loops, seeds, rounds and data sets at full size
 * and every HTTP suite again on PostgreSQL (test/long-run.ts reads the variable in each file's process).
 *
 * `SUITE=emulated npm test`: the files run on arm64 under qemu (docs/running-anywhere.md), where Node runs about ten
 * times slower and the whole suite would not fit CI's time: every file that speaks HTTP for the interface's behaviour,
 * the journal's durability, a `kill -9` restart, the one file copied alone, and embedding. They run what an x64 run
 * built (JavaScript is the same on every architecture, and esbuild's binary is the machine's), so nothing is built.
 */
const EMULATED = [
  'methods',
  'status-coverage',
  'errors',
  'validation',
  'routing',
  'products',
  'orders',
  'users',
  'lists',
  'field-selection',
  'embed',
  'merge-patch',
  'idempotency',
  'auth',
  'permissions',
  'cors',
  'http-limits',
  'compression',
  'events',
  'journal',
  'cli',
  'one-file',
  'embedding',
  'mounted',
];
const emulated = process.env.SUITE === 'emulated';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));

// dist/ (as `npm run build`, but incremental: DIST_BUILDS), the one-file build that the tests
// starting the command line run (dist/plainrest.mjs: esbuild, about 0.3 s, built whole each
// time), and the type-check of src/, test/, bench/ and packages/postgres/src that also writes
// the compiled tree (test/tsconfig.json: TEST_BUILD): independent, each on one core, so side by side.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = emulated
  ? [builtAlready()]
  : await Promise.all([
      buildDist(),
      buildOneFile().then(
        () => 0,
        (error) => {
          console.error(`npm test: the one-file build failed: ${error.message}`);
          return 1;
        },
      ),
      buildTests(),
    ]);
if (built.some((code) => code !== 0)) process.exit(1);

// The compiled src/ finds the example data two directories above itself, as src/ does.
if (!existsSync(join(BUILD, 'data'))) symlinkSync(join('..', 'data'), join(BUILD, 'data'), 'dir');

const names = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => name.replace(/\.test\.ts$/, ''))
  .sort();
const files = runningOrder(emulated ? names.filter((name) => EMULATED.includes(name)) : names);

// node:test starts each process (a file's or a group's) with this one's flags, as `node --test` passes its own. The
// garbage collector works on the main thread alone: with three processes on two cores its helper threads only add
// switches (7% less CPU, measured with a process for each file).
process.execArgv.push(`--test-timeout=${TEST_TIMEOUT_MS}`, '--single-threaded-gc');
const overtime = setTimeout(() => {
  console.error(`npm test: still running after ${SUITE_LIMIT_MS / 60_000} minutes; these test files have not ended:`);
  for (const { pid, file } of runningTestFiles()) {
    console.error(`  ${file}`);
    process.kill(pid, 'SIGKILL'); // so that nothing is left holding this run's output open
  }
  process.exit(1);
}, SUITE_LIMIT_MS);
overtime.unref();
run({ files, concurrency: CONCURRENCY, timeout: TEST_TIMEOUT_MS })
  .on('test:fail', (failure) => {
    if (!failure.todo) process.exitCode = 1;
  })
  .compose(new spec())
  .pipe(process.stdout);

/**
 * The paths to run: HEAVIEST first, each alone, then ALONE's, then the groups of the rest (groupFiles), with one of
 * MOSTLY_WAITING every third place from the start.
 */
function runningOrder(all) {
  const single = (name) => HEAVIEST.includes(name) || MOSTLY_WAITING.includes(name) || ALONE.includes(name);
  const path = (name) => join(BUILD, 'test', `${name}.test.js`);
  const rest = [
    ...[...HEAVIEST, ...ALONE].filter((name) => all.includes(name) && !MOSTLY_WAITING.includes(name)).map(path),
    ...groupFiles(all.filter((name) => !single(name))),
  ];
  const waiting = MOSTLY_WAITING.filter((name) => all.includes(name)).map(path);
  const order = [];
  while (waiting.length > 0 || rest.length > 0) order.push(...waiting.splice(0, 1), ...rest.splice(0, 2));
  return order;
}

/**
 * Writes a file into .test-build/groups/ for each GROUP_SIZE of `names` (in name order) that runs them as suites
 * (fileSuites), named after its first and last (`access-log--cors.test.js`); returns their paths.
 */
function groupFiles(names) {
  const folder = join(BUILD, 'groups');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  const paths = [];
  for (let start = 0; start < names.length; start += GROUP_SIZE) {
    const group = names.slice(start, start + GROUP_SIZE);
    const path = join(folder, `${group[0]}--${group.at(-1)}.test.js`);
    const files = group.map((name) => `  ['${name}', () => import('../test/${name}.test.js')],\n`);
    writeFileSync(path, `${GROUP_HEAD}fileSuites([\n${files.join('')}]);\n`);
    paths.push(path);
  }
  return paths;
}

/** The test files this process's children are running, with their process ids (from /proc; none known elsewhere). */
function runningTestFiles() {
  if (!existsSync('/proc')) return [];
  const running = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const parent = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1];
      if (parent !== String(process.pid)) continue;
      const file = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .find((arg) => arg.endsWith('.test.js'));
      if (file !== undefined) running.push({ pid: Number(pid), file });
    } catch {
      // ended meanwhile
    }
  }
  return running;
}

/** Runs DIST_BUILDS in turn (the second reads the first's types); resolves to the first failing exit code, else 0. */
async function buildDist() {
  for (const { project, source, output, inputs } of DIST_BUILDS) {
    const record = join(output, '.tsbuildinfo');
    const outputs = readdirSync(source, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => [name.replace(/\.ts$/, '.js'), name.replace(/\.ts$/, '.d.ts')]);
    if (!outputs.every((name) => existsSync(join(output, name)))) rmSync(record, { force: true });
    else if (upToDate(record, [...inputs, TYPESCRIPT_PACKAGE])) continue;
    const args = [tsc, '-p', project, '--incremental', '--tsBuildInfoFile', record, '--noCheck'];
    const started = new Date();
    const code = await runCommand(process.execPath, args);
    if (code !== 0) return code;
    // tsc leaves the record as it was when nothing changed: dated now to the build's start, it stands for every input
    // older than that (one changed while tsc ran is newer, and built next time).
    if (existsSync(record)) utimesSync(record, started, started);
  }
  return 0;
}

/** Runs TEST_BUILD (tsc -b), afresh when any source's compiled file is missing; resolves to its exit code. */
function buildTests() {
  const compiled = TEST_SOURCES.flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
      .map((name) => join(BUILD, folder, name.replace(/\.ts$/, '.js'))),
  );
  if (!compiled.every((path) => existsSync(path))) rmSync(TEST_BUILD.record, { force: true });
  return runCommand(process.execPath, [tsc, '-b', TEST_BUILD.project]);
}

/** Whether `record` exists and no .ts or .json file of `inputs` (files, or folders searched whole) is newer. */
function upToDate(record, inputs) {
  if (!existsSync(record)) return false;
  const written = statSync(record).mtimeMs;
  const files = inputs.flatMap((input) =>
    statSync(input).isDirectory()
      ? readdirSync(input, { recursive: true, encoding: 'utf8' }).map((name) => join(input, name))
      : [input],
  );
  return files.filter((path) => /\.(ts|json)$/.test(path)).every((path) => statSync(path).mtimeMs <= written);
}

/** 0 when an emulated run finds what an x64 run built (the one file, dist/, the compiled tests); else 1, saying so. */
function builtAlready() {
  const needed = [OUTPUT, join('dist', 'main.js'), ...EMULATED.map((name) => join(BUILD, 'test', `${name}.test.js`))];
  const missing = needed.filter((path) => !existsSync(path));
  if (missing.length === 0) return 0;
  console.error(`npm test: SUITE=emulated runs what \`npm test\` built on x64, and ${missing[0]} is missing`);
  return 1;
}

/** Runs a command with this process's output; resolves to its exit code (1 if a signal ended it). */
function runCommand(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}
