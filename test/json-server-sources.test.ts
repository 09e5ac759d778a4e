// `plainrest db.js` and `plainrest http://host/db.json` (docs/json-server.md: One command): json-server 0.17's
// generated data and remote schema, taken once at the first run (the script's function called, the URL fetched from a
// local server) and imported; served side by side with json-server given the same data; later runs serve the records
// kept; a changed script stops the start, --reimport takes either again; each refusal's line, nothing left behind.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { JsonServerRequest, PreparedServer } from '../src/cli/json-server-command.ts';
import { prepareJsonServer } from '../src/cli/json-server-command.ts';
import { JsonServerError } from '../src/cli/json-server-settings.ts';
import { startServer } from '../src/server/server.ts';
import { cleanUpAfterEach, scratchDirectory, TEST_AUTH_OPTIONS } from './helpers.ts';
import { assertCovers } from './json-server-pair.ts';

const require = createRequire(import.meta.url);

/** json-server's module, as its command line uses it for a script's data (lib/cli/run.js: router of an object). */
interface JsonServerModule {
  create(): { use(...handlers: unknown[]): void; listen(port: number, host: string, done: () => void): Server };
  router(source: unknown): unknown;
  defaults(options: { logger: boolean }): unknown[];
}
type Server = import('node:http').Server;

/** json-server's README example of generated data, grown: a random member, so that a second call would differ. */
const SCRIPT = `module.exports = () => {
  const data = { customers: [], orders: [] }
  for (let i = 1; i <= 5; i++) data.customers.push({ id: i, name: 'user' + i, luck: Math.random() })
  data.orders.push({ id: 1, customerId: 2, total: 30 })
  return data
}
`;

const REMOTE = {
  posts: [
    { id: 1, title: 'json-server', author: 'typicode' },
    { id: 2, title: 'remote', author: 'ada' },
  ],
  comments: [{ id: 1, body: 'some comment', postId: 1 }],
  profile: { name: 'typicode' },
};

function request(source: string, more: Partial<JsonServerRequest> = {}): JsonServerRequest {
  return { source, flags: new Map(), options: {}, access: undefined, reimport: false, ...more };
}

