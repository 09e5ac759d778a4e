// plainrest mounted under /api in the app people already have (README: Embedding; docs/embedding.md): a plain
// node:http server, Express 5 (with and without express.json() ahead), Fastify 5 (its JSON parser on and handing the
// body over, or off for plainrest's routes) and Hono on @hono/node-server. In each: list, create (a JSON POST, which
// must not hang), read; the Location and the list's links stay under /api; the host's own route beside it answers.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import express from 'express';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Hono } from 'hono';
import type { App } from '../src/index.ts';
import { createApp } from '../src/index.ts';
import { TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, TEST_AUTH_OPTIONS, TEST_TOKEN_SECRET } from './helpers.ts';

/** A host application listening on a port, plainrest mounted in it under BASE. */
interface Host {
  readonly url: string;
  close(): Promise<void>;
}

const BASE = '/api';
/** What the host's own route answers, beside plainrest. */
const HELLO = { hello: 'from the host' };
/** A request that gets no answer within this long has hung. */
const NO_HANG_MS = 10_000;

async function listening(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/** node:http: the host's router sends what is under BASE to plainrest, which takes the prefix off itself. */
async function inNodeHttp(app: App): Promise<Host> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/hello') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(HELLO));
    } else if (req.url === BASE || req.url?.startsWith(`${BASE}/`) || req.url?.startsWith(`${BASE}?`)) {
      app.handle(req, res);
    } else {
      res.statusCode = 404;
      res.end();
    }
  }).listen(0, '127.0.0.1');
  return { url: await listening(server), close: () => closed(server) };
}

/** Express 5: `app.use(BASE, …)` takes the prefix off req.url; with `json`, express.json() reads JSON bodies first */
async function inExpress(app: App, json: boolean): Promise<Host> {
  const host = express();
  if (json) host.use(express.json());
  host.get('/hello', (_req, res) => res.json(HELLO));
  host.use(BASE, app.handle);
  const server = host.listen(0, '127.0.0.1', () => undefined);
  return { url: await listening(server), close: () => closed(server) };
}

/** Hands a Fastify request to plainrest, with the body Fastify's parser read (if it read one) on `req.body`. */
function toPlainrest(app: App): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    Object.assign(request.raw, { body: request.body });
    reply.hijack();
    app.handle(request.raw, reply.raw);
  };
}

/**
 * Fastify 5, a wildcard route (and BASE itself) handing the raw request over. `parsers`: Fastify's JSON parser reads
 * the body and the route hands it over; else, for plainrest's routes only, a parser that reads nothing leaves the
 * body to plainrest.
 */
async function inFastify(app: App, parsers: boolean): Promise<Host> {
  const host = Fastify();
  host.get('/hello', async () => HELLO);
  const routes = async (scope: FastifyInstance): Promise<void> => {
    if (!parsers) {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    }
    scope.all(BASE, toPlainrest(app));
    scope.all(`${BASE}/*`, toPlainrest(app));
  };
  await host.register(routes);
  const url = await host.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => host.close() };
}

/** Hono on @hono/node-server: the route hands over the node:http request and response, and tells Hono it answered. */
async function inHono(app: App): Promise<Host> {
  const host = new Hono<{ Bindings: HttpBindings }>();
  host.get('/hello', (c) => c.json(HELLO));
  host.all(`${BASE}/*`, (c) => {
    app.handle(c.env.incoming, c.env.outgoing);
    return RESPONSE_ALREADY_SENT;
  });
  // Global Request and Response are left as they are: this process's fetch is the tests' client.
  const server = serve({ fetch: host.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }) as Server;
  return { url: await listening(server), close: () => closed(server) };
}

const HOSTS: readonly { readonly name: string; readonly mount: (app: App) => Promise<Host> }[] = [
  { name: 'node:http', mount: inNodeHttp },
  { name: 'Express 5, app.use("/api", app.handle)', mount: (app) => inExpress(app, false) },
  { name: 'Express 5 with express.json() ahead', mount: (app) => inExpress(app, true) },
  { name: 'Fastify 5, its JSON parser on (the route hands the body over)', mount: (app) => inFastify(app, true) },
  { name: 'Fastify 5, its parsers off for plainrest', mount: (app) => inFastify(app, false) },
  { name: 'Hono on @hono/node-server', mount: inHono },
];

/** `fetch` that fails, rather than waits, when no answer comes. */
async function send(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(NO_HANG_MS) });
}

