// The npm package as a new user gets it (issue "first contact"): a tarball packed from a
// checkout installs into an empty directory with no network and no dependencies, and runs:
// `npx plainrest --version`, `npx plainrest` (the banner's token hint says `npx plainrest
// token`), `npx plainrest token`, `npx plainrest db.json`, and the README's embedding snippet
// as written. The tarball carries the licence and the README, and no source or tests; its one
// program is the one-file build. The checkout holds the dist/ `npm test` built (with the
// commands `prepack` runs: tsc and the one-file build), packed as it is; the long run
// (test/long-run.ts) packs a clean checkout, whose `prepack` builds dist/ again (20 s of CPU).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { killAll, runToExit, startProcess } from './child-process.ts';
import { temporaryDirectory } from './helpers.ts';
import { LONG_RUN } from './long-run.ts';
import { REPOSITORY_ROOT } from './repository.ts';

/** What a clean clone holds that packing needs (dist/ is built by prepack, or copied: PACK_AS_BUILT). */
const CHECKOUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'README.md',
  'LICENSE',
  'src',
  'data/example',
  'docs',
  '.build',
];
/** Each test's bound on a hang: npm pack and install take a minute or more on a busy machine. */
const TIMEOUT = { timeout: 300_000 };
const run = promisify(execFile);
/** npm without its update check, audit or funding notes, none of which a test may wait on or read. */
const QUIET_NPM = { npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
/** The default run packs the dist/ this run built, with no lifecycle script; the long run lets `prepack` build it. */
const PACK_AS_BUILT = !LONG_RUN;

let scratch: { path: string; remove: () => Promise<void> };
let tarball: string;
/** An empty directory the tarball was installed into. */
let project: string;
let env: Record<string, string>;

before(async () => {
  scratch = await temporaryDirectory();
  const checkout = join(scratch.path, 'checkout');
  for (const file of CHECKOUT_FILES) await cp(join(REPOSITORY_ROOT, file), join(checkout, file), { recursive: true });
  await symlink(join(REPOSITORY_ROOT, 'node_modules'), join(checkout, 'node_modules')); // the dev dependencies `npm install` gave the clone
  if (PACK_AS_BUILT) await cp(join(REPOSITORY_ROOT, 'dist'), join(checkout, 'dist'), { recursive: true });
  const npmEnv = { ...process.env, ...QUIET_NPM };
  const pack = ['pack', '--silent', '--pack-destination', scratch.path, ...(PACK_AS_BUILT ? ['--ignore-scripts'] : [])];
  const packed = await run('npm', pack, {
    cwd: checkout,
    env: npmEnv,
  });
  tarball = join(scratch.path, packed.stdout.trim().split('\n').at(-1) ?? '');

  project = join(scratch.path, 'project');
  await mkdir(project);
  await run('npm', ['install', '--offline', tarball], { cwd: project, env: npmEnv });
  env = { PATH: process.env['PATH'] ?? '', HOME: scratch.path, ...QUIET_NPM };
}, TIMEOUT);

after(async () => {
  await killAll();
  await scratch?.remove();
});

describe('the npm package', () => {
  test(
    'the tarball holds the one-file build and its map, the types, the example data, README, docs/, LICENSE; no source',
    TIMEOUT,
    async () => {
      const { stdout } = await run('tar', ['-tzf', tarball]);
      const files = stdout
        .trim()
        .split('\n')
        .map((line) => line.replace(/^package\//, ''));
      for (const expected of [
        'package.json',
        'README.md',
        'docs/deploying.md',
        'LICENSE',
        'dist/plainrest.mjs',
        'dist/plainrest.mjs.map',
        'dist/index.d.ts',
        'data/example/products.json',
      ]) {
        assert.ok(files.includes(expected), `${expected} is in the tarball`);
      }
      assert.deepEqual(
        files.filter((file) => /^(src|test|bench)\//.test(file)),
        [],
      );
      assert.deepEqual(
        files.filter((file) => /\.m?js$/.test(file)),
        ['dist/plainrest.mjs'],
      );
    },
  );

  test('`npx plainrest --version` prints the version of package.json', TIMEOUT, async () => {
    const { version } = JSON.parse(await readFile(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.deepEqual(await runToExit('npx', ['--no-install', 'plainrest', '--version'], { cwd: project, env }), {
      code: 0,
      stdout: `${version}\n`,
      stderr: '',
    });
  });

  test(
    '`npx plainrest` starts on the example data; its hint `npx plainrest token <email>` mints a token the server accepts',
    TIMEOUT,
    async () => {
      const server = startProcess('npx', ['--no-install', 'plainrest', '--port', '0'], {
        cwd: project,
        env,
        ownGroup: true,
      });
      const [, url] = await server.waitFor(/^plainrest listening on (\S+)$/m);
      await server.waitFor(/^data: data \(3 users, 12 products, 5 orders, 0 keys\)$/m);
      await server.waitFor(/^token: .*\(or: npx plainrest token <email>\)$/m);

      const minted = await runToExit('npx', ['--no-install', 'plainrest', 'token', 'alice@example.com'], {
        cwd: project,
        env,
      });
      assert.equal(minted.code, 0, minted.stderr);
      const alice = await fetch(`${url}/v1/users/1`, { headers: { authorization: `Bearer ${minted.stdout.trim()}` } });
      assert.equal(alice.status, 200);
      assert.equal(((await alice.json()) as { email: string }).email, 'alice@example.com');

      server.signal('SIGTERM'); // npx and the server it started
      await server.exited;
      assert.match(server.stdout(), /^SIGTERM: finishing in-flight requests, then stopping\nstopped\n$/m);
    },
  );

  test(
    '`npx plainrest db.json` imports a json-server file into db.plainrest/ beside it and serves it at the root and at ' +
      '/v1; a later run serves the same records, its line naming `npx plainrest export`',
    TIMEOUT,
    async () => {
      const mock = join(project, 'mock');
      await mkdir(mock);
      await writeFile(join(mock, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'hello' }] }));
      const serve = () =>
        startProcess('npx', ['--no-install', 'plainrest', 'db.json', '--port', '0'], {
          cwd: mock,
          env,
          ownGroup: true,
        });
      const first = serve();
      const [, url] = await first.waitFor(/^plainrest listening on (\S+)$/m);
      await first.waitFor(/^the same records under the conventions: /m);
      assert.deepEqual(await (await fetch(`${url}/posts`)).json(), [{ id: 1, title: 'hello' }]);
      const created = await fetch(`${url}/v1/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'again' }),
      });
      assert.equal(created.status, 201);
      first.signal('SIGTERM');
      await first.exited;

      const second = serve();
      await second.waitFor(
        /^db\.json: unchanged since its import \(.+\); serving the records kept in db\.plainrest\/data \(writes go there, not into db\.json: npx plainrest export db\.json --force writes them back\)$/m,
      );
      const [, again] = await second.waitFor(/^plainrest listening on (\S+)$/m);
      await second.waitFor(/^the same records under the conventions: /m);
      assert.deepEqual(await (await fetch(`${again}/posts`)).json(), [
        { id: 1, title: 'hello' },
        { id: 2, title: 'again' },
      ]);
      second.signal('SIGTERM');
      await second.exited;
    },
  );

  test(
    'DATABASE_URL without the optional package: one line naming the package to install, exit 2',
    TIMEOUT,
    async () => {
      const settings = {
        ...env,
        DATABASE_URL: 'postgres://plainrest@127.0.0.1:1/plainrest',
        TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters',
      };
      const result = await runToExit('npx', ['--no-install', 'plainrest', '--port', '0'], {
        cwd: project,
        env: settings,
      });
      assert.deepEqual(result, {
        code: 2,
        stdout: '',
        stderr:
          'cannot start: DATABASE_URL needs the optional package plainrest-postgres: npm install plainrest-postgres\n',
      });
    },
  );

  test("the README's embedding snippet runs as written against the installed package", TIMEOUT, async () => {
    const snippet = embeddingSnippet(await readFile(join(REPOSITORY_ROOT, 'README.md'), 'utf8'));
    await writeFile(join(project, 'embed.mjs'), snippet);
    const result = await runToExit(process.execPath, ['embed.mjs'], { cwd: project, env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.match(result.stdout, /^listening on http:\/\/127\.0\.0\.1:\d+$/m);
    assert.match(result.stdout, /^200 \{ status: 'ok' \}$/m);
  });
});

/** The first ```js block of the README's "Embedding" section. */
function embeddingSnippet(readme: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Embedding'));
  const block = section === undefined ? null : /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the README has an "Embedding" section with a ```js block');
  return block[1] as string;
}
