// json-server's dialect tried as a json-server client uses it (docs/json-server.md: Serving json-server's dialect),
// beside json-server 0.17 where it answers: CORS and --no-cors at the root, writes racing each other, a cascade from
// a collection named in the singular, and what the import keeps of a file for the export to give back.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonServerSettings } from '../src/cli/json-server-settings.ts';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
import { startPair, type Pair } from './json-server-pair.ts';
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
      const [json, plain] = await Promise.all(
        [both.jsonServer, both.plainrest.url].map((url) => fetch(`${url}/posts/1`, { headers })),
      );
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
});