/** The targets of a Link header (RFC 8288 §3). */
function linkTargets(header: string | null): string[] {
  return [...(header ?? '').matchAll(/<([^>]*)>/g)].map((match) => match[1] as string);
}

/** An app under BASE with known administrator credentials, mounted by `mount`; stopped after `run`. */
async function withMounted(mount: (app: App) => Promise<Host>, run: (url: string) => Promise<void>): Promise<void> {
  const app = await createApp({ dataDir: null, basePath: BASE, ...TEST_AUTH_OPTIONS });
  const host = await mount(app);
  try {
    await run(host.url);
  } finally {
    await host.close();
    await app.close();
  }
}

/** Logs in as the administrator through the host (a JSON POST); the bearer token's headers. */
async function adminHeaders(url: string): Promise<Record<string, string>> {
  const login = await send(`${url}${BASE}/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD }),
  });
  assert.equal(login.status, 201, await login.clone().text());
  const { access_token: token } = (await login.json()) as { access_token: string };
  return { authorization: `Bearer ${token}` };
}

describe('mounted under /api in a host application', () => {
  for (const { name, mount } of HOSTS) {
    test(`${name}: list, create, read; Location and links under /api; the host's own route answers`, async () => {
      await withMounted(mount, async (url) => {
        const hello = await send(`${url}/hello`);
        assert.equal(hello.status, 200);
        assert.deepEqual(await hello.json(), HELLO);

        const headers = await adminHeaders(url);
        const list = await send(`${url}${BASE}/v1/products?limit=2`, { headers });
        assert.equal(list.status, 200);
        const page = (await list.json()) as { data: unknown[]; links: Record<string, string | null> };
        assert.equal(page.data.length, 2);
        assert.deepEqual(page.links, {
          self: `${BASE}/v1/products?page=1&limit=2`,
          first: `${BASE}/v1/products?page=1&limit=2`,
          prev: null,
          next: `${BASE}/v1/products?page=2&limit=2`,
          last: `${BASE}/v1/products?page=6&limit=2`,
        });
        assert.deepEqual(
          linkTargets(list.headers.get('link')),
          Object.values(page.links).filter((link) => link !== null),
        );

        const product = { name: 'Mounted tea 50 g', category: 'tea', price: 4.5 };
        const created = await send(`${url}${BASE}/v1/products`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(product),
        });
        assert.equal(created.status, 201, await created.clone().text());
        assert.equal(created.headers.get('location'), `${BASE}/v1/products/13`);
        assert.deepEqual(
          { ...((await created.json()) as Record<string, unknown>), created_at: 0, updated_at: 0 },
          { id: 13, ...product, created_at: 0, updated_at: 0 },
        );

        const read = await send(`${url}${created.headers.get('location')}`, { headers });
        assert.equal(read.status, 200);
        assert.equal(((await read.json()) as { name: string }).name, product.name);

        // The index, through the host: its links under /api too.
        const index = await send(`${url}${BASE}/v1`);
        assert.equal(index.status, 200);
        const { links } = (await index.json()) as { links: Record<string, string> };
        assert.equal(links['products'], `${BASE}/v1/products`);
        for (const link of Object.values(links)) assert.ok(link.startsWith(`${BASE}/v1`), link);
      });
    });
  }
});

/** A POST of `body` to BASE/v1/products, as the administrator. */
async function createProductThrough(url: string, body: string, contentType = 'application/json'): Promise<Response> {
  return send(`${url}${BASE}/v1/products`, {
    method: 'POST',
    headers: { ...(await adminHeaders(url)), 'content-type': contentType },
    body,
  });
}

/**
 * node:http, whose handler reads the whole body itself first, then hands it to plainrest as `handOver` makes it (or
 * leaves nothing on req.body when that gives undefined).
 */
async function inReadingHost(app: App, handOver: (text: string) => unknown): Promise<Host> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      // The login is handed over as it came, so that a test can log in whatever it hands over afterwards.
      const body = req.url?.endsWith('/tokens') ? text : handOver(text);
      if (body !== undefined) Object.assign(req, { body });
      app.handle(req, res);
    });
  }).listen(0, '127.0.0.1');
  return { url: await listening(server), close: () => closed(server) };
}

/** Sends `text` as a chunked body (no Content-Length): its size is known only once it is read. */
async function postChunked(url: string, headers: Record<string, string>, text: string): Promise<Response> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
  return send(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
}

