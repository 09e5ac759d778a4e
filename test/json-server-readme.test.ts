// json-server 0.17's README, the parts the other side-by-side files leave (docs/json-server.md: json-server's README,
// feature by feature): the getting-started notes (an id in a PUT or PATCH ignored, X-HTTP-Method-Override), slices of
// a nested route, its routes.json and rewriter examples as written, and its router mounted on /api (BASE_PATH here).

import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
import { assertAgree, COMPARED_HEADERS, startPair, type Pair, type Seen } from './json-server-pair.ts';
import type { JsonServerOptions, ServerOptions } from '../src/config/server-options.ts';

const require = createRequire(import.meta.url);

/** The README's db.json, with more comments to slice. */
const DATA = {
  posts: [
    { id: 1, title: 'json-server', author: 'typicode', category: 'javascript' },
    { id: 2, title: 'hello', author: 'ada', category: 'tea' },
    { id: 3, title: 'third', author: 'ada', category: 'javascript' },
  ],
  comments: [
    { id: 1, body: 'some comment', postId: 1, votes: 3 },
    { id: 2, body: 'another', postId: 1, votes: 1 },
    { id: 3, body: 'a third', postId: 1, votes: 2 },
    { id: 4, body: 'on two', postId: 2, votes: 5 },
  ],
  profile: { name: 'typicode' },
};

describe("json-server 0.17's README, side by side", () => {
  const defer = cleanUpAfterEach();
  const pair = async (dialect: JsonServerOptions = {}, options: ServerOptions = {}): Promise<Pair> => {
    const started = await startPair(await scratchDirectory(defer), DATA, dialect, options);
    defer(() => started.close());
    return started;
  };

  test('Getting started: an id in a PUT or PATCH is ignored; X-HTTP-Method-Override on a POST', async () => {
    const served = await pair();
    const writes: [string, string, unknown][] = [
      ['PUT', '/posts/2', { id: 99, title: 'replaced', author: 'ada', category: 'tea' }],
      ['PATCH', '/posts/3', { id: 98, title: 'patched' }],
      ['GET', '/posts/99', undefined],
      ['GET', '/posts', undefined],
    ];
    for (const [method, path, body] of writes) {
      const { json, plain } = await served.both(method, path, body);
      assertAgree(`${method} ${path}`, json, plain);
    }
    // method-override, as json-server's router uses it: the header names the method a POST stands for.
    for (const [override, path, body] of [
      ['PATCH', '/posts/1', { title: 'overridden' }],
      ['DELETE', '/comments/4', {}],
      ['GET', '/posts/1', {}],
    ] as const) {
      const [json, plain] = await Promise.all(
        [served.jsonServer, served.plainrest.url].map((origin) => sent(origin, 'POST', path, body, override)),
      );
      assertAgree(`POST ${path} as ${override}`, json as Seen, plain as Seen);
    }
    const { json, plain } = await served.both('GET', '/db');
    assertAgree('GET /db after them', json, plain);
  });

  test("Getting started: a POST's id is the client's where ids are text, unless it is taken (409; json-server: 500)", async () => {
    const started = await startPair(await scratchDirectory(defer), { tags: [{ id: 'news', label: 'News' }] });
    defer(() => started.close());
    const fresh = await started.both('POST', '/tags', { id: 'tech', label: 'Tech' });
    assertAgree('POST /tags a new id', fresh.json, fresh.plain);
    const taken = await started.both('POST', '/tags', { id: 'news', label: 'again' });
    assert.equal(taken.json.status, 500);
    assert.equal(taken.plain.status, 409, taken.plain.text);
    const { request_id: _id, ...problem } = taken.plain.body as Record<string, unknown>;
    assert.deepEqual(problem, {
      type: 'about:blank',
      title: 'Conflict',
      status: 409,
      code: 'duplicate_value',
      detail: 'another tag already has the id "news"',
      instance: '/tags',
    });
    const { json, plain } = await started.both('GET', '/tags');
    assertAgree('GET /tags after them', json, plain);
  });

  test('Slice and Sort on a nested route: /posts/1/comments?_start=&_end= or _limit, _sort=votes', async () => {
    const served = await pair();
    for (const path of [
      '/posts/1/comments?_start=1&_end=3',
      '/posts/1/comments?_start=1&_limit=1',
      '/posts/1/comments?_start=20&_end=30',
      '/posts/1/comments?_sort=votes&_order=asc',
      '/posts/1/comments?_page=1&_limit=2',
    ]) {
      const { json, plain } = await served.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
    }
  });

  test("Add custom routes: the README's routes.json and rewriter example, as written", async () => {
    const routes = {
      '/api/*': '/$1',
      '/:resource/:id/show': '/:resource/:id',
      '/posts/:category': '/posts?category=:category',
      '/articles?id=:id': '/posts/:id',
      '/blog/:resource/:id/show': '/:resource/:id',
    };
    const served = await pair({ routes });
    for (const path of [
      '/api/posts',
      '/api/posts/1',
      '/posts/1/show',
      '/posts/javascript',
      '/articles?id=1',
      '/blog/comments/2/show',
      '/__rules',
    ]) {
      const { json, plain } = await served.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
    }
  });

  test('Mounting on another endpoint (server.use("/api", router)): BASE_PATH=/api, its Location and Link', async () => {
    const served = await pair({}, { basePath: '/api' });
    // json-server's router mounted on /api, on its own copy of the file, as the README's example mounts it.
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    await writeFile(file, JSON.stringify(DATA));
    const jsonServer = require('json-server') as {
      create(): { use(...handlers: unknown[]): void } & ((req: unknown, res: unknown) => void);
      defaults(options: Record<string, unknown>): unknown[];
      router(source: string): unknown;
    };
    const app = jsonServer.create();
    app.use(jsonServer.defaults({ logger: false, static: dir }));
    app.use('/api', jsonServer.router(file));
    const server: Server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const mounted = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const [method, path, body] of [
      ['GET', '/api/posts', undefined],
      ['GET', '/api/posts?_page=1&_limit=1', undefined],
      ['GET', '/api/posts/1/comments', undefined],
      ['POST', '/api/posts', { title: 'mounted', author: 'me', category: 'tea' }],
      ['GET', '/api/db', undefined],
    ] as const) {
      const [json, plain] = await Promise.all([
        sent(mounted, method, path, body),
        sent(served.plainrest.url.replace(/\/api$/, ''), method, path, body),
      ]);
      assertAgree(`${method} ${path}`, json, plain);
    }
    // A nested POST's Location too (its postId aside: json-server stores the path's text, "1").
    const [json, plain] = await Promise.all([
      sent(mounted, 'POST', '/api/posts/1/comments', { body: 'nested', votes: 0 }),
      sent(served.plainrest.url.replace(/\/api$/, ''), 'POST', '/api/posts/1/comments', { body: 'nested', votes: 0 }),
    ]);
    assert.equal(plain.status, 201);
    assert.equal(plain.headers['location'], json.headers['location']);
  });
});

/** A request to `origin`, read as the pair reads answers (origins in headers replaced by ORIGIN). */
async function sent(origin: string, method: string, path: string, body?: unknown, override?: string): Promise<Seen> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  if (override !== undefined) headers['x-http-method-override'] = override;
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const read: Record<string, string | null> = {};
  for (const name of COMPARED_HEADERS) read[name] = response.headers.get(name)?.replaceAll(origin, 'ORIGIN') ?? null;
  return {
    status: response.status,
    headers: read,
    text,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}
