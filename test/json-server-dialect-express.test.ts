// What Express itself gives json-server 0.17's answers, side by side with json-server 0.17 (docs/json-server.md:
// Serving json-server's dialect): JSONP for `?callback=`, weak ETags and 304 to a matching If-None-Match (as Express's
// `fresh` decides), paths in another case than the file's (`/POSTS/1`), and form bodies (`x-www-form-urlencoded`).

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
import { assertAgree, startPair, type Pair } from './json-server-pair.ts';
import type { JsonServerOptions } from '../src/config/server-options.ts';

const DATA = {
  posts: [
    { id: 1, title: 'json-server', author: 'typicode', views: 10, published: true },
    { id: 2, title: 'line\u2028separated', author: 'ada', views: 5, published: false },
  ],
  comments: [
    { id: 1, body: 'some comment', postId: 1 },
    { id: 2, body: 'another', postId: 2 },
  ],
  'blog-posts': [{ id: 1, headLine: 'dashed' }],
  profile: { name: 'typicode' },
};

/** For forms: a property that may be null, a list, a choice among numbers. */
const EVENTS = {
  meetups: [
    { id: 1, name: 'launch', capacity: 100, price: 9.5, tags: ['a'], free: false },
    { id: 2, name: 'party', capacity: null, price: 0, tags: [], free: true },
  ],
  comments: [{ id: 1, body: 'some comment', meetupId: 1 }],
  profile: { name: 'typicode' },
};

/** A form sent to `origin`, as a browser's form or URLSearchParams sends it. */
async function sendForm(
  origin: string,
  method: string,
  path: string,
  form: string,
  type = 'application/x-www-form-urlencoded',
): Promise<{ status: number; location: string | null; body: unknown }> {
  const response = await fetch(`${origin}${path}`, { method, headers: { 'content-type': type }, body: form });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // an HTML error page (json-server's)
  }
  return { status: response.status, location: response.headers.get('location')?.replace(origin, '') ?? null, body };
}

