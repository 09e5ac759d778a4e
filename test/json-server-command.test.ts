// `plainrest db.json` (docs/json-server.md: One command, The flags): the command line read as json-server 0.17's yargs
// reads it; then dist/plainrest.mjs run as a user runs it: a missing file made with json-server's example, the first
// run's import into db.plainrest/, a later run serving the same records, a changed file refused and --reimport, each
// json-server flag (taken, noted or refused with one line), json-server.json, --access and a database.

import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { failureLines, prepareJsonServer } from '../src/cli/json-server-command.ts';
import { parseCommandLine } from '../src/cli/options.ts';
import type { RunningProcess } from './child-process.ts';
import { killAll } from './child-process.ts';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
import { freePort } from './free-port.ts';
import { linesOf, MAIN, plainrest, plainrestToExit, serving, stop } from './json-server-cli.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

/** A bound on a test that starts processes: each takes seconds on a busy machine. */
const TIMEOUT = { timeout: 90_000 };
const ADMIN_PASSWORD = 'admin-password-for-json-server-tests';

/** What json-server 0.17 writes into a db.json that does not exist. */
const JSON_SERVER_EXAMPLE = {
  posts: [{ id: 1, title: 'json-server', author: 'typicode' }],
  comments: [{ id: 1, body: 'some comment', postId: 1 }],
  profile: { name: 'typicode' },
};

