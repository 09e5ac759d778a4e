// json-server's dialect with json-server's flags through the jsonServer option (docs/json-server.md: Serving
// json-server's dialect), side by side with json-server 0.17 given the same flags: readOnly (--read-only), staticDir
// (--static) and routes (--routes); CORS as json-server's defaults send it; and where plainrest answers otherwise by
// design, each difference with its status and problem body: an invalid record, ids the server makes, a pattern that
// cannot run in linear time, a token that --access asks for, and /v1 kept plainrest's.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanUpAfterEach, scratchDirectory, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD } from './helpers.ts';
import { assertAgree, startPair, type Pair } from './json-server-pair.ts';
import type { JsonServerOptions } from '../src/config/server-options.ts';

const DATA = {
  posts: [
    { id: 1, title: 'json-server', author: 'typicode' },
    { id: 2, title: 'hello', author: 'ada' },
  ],
  comments: [{ id: 1, body: 'some comment', postId: 1 }],
  profile: { name: 'typicode' },
};

describe("json-server's flags through the jsonServer option, side by side", () => {
  const defer = cleanUpAfterEach();
  const pair = async (dialect: JsonServerOptions, dir?: string): Promise<Pair> => {
    const started = await startPair(dir ?? (await scratchDirectory(defer)), DATA, dialect);
    defer(() => started.close());
    return started;
  };

  test('readOnly: reads as ever, every write 403 Forbidden, and nothing written', async () => {
    const both = await pair({ readOnly: true });
    const requests: [string, string, unknown?][] = [
      ['GET', '/posts'],
      ['GET', '/posts/1'],
      ['POST', '/posts', { title: 'no', author: 'no' }],
      ['PUT', '/posts/1', { title: 'no', author: 'no' }],
      ['PATCH', '/posts/1', { title: 'no' }],
      ['DELETE', '/posts/1'],
      ['PATCH', '/profile', { name: 'no' }],
      ['GET', '/posts'],
    ];
    for (const [method, path, body] of requests) {
      const { json, plain } = await both.both(method, path, body);
      assertAgree(`${method} ${path}`, json, plain);
      assert.equal(plain.text, json.text === 'Forbidden' ? 'Forbidden' : plain.text);
    }
    // HEAD is a read here (json-server 0.17 lets only GET through its read-only switch: a HEAD is 403 there).
    const head = await both.plain('HEAD', '/posts');
    assert.equal(head.status, 200);
  });

  test("staticDir: its files before any route, its index.html at /; without one, / is plainrest's home", async () => {
    const dir = await scratchDirectory(defer);
    const publicDir = join(dir, 'public');
    await mkdir(join(publicDir, 'css'), { recursive: true });
    await writeFile(join(publicDir, 'index.html'), '<!doctype html><title>front end</title>');
    await writeFile(join(publicDir, 'css', 'app.css'), 'body { color: red }');
    await writeFile(join(publicDir, 'posts'), 'a file named like a collection');
    const both = await pair({ staticDir: publicDir }, dir);
    for (const [path, type, text] of [
      ['/', 'text/html; charset=UTF-8', '<!doctype html><title>front end</title>'],
      ['/index.html', 'text/html; charset=UTF-8', '<!doctype html><title>front end</title>'],
      ['/css/app.css', 'text/css; charset=UTF-8', 'body { color: red }'],
      ['/posts', 'application/octet-stream', 'a file named like a collection'],
    ] as const) {
      const { json, plain } = await both.both('GET', path);
      assert.equal(plain.status, 200, path);
      assert.equal(json.status, 200, path);
      assert.equal(plain.text, text, path);
      assert.equal(json.text, text, path);
      assert.equal(plain.headers['content-type'], type, path);
    }
    for (const path of ['/posts/1', '/css', '/../db.json', '/%2e%2e/db.json', '/.hidden']) {
      const { json, plain } = await both.both('GET', path);
      assert.equal(plain.status, json.status === 301 ? 404 : json.status, path);
    }
    // plainrest's own paths stay its own.
    assert.equal((await both.plain('GET', '/healthz')).status, 200);
    assert.equal((await both.plain('GET', '/v1/posts')).status, 200);
    const home = await pair({});
    const page = await home.plain('GET', '/', undefined, { accept: 'text/html' });
    assert.equal(page.status, 200);
    assert.match(page.text, /plainrest/i);
  });

  test('routes: rewrite rules in order, on the URL with its query; GET /__rules lists them', async () => {
    const routes = { '/api/*': '/$1', '/blog/:id': '/posts/:id', '/by/:author': '/posts?author=:author' };
    const both = await pair({ routes });
    for (const path of [
      '/api/posts',
      '/api/posts/2',
      '/api/posts?author=ada',
      '/blog/1',
      '/blog/1?_embed=comments',
      '/by/typicode',
      '/BLOG/2',
      '/__rules',
      '/posts',
    ]) {
      const { json, plain } = await both.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
    }
    const { json, plain } = await both.both('POST', '/api/posts', { title: 'through a rule', author: 'me' });
    assertAgree('POST /api/posts', json, plain);
  });

  test("CORS as json-server's defaults: the Origin reflected with credentials, any OPTIONS a preflight", async () => {
    const both = await pair({});
    const origin = 'http://localhost:5173';
    const get = await fetch(`${both.plainrest.url}/posts`, { headers: { origin } });
    assert.equal(get.headers.get('access-control-allow-origin'), origin);
    assert.equal(get.headers.get('access-control-allow-credentials'), 'true');
    const preflight = await fetch(`${both.plainrest.url}/posts/1`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET,HEAD,PUT,PATCH,POST,DELETE');
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type');
    assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
    // With plainrest's own CORS open to any origin (as plainrest db.json serves), one set of headers, the dialect's.
    const open = await startPair(await scratchDirectory(defer), DATA, {}, { corsOrigins: '*' });
    defer(() => open.close());
    const answer = await fetch(`${open.plainrest.url}/posts`, { headers: { origin } });
    assert.equal(answer.headers.get('access-control-allow-origin'), origin);
    const v1 = await fetch(`${open.plainrest.url}/v1/posts`, { headers: { origin } });
    assert.equal(v1.headers.get('access-control-allow-origin'), '*');
  });
});

describe('where plainrest answers otherwise, by design: a status and a problem body', () => {
  const defer = cleanUpAfterEach();
  const pair = async (dialect: JsonServerOptions = {}): Promise<Pair> => {
    const started = await startPair(await scratchDirectory(defer), DATA, dialect);
    defer(() => started.close());
    return started;
  };
  const problem = (body: unknown): Record<string, unknown> => body as Record<string, unknown>;

  test('an invalid record json-server would store is a 422 naming each field, and nothing is written', async () => {
    const both = await pair();
    const { json, plain } = await both.both('POST', '/posts', { title: 7, extra: true });
    assert.equal(json.status, 201);
    assert.equal(plain.status, 422);
    assert.equal(problem(plain.body)['code'], 'validation_failed');
    assert.deepEqual((problem(plain.body)['errors'] as { field: string }[]).map((error) => error.field).sort(), [
      'author',
      'extra',
      'title',
    ]);
    assert.equal(((await both.plain('GET', '/posts')).body as unknown[]).length, 2);
    const replaced = await both.plain('PUT', '/posts/1', { title: 'only a title' });
    assert.equal(replaced.status, 422);
  });

  test("an id of the server's own kind given in a POST is a 422 (integer ids are the server's to make)", async () => {
    const both = await pair();
    const { json, plain } = await both.both('POST', '/posts', { id: 10, title: 'chosen', author: 'me' });
    assert.equal(json.status, 201);
    assert.equal(plain.status, 422);
    assert.equal((problem(plain.body)['errors'] as { field: string }[])[0]?.field, 'id');
  });

  test('a _like pattern that needs backtracking is a 400 naming it; one in linear time is matched', async () => {
    const both = await pair();
    const refused = await both.plain('GET', '/posts?title_like=(a)\\1');
    assert.equal(refused.status, 400);
    assert.equal(problem(refused.body)['code'], 'invalid_query');
    assert.match(String(problem(refused.body)['detail']), /^title_like: the pattern "\(a\)\\\\1" /);
    const { json, plain } = await both.both('GET', '/posts?title_like=^(json|hel)');
    assertAgree('GET /posts?title_like=^(json|hel)', json, plain);
  });

  test('--access read: anyone reads; a write without a token is 401; an admin writes, with a cascade', async () => {
    const both = await startPair(await scratchDirectory(defer), DATA, {}, {}, 'read');
    defer(() => both.close());
    assert.equal((await both.plain('GET', '/posts/1')).status, 200);
    const anonymous = await both.plain('POST', '/posts', { title: 'x', author: 'y' });
    assert.equal(anonymous.status, 401);
    assert.equal(problem(anonymous.body)['code'], 'unauthenticated');
    assert.equal((await both.plain('DELETE', '/posts/1')).status, 401);
    const login = await both.plain('POST', '/v1/tokens', { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
    const token = { authorization: `Bearer ${String(problem(login.body)['access_token'])}` };
    const made = await both.plain('POST', '/posts', { title: 'by the admin', author: 'admin' }, token);
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body, { id: 3, title: 'by the admin', author: 'admin' });
    // The cascade's batch needs the token too, and has it.
    assert.equal((await both.plain('DELETE', '/posts/1', undefined, token)).status, 200);
    assert.equal((await both.plain('GET', '/v1/comments')).status, 200);
    assert.deepEqual((await both.plain('GET', '/comments')).body, []);
  });

  test('DELAY_MS holds the dialect back as it holds /v1 back; the probes answer at once', async () => {
    const both = await startPair(await scratchDirectory(defer), DATA, {}, { delayMs: 300 });
    defer(() => both.close());
    for (const [path, least] of [
      ['/posts', 300],
      ['/v1/posts', 300],
      ['/nothing', 300],
    ] as const) {
      const started = performance.now();
      assert.equal((await both.plain('GET', path)).status, path === '/nothing' ? 404 : 200);
      assert.ok(performance.now() - started >= least - 5, `${path} answered early`);
    }
    const started = performance.now();
    assert.equal((await both.plain('GET', '/healthz')).status, 200);
    assert.ok(performance.now() - started < 250, '/healthz waited');
  });

  test('/v1 stays plainrest: the same records, enveloped, in the declared names', async () => {
    const both = await pair();
    const v1 = await both.plain('GET', '/v1/comments');
    assert.equal(v1.status, 200);
    const body = v1.body as { data: Record<string, unknown>[] };
    assert.deepEqual(
      body.data.map(({ id, body: text, post_id }) => ({ id, text, post_id })),
      [{ id: 1, text: 'some comment', post_id: 1 }],
    );
  });
});

describe('what json-server 1.x added, where 0.17 reads nothing: _per_page, field:op, _where, _sort=-field', () => {
  const defer = cleanUpAfterEach();
  const views = {
    posts: [
      { id: 1, title: 'alpha', views: 100, author: { name: 'ada' } },
      { id: 2, title: 'beta', views: 250, author: { name: 'alan' } },
      { id: 3, title: 'gamma', views: 50, author: { name: 'grace' } },
      { id: 4, title: 'Alphabet', views: 300, author: { name: 'ada' } },
    ],
  };
  const ids = async (both: Pair, path: string): Promise<unknown> => {
    const seen = await both.plain('GET', path);
    assert.equal(seen.status, 200, `${path}: ${seen.text}`);
    const body = seen.body as { id: number }[] | { data: { id: number }[] };
    return (Array.isArray(body) ? body : body.data).map((record) => record.id);
  };

  test('each as json-server 1.x answers it', async () => {
    const both = await startPair(await scratchDirectory(defer), views);
    defer(() => both.close());
    const page = await both.plain('GET', '/posts?_page=2&_per_page=3');
    assert.deepEqual(
      { ...(page.body as Record<string, unknown>), data: undefined },
      { first: 1, prev: 1, next: null, last: 2, pages: 2, items: 4, data: undefined },
    );
    assert.deepEqual(await ids(both, '/posts?_page=2&_per_page=3'), [4]);
    assert.deepEqual(await ids(both, '/posts?_page=9&_per_page=3&_sort=-views'), [3]);
    assert.deepEqual(await ids(both, '/posts?views:gt=100'), [2, 4]);
    assert.deepEqual(await ids(both, '/posts?views:gte=100&views:lt=300'), [1, 2]);
    assert.deepEqual(await ids(both, '/posts?views:in=50,300'), [3, 4]);
    assert.deepEqual(await ids(both, '/posts?title:contains=ALPH'), [1, 4]);
    assert.deepEqual(await ids(both, '/posts?title:startsWith=al&views:ne=100'), [4]);
    assert.deepEqual(await ids(both, '/posts?title:endsWith=A'), [1, 2, 3]);
    assert.deepEqual(await ids(both, '/posts?author.name:eq=ada'), [1, 4]);
    assert.deepEqual(await ids(both, '/posts?views:unknown=1'), [1, 2, 3, 4]);
    const where = encodeURIComponent(
      JSON.stringify({ or: [{ views: { lt: 60 } }, { author: { name: { eq: 'alan' } } }] }),
    );
    assert.deepEqual(await ids(both, `/posts?_where=${where}`), [2, 3]);
    assert.deepEqual(await ids(both, '/posts?_sort=-views'), [4, 2, 1, 3]);
    assert.deepEqual(await ids(both, '/posts?_sort=author.name,-views'), [4, 1, 2, 3]);
    const refused = await both.plain('GET', '/posts?_where=not-json');
    assert.equal(refused.status, 400);
    assert.equal((refused.body as Record<string, unknown>)['code'], 'invalid_query');
  });
});
