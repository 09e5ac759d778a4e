// json-server's dialect tried as a json-server client uses it (docs/json-server.md: Serving json-server's dialect),
// beside json-server 0.17 where it answers: CORS and --no-cors at the root, writes racing each other, a cascade from
// a collection named in the singular, and what the import keeps of a file for the export to give back.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { exportFile } from '../src/cli/export-command.ts';
import { importFile } from '../src/cli/import-command.ts';
import { jsonServerSettings } from '../src/cli/json-server-settings.ts';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
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

const ORIGIN = 'http://localhost:5173';

describe("json-server's dialect as a json-server client tries it", () => {
  const defer = cleanUpAfterEach();
  const pair = async (data: unknown, dialect: JsonServerOptions = {}): Promise<Pair> => {
    const started = await startPair(await scratchDirectory(defer), data, dialect);
    defer(() => started.close());
    return started;
  };

  test("CORS at the root as json-server's defaults send it: credentials and Vary with or without an Origin", async () => {
    const both = await pair(DATA);
    for (const origin of [undefined, ORIGIN]) {
      const headers: Record<string, string> = origin === undefined ? {} : { origin };
      const json = await fetch(`${both.jsonServer}/posts/1`, { headers });
      const plain = await fetch(`${both.plainrest.url}/posts/1`, { headers });
      for (const name of ['access-control-allow-origin', 'access-control-allow-credentials']) {
        assert.equal(plain.headers.get(name), json.headers.get(name), `${name}, Origin ${origin}`);
      }
      assert.equal(plain.headers.get('access-control-allow-origin'), origin ?? null);
      assert.equal(plain.headers.get('access-control-allow-credentials'), 'true');
      assert.match(plain.headers.get('vary') ?? '', /\bOrigin\b/);
    }
  });

  test('cors: false (--no-cors) leaves every CORS header off the root, its OPTIONS a 204 naming the methods', async () => {
    const both = await pair(DATA, { cors: false });
    const read = await fetch(`${both.plainrest.url}/posts/1`, { headers: { origin: ORIGIN } });
    assert.equal(read.status, 200);
    assert.deepEqual(await read.json(), { id: 1, title: 'json-server', author: 'typicode' });
    const options = await fetch(`${both.plainrest.url}/posts`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH' },
    });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get('allow'), 'GET,HEAD,PUT,PATCH,POST,DELETE');
    for (const answer of [read, options])
      for (const [name] of answer.headers) assert.doesNotMatch(name, /^access-control-/, `${name} sent`);
  });

  test('--no-cors makes the dialect cors: false, and /v1 without CORS too; without it the dialect keeps CORS', async () => {
    const off = await jsonServerSettings(new Map([['no-cors', true]]), {});
    assert.deepEqual(off.options.jsonServer, { cors: false });
    assert.deepEqual(off.options.corsOrigins, []);
    assert.deepEqual(off.warnings, []);
    const on = await jsonServerSettings(new Map(), {});
    assert.deepEqual(on.options.jsonServer, {});
    assert.equal(on.options.corsOrigins, '*');
  });

  test('a PATCH whose body comes late keeps the change another PATCH made meanwhile, as json-server keeps it', async () => {
    const both = await pair(DATA);
    for (const url of [both.jsonServer, both.plainrest.url]) {
      const slow = await slowRequest(url, 'PATCH', '/posts/2', { title: 'slow' });
      const fast = await fetch(`${url}/posts/2`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ author: 'fast' }),
      });
      assert.equal(fast.status, 200, url);
      const slowAnswer = await slow.finish();
      assert.match(slowAnswer, /^HTTP\/1\.1 200 /, url);
      assert.deepEqual(JSON.parse(slowAnswer.slice(slowAnswer.indexOf('\r\n\r\n') + 4)), {
        id: 2,
        title: 'slow',
        author: 'fast',
      });
      const read = await fetch(`${url}/posts/2`);
      assert.deepEqual(await read.json(), { id: 2, title: 'slow', author: 'fast' }, url);
    }
    // The singular resource's PATCH too.
    const slow = await slowRequest(both.plainrest.url, 'PATCH', '/profile', { name: 'slow' });
    const fast = await fetch(`${both.plainrest.url}/profile`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fast' }),
    });
    assert.equal(fast.status, 200);
    assert.match(await slow.finish(), /^HTTP\/1\.1 200 /);
    assert.deepEqual(await (await fetch(`${both.plainrest.url}/profile`)).json(), { name: 'slow' });
  });

  test("deleting a record of `post` (a collection named in the singular) leaves the comments naming posts' ids", async () => {
    const both = await pair({
      posts: [
        { id: 1, title: 'json-server' },
        { id: 2, title: 'hello' },
      ],
      post: [{ id: 1, postId: 2, note: 'a post of a post' }],
      comments: [
        { id: 1, body: 'on post 1', postId: 1 },
        { id: 2, body: 'on post 2', postId: 2 },
      ],
    });
    // json-server's `postId` names a record of `posts` (pluralize's plural of `post`), never one of `post`.
    for (const [method, path] of [
      ['DELETE', '/post/1'],
      ['GET', '/post'],
      ['GET', '/comments'],
      ['GET', '/posts'],
    ] as const) {
      const { json, plain } = await both.both(method, path);
      assertAgree(`${method} ${path}`, json, plain);
    }
    const comments = await both.plain('GET', '/comments');
    assert.deepEqual(comments.body, [
      { id: 1, body: 'on post 1', postId: 1 },
      { id: 2, body: 'on post 2', postId: 2 },
    ]);
    // Deleting a post still takes what names it, in both collections.
    const { json, plain } = await both.both('DELETE', '/posts/2');
    assertAgree('DELETE /posts/2', json, plain);
    assert.deepEqual((await both.plain('GET', '/comments')).body, [{ id: 1, body: 'on post 1', postId: 1 }]);
    assert.deepEqual((await both.plain('GET', '/post')).body, []);
  });

  test('a DELETE whose cascade meets comments posted meanwhile deletes them too: 200 `{}`, nothing left half done', async () => {
    const comments = Array.from({ length: 250 }, (_, index) => ({ id: index + 1, body: `c${index}`, postId: 1 }));
    const both = await pair({ posts: [{ id: 1, title: 'busy' }], comments });
    const url = both.plainrest.url;
    let deleted = false;
    const statuses = new Set<number>();
    // Comments keep coming to the post while it is deleted, each refused once the post is gone (422).
    const posting = (async () => {
      while (!deleted) {
        const answer = await fetch(`${url}/posts/1/comments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ body: 'late' }),
        });
        statuses.add(answer.status);
        await answer.arrayBuffer();
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const deletion = await fetch(`${url}/posts/1`, { method: 'DELETE' });
    deleted = true;
    await posting;
    assert.equal(deletion.status, 200, await deletion.clone().text());
    assert.deepEqual(await deletion.json(), {});
    assert.ok(statuses.has(201), 'comments were posted while the post was there');
    assert.equal((await fetch(`${url}/posts/1`)).status, 404);
    const left = await fetch(`${url}/comments?postId=1`);
    assert.deepEqual(await left.json(), []);
  });

  test('the export gives back a file as it was: snake_case created_at, users without a role, a nested null', async () => {
    const dir = await scratchDirectory(defer);
    const data = {
      users: [{ id: 1, name: 'Ann', email: 'ann@example.com', created_at: '2024-01-02T03:04:05.000Z' }],
      posts: [
        {
          id: 1,
          title: 'first',
          userId: 1,
          meta: { editor: null, tags: ['a'], history: [{ by: null, at: 1 }] },
          created_at: '2024-02-03T04:05:06.000Z',
          updated_at: '2024-02-04T04:05:06.000Z',
        },
        {
          id: 2,
          title: 'second',
          userId: 1,
          meta: { editor: 'bob', tags: [], history: [] },
          created_at: '2024-03-03T04:05:06.000Z',
          updated_at: '2024-03-03T04:05:06.000Z',
        },
      ],
    };
    const file = join(dir, 'db.json');
    await writeFile(file, JSON.stringify(data));
    const resources = join(dir, 'resources.json');
    const dataDir = join(dir, 'data');
    await importFile({ file, resources, target: dataDir, access: 'open', force: false });
    const out = join(dir, 'out.json');
    await exportFile({ file: out, from: dataDir, resources, force: false, administrator: 'admin@example.com' });
    assert.deepEqual(JSON.parse(await readFile(out, 'utf8')), {
      users: data.users,
      posts: data.posts,
    });
    // json-server's dialect serves them so too, side by side with json-server 0.17.
    const both = await pair({ posts: data.posts });
    for (const path of ['/posts', '/posts/1', '/posts?meta.editor=bob']) {
      const { json, plain } = await both.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
      assert.deepEqual(plain.body, json.body, path);
    }
  });
});

/**
 * A request whose head is sent now and its JSON body only at `finish`, once the server has begun on it (a client on a
 * slow network): `finish` sends the body and gives the whole answer as text.
 */
async function slowRequest(
  url: string,
  method: string,
  path: string,
  body: unknown,
): Promise<{ finish(): Promise<string> }> {
  const { hostname, port } = new URL(url);
  const text = JSON.stringify(body);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n`,
  );
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // Time for the server to take the head and start on the request before the body comes.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    finish: async () => {
      socket.write(text);
      await closed;
      return answer;
    },
  };
}