/** A record as /v1 serves it, without its timestamps. */
function withoutTimes(record: Record<string, unknown>): Record<string, unknown> {
  const { created_at: _created, updated_at: _updated, ...rest } = record;
  return rest;
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

async function listed(url: string): Promise<unknown[]> {
  const { status, body } = await getJson(url);
  assert.equal(status, 200, url);
  return (body as { data: Record<string, unknown>[] }).data.map(withoutTimes);
}

/** Waits (10 s at most) until `run` has written `line` on stderr. */
async function untilStderr(run: RunningProcess, line: string): Promise<void> {
  for (let waited = 0; !linesOf(run.stderr()).includes(line); waited += 50) {
    assert.ok(waited < 10_000, `no line ${JSON.stringify(line)} on stderr: ${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The lines `plainrest` run with `args` in `dir` prints as it refuses to start (each ending in a newline), found as the
 * command line finds them, in this process: the command read, then prepared with `dir` as the working directory.
 */
async function refusedHere(dir: string, args: string[]): Promise<string> {
  const commandLine = parseCommandLine(args, {});
  if (commandLine.kind !== 'json-server') assert.fail(`not the json-server command: ${JSON.stringify(commandLine)}`);
  const before = process.cwd();
  process.chdir(dir);
  try {
    await prepareJsonServer(commandLine.request, 'plainrest');
  } catch (error) {
    const lines = failureLines(error);
    if (lines === undefined) throw error;
    return lines.map((line) => `${line}\n`).join('');
  } finally {
    process.chdir(before);
  }
  return assert.fail(`not refused: ${args.join(' ')}`);
}

describe('the command line of plainrest db.json', () => {
  const parsed = (args: string[], env: NodeJS.ProcessEnv = {}) => parseCommandLine(args, env);

  test('a data file among the words makes it the json-server command, before or after the flags', () => {
    assert.deepEqual(parsed(['db.json']), {
      kind: 'json-server',
      request: { source: 'db.json', flags: new Map(), options: {}, access: undefined, reimport: false },
    });
    assert.deepEqual(parsed(['--port', '3004', '--data-dir', 'elsewhere', 'db.json5']), {
      kind: 'json-server',
      request: {
        source: 'db.json5',
        flags: new Map([['port', '3004']]),
        options: { dataDir: 'elsewhere' },
        access: undefined,
        reimport: false,
      },
    });
    // Without one, the words are a server's settings, as before.
    assert.deepEqual(parsed(['--port', '3004']), { kind: 'run', options: { port: 3004 } });
  });

  test("json-server's other sources: a URL (its remote schema) and a script (.js, .cjs: its generated data)", () => {
    for (const source of ['http://localhost:4000/db', 'https://example.com/api/db.json', 'db.js', 'data/make.cjs'])
      assert.deepEqual(parsed([source, '-p', '3004']), {
        kind: 'json-server',
        request: { source, flags: new Map([['port', '3004']]), options: {}, access: undefined, reimport: false },
      });
  });

  test("json-server's names, aliases and spellings, switches with =true/false, plainrest's settings and its own", () => {
    const line = parsed(
      [
        'db.json',
        '-p',
        '4000',
        '-H=0.0.0.0',
        '-d',
        '250',
        '--ro',
        '--nc',
        '--noGzip',
        '-s',
        'site',
        '--routes=routes.json',
        '-w=false',
        '-q',
        '-S',
        'snaps',
        '-i',
        'id',
        '--fks',
        '_id',
        '-m',
        'a.js',
        '--middlewares',
        'b.js',
        '-c',
        'server.json',
        '--rate-limit',
        '0',
        '--access',
        'read',
        '--reimport',
      ],
      { DATA_DIR: 'from-env', PORT: '9999' },
    );
    assert.deepEqual(line, {
      kind: 'json-server',
      request: {
        source: 'db.json',
        flags: new Map<string, unknown>([
          ['port', '4000'],
          ['host', '0.0.0.0'],
          ['delay', '250'],
          ['read-only', true],
          ['no-cors', true],
          ['no-gzip', true],
          ['static', 'site'],
          ['routes', 'routes.json'],
          ['watch', false],
          ['quiet', true],
          ['snapshots', 'snaps'],
          ['id', 'id'],
          ['foreignKeySuffix', '_id'],
          ['middlewares', ['a.js', 'b.js']],
          ['config', 'server.json'],
        ]),
        // The environment's settings too (json-server's --port wins over PORT when the server starts).
        options: { port: 9999, dataDir: 'from-env', rateLimit: 0 },
        access: 'read',
        reimport: true,
      },
    });
    const camel = parsed(['--readOnly', '--noCors', '--foreignKeySuffix=Id', '--foreign-key-suffix', 'Id', 'db.json']);
    assert.equal(camel.kind, 'json-server');
    assert.deepEqual(
      camel.kind === 'json-server' ? camel.request.flags : undefined,
      new Map<string, unknown>([
        ['read-only', true],
        ['no-cors', true],
        ['foreignKeySuffix', 'Id'],
      ]),
    );
  });

  test('--help and --version as anywhere else', () => {
    assert.equal(parsed(['db.json', '--help']).kind, 'help');
    assert.deepEqual(parsed(['db.json', '-v']), { kind: 'version' });
  });

  const refusals: [string, string[], string][] = [
    ['two data files', ['db.json', 'other.json'], 'one data file at a time: db.json or other.json'],
    ['a flag without its value', ['db.json', '--port'], '--port needs a value'],
    ['a value that is a flag', ['db.json', '-r', '--ro'], '-r needs a value'],
    ['an unknown flag', ['db.json', '--bogus'], 'unknown argument --bogus'],
    [
      'a switch given a word',
      ['--watch=maybe', 'db.json'],
      '--watch is a switch: --watch, --watch=true or --watch=false',
    ],
    ['another access', ['db.json', '--access', 'public'], '--access must be open, read or closed, not "public"'],
    ['a bad setting', ['db.json', '--rate-limit', 'many'], '--rate-limit (RATE_LIMIT): "many" is not a valid integer'],
    ['a URL that is none', ['http://'], 'http://: not a URL'],
    [
      'a mistyped subcommand',
      ['imprt'],
      "imprt: neither a subcommand nor a source (db.json, db.json5, db.js or a URL, as json-server's)",
    ],
  ];
  for (const [name, args, message] of refusals)
    test(`refused: ${name}`, () => {
      assert.deepEqual(parsed(args), { kind: 'error', command: 'run', message });
    });
});

describe('plainrest db.json', () => {
  const defer = cleanUpAfterEach();
  afterEach(killAll);

  test(
    "first run: a missing db.json made with json-server's example, imported into db.plainrest/ beside it and served; " +
      'a later run serves the same records, also once the file is laid out anew',
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      const first = plainrest(dir, ['db.json', '--port', '0']);
      const url = await serving(first);
      assert.deepEqual(JSON.parse(await readFile(join(dir, 'db.json'), 'utf8')), JSON_SERVER_EXAMPLE);
      const said = linesOf(first.stdout());
      assert.equal(
        said[0],
        "db.json did not exist: made it with json-server's example data (posts, comments, profile)",
      );
      assert.ok(
        said.includes(
          'wrote db.plainrest/resources.json: 3 collection(s); access open: anyone may list, read, create, change and ' +
            'delete, with no token, as json-server allows',
        ),
        first.stdout(),
      );
      assert.ok(said.includes('loaded 1 post, 1 comment, 1 profile into the data directory db.plainrest/data'));
      assert.ok(
        said.includes(
          'imported db.json into db.plainrest (the declaration db.plainrest/resources.json, the records in ' +
            'db.plainrest/data): served from there from now on; db.json is read again only if it changes',
        ),
      );
      assert.ok(said.includes(`data: db.plainrest/data (1 user, 1 post, 1 comment, 1 profile, 0 keys)`));
      assert.ok(said.includes(`json-server's routes: ${url}/posts, ${url}/comments, ${url}/profile, ${url}/db`));
      assert.equal(
        said.at(-1),
        `the same records under the conventions: ${url}/v1 (${url}/v1/openapi.json describes them)`,
      );
      assert.equal(first.stderr(), '');
      assert.deepEqual((await readdir(dir)).sort(), ['db.json', 'db.plainrest']);
      assert.deepEqual((await readdir(join(dir, 'db.plainrest'))).sort(), ['data', 'imported.json', 'resources.json']);
      const record = JSON.parse(await readFile(join(dir, 'db.plainrest', 'imported.json'), 'utf8'));
      assert.deepEqual(Object.keys(record), ['file', 'content', 'imported_at', 'into', 'access']);
      assert.equal(record.file, 'db.json');
      assert.match(record.content, /^sha256:[0-9a-f]{64}$/);
      assert.equal(record.into, 'data');
      assert.equal(record.access, 'open');

      // Served at /v1, open to anyone (json-server lets anyone write), to a browser of any origin.
      assert.deepEqual(await listed(`${url}/v1/posts`), [{ id: 1, title: 'json-server', author: 'typicode' }]);
      assert.deepEqual(await listed(`${url}/v1/comments`), [{ id: 1, body: 'some comment', post_id: 1 }]);
      // …and at the root in json-server's dialect, the file's names.
      assert.deepEqual(await getJson(`${url}/comments`), { status: 200, body: JSON_SERVER_EXAMPLE.comments });
      assert.deepEqual(await getJson(`${url}/db`), { status: 200, body: JSON_SERVER_EXAMPLE });
      const created = await fetch(`${url}/v1/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://localhost:5173' },
        body: JSON.stringify({ title: 'plainrest', author: 'someone' }),
      });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('location'), '/v1/posts/2');
      assert.equal(created.headers.get('access-control-allow-origin'), '*');
      await stop(first);

      // The file laid out anew (its data the same): not a change.
      await writeFile(join(dir, 'db.json'), JSON.stringify(JSON_SERVER_EXAMPLE));
      const second = plainrest(dir, ['db.json', '--port', '0']);
      const again = await serving(second);
      const importedAt = record.imported_at as string;
      assert.equal(
        linesOf(second.stdout())[0],
        `db.json: unchanged since its import (${importedAt}); serving the records kept in db.plainrest/data (writes ` +
          `go there, not into db.json: node ${MAIN} export db.json --force writes them back)`,
      );
      assert.deepEqual(await listed(`${again}/v1/posts`), [
        { id: 1, title: 'json-server', author: 'typicode' },
        { id: 2, title: 'plainrest', author: 'someone' },
      ]);
      assert.deepEqual(await getJson(`${again}/posts`), {
        status: 200,
        body: [
          { id: 1, title: 'json-server', author: 'typicode' },
          { id: 2, title: 'plainrest', author: 'someone' },
        ],
      });
      assert.equal(second.stderr(), '');
      await stop(second);
    },
  );

  test(
    'a changed db.json is refused with one line, nothing started or written; --reimport imports it again and keeps ' +
      'the records served until then in db.plainrest.previous',
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'first' }] }));
      const first = plainrest(dir, ['db.json', '--port', '0']);
      await serving(first);
      await stop(first);
      const record = await readFile(join(dir, 'db.plainrest', 'imported.json'), 'utf8');
      const { imported_at: importedAt } = JSON.parse(record) as { imported_at: string };

      await writeFile(
        join(dir, 'db.json'),
        JSON.stringify({
          posts: [
            { id: 1, title: 'changed' },
            { id: 7, title: 'new' },
          ],
        }),
      );
      assert.deepEqual(await plainrestToExit(dir, ['db.json', '--port', '0']), {
        code: 2,
        stdout: '',
        stderr:
          `cannot start: db.json has changed since it was imported into db.plainrest (${importedAt}); the records ` +
          'served from there may have changed too: pass --reimport to import the file again (the records served so ' +
          `far are kept in db.plainrest.previous), or run node ${MAIN} export db.json --force to write the served ones ` +
          'over it\n',
      });
      assert.equal(await readFile(join(dir, 'db.plainrest', 'imported.json'), 'utf8'), record);

      // A file the import refuses: nothing changes, and what --reimport moved aside comes back.
      const changed = await readFile(join(dir, 'db.json'), 'utf8');
      const twice = {
        posts: [
          { id: 1, title: 'one' },
          { id: 1, title: 'two' },
        ],
      };
      await writeFile(join(dir, 'db.json'), JSON.stringify(twice));
      assert.deepEqual(await plainrestToExit(dir, ['db.json', '--port', '0', '--reimport']), {
        code: 2,
        stdout: '',
        stderr: 'cannot import: posts, records 1 and 2: both have the id 1; give each its own\n',
      });
      assert.deepEqual((await readdir(dir)).sort(), ['db.json', 'db.plainrest']);
      assert.equal(await readFile(join(dir, 'db.plainrest', 'imported.json'), 'utf8'), record);
      await writeFile(join(dir, 'db.json'), changed);

      const reimported = plainrest(dir, ['db.json', '--port', '0', '--reimport']);
      const url = await serving(reimported);
      const said = linesOf(reimported.stdout());
      assert.ok(said.includes('moved db.plainrest to db.plainrest.previous: the records served until now'));
      assert.ok(said.includes('loaded 2 posts into the data directory db.plainrest/data'));
      assert.deepEqual(await listed(`${url}/v1/posts`), [
        { id: 1, title: 'changed' },
        { id: 7, title: 'new' },
      ]);
      await stop(reimported);
      assert.deepEqual((await readdir(dir)).sort(), ['db.json', 'db.plainrest', 'db.plainrest.previous']);
      assert.equal(await readFile(join(dir, 'db.plainrest.previous', 'imported.json'), 'utf8'), record);
      // The next run serves the new import.
      const next = plainrest(dir, ['db.json', '--port', '0']);
      await serving(next);
      assert.match(linesOf(next.stdout())[0] as string, /^db\.json: unchanged since its import /);
      await stop(next);
    },
  );

  test(
    'a first import the file stops: its lines, exit 2, nothing left beside it; a declaration named instead is refused; ' +
      'db.json5 is read as JSON5',
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(
        join(dir, 'db.json'),
        JSON.stringify({
          posts: [
            { id: 1, title: 'one' },
            { id: 1, title: 'two' },
          ],
        }),
      );
      assert.deepEqual(await plainrestToExit(dir, ['db.json', '--port', '0']), {
        code: 2,
        stdout: '',
        stderr: 'cannot import: posts, records 1 and 2: both have the id 1; give each its own\n',
      });
      assert.deepEqual(await readdir(dir), ['db.json']);

      await writeFile(join(dir, 'resources.json'), JSON.stringify({ resources: { posts: { singular: 'post' } } }));
      assert.deepEqual(await plainrestToExit(dir, ['resources.json', '--port', '0']), {
        code: 2,
        stdout: '',
        stderr:
          "cannot start: resources.json is a declaration (its one member is resources), not json-server's data: serve " +
          'it with --resources resources.json\n',
      });
      assert.deepEqual((await readdir(dir)).sort(), ['db.json', 'resources.json']);

      await writeFile(
        join(dir, 'db.json5'),
        "{\n  // json-server 1.x reads db.json5\n  posts: [{ id: 1, title: 'five' },],\n}\n",
      );
      const run = plainrest(dir, ['db.json5', '--port', '0']);
      const url = await serving(run);
      assert.ok(linesOf(run.stdout()).includes('loaded 1 post into the data directory db.plainrest/data'));
      assert.deepEqual(await listed(`${url}/v1/posts`), [{ id: 1, title: 'five' }]);
      assert.deepEqual(await getJson(`${url}/posts`), { status: 200, body: [{ id: 1, title: 'five' }] });
      await stop(run);
      assert.equal(JSON.parse(await readFile(join(dir, 'db.plainrest', 'imported.json'), 'utf8')).file, 'db.json5');
    },
  );

  test(
    "json-server's flags: --port, --host, --delay, --read-only (at /v1 too: writes need an admin), --no-cors, " +
      '--quiet, and --watch, --no-gzip, --snapshots, --id id, --foreignKeySuffix _id taken with a line where they differ',
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'first' }] }));
      const port = await freePort();
      const flags = ['-p', String(port), '-H', '127.0.0.1', '-d', '400', '--ro', '--nc', '-q', '-w', '--ng', '-S', '.'];
      const run = plainrest(dir, ['db.json', ...flags, '-i', 'id', '--fks', '_id'], { ADMIN_PASSWORD });
      const url = await serving(run);
      assert.equal(url, `http://127.0.0.1:${port}`);
      assert.deepEqual(linesOf(run.stderr()), [
        "warning: --watch: the records served are plainrest's (each write journaled, the file not written): a " +
          'change of the file is told here while serving, and served once plainrest starts again with --reimport',
        'warning: --no-gzip: taken as is; plainrest compresses an answer of 1 KiB or more only for a client that ' +
          'accepts it (Accept-Encoding), as json-server does, and none for one that sends Accept-Encoding: identity',
        'warning: --snapshots: plainrest reads no keys from the terminal (s + Enter); GET /db saves the records in ' +
          "the file's shape while it runs (curl -s …/db > snapshot.json), plainrest export once it is stopped",
      ]);

      const started = performance.now();
      const read = await fetch(`${url}/v1/posts/1`, { headers: { origin: 'http://localhost:5173' } });
      assert.ok(performance.now() - started >= 400, 'the answer waited --delay first');
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('access-control-allow-origin'), null, '--no-cors');
      // json-server's routes: delayed too, and read-only as json-server answers it.
      const rootStarted = performance.now();
      const rootRead = await fetch(`${url}/posts/1`, { headers: { origin: 'http://localhost:5173' } });
      assert.ok(performance.now() - rootStarted >= 400, "json-server's answer waited --delay first");
      assert.equal(rootRead.status, 200);
      assert.equal(rootRead.headers.get('access-control-allow-origin'), null, '--no-cors at the root too');
      assert.deepEqual(await rootRead.json(), { id: 1, title: 'first' });
      const rootWrite = await fetch(`${url}/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'second' }),
      });
      assert.equal(rootWrite.status, 403);
      assert.equal(await rootWrite.text(), 'Forbidden');

      const post = (token?: string) =>
        fetch(`${url}/v1/posts`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
          body: JSON.stringify({ title: 'second' }),
        });
      const anonymous = await post();
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="plainrest"');
      const login = await fetch(`${url}/v1/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD }),
      });
      const { access_token: token } = (await login.json()) as { access_token: string };
      assert.equal((await post(token)).status, 201);
      // The declaration's file is as the import wrote it: writes open to anyone once served without --read-only.
      const declared = JSON.parse(await readFile(join(dir, 'db.plainrest', 'resources.json'), 'utf8'));
      assert.equal(declared.resources.posts.access.create, 'public');
      // --quiet: no access log.
      assert.doesNotMatch(run.stdout(), /\/v1\/posts/);
      // --watch: a change of the file's data is told, once; the records served are still the import's.
      const told =
        'warning: db.json has changed: still serving the records kept in db.plainrest/data; start again with ' +
        '--reimport to serve the file (those served until then are kept aside)';
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'edited' }] }));
      await untilStderr(run, told);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'edited' }] }, null, 2));
      assert.deepEqual(await (await fetch(`${url}/posts/1`)).json(), { id: 1, title: 'first' });
      await stop(run);
      assert.equal(linesOf(run.stderr()).filter((line) => line === told).length, 1, run.stderr());
    },
  );

  test(
    "--static and ./public are served at the root, --routes' rules rewrite json-server's paths, and the start lists them",
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'first' }] }));
      await mkdir(join(dir, 'site'));
      await writeFile(join(dir, 'site', 'index.html'), '<h1>site</h1>');
      await mkdir(join(dir, 'public'));
      await writeFile(join(dir, 'public', 'hello.txt'), 'from public');
      await writeFile(join(dir, 'routes.json'), JSON.stringify({ '/api/*': '/$1', '/blog/:id': '/posts/:id' }));
      const run = plainrest(dir, ['db.json', '--port', '0', '-s', 'site', '-r', 'routes.json']);
      const url = await serving(run);
      await run.waitFor(/^rewritten \(--routes\): /m);
      assert.equal(linesOf(run.stdout()).at(-1), 'rewritten (--routes): /api/* -> /$1, /blog/:id -> /posts/:id');
      const page = await fetch(`${url}/`);
      assert.equal(page.status, 200);
      assert.equal(await page.text(), '<h1>site</h1>');
      assert.equal((await fetch(`${url}/hello.txt`)).status, 404, '--static names the directory instead of ./public');
      assert.deepEqual(await getJson(`${url}/api/posts/1`), { status: 200, body: { id: 1, title: 'first' } });
      assert.deepEqual(await getJson(`${url}/blog/1`), { status: 200, body: { id: 1, title: 'first' } });
      await stop(run);

      const byDefault = plainrest(dir, ['db.json', '--port', '0']);
      const other = await serving(byDefault);
      const file = await fetch(`${other}/hello.txt`);
      assert.equal(file.status, 200);
      assert.equal(await file.text(), 'from public');
      assert.equal((await fetch(`${other}/api/posts/1`)).status, 404, 'no rules without --routes');
      await stop(byDefault);
    },
  );

  test(
    'json-server.json (or --config) gives flags the command line has not; the command line wins',
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'first' }] }));
      const port = await freePort();
      await writeFile(join(dir, 'json-server.json'), JSON.stringify({ port, readOnly: true, watch: true, cors: 1 }));
      const run = plainrest(dir, ['db.json', '--watch=false']);
      const url = await serving(run);
      assert.equal(url, `http://127.0.0.1:${port}`);
      assert.deepEqual(linesOf(run.stderr()), [
        'warning: json-server.json: cors is no json-server flag plainrest reads; left out',
      ]);
      const write = await fetch(`${url}/v1/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'second' }),
      });
      assert.equal(write.status, 401, 'readOnly from json-server.json');
      await stop(run);

      await writeFile(join(dir, 'other.json'), JSON.stringify({ port: 0, quiet: true }));
      const other = plainrest(dir, ['db.json', '-c', 'other.json']);
      const otherUrl = await serving(other);
      assert.notEqual(otherUrl, url, 'json-server.json is not read when --config names another file');
      assert.equal(other.stderr(), '');
      await stop(other);
    },
  );

  test(
    '--access read: anyone reads, only an admin writes; a later run keeps the access of the import and says so',
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'first' }] }));
      const run = plainrest(dir, ['db.json', '--port', '0', '--access', 'read']);
      const url = await serving(run);
      assert.deepEqual(await listed(`${url}/v1/posts`), [{ id: 1, title: 'first' }]);
      const write = await fetch(`${url}/v1/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'second' }),
      });
      assert.equal(write.status, 401);
      await stop(run);
      const later = plainrest(dir, ['db.json', '--port', '0', '--access', 'open']);
      await serving(later);
      assert.deepEqual(linesOf(later.stderr()), [
        'warning: --access open: db.plainrest/resources.json keeps the access of its import (read); change it there, ' +
          'or pass --reimport',
      ]);
      await stop(later);
    },
  );

  const refusals: [string, Record<string, string>, string[], string][] = [
    ['a routes file that is no JSON', { 'routes.json': '{"/api/*": ' }, ['-r', 'routes.json'], ''],
    [
      'a routes file whose rule maps to no path',
      { 'routes.json': '{"/api/*": "/$1", "/blog/:id": 3}' },
      ['--routes', 'routes.json'],
      'cannot start: --routes routes.json: the rule "/blog/:id" must map to a path starting with /, not 3',
    ],
    [
      'a routes file that is a list',
      { 'routes.json': '["/api/*"]' },
      ['--routes', 'routes.json'],
      'cannot start: --routes routes.json: a JSON object of rules, such as {"/api/*": "/$1"}',
    ],
    [
      'a rule that is no path',
      { 'routes.json': '{"api/*": "/$1"}' },
      ['--routes', 'routes.json'],
      'cannot start: --routes routes.json: the rule "api/*" must start with /',
    ],
    ['a routes file not there', {}, ['--routes', 'routes.json'], 'cannot start: --routes routes.json: no such file'],
    ['a static directory not there', {}, ['--static', 'site'], 'cannot start: --static site: no such directory'],
    [
      'middlewares',
      { 'logger.js': 'module.exports = (req, res, next) => next();' },
      ['-m', 'logger.js'],
      'cannot start: --middlewares: plainrest runs no Express middleware; a declaration hook (docs/resources.md: ' +
        'Hooks) or plainrest embedded in your own server (docs/embedding.md) does that work',
    ],
    [
      'another id property',
      {},
      ['--id', '_id'],
      "cannot start: --id _id: plainrest's import reads a record's id from id (or Id, ID) only; rename _id to id in " +
        'the file to keep those ids',
    ],
    [
      'another foreign key suffix',
      {},
      ['--fks', '_key'],
      "cannot start: --foreignKeySuffix _key: plainrest's import knows references named postId or post_id only; " +
        'rename them in the file',
    ],
    ['a port out of range', {}, ['-p', '70000'], 'cannot start: --port 70000: a whole number from 0 to 65535'],
    ['a delay over a minute', {}, ['-d', '60001'], 'cannot start: --delay 60001: a whole number from 0 to 60000'],
    ['a config file not there', {}, ['-c', 'server.json'], 'cannot start: --config server.json: no such file'],
    [
      'a config value of the wrong kind',
      { 'json-server.json': '{"readOnly": "yes"}' },
      [],
      'cannot start: json-server.json: readOnly cannot be "yes"',
    ],
  ];
  // Two run as a process, which prints the refusal's line alone and exits 2 (the first, and one read from
  // json-server.json in the working directory); the others' lines are the same command's, found in this process.
  const AS_A_PROCESS = new Set(['a routes file that is no JSON', 'a config value of the wrong kind']);
  for (const [name, files, args, stderr] of refusals) {
    const asProcess = AS_A_PROCESS.has(name);
    test(`refused with one line${asProcess ? ', exit 2' : ''}, nothing imported: ${name}`, TIMEOUT, async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'first' }] }));
      for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
      const words = ['db.json', '--port', '0', ...args];
      let printed: string;
      if (asProcess) {
        const result = await plainrestToExit(dir, words);
        assert.equal(result.code, 2);
        assert.equal(result.stdout, '');
        printed = result.stderr;
      } else printed = await refusedHere(dir, words);
      if (stderr === '') assert.match(printed, /^cannot start: --routes routes\.json: not JSON \([^\n]+\)\n$/, printed);
      else assert.equal(printed, `${stderr}\n`);
      assert.deepEqual((await readdir(dir)).sort(), ['db.json', ...Object.keys(files)].sort());
    });
  }
});