describe('plainrest db.js and plainrest http://…/db.json, as json-server 0.17 takes them', () => {
  const defer = cleanUpAfterEach();

  /** `prepared` served on a free port; its URL, and how to stop it before the records are imported again. */
  const serving = async (prepared: PreparedServer): Promise<{ url: string; close: () => Promise<void> }> => {
    const server = await startServer({ ...prepared.options, port: 0, host: '127.0.0.1', ...TEST_AUTH_OPTIONS });
    let closed: Promise<void> | undefined;
    const close = (): Promise<void> => (closed ??= server.close());
    defer(close);
    return { url: server.url, close };
  };
  const serve = async (prepared: PreparedServer): Promise<string> => (await serving(prepared)).url;
  /** json-server serving `data` as it serves a script's (in memory). */
  const jsonServerOf = async (data: unknown): Promise<string> => {
    const jsonServer = require('json-server') as JsonServerModule;
    const app = jsonServer.create();
    app.use(jsonServer.defaults({ logger: false }));
    app.use(jsonServer.router(structuredClone(data)));
    const server = await new Promise<Server>((resolve) => {
      const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const read = async (url: string): Promise<unknown> => (await fetch(url)).json();

  test('a script: its function called once, at the first run, what it gave imported and served', async () => {
    const dir = await scratchDirectory(defer);
    const script = join(dir, 'db.js');
    await writeFile(script, SCRIPT);
    const first = await prepareJsonServer(request(script, { flags: new Map([['port', '0']]) }), 'plainrest');
    const folder = join(dir, 'db.plainrest');
    const kept = join(folder, 'generated.json');
    assert.equal(
      first.lines.at(-1),
      `imported ${script} into ${folder} (what it gave kept as ${kept}, the declaration ` +
        `${join(folder, 'resources.json')}, ` +
        `the records in ${join(folder, 'data')}): served from there from now on; ${script} is run again only if it ` +
        'changes',
    );
    const generated = JSON.parse(await readFile(kept, 'utf8')) as { customers: unknown[] };
    assert.equal(generated.customers.length, 5);
    assert.equal(JSON.parse(await readFile(join(folder, 'imported.json'), 'utf8')).file, 'db.js');
    const url = await serve(first);
    const json = await jsonServerOf(generated);
    for (const path of ['/customers', '/customers/2', '/orders?_expand=customer', '/customers/2?_embed=orders', '/db'])
      assertCovers(await read(`${url}${path}`), await read(`${json}${path}`), `GET ${path}`);
    const made = await fetch(`${url}/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'new', luck: 0.5 }),
    });
    assert.equal(made.status, 201);
  });

  test('a later run serves the records kept, the script not run; a changed one stops; --reimport runs it', async () => {
    const dir = await scratchDirectory(defer);
    const script = join(dir, 'db.cjs');
    await writeFile(script, SCRIPT);
    const folder = join(dir, 'db.plainrest');
    const first = await prepareJsonServer(request(script), 'plainrest');
    const generated = JSON.parse(await readFile(join(folder, 'generated.json'), 'utf8')) as unknown;
    const again = await prepareJsonServer(request(script, { flags: new Map([['watch', true]]) }), 'plainrest');
    assert.match(
      again.lines.at(-1) ?? '',
      new RegExp(`^${escaped(script)}: unchanged since its data was imported \\(.+\\); serving the records kept in `),
    );
    assert.deepEqual(again.warnings, [
      `--watch: ${script} is a script, taken once at its import: nothing is watched (--reimport takes it again)`,
    ]);
    assert.equal(again.watched, undefined);
    assert.deepEqual(JSON.parse(await readFile(join(folder, 'generated.json'), 'utf8')), generated, 'not run again');
    const server = await serving(again);
    assertCovers(await read(`${server.url}/customers`), (generated as { customers: unknown[] }).customers, 'kept');
    await server.close();
    assert.deepEqual(first.options.dataDir, again.options.dataDir);

    await writeFile(script, SCRIPT.replace('i <= 5', 'i <= 7'));
    await assert.rejects(
      prepareJsonServer(request(script), 'plainrest'),
      new JsonServerError(
        `${script} has changed since its data was imported into ${folder} (${importedAt(again)}): pass --reimport to ` +
          `run it again and import what it returns (the records served so far are kept in ${folder}.previous)`,
      ),
    );
    const reimported = await prepareJsonServer(request(script, { reimport: true }), 'plainrest');
    assert.ok(reimported.lines.includes(`moved ${folder} to ${folder}.previous: the records served until now`));
    const regenerated = JSON.parse(await readFile(join(folder, 'generated.json'), 'utf8')) as { customers: unknown[] };
    assert.equal(regenerated.customers.length, 7);
  });

  test('an ES module (export default), and a function that returns a promise', async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }');
    const script = join(dir, 'data.js');
    await writeFile(script, 'export default async () => ({ notes: [{ id: 1, text: "from an ES module" }] });\n');
    const prepared = await prepareJsonServer(request(script), 'plainrest');
    assert.deepEqual(await read(`${await serve(prepared)}/notes`), [{ id: 1, text: 'from an ES module' }]);
  });

  const scriptRefusals: [string, string, (script: string) => string][] = [
    [
      'no function',
      'module.exports = { posts: [] }',
      (script) => `${script} exports no function: json-server calls what a script exports for its data`,
    ],
    [
      'a function that throws',
      'module.exports = () => { throw new Error("no faker here") }',
      (script) => `${script}'s function failed: no faker here`,
    ],
    [
      'a function that gives a list',
      'module.exports = () => [1, 2]',
      (script) => `${script} gave a list, not json-server's data (an object)`,
    ],
    ['a script that does not load', 'module.exports = () => {', (script) => `${script} could not be loaded: `],
  ];
  for (const [what, text, message] of scriptRefusals)
    test(`refused, nothing left beside it: a script with ${what}`, async () => {
      const dir = await scratchDirectory(defer);
      const script = join(dir, 'db.js');
      await writeFile(script, text);
      await assert.rejects(prepareJsonServer(request(script), 'plainrest'), (error: Error) => {
        assert.ok(error instanceof JsonServerError);
        assert.ok(error.message.startsWith(message(script)), error.message);
        return true;
      });
      assert.deepEqual(await readdir(dir), ['db.js']);
    });

  test('refused: a script that is not there', async () => {
    const dir = await scratchDirectory(defer);
    await assert.rejects(
      prepareJsonServer(request(join(dir, 'db.js')), 'plainrest'),
      new JsonServerError(`${join(dir, 'db.js')}: no such file`),
    );
    assert.deepEqual(await readdir(dir), []);
  });

  test('a URL: fetched once, at the first run, into <name>.plainrest/ here; served as json-server does', async () => {
    const dir = await scratchDirectory(defer);
    let answered = 0;
    let remote: unknown = REMOTE;
    const server = createServer((req, res) => {
      answered++;
      if (req.url === '/api/db.json' || req.url === '/')
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(remote));
      else if (req.url === '/text') res.writeHead(200).end('<html>not json</html>');
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const source = `${origin}/api/db.json`;
    const before = process.cwd();
    process.chdir(dir);
    defer(async () => process.chdir(before));

    const first = await prepareJsonServer(request(source), 'plainrest');
    assert.equal(answered, 1);
    assert.equal(
      first.lines.at(-1),
      `imported ${source} into db.plainrest (what it gave kept as ${join('db.plainrest', 'fetched.json')}, the ` +
        `declaration ${join('db.plainrest', 'resources.json')}, the records in ${join('db.plainrest', 'data')}): ` +
        `served from there from now on; ${source} is fetched again only with --reimport`,
    );
    assert.deepEqual(JSON.parse(await readFile(join(dir, 'db.plainrest', 'fetched.json'), 'utf8')), REMOTE);
    assert.equal(JSON.parse(await readFile(join(dir, 'db.plainrest', 'imported.json'), 'utf8')).file, source);
    const plainrest = await serving(first);
    const json = await jsonServerOf(REMOTE);
    for (const path of ['/posts', '/posts/1?_embed=comments', '/profile', '/db', '/posts?_page=1&_limit=1'])
      assertCovers(await read(`${plainrest.url}${path}`), await read(`${json}${path}`), `GET ${path}`);
    await plainrest.close();

    // Later runs do not fetch it; --reimport does, and serves what it answers now.
    remote = { posts: [{ id: 1, title: 'changed', author: 'ada' }] };
    const again = await prepareJsonServer(request(source), 'plainrest');
    assert.equal(answered, 1);
    assert.match(
      again.lines.at(-1) ?? '',
      new RegExp(`^${escaped(source)}: fetched at its import \\(.+\\), not again; `),
    );
    const reimported = await prepareJsonServer(request(source, { reimport: true }), 'plainrest');
    assert.equal(answered, 2);
    assert.deepEqual(await read(`${await serve(reimported)}/posts`), [{ id: 1, title: 'changed', author: 'ada' }]);

    // Refusals: a 404, what is not JSON, nothing listening; nothing made for them.
    const refusals: [string, string][] = [
      [`${origin}/gone.json`, `${origin}/gone.json answered 404; nothing was imported`],
      [`${origin}/text`, `${origin}/text: not JSON (`],
    ];
    for (const [wrong, message] of refusals)
      await assert.rejects(prepareJsonServer(request(wrong), 'plainrest'), (error: Error) => {
        assert.ok(error instanceof JsonServerError && error.message.startsWith(message), error.message);
        return true;
      });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nobody = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/nobody.json`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(prepareJsonServer(request(nobody), 'plainrest'), (error: Error) => {
      assert.ok(error instanceof JsonServerError, String(error));
      assert.match(error.message, new RegExp(`^could not fetch ${escaped(nobody)} \\(.*ECONNREFUSED.*\\); nothing`));
      return true;
    });
    assert.deepEqual((await readdir(dir)).sort(), ['db.plainrest', 'db.plainrest.previous']);
    // Another source named db.json (here, another URL's) would share the folder: refused before it is fetched.
    await assert.rejects(
      prepareJsonServer(request(`${origin}/other/db.json`), 'plainrest'),
      new JsonServerError(
        `db.plainrest holds the import of ${source}, not ${origin}/other/db.json: one folder is for one source; run ` +
          'this one from another directory',
      ),
    );
    assert.equal(answered, 4);
    // The folder is named after the URL's last segment; a URL without one gets remote.plainrest.
    await mkdir(join(dir, 'elsewhere'));
    process.chdir(join(dir, 'elsewhere'));
    remote = REMOTE;
    const bare = await prepareJsonServer(request(`${origin}/`), 'plainrest');
    assert.equal(bare.options.dataDir, join('remote.plainrest', 'data'));
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The time of the import a prepared start serves, as its line gives it. */
function importedAt(prepared: PreparedServer): string {
  return /\((\d{4}-[^)]+)\)/.exec(prepared.lines.at(-1) ?? '')?.[1] ?? '';
}