/** An answer as read off the socket: nothing in between adds a header (fetch adds no-cache to a condition). */
interface Raw {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

function raw(origin: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

describe('what Express gives json-server 0.17, side by side', () => {
  const defer = cleanUpAfterEach();
  const pair = async (dialect: JsonServerOptions = {}, dir?: string): Promise<Pair> => {
    const started = await startPair(dir ?? (await scratchDirectory(defer)), DATA, dialect);
    defer(() => started.close());
    return started;
  };
  const both = (pair: Pair, method: string, path: string, headers: Record<string, string> = {}) =>
    Promise.all([raw(pair.jsonServer, method, path, headers), raw(pair.plainrest.url, method, path, headers)]);

  test('JSONP: a GET with callback is text/javascript calling it, the name cleaned as Express cleans it', async () => {
    const served = await pair();
    for (const path of [
      '/posts?callback=show',
      '/posts/1?callback=show',
      '/posts/2?callback=app.posts[0]',
      '/posts?callback=a%3Cb%3E(c)%3B&_page=1&_limit=1',
      '/posts?callback=first&callback=second',
      '/posts/1/comments?callback=$cb_1',
      '/profile?callback=show',
      '/db?callback=show',
      '/posts/9?callback=show',
      '/nothing?callback=show',
    ]) {
      const [json, plain] = await both(served, 'GET', path);
      assert.equal(plain.status, json.status, path);
      assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8', path);
      assert.equal(plain.headers['content-type'], json.headers['content-type'], path);
      assert.equal(plain.headers['x-content-type-options'], 'nosniff', path);
      assert.equal(plain.headers['x-total-count'], json.headers['x-total-count'], path);
      const call = /^\/\*\*\/ typeof ([\w$.[\]]*) === 'function' && \1\(([\s\S]*)\);$/;
      const [, plainName, plainJson] = call.exec(plain.text) ?? [];
      const [, jsonName, jsonJson] = call.exec(json.text) ?? [];
      assert.equal(plainName, jsonName, `${path}: ${plain.text.slice(0, 80)}`);
      assert.ok(!(plainJson ?? '').includes('\u2028'), `${path}: U+2028 escaped`);
      assertAgree(
        path,
        { status: json.status, headers: {}, text: '', body: JSON.parse(jsonJson ?? '') },
        { status: plain.status, headers: {}, text: '', body: JSON.parse(plainJson ?? '') },
      );
    }
    const cleaned = await raw(served.plainrest.url, 'GET', '/posts/1?callback=a%3Cb%3E(c)%3B');
    assert.ok(cleaned.text.startsWith("/**/ typeof abc === 'function' && abc({"), cleaned.text);
    // No callback, or an empty one: JSON, as json-server sends it; a write ignores callback (by choice: no script
    // tag writes).
    for (const path of ['/posts', '/posts?callback=', '/posts/1?_=1700000000000']) {
      const [json, plain] = await both(served, 'GET', path);
      assert.equal(plain.headers['content-type'], 'application/json; charset=utf-8', path);
      assert.equal(plain.headers['content-type'], json.headers['content-type'], path);
      assert.deepEqual(JSON.parse(plain.text), JSON.parse(json.text), path);
    }
    const post = await served.plain('POST', '/posts?callback=show', {
      title: 'x',
      author: 'y',
      views: 1,
      published: true,
    });
    assert.equal(post.status, 201);
    assert.equal(post.headers['content-type'], 'application/json; charset=utf-8');
  });

  test('ETags: every answer has a weak one; a GET naming it is 304, no body, unless it asks no-cache', async () => {
    const served = await pair();
    for (const path of ['/posts', '/posts/1', '/posts?_page=1&_limit=1', '/profile', '/db', '/posts?callback=cb']) {
      const [json, plain] = await both(served, 'GET', path, { origin: 'http://localhost:5173' });
      assert.match(String(plain.headers.etag), /^W\/"[^"]+"$/, path);
      assert.match(String(json.headers.etag), /^W\/"[^"]+"$/, path);
      // Each server is asked with the tag it gave (json-server's names its own bytes).
      const later = 'Sun, 01 Jan 2040 00:00:00 GMT';
      const conditions: [string, (tag: string) => Record<string, string>][] = [
        ['its tag', (tag) => ({ 'if-none-match': tag })],
        ['its tag among others', (tag) => ({ 'if-none-match': `"other", ${tag}` })],
        ['its tag, strong', (tag) => ({ 'if-none-match': tag.slice(2) })],
        ['any', () => ({ 'if-none-match': '*' })],
        ['another tag', () => ({ 'if-none-match': 'W/"other"' })],
        ['its tag, no-cache', (tag) => ({ 'if-none-match': tag, 'cache-control': 'no-cache' })],
        ['its tag and a date', (tag) => ({ 'if-none-match': tag, 'if-modified-since': later })],
        ['a date alone', () => ({ 'if-modified-since': later })],
      ];
      for (const [what, condition] of conditions) {
        const origin = { origin: 'http://localhost:5173' };
        const [jsonAgain, plainAgain] = await Promise.all([
          raw(served.jsonServer, 'GET', path, { ...condition(String(json.headers.etag)), ...origin }),
          raw(served.plainrest.url, 'GET', path, { ...condition(String(plain.headers.etag)), ...origin }),
        ]);
        assert.equal(plainAgain.status, jsonAgain.status, `${path}, ${what}`);
        if (plainAgain.status === 304) {
          assert.equal(plainAgain.text, '', `${path}, ${what}: no body`);
          assert.equal(plainAgain.headers['content-type'], undefined, `${path}, ${what}`);
          assert.equal(plainAgain.headers.etag, plain.headers.etag, `${path}, ${what}: the tag repeated`);
          for (const name of [
            'access-control-allow-origin',
            'access-control-allow-credentials',
            'cache-control',
            'x-total-count',
          ])
            assert.equal(plainAgain.headers[name], jsonAgain.headers[name], `${path}, ${what}: ${name}`);
        } else assert.equal(plainAgain.text, plain.text, `${path}, ${what}: the body`);
      }
    }
    // fetch() adds Cache-Control: no-cache to a request with a condition of its caller's (the Fetch standard's HTTP
    // cache mode "no-store"): a front end asking so gets the record from both, never a 304 it did not expect.
    const first = await fetch(`${served.plainrest.url}/posts/1`);
    const again = await fetch(`${served.plainrest.url}/posts/1`, {
      headers: { 'if-none-match': first.headers.get('etag') ?? '' },
    });
    assert.equal(again.status, 200);
    // A change makes another tag; a write's answer has one too, as Express sends it; a 404 is never a 304.
    const patched = await raw(served.plainrest.url, 'GET', '/posts/1');
    const patch = await served.plain('PATCH', '/posts/1', { views: 11 });
    assert.equal(patch.status, 200);
    const changed = await raw(served.plainrest.url, 'GET', '/posts/1', {
      'if-none-match': String(patched.headers.etag),
    });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, patched.headers.etag);
    const [jsonMissing, plainMissing] = await both(served, 'GET', '/posts/9', { 'if-none-match': '*' });
    assert.equal(plainMissing.status, 404);
    assert.equal(jsonMissing.status, 404);
    const written = await raw(served.plainrest.url, 'DELETE', '/posts/2');
    assert.equal(written.status, 200);
    assert.match(String(written.headers.etag), /^W\/"/);
  });

  test("a static file's ETag and Last-Modified, and its 304, as express.static gives them", async () => {
    const dir = await scratchDirectory(defer);
    const publicDir = join(dir, 'public');
    await mkdir(publicDir, { recursive: true });
    await writeFile(join(publicDir, 'app.js'), 'console.log("front end")');
    const served = await pair({ staticDir: publicDir }, dir);
    const [json, plain] = await both(served, 'GET', '/app.js');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.etag, json.headers.etag, 'the same file, the same tag (its size and time)');
    assert.equal(plain.headers['last-modified'], json.headers['last-modified']);
    const conditions: Record<string, string>[] = [
      { 'if-none-match': String(plain.headers.etag) },
      { 'if-modified-since': String(plain.headers['last-modified']) },
      { 'if-modified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' },
    ];
    for (const headers of conditions) {
      const [jsonAgain, plainAgain] = await both(served, 'GET', '/app.js', headers);
      assert.equal(plainAgain.status, jsonAgain.status, JSON.stringify(headers));
      assert.equal(plainAgain.text, jsonAgain.text, JSON.stringify(headers));
    }
  });

  test('paths in another case are the same routes (/POSTS/1, /Blog-Posts, /DB), as in Express', async () => {
    const served = await pair();
    for (const path of [
      '/POSTS',
      '/POSTS/1',
      '/Posts?author=typicode',
      '/Blog-Posts/1',
      '/PROFILE',
      '/Posts/1?_embed=COMMENTS',
    ]) {
      const { json, plain } = await served.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
    }
    const db = await served.both('GET', '/DB');
    assertAgree('GET /DB', db.json, db.plain);
    for (const [method, path, body] of [
      ['POST', '/POSTS', { title: 'upper', author: 'case', views: 1, published: true }],
      ['PATCH', '/Posts/1', { views: 12 }],
      ['PUT', '/PROFILE', { name: 'changed' }],
      ['DELETE', '/POSTS/3'],
    ] as const) {
      const { json, plain } = await served.both(method, path, body);
      assertAgree(`${method} ${path}`, json, plain);
    }
    // A nested route's parent in another case is that collection here (json-server filters by `POSTId`, a member
    // no comment has, and so lists every comment).
    const nested = await served.plain('GET', '/POSTS/1/Comments');
    assert.equal(nested.status, 200);
    assert.deepEqual(nested.body, [{ id: 1, body: 'some comment', postId: 1 }]);
    // /v1 keeps its own case: /V1/posts is no path of plainrest's, and json-server's 404 here.
    assert.equal((await served.plain('GET', '/V1/posts')).status, 404);
    assert.equal((await served.plain('GET', '/v1/posts')).status, 200);
  });
});

describe('form bodies (application/x-www-form-urlencoded), as json-server 0.17 takes them, typed as declared', () => {
  const defer = cleanUpAfterEach();
  const pair = async (): Promise<Pair> => {
    const started = await startPair(await scratchDirectory(defer), EVENTS);
    defer(() => started.close());
    return started;
  };
  /** The same form to both: json-server's answer, and plainrest's. */
  const both = (served: Pair, method: string, path: string, form: string, type?: string) =>
    Promise.all([
      sendForm(served.jsonServer, method, path, form, type),
      sendForm(served.plainrest.url, method, path, form, type),
    ]);

  test('POST, PUT, PATCH, nested, singular: the same statuses and Location, the values typed', async () => {
    const served = await pair();
    const writes: [string, string, string, Record<string, unknown>][] = [
      [
        'POST',
        '/meetups',
        'name=form+sent&capacity=30&price=12.25&tags=x&tags=y%20z&free=true',
        { id: 3, name: 'form sent', capacity: 30, price: 12.25, tags: ['x', 'y z'], free: true },
      ],
      [
        'POST',
        '/meetups',
        'name=one+tag&capacity=&price=1e2&tags=solo&free=false',
        { id: 4, name: 'one tag', capacity: null, price: 100, tags: ['solo'], free: false },
      ],
      [
        'PATCH',
        '/meetups/1',
        'capacity=120',
        { id: 1, name: 'launch', capacity: 120, price: 9.5, tags: ['a'], free: false },
      ],
      [
        'PUT',
        '/meetups/2',
        'name=party&capacity=5&price=0&tags=a&free=true',
        { id: 2, name: 'party', capacity: 5, price: 0, tags: ['a'], free: true },
      ],
      ['POST', '/meetups/1/comments', 'body=through+a+form', { id: 2, body: 'through a form', meetupId: 1 }],
      ['PATCH', '/profile', 'name=form', { name: 'form' }],
      ['POST', '/profile', 'name=posted', { name: 'posted' }],
    ];
    for (const [method, path, form, expected] of writes) {
      const [json, plain] = await both(served, method, path, form);
      assert.equal(plain.status, json.status, `${method} ${path} ${form}: ${JSON.stringify(plain.body)}`);
      assert.equal(plain.location, json.location, `${method} ${path}: Location`);
      assert.deepEqual(plain.body, expected, `${method} ${path} ${form}`);
      // json-server keeps every value as the form's text.
      const texts = json.body as Record<string, unknown>;
      if (texts['name'] !== undefined) assert.equal(texts['name'], expected['name']);
    }
    assert.deepEqual((await served.plain('GET', '/meetups/3')).body, writes[0]?.[3]);
  });

  test('a value that says none of its type is the 422 that text gets in JSON; other forms refused', async () => {
    const served = await pair();
    const problem = async (form: string, json: Record<string, unknown>): Promise<void> => {
      const asForm = await sendForm(served.plainrest.url, 'POST', '/meetups', form);
      const asJson = await served.plain('POST', '/meetups', json);
      assert.equal(asForm.status, 422, `${form}: ${JSON.stringify(asForm.body)}`);
      assert.equal(asJson.status, 422);
      const { instance: _i, request_id: _r, ...formProblem } = asForm.body as Record<string, unknown>;
      const { instance: _j, request_id: _s, ...jsonProblem } = asJson.body as Record<string, unknown>;
      assert.deepEqual(formProblem, jsonProblem, form);
    };
    const valid = { name: 'n', price: 1, tags: ['a'], free: true };
    await problem('tags=a&name=n&price=1&free=true&capacity=3.5', { ...valid, capacity: '3.5' });
    await problem('tags=a&name=n&price=1&free=true&capacity=ten', { ...valid, capacity: 'ten' });
    await problem('tags=a&name=n&price=1,5&free=true', { ...valid, price: '1,5' });
    await problem('tags=a&name=n&price=1&free=yes', { ...valid, free: 'yes' });
    await problem('tags=a&name=n&price=1&free=true&capacity=9007199254740993', {
      ...valid,
      capacity: '9007199254740993',
    });
    await problem('tags=a&name=n&name=m&price=1&free=true', { ...valid, name: ['n', 'm'] });
    await problem('tags=a&name=n&price=1&free=true&meta[a]=1', { ...valid, 'meta[a]': '1' });
    // Nothing of them was written.
    assert.equal(((await served.plain('GET', '/meetups')).body as unknown[]).length, 2);
    // A charset other than UTF-8 is 415 (body-parser refuses it too, and json-server's router answers its refusals
    // 500); another type is 415 (json-server stores an empty record); more than 1,000 fields 413 (json-server: 500).
    const latin = await both(
      served,
      'POST',
      '/meetups',
      'name=caf%E9',
      'application/x-www-form-urlencoded; charset=latin1',
    );
    assert.deepEqual([latin[0].status, latin[1].status], [500, 415]);
    assert.equal(
      (latin[1].body as { detail: string }).detail,
      'Content-Type must be application/x-www-form-urlencoded (UTF-8)',
    );
    const plainText = await sendForm(served.plainrest.url, 'POST', '/meetups', 'name=text', 'text/plain');
    assert.equal(plainText.status, 415);
    assert.equal((plainText.body as { detail: string }).detail, 'Content-Type must be application/json (UTF-8)');
    const many = Array.from({ length: 1001 }, (_, index) => `f${index}=1`).join('&');
    const [jsonMany, plainMany] = await both(served, 'POST', '/meetups', many);
    assert.deepEqual([jsonMany.status, plainMany.status], [500, 413]);
    assert.equal((plainMany.body as { detail: string }).detail, 'a form of more than 1000 fields');
  });
});
