// The base path (README: Embedding; docs/embedding.md): with basePath "/api", no link plainrest sends leaves /api. A
// crawl of the API (from the /v1 index: every list, page, record, embedded list and the change feed) and of the home
// page, in a host that keeps the prefix and in one that takes it off, asserts that every path it meets starts with it;
// so do the OpenAPI document's servers and examples, problems' instances and the event stream. And its settings.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import express from 'express';
import type { App } from '../src/index.ts';
import { createApp, startServer } from '../src/index.ts';
import { ConfigError } from '../src/config/config.ts';
import { startBanner } from '../src/cli/banner.ts';
import { helpText, parseCommandLine } from '../src/cli/options.ts';
import { TEST_AUTH_OPTIONS, tokenFor } from './helpers.ts';

const BASE = '/api';
/** The administrator's token: id 3 after the example seed (alice 1, bob 2). */
const ADMIN = { authorization: `Bearer ${tokenFor(3)}` };

interface Mounted {
  readonly url: string;
  close(): Promise<void>;
}

async function listening(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The whole path handed over, prefix and all, as Fastify, Hono or a proxy hand it. */
async function keepingThePrefix(app: App): Promise<Mounted> {
  const server = createServer(app.handle).listen(0, '127.0.0.1');
  return { url: await listening(server), close: () => stop(server) };
}

/** Express 5's `app.use('/api', …)`, which takes the prefix off req.url. */
async function takingItOff(app: App): Promise<Mounted> {
  const host = express();
  host.use(BASE, app.handle);
  const server = host.listen(0, '127.0.0.1', () => undefined);
  return { url: await listening(server), close: () => stop(server) };
}

const HOSTS = [
  { name: 'a host that hands over the whole path', mount: keepingThePrefix },
  { name: 'Express, which takes the prefix off', mount: takingItOff },
] as const;

async function withApp(
  mount: (app: App) => Promise<Mounted>,
  run: (url: string) => Promise<void>,
  options = {},
): Promise<void> {
  const app = await createApp({ dataDir: null, basePath: BASE, rateLimit: 0, ...TEST_AUTH_OPTIONS, ...options });
  const mounted = await mount(app);
  try {
    await run(mounted.url);
  } finally {
    await mounted.close();
    await app.close();
  }
}

/** Every string in `value` that is an absolute path (starts with one "/"), with where it was found. */
function pathsIn(value: unknown, where: string, found: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') {
    if (value.startsWith('/') && !value.startsWith('//')) found.push([value, where]);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => pathsIn(item, `${where}[${index}]`, found));
  } else if (typeof value === 'object' && value !== null) {
    for (const [name, member] of Object.entries(value)) pathsIn(member, `${where}.${name}`, found);
  }
  return found;
}

/** The targets of a Link header (RFC 8288 §3). */
function linkTargets(header: string | null): string[] {
  return [...(header ?? '').matchAll(/<([^>]*)>/g)].map((match) => match[1] as string);
}

/** Fails unless `path` is under BASE (BASE itself, or BASE followed by "/" or "?"). */
function assertUnderBase(path: string, where: string): void {
  assert.ok(path === BASE || path.startsWith(`${BASE}/`) || path.startsWith(`${BASE}?`), `${where}: ${path}`);
}

/**
 * Follows every link from the index, as a client would: the paths in JSON bodies, Link and Location headers, and each
 * record of a list at `<list>/<id>` (records carry no link of their own). Returns every path met and where.
 */