const PRODUCT = JSON.stringify({ name: 'Handed-over tea', category: 'tea', price: 3 });

describe('a body the host read first', () => {
  test('Express: express.raw() and express.text() hand over a Buffer and a string, used as the body', async () => {
    for (const parser of [express.raw({ type: 'application/json' }), express.text({ type: 'application/json' })]) {
      const app = await createApp({ dataDir: null, basePath: BASE, ...TEST_AUTH_OPTIONS });
      const host = express();
      host.use(parser);
      host.use(BASE, app.handle);
      const server = host.listen(0, '127.0.0.1', () => undefined);
      const url = await listening(server);
      try {
        const created = await createProductThrough(url, PRODUCT);
        assert.equal(created.status, 201, await created.clone().text());
        assert.equal(created.headers.get('location'), `${BASE}/v1/products/13`);
      } finally {
        await closed(server);
        await app.close();
      }
    }
  });

  test('Express with express.json(): a merge patch, which it does not parse, is read off the socket', async () => {
    await withMounted(
      (app) => inExpress(app, true),
      async (url) => {
        const patched = await send(`${url}${BASE}/v1/products/1`, {
          method: 'PATCH',
          headers: { ...(await adminHeaders(url)), 'content-type': 'application/merge-patch+json' },
          body: JSON.stringify({ price: 25.5 }),
        });
        assert.equal(patched.status, 200, await patched.clone().text());
        assert.equal(((await patched.json()) as { price: number }).price, 25.5);
      },
    );
  });

  test('Express with express.json(): a handed-over array, or one too deep, is refused as off the socket', async () => {
    await withMounted(
      (app) => inExpress(app, true),
      async (url) => {
        const array = await createProductThrough(url, '[1,2]');
        assert.equal(array.status, 400);
        assert.equal(((await array.json()) as { code: string }).code, 'body_not_object');
        const deep = await createProductThrough(url, `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`);
        assert.equal(deep.status, 400);
        assert.equal(((await deep.json()) as { code: string }).code, 'body_too_deep');
      },
    );
  });

  test('a handed-over body is held to maxBodyBytes (413), and to its schema (422)', async () => {
    const app = await createApp({ dataDir: null, basePath: BASE, maxBodyBytes: 200, ...TEST_AUTH_OPTIONS });
    const host = await inReadingHost(app, (text) => JSON.parse(text) as unknown);
    try {
      const headers = await adminHeaders(host.url);
      const large = await postChunked(
        `${host.url}${BASE}/v1/products`,
        headers,
        JSON.stringify({ name: 'x'.repeat(300) }),
      );
      assert.equal(large.status, 413);
      assert.equal(((await large.json()) as { code: string }).code, 'payload_too_large');
      const invalid = await postChunked(
        `${host.url}${BASE}/v1/products`,
        headers,
        JSON.stringify({ name: 'no price' }),
      );
      assert.equal(invalid.status, 422);
    } finally {
      await host.close();
      await app.close();
    }
  });

  test('a body read and not handed over: 500 body_already_read at once, naming the cause and the fix', async () => {
    const app = await createApp({ dataDir: null, basePath: BASE, ...TEST_AUTH_OPTIONS });
    const host = await inReadingHost(app, () => undefined);
    try {
      const started = Date.now();
      const answer = await createProductThrough(host.url, PRODUCT);
      assert.equal(answer.status, 500);
      assert.ok(Date.now() - started < NO_HANG_MS);
      const problem = (await answer.json()) as Record<string, unknown>;
      assert.deepEqual(
        { ...problem, request_id: undefined },
        {
          type: 'about:blank',
          title: 'Internal Server Error',
          status: 500,
          code: 'body_already_read',
          detail:
            'the application plainrest runs in read the request body before plainrest (a body parser such as ' +
            'express.json() ahead of it) and did not hand it over: mount plainrest before the body parser, or ' +
            'leave the parsed body on req.body',
          instance: `${BASE}/v1/products`,
          request_id: undefined,
        },
      );
      // Nothing was created: the list is as the seed left it.
      const list = await send(`${host.url}${BASE}/v1/products?limit=1`, { headers: await adminHeaders(host.url) });
      assert.equal(((await list.json()) as { meta: { total: number } }).meta.total, 12);
    } finally {
      await host.close();
      await app.close();
    }
  });

  test('Fastify, its JSON parser on, a route that hands nothing over: 500 body_already_read, no hang', async () => {
    const app = await createApp({ dataDir: null, basePath: BASE, ...TEST_AUTH_OPTIONS });
    const host = Fastify();
    host.all(`${BASE}/*`, (request, reply) => {
      reply.hijack();
      app.handle(request.raw, reply.raw);
    });
    const url = await host.listen({ port: 0, host: '127.0.0.1' });
    try {
      const answer = await send(`${url}${BASE}/v1/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD }),
      });
      assert.equal(answer.status, 500);
      assert.equal(((await answer.json()) as { code: string }).code, 'body_already_read');
    } finally {
      await host.close();
      await app.close();
    }
  });

  test('a value handed over that is not JSON data: 500 body_already_read saying so', async () => {
    const app = await createApp({ dataDir: null, basePath: BASE, ...TEST_AUTH_OPTIONS });
    const host = await inReadingHost(app, () => ({ price: 1n }));
    try {
      const answer = await createProductThrough(host.url, PRODUCT);
      assert.equal(answer.status, 500);
      const { code, detail } = (await answer.json()) as { code: string; detail: string };
      assert.equal(code, 'body_already_read');
      assert.match(detail, /handed over on req\.body a value that is not JSON data/);
    } finally {
      await host.close();
      await app.close();
    }
  });
});

/**
 * Sends the headers of a login with `Content-Length: 100` and 10 bytes of its body, then nothing: what comes back, and
 * after how long the connection closed.
 */
async function stalledBody(url: string): Promise<{ answer: string; elapsedMs: number }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  const started = Date.now();
  socket.write(
    `POST ${BASE}/v1/tokens HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\n\r\n{"email":"',
  );
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  const closing = once(socket, 'close');
  const timer = setTimeout(() => socket.destroy(), NO_HANG_MS);
  await closing;
  clearTimeout(timer);
  return { answer, elapsedMs: Date.now() - started };
}

describe('timeouts under createApp', () => {
  const requestTimeoutMs = 1000;
  const hosts: readonly { readonly name: string; readonly mount: (app: App) => Promise<Host> }[] = [
    { name: "node:http with Node's own timeouts (requestTimeout 300 s)", mount: inNodeHttp },
    { name: 'Fastify 5, whose requestTimeout is off by default', mount: (app) => inFastify(app, false) },
  ];
  for (const { name, mount } of hosts) {
    test(`${name}: a body that stalls gets 408 request_timeout once requestTimeoutMs has passed`, async () => {
      const app = await createApp({ dataDir: null, basePath: BASE, requestTimeoutMs, ...TEST_AUTH_OPTIONS });
      const host = await mount(app);
      try {
        const { answer, elapsedMs } = await stalledBody(host.url);
        assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
        assert.match(answer, /\r\nConnection: close\r\n/i);
        const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
        assert.equal(body['code'], 'request_timeout');
        assert.equal(body['detail'], `the request body did not arrive within ${requestTimeoutMs} ms`);
        assert.ok(elapsedMs >= requestTimeoutMs, `answered after ${elapsedMs} ms, before requestTimeoutMs`);
        assert.ok(elapsedMs < NO_HANG_MS, `answered after ${elapsedMs} ms`);
      } finally {
        await host.close();
        await app.close();
      }
    });
  }
});

describe('the administrator a createApp start generates', () => {
  test('createApp({ dataDir: null }): takeGeneratedAdminPassword() gives the password once; it logs in', async () => {
    const app = await createApp({ dataDir: null, basePath: BASE, tokenSecret: TEST_TOKEN_SECRET });
    const host = await inNodeHttp(app);
    try {
      const password = app.takeGeneratedAdminPassword();
      assert.equal(typeof password, 'string');
      assert.ok((password as string).length >= 16, 'a password of 16 characters or more');
      assert.equal(app.takeGeneratedAdminPassword(), undefined, 'handed out once');
      const login = await send(`${host.url}${BASE}/v1/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: TEST_ADMIN_EMAIL, password }),
      });
      assert.equal(login.status, 201);
    } finally {
      await host.close();
      await app.close();
    }
  });

  test('with adminPassword, none is generated: takeGeneratedAdminPassword() gives undefined', async () => {
    const app = await createApp({ dataDir: null, ...TEST_AUTH_OPTIONS });
    try {
      assert.equal(app.takeGeneratedAdminPassword(), undefined);
    } finally {
      await app.close();
    }
  });
});