describe('plainrest db.json into PostgreSQL', { skip: POSTGRES_SKIP }, () => {
  const defer = cleanUpAfterEach();
  afterEach(killAll);

  test(
    '--database-url (or DATABASE_URL): the records go into the database, the declaration and record into db.plainrest/',
    TIMEOUT,
    async () => {
      const cluster = await startCluster();
      defer(() => cluster.stop());
      const database = cluster.url(await cluster.createDatabase());
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify({ posts: [{ id: 1, title: 'first' }] }));
      const env = { TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters!', DATABASE_URL: database };
      const first = plainrest(dir, ['db.json', '--port', '0'], env);
      const url = await serving(first);
      assert.ok(linesOf(first.stdout()).includes(`loaded 1 post into the database ${database}`), first.stdout());
      await fetch(`${url}/v1/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'second' }),
      });
      await stop(first);
      assert.deepEqual((await readdir(join(dir, 'db.plainrest'))).sort(), ['imported.json', 'resources.json']);
      const second = plainrest(dir, ['db.json', '--port', '0', '--database-url', database], {
        TOKEN_SECRET: env.TOKEN_SECRET,
      });
      const again = await serving(second);
      assert.match(
        linesOf(second.stdout())[0] as string,
        /^db\.json: unchanged since its import \(.+\); serving the records kept in the database /,
      );
      assert.deepEqual(await listed(`${again}/v1/posts`), [
        { id: 1, title: 'first' },
        { id: 2, title: 'second' },
      ]);
      await stop(second);
    },
  );
});