async function crawl(url: string, starts: readonly string[]): Promise<Map<string, string>> {
  const met = new Map<string, string>();
  const queue = starts.map((path): [string, string] => [path, 'the start']);
  const fetched = new Set<string>();
  while (queue.length > 0 && fetched.size < 400) {
    const [path, from] = queue.shift() as [string, string];
    met.set(path, from);
    // Only paths to GET: an event's or a problem's path names a record, a page names a list.
    if (fetched.has(path) || !path.startsWith(`${BASE}/v1`)) continue;
    fetched.add(path);
    const answer = await fetch(`${url}${path}`, { headers: ADMIN });
    const found: [string, string][] = linkTargets(answer.headers.get('link')).map((link) => [link, `Link of ${path}`]);
    for (const name of ['location', 'content-location']) {
      const value = answer.headers.get(name);
      if (value !== null) found.push([value, `${name} of ${path}`]);
    }
    const type = answer.headers.get('content-type') ?? '';
    if (type.includes('json')) {
      const body = (await answer.json()) as Record<string, unknown>;
      found.push(...pathsIn(body, `GET ${path}`));
      const list = path.split('?')[0] as string;
      if (Array.isArray(body['data']) && !list.endsWith('/events'))
        for (const record of body['data'] as { id?: number }[])
          if (typeof record.id === 'number') found.push([`${list}/${record.id}`, `a record of ${path}`]);
    } else {
      await answer.arrayBuffer();
    }
    for (const [next, where] of found) if (!met.has(next)) queue.push([next, where]);
  }
  return met;
}

describe('every link under the base path', () => {
  for (const { name, mount } of HOSTS) {
    test(`${name}: a crawl of the API from /api/v1 meets only paths under /api`, async () => {
      await withApp(mount, async (url) => {
        // An event to follow, an API key to list, and a list with embedded children.
        const created = await fetch(`${url}${BASE}/v1/products`, {
          method: 'POST',
          headers: { ...ADMIN, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Crawled tea', category: 'tea', price: 2 }),
        });
        assert.equal(created.status, 201);
        const key = await fetch(`${url}${BASE}/v1/users/1/keys`, {
          method: 'POST',
          headers: { ...ADMIN, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'crawler' }),
        });
        assert.equal(key.status, 201, await key.clone().text());
        assertUnderBase(key.headers.get('location') ?? '', 'the Location of a new API key');

        const starts = [`${BASE}/v1`, `${BASE}/v1/users?embed=orders&limit=2`, `${BASE}/v1/users/1/keys`];
        const met = await crawl(url, starts);
        for (const [path, where] of met) assertUnderBase(path, where);
        // The crawl reached what it must have: lists, pages, records, the feed, the other vocabulary.
        for (const expected of [
          `${BASE}/v1/products?page=1&limit=20`,
          `${BASE}/v1/products/13`,
          `${BASE}/v1/users/1/orders?page=1&limit=20`,
          `${BASE}/v1/users/1/keys?page=1&limit=20`,
          `${BASE}/v1/users/1/keys/1`,
          `${BASE}/v1/produtos`,
          `${BASE}/v1/events?page=1&limit=20`,
          `${BASE}/v1/openapi.json`,
        ])
          assert.ok(met.has(expected), `the crawl met ${expected}`);
        assert.ok(met.size > 60, `${met.size} paths met`);
      });
    });

    test(`${name}: problems' instances, and the unversioned hint, are under /api`, async () => {
      await withApp(mount, async (url) => {
        const cases: [string, number, string, string][] = [
          [`${BASE}/v1/products/999`, 404, 'record_not_found', 'no product has id 999'],
          [`${BASE}/nothing`, 404, 'route_not_found', `nothing is served at ${BASE}/nothing`],
          [`${BASE}/users`, 404, 'unversioned_path', `API paths carry a version prefix: use ${BASE}/v1/users`],
          [`${BASE}/v1/products?colour=red`, 400, 'invalid_query', ''],
        ];
        for (const [path, status, code, detail] of cases) {
          const answer = await fetch(`${url}${path}`, { headers: ADMIN });
          const problem = (await answer.json()) as Record<string, string>;
          assert.equal(answer.status, status, path);
          assert.equal(problem['code'], code, path);
          assert.equal(problem['instance'], path.split('?')[0]);
          if (detail !== '') assert.equal(problem['detail'], detail);
        }
      });
    });
  }

  test('the home page under /api: every link, path shown, request and feed of the explorer is under /api', async () => {
    await withApp(takingItOff, async (url) => {
      for (const path of [BASE, `${BASE}/`, `${BASE}/v1`]) {
        const answer = await fetch(`${url}${path}`, { headers: { accept: 'text/html' } });
        assert.equal(answer.status, 200, path);
        assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
        const html = await answer.text();
        const attributes = [...html.matchAll(/ (href|data-path|value|action|src)="([^"]*)"/g)];
        const paths = attributes.map((match) => match[2] as string).filter((value) => value.startsWith('/'));
        assert.ok(paths.length > 50, `${paths.length} paths in attributes`);
        for (const value of paths) assertUnderBase(value, 'an attribute of the home page');
        // Outside the script's own text, every /v1 the page shows is under /api: no path at the root is left.
        const outsideScripts = html.replace(/<script>[\s\S]*?<\/script>/g, '');
        const atTheRoot = [...outsideScripts.matchAll(/(.{0,20})\/v1\b/g)].filter(
          (match) => !(match[1] as string).endsWith(BASE),
        );
        assert.deepEqual(
          atTheRoot.map((match) => match[0]),
          [],
        );
        const data = JSON.parse(
          /<script type="application\/json" id="explorer-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '',
        );
        assert.equal(data.tokensPath, `${BASE}/v1/tokens`);
        assert.equal(data.examplePath, `${BASE}/v1/products`);
        assert.deepEqual(data.feeds, { en: `${BASE}/v1/events`, pt: `${BASE}/v1/eventos` });
        assert.ok(`POST ${BASE}/v1/tokens 201` in data.situations);
        const editable = (data.editablePaths as string[]).map((pattern) => new RegExp(pattern));
        assert.ok(editable.some((pattern) => pattern.test(`${BASE}/v1/products/1`)));
        assert.ok(!editable.some((pattern) => pattern.test('/v1/products/1')));
      }
    });
  });

  test("the OpenAPI document: its server is /api, and every path in its examples and the event's pattern", async () => {
    await withApp(keepingThePrefix, async (url) => {
      const document = (await (await fetch(`${url}${BASE}/v1/openapi.json`)).json()) as Record<string, any>;
      assert.deepEqual(
        document['servers'].map((server: { url: string }) => server.url),
        [BASE],
      );
      assert.ok(Object.keys(document['paths']).includes('/v1/products'), 'paths stay relative to the server');
      let examples = 0;
      const walk = (value: unknown, inExample: boolean): void => {
        if (typeof value === 'string') {
          if (!inExample) return;
          examples++;
          if (value.startsWith('/')) assertUnderBase(value, 'an example');
          for (const [, link] of value.matchAll(/<(\/[^>]*)>;/g)) assertUnderBase(link as string, 'a Link example');
          for (const [, path] of value.matchAll(/"path":"([^"]*)"/g))
            assertUnderBase(path as string, 'an event example');
        } else if (typeof value === 'object' && value !== null) {
          for (const [name, member] of Object.entries(value)) walk(member, inExample || /^examples?$/.test(name));
        }
      };
      walk(document, false);
      assert.ok(examples > 100, `${examples} example strings`);
      const pattern = new RegExp(document['components']['schemas']['ChangeEvent']['properties']['path']['pattern']);
      const events = (await (await fetch(`${url}${BASE}/v1/events`, { headers: ADMIN })).json()) as {
        data: { path: string }[];
      };
      assert.ok(events.data.length > 0);
      for (const { path } of events.data) {
        assertUnderBase(path, "an event's path");
        assert.ok(pattern.test(path), `${pattern} matches ${path}`);
        assert.ok(!pattern.test(path.slice(BASE.length)), `${pattern} refuses the path at the root`);
      }
    });
  });

  test('the event stream: each event path under /api', async () => {
    await withApp(takingItOff, async (url) => {
      const stream = await fetch(`${url}${BASE}/v1/events?after=0`, {
        headers: { ...ADMIN, accept: 'text/event-stream' },
        signal: AbortSignal.timeout(10_000),
      });
      assert.equal(stream.status, 200);
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!text.includes('"path"')) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const paths = [...text.matchAll(/"path":"([^"]*)"/g)].map((match) => match[1] as string);
      assert.ok(paths.length > 0);
      for (const path of paths) assertUnderBase(path, 'a streamed event');
    });
  });

  test('two apps in one process, at /api and at the root, keep their own documents', async () => {
    const rooted = await createApp({ dataDir: null, ...TEST_AUTH_OPTIONS });
    const server = createServer(rooted.handle).listen(0, '127.0.0.1');
    try {
      await withApp(keepingThePrefix, async (url) => {
        const under = (await (await fetch(`${url}${BASE}/v1`)).json()) as { links: Record<string, string> };
        const root = await listening(server);
        const at = (await (await fetch(`${root}/v1`)).json()) as { links: Record<string, string> };
        assert.equal(under.links['products'], `${BASE}/v1/products`);
        assert.equal(at.links['products'], '/v1/products');
        const document = (await (await fetch(`${root}/v1/openapi.json`)).json()) as { servers: { url: string }[] };
        assert.equal(document.servers[0]?.url, '/');
      });
    } finally {
      await stop(server);
      await rooted.close();
    }
  });

  test('DELAY_MS holds back the API under /api, not its health checks', async () => {
    await withApp(
      keepingThePrefix,
      async (url) => {
        let started = Date.now();
        assert.equal((await fetch(`${url}${BASE}/v1`)).status, 200);
        assert.ok(Date.now() - started >= 300, 'the index waited');
        started = Date.now();
        assert.equal((await fetch(`${url}${BASE}/healthz`)).status, 200);
        assert.ok(Date.now() - started < 300, 'the health check did not');
      },
      { delayMs: 300 },
    );
  });
});

describe('the base path setting', () => {
  test('bad values are refused at the start, each with a message naming basePath and the value', async () => {
    const cases: [unknown, RegExp][] = [
      ['api', /^basePath must start with "\/", as "\/api" does, not "api"$/],
      ['/api/', /^basePath must not end with "\/": "\/api", not "\/api\/"$/],
      ['/', /^basePath "\/" is the root: leave basePath unset to serve at the root$/],
      ['/api?x=1', /^basePath is a path only, without "\?" or "#": not "\/api\?x=1"$/],
      ['/a//b', /^basePath must not hold an empty segment/],
      ['/a/../b', /^basePath must not hold a "\." or "\.\." segment/],
      ['/a b', /^basePath holds a character a path cannot carry as it is \(RFC 3986 §3\.3\)/],
      ['/v1', /^basePath "\/v1" starts with \/v1, which plainrest serves itself \(\/v1\): choose another/],
      ['/healthz/api', /^basePath "\/healthz\/api" starts with \/healthz, which plainrest serves itself/],
      [42, /^basePath must be a string, such as "\/api"$/],
    ];
    for (const [basePath, message] of cases) {
      await assert.rejects(
        createApp({ dataDir: null, basePath: basePath as string }),
        (error: unknown) => error instanceof ConfigError && error.option === 'basePath' && message.test(error.message),
        String(basePath),
      );
    }
    for (const basePath of ['', '/api', '/tenant-1/shop.v2', '/%7Euser', '/v1x']) {
      const app = await createApp({ dataDir: null, basePath });
      assert.equal(app.config.basePath, basePath);
      await app.close();
    }
  });

  test('--base-path and BASE_PATH set it (the flag wins), and --help lists it', () => {
    assert.deepEqual(parseCommandLine(['--base-path', '/api'], {}), { kind: 'run', options: { basePath: '/api' } });
    assert.deepEqual(parseCommandLine([], { BASE_PATH: '/shop' }), { kind: 'run', options: { basePath: '/shop' } });
    assert.deepEqual(parseCommandLine(['--base-path=/api'], { BASE_PATH: '/shop' }), {
      kind: 'run',
      options: { basePath: '/api' },
    });
    assert.match(helpText(), /^ {2}--base-path +BASE_PATH +serve under this path, such as \/api/m);
  });

  test('the start banner names the explorer and the token endpoint under it', async () => {
    const server = await startServer({ port: 0, dataDir: null, basePath: BASE, ...TEST_AUTH_OPTIONS });
    try {
      const lines = await startBanner(server, undefined);
      assert.ok(lines.includes(`plainrest listening on ${server.url}`));
      assert.ok(lines.some((line) => line.startsWith(`explorer: ${server.url}${BASE}/ `)));
      assert.ok(lines.some((line) => line.startsWith(`token: curl -s -X POST ${server.url}${BASE}/v1/tokens `)));
      assert.equal((await fetch(`${server.url}${BASE}/v1`)).status, 200);
    } finally {
      await server.close();
    }
  });
});
