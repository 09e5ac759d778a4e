// Addresses (README: Paths, Methods HEAD/OPTIONS, §6, §8): which paths exist in both vocabularies,
// what an id looks like, unversioned and unknown paths, 405 with Allow, OPTIONS, HEAD,
// the health check and the API index, which paths answer without a bearer token, and
// query parameters on paths that are not lists. Requests carry the administrator's token
// unless a test says otherwise. Every server is seeded; the tests of a describe share
// one unless they write (those without a token, whose control request with a token
// does), and then each gets its own.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { startTestServer, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, tokenFor } from './helpers.ts';
import type { FieldErrorExpectation } from './assertions.ts';
import { assertEmpty, assertProblem, COLLECTION_ALLOW, ITEM_ALLOW } from './assertions.ts';

const READ_ONLY_ALLOW = 'GET, HEAD, OPTIONS';
const TOKENS_ALLOW = 'POST, OPTIONS';
const CHALLENGE = 'Bearer realm="plainrest"';

interface RawResponse {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: ReadonlyMap<string, string>;
  /** Every byte the server sent after the header block. */
  readonly body: Buffer;
}

/**
 * Sends one request over a bare socket and returns exactly what came back, so that a
 * body sent where HTTP forbids one (HEAD) cannot be hidden by a client library. With a
 * token it sends `Authorization: Bearer <token>`; without one, no Authorization header.
 */
function rawRequest(url: string, method: string, path: string, token?: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const authorization = token === undefined ? '' : `Authorization: Bearer ${token}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${authorization}Connection: close\r\n\r\n`,
      );
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split === -1) {
        reject(new Error(`no header block in ${JSON.stringify(all.toString('latin1'))}`));
        return;
      }
      const [statusLine = '', ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
      const headers = new Map<string, string>();
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: all.subarray(split + 4) });
    });
  });
}

let api: TestServer;

/** One seeded server for all the tests of the calling describe: they only read, or are refused before anything changes. */
function oneServerForAll(): void {
  before(async () => {
    api = await startTestServer({ seed: true });
  });
  after(() => api.close());
}

/** A fresh seeded server for each test of the calling describe: they write. */
function freshServerForEach(): void {
  beforeEach(async () => {
    api = await startTestServer({ seed: true });
  });
  afterEach(() => api.close());
}

describe('every path of README: Paths exists in both vocabularies, beside the home page, and nothing else does', () => {
  oneServerForAll();
  // Seed: users 1–2, products 1–12, orders 1–3 of user 1 and 4–5 of user 2; user 3 is
  // the administrator the server ensures at start.
  const cases: { method: string; path: string; status: number; code?: string }[] = [
    { method: 'GET', path: '/', status: 200 },
    { method: 'GET', path: '/v1', status: 200 },
    { method: 'GET', path: '/healthz', status: 200 },
    { method: 'GET', path: '/v1/users', status: 200 },
    { method: 'GET', path: '/v1/usuarios', status: 200 },
    { method: 'GET', path: '/v1/users/1', status: 200 },
    { method: 'GET', path: '/v1/usuarios/1', status: 200 },
    { method: 'GET', path: '/v1/users/3', status: 200 },
    { method: 'GET', path: '/v1/users/1/orders', status: 200 },
    { method: 'GET', path: '/v1/usuarios/1/pedidos', status: 200 },
    { method: 'GET', path: '/v1/users/1/orders/2', status: 200 },
    { method: 'GET', path: '/v1/usuarios/1/pedidos/2', status: 200 },
    { method: 'GET', path: '/v1/users/2/orders/4', status: 200 },
    { method: 'GET', path: '/v1/products', status: 200 },
    { method: 'GET', path: '/v1/produtos', status: 200 },
    { method: 'GET', path: '/v1/products/12', status: 200 },
    { method: 'GET', path: '/v1/produtos/12', status: 200 },
    { method: 'HEAD', path: '/v1/products/1', status: 200 },
    { method: 'OPTIONS', path: '/v1/produtos', status: 204 },
    // known paths, missing records
    { method: 'GET', path: '/v1/users/99', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/usuarios/99', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/users/99/orders', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/users/1/orders/99', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/users/1/orders/4', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/usuarios/2/pedidos/1', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/products/13', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/produtos/13', status: 404, code: 'record_not_found' },
    { method: 'GET', path: '/v1/products/9007199254740991', status: 404, code: 'record_not_found' },
    // unknown paths
    { method: 'GET', path: '/index.html', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v2/users', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/V1/users', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/Users', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/orders', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/pedidos', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/healthz', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/users/1/orders/2/items', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/products/1/orders', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/users/1/pedidos', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/usuarios/1/orders', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1//users', status: 404, code: 'route_not_found' },
    { method: 'GET', path: '/v1/users/search', status: 404, code: 'route_not_found' },
    { method: 'POST', path: '/v1/users/1/activate', status: 404, code: 'route_not_found' },
    { method: 'DELETE', path: '/v1/nothing', status: 404, code: 'route_not_found' },
  ];
  for (const c of cases) {
    test(`${c.method} ${c.path} → ${c.status}${c.code === undefined ? '' : ` ${c.code}`}`, async () => {
      const response = await api.request(c.method, c.path);
      if (c.code === undefined) {
        assert.equal(response.status, c.status, response.text);
        assert.match(response.headers.get('x-request-id') ?? '', /./);
      } else {
        assertProblem(response, c.status, c.code, c.path);
        assert.equal(response.body.title, 'Not Found');
      }
    });
  }
});

describe('an id segment is a positive integer without leading zeros, up to 2^53 − 1; anything else is no route', () => {
  oneServerForAll();
  const badIds = [
    '0',
    'abc',
    '01',
    '00',
    '-1',
    '+1',
    '1.5',
    '1e3',
    '0x1',
    '1a',
    '99999999999999999999',
    '9007199254740992',
  ];
  const templates = [
    '/v1/users/{id}',
    '/v1/usuarios/{id}',
    '/v1/products/{id}',
    '/v1/produtos/{id}',
    '/v1/users/{id}/orders',
    '/v1/users/1/orders/{id}',
    '/v1/usuarios/1/pedidos/{id}',
  ];
  for (const template of templates) {
    for (const id of badIds) {
      const path = template.replace('{id}', id);
      test(`GET ${path} → 404 route_not_found`, async () => {
        assertProblem(await api.get(path), 404, 'route_not_found', path);
      });
    }
  }

  test('a bad id is route_not_found for every method, not 405 and not record_not_found', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST', 'OPTIONS']) {
      const response = await api.request(method, '/v1/products/01');
      assertProblem(response, 404, 'route_not_found', '/v1/products/01');
    }
  });
});

describe('a trailing slash names no resource', () => {
  oneServerForAll();
  const paths = [
    '/v1/',
    '/v1/users/',
    '/v1/usuarios/',
    '/v1/users/1/',
    '/v1/users/1/orders/',
    '/v1/users/1/orders/1/',
    '/v1/produtos/1/',
    '/healthz/',
  ];
  for (const path of paths) {
    test(`GET ${path} → 404 route_not_found`, async () => {
      assertProblem(await api.get(path), 404, 'route_not_found', path);
    });
  }
});

describe('an unversioned resource path is a 404 unversioned_path whose detail names the /v1 path', () => {
  oneServerForAll();
  const cases = [
    { method: 'GET', path: '/users' },
    { method: 'GET', path: '/usuarios' },
    { method: 'GET', path: '/products' },
    { method: 'GET', path: '/products/3' },
    { method: 'GET', path: '/produtos/3' },
    { method: 'GET', path: '/users/1/orders' },
    { method: 'GET', path: '/usuarios/1/pedidos/2' },
    { method: 'POST', path: '/users' },
    { method: 'DELETE', path: '/products/3' },
  ];
  for (const c of cases) {
    test(`${c.method} ${c.path} → 404 unversioned_path pointing at /v1${c.path}`, async () => {
      const response = await api.request(c.method, c.path);
      assertProblem(response, 404, 'unversioned_path', c.path);
      assert.ok(response.body.detail.includes(`/v1${c.path}`), response.body.detail);
    });
  }

  test('an unversioned path with a query string still names the /v1 path', async () => {
    const response = await api.get('/users?page=2');
    assertProblem(response, 404, 'unversioned_path', '/users');
    assert.ok(response.body.detail.includes('/v1/users'), response.body.detail);
  });

  const notResources = ['/users/abc', '/users/', '/nothing', '/orders', '/healthz/v1'];
  for (const path of notResources) {
    test(`GET ${path} (no such path under /v1 either) → 404 route_not_found`, async () => {
      assertProblem(await api.get(path), 404, 'route_not_found', path);
    });
  }
});

describe('a known path with another method is a 405 with the exact Allow header', () => {
  oneServerForAll();
  const cases = [
    { kind: 'collection', path: '/v1/users', methods: ['PUT', 'PATCH', 'DELETE'], allow: COLLECTION_ALLOW },
    { kind: 'collection (pt)', path: '/v1/produtos', methods: ['PUT', 'PATCH', 'DELETE'], allow: COLLECTION_ALLOW },
    { kind: 'item', path: '/v1/products/1', methods: ['POST'], allow: ITEM_ALLOW },
    { kind: 'item (pt)', path: '/v1/usuarios/1', methods: ['POST'], allow: ITEM_ALLOW },
    {
      kind: 'nested collection',
      path: '/v1/users/1/orders',
      methods: ['PUT', 'PATCH', 'DELETE'],
      allow: COLLECTION_ALLOW,
    },
    { kind: 'nested collection (pt)', path: '/v1/usuarios/1/pedidos', methods: ['DELETE'], allow: COLLECTION_ALLOW },
    { kind: 'nested item', path: '/v1/users/1/orders/1', methods: ['POST'], allow: ITEM_ALLOW },
    { kind: 'nested item (pt)', path: '/v1/usuarios/1/pedidos/1', methods: ['POST'], allow: ITEM_ALLOW },
    { kind: '/healthz', path: '/healthz', methods: ['POST', 'PUT', 'PATCH', 'DELETE'], allow: READ_ONLY_ALLOW },
    { kind: '/v1', path: '/v1', methods: ['POST', 'PUT', 'PATCH', 'DELETE'], allow: READ_ONLY_ALLOW },
    { kind: '/v1/tokens', path: '/v1/tokens', methods: ['GET', 'PUT', 'PATCH', 'DELETE'], allow: TOKENS_ALLOW },
  ];
  for (const c of cases) {
    for (const method of c.methods) {
      test(`${c.kind}: ${method} ${c.path} → 405, Allow: ${c.allow}`, async () => {
        const response = await api.request(method, c.path);
        assertProblem(response, 405, 'method_not_allowed', c.path);
        assert.equal(response.body.title, 'Method Not Allowed');
        assert.equal(response.headers.get('allow'), c.allow);
      });
    }
  }

  test('/v1/tokens: HEAD → 405 (it has no GET), Allow: POST, OPTIONS, and no body', async () => {
    const response = await api.request('HEAD', '/v1/tokens');
    assert.equal(response.status, 405);
    assert.equal(response.text, '');
    assert.equal(response.headers.get('allow'), TOKENS_ALLOW);
  });

  test('405 does not depend on the record existing (POST /v1/users/99/orders/99)', async () => {
    const response = await api.post('/v1/users/99/orders/99', { items: [] });
    assertProblem(response, 405, 'method_not_allowed', '/v1/users/99/orders/99');
    assert.equal(response.headers.get('allow'), ITEM_ALLOW);
  });

  test('a refused DELETE on a collection deletes nothing', async () => {
    const response = await api.delete('/v1/products');
    assert.equal(response.status, 405);
    const list = await api.get('/v1/products');
    assert.equal(list.body.meta.total, 12);
  });
});

describe('OPTIONS on a known path → 204 with Allow and an empty body', () => {
  oneServerForAll();
  const cases = [
    { kind: 'collection', path: '/v1/users', allow: COLLECTION_ALLOW },
    { kind: 'collection (pt)', path: '/v1/produtos', allow: COLLECTION_ALLOW },
    { kind: 'item', path: '/v1/products/1', allow: ITEM_ALLOW },
    { kind: 'item (pt)', path: '/v1/usuarios/2', allow: ITEM_ALLOW },
    { kind: 'nested collection', path: '/v1/users/1/orders', allow: COLLECTION_ALLOW },
    { kind: 'nested collection (pt)', path: '/v1/usuarios/1/pedidos', allow: COLLECTION_ALLOW },
    { kind: 'nested item', path: '/v1/users/1/orders/1', allow: ITEM_ALLOW },
    { kind: 'nested item (pt)', path: '/v1/usuarios/2/pedidos/4', allow: ITEM_ALLOW },
    { kind: '/healthz', path: '/healthz', allow: READ_ONLY_ALLOW },
    { kind: '/v1', path: '/v1', allow: READ_ONLY_ALLOW },
    { kind: '/v1/tokens', path: '/v1/tokens', allow: TOKENS_ALLOW },
  ];
  for (const c of cases) {
    test(`${c.kind}: OPTIONS ${c.path} → 204, Allow: ${c.allow}`, async () => {
      const response = await api.request('OPTIONS', c.path, { headers: { 'x-request-id': 'options-check' } });
      assertEmpty(response, 204);
      assert.equal(response.headers.get('allow'), c.allow);
      assert.equal(response.headers.get('x-request-id'), 'options-check');
    });
  }

  test('OPTIONS on an unknown path → 404 route_not_found', async () => {
    assertProblem(await api.request('OPTIONS', '/v1/nothing'), 404, 'route_not_found', '/v1/nothing');
  });

  test('OPTIONS sends no body bytes on the wire', async () => {
    const raw = await rawRequest(api.url, 'OPTIONS', '/v1/products');
    assert.equal(raw.status, 204);
    assert.equal(raw.headers.get('allow'), COLLECTION_ALLOW);
    assert.equal(raw.body.length, 0);
  });
});

describe('HEAD answers as GET would, with the same status and headers and no body', () => {
  oneServerForAll();
  const cases = [
    { kind: 'item', path: '/v1/products/1', status: 200, also: ['etag'] },
    { kind: 'item (pt)', path: '/v1/produtos/1', status: 200, also: ['etag'] },
    { kind: 'nested item', path: '/v1/users/1/orders/1', status: 200, also: ['etag'] },
    { kind: 'list', path: '/v1/products?category=tea&limit=2', status: 200, also: ['link'] },
    { kind: 'list (pt)', path: '/v1/usuarios', status: 200, also: ['link'] },
    { kind: 'missing record', path: '/v1/products/999', status: 404, also: [] },
    { kind: 'unknown path', path: '/v1/nothing', status: 404, also: [] },
    { kind: '/healthz', path: '/healthz', status: 200, also: [] },
    { kind: '/v1', path: '/v1', status: 200, also: [] },
  ];
  for (const c of cases) {
    test(`${c.kind}: HEAD ${c.path} → ${c.status}, GET's Content-Type and Content-Length, empty body`, async () => {
      const get = await api.get(c.path);
      const head = await rawRequest(api.url, 'HEAD', c.path, api.token);
      assert.equal(get.status, c.status);
      assert.equal(head.status, c.status);
      assert.equal(head.headers.get('content-type'), 'application/json');
      assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)));
      for (const name of c.also) assert.equal(head.headers.get(name), get.headers.get(name), name);
      assert.match(head.headers.get('x-request-id') ?? '', /./);
      assert.equal(head.body.length, 0, `HEAD sent a body: ${head.body.toString('utf8')}`);
    });
  }

  test('HEAD through an ordinary client also sees the same headers', async () => {
    const get = await api.get('/v1/products/2');
    const head = await api.request('HEAD', '/v1/products/2');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('etag'), get.headers.get('etag'));
    assert.equal(head.headers.get('content-length'), get.headers.get('content-length'));
  });
});

describe('the health check and the API index', () => {
  oneServerForAll();
  test('GET /healthz → 200 {"status":"ok"}', async () => {
    const response = await api.get('/healthz');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.body, { status: 'ok' });
    assert.match(response.headers.get('x-request-id') ?? '', /./);
  });

  test('GET /v1 → 200 index linking every top-level collection in both vocabularies', async () => {
    const response = await api.get('/v1');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.body, {
      name: 'plainrest',
      version: 'v1',
      links: {
        self: '/v1',
        openapi: '/v1/openapi.json',
        tokens: '/v1/tokens',
        events: '/v1/events',
        batches: '/v1/batches',
        users: '/v1/users',
        products: '/v1/products',
        webhooks: '/v1/webhooks',
        usuarios: '/v1/usuarios',
        produtos: '/v1/produtos',
      },
    });
  });

  test('every link of the index answers 200 to GET, but tokens and batches, which answer POST', async () => {
    const index = await api.get('/v1');
    for (const [name, link] of Object.entries(index.body.links) as [string, string][]) {
      if (name === 'tokens' || name === 'batches') continue; // no GET (Allow: POST, OPTIONS): checked below
      const response = await api.get(link);
      assert.equal(response.status, 200, link);
    }
    const batch = await api.post(index.body.links.batches, {
      operations: [{ method: 'POST', path: '/v1/products', body: { name: 'Tea', category: 'tea', price: 3 } }],
    });
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body.results[0].status, 201);
    const tokens = await api
      .as(undefined)
      .post(index.body.links.tokens, { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
    assert.equal(tokens.status, 201, tokens.text);
    assert.equal(tokens.body.token_type, 'Bearer');
    assert.equal((await api.as(tokens.body.access_token).get('/v1/users')).status, 200);
  });
});

describe('without a token (README: Authentication and permissions): only the open endpoints answer; every other known path and method is 401', () => {
  freshServerForEach();
  // What answers without an Authorization header: GET/HEAD /v1, POST /v1/tokens,
  // GET/HEAD /healthz, OPTIONS on every kind of path, and the route checks that come
  // before authentication (404 path, 405 method). None of these is a 401 or a challenge.
  const open: {
    name: string;
    method: string;
    path: string;
    body?: unknown;
    status: number;
    allow?: string;
    code?: string;
    errors?: FieldErrorExpectation[];
  }[] = [
    { name: 'the API index', method: 'GET', path: '/v1', status: 200 },
    { name: 'the API index', method: 'HEAD', path: '/v1', status: 200 },
    { name: 'the health check', method: 'GET', path: '/healthz', status: 200 },
    { name: 'the health check', method: 'HEAD', path: '/healthz', status: 200 },
    {
      name: 'a login',
      method: 'POST',
      path: '/v1/tokens',
      body: { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD },
      status: 201,
    },
    {
      name: 'a login without credentials is judged on its body',
      method: 'POST',
      path: '/v1/tokens',
      body: {},
      status: 422,
      code: 'validation_failed',
      errors: [
        { field: 'email', code: 'required' },
        { field: 'password', code: 'required' },
      ],
    },
    { name: 'OPTIONS, /healthz', method: 'OPTIONS', path: '/healthz', status: 204, allow: READ_ONLY_ALLOW },
    { name: 'OPTIONS, /v1', method: 'OPTIONS', path: '/v1', status: 204, allow: READ_ONLY_ALLOW },
    { name: 'OPTIONS, /v1/tokens', method: 'OPTIONS', path: '/v1/tokens', status: 204, allow: TOKENS_ALLOW },
    { name: 'OPTIONS, collection', method: 'OPTIONS', path: '/v1/users', status: 204, allow: COLLECTION_ALLOW },
    { name: 'OPTIONS, collection (pt)', method: 'OPTIONS', path: '/v1/usuarios', status: 204, allow: COLLECTION_ALLOW },
    { name: 'OPTIONS, collection', method: 'OPTIONS', path: '/v1/products', status: 204, allow: COLLECTION_ALLOW },
    { name: 'OPTIONS, collection (pt)', method: 'OPTIONS', path: '/v1/produtos', status: 204, allow: COLLECTION_ALLOW },
    { name: 'OPTIONS, item', method: 'OPTIONS', path: '/v1/users/1', status: 204, allow: ITEM_ALLOW },
    { name: 'OPTIONS, item (pt)', method: 'OPTIONS', path: '/v1/usuarios/1', status: 204, allow: ITEM_ALLOW },
    { name: 'OPTIONS, item', method: 'OPTIONS', path: '/v1/products/1', status: 204, allow: ITEM_ALLOW },
    { name: 'OPTIONS, item (pt)', method: 'OPTIONS', path: '/v1/produtos/1', status: 204, allow: ITEM_ALLOW },
    { name: 'OPTIONS, missing item', method: 'OPTIONS', path: '/v1/products/999', status: 204, allow: ITEM_ALLOW },
    {
      name: 'OPTIONS, nested collection',
      method: 'OPTIONS',
      path: '/v1/users/1/orders',
      status: 204,
      allow: COLLECTION_ALLOW,
    },
    {
      name: 'OPTIONS, nested collection (pt)',
      method: 'OPTIONS',
      path: '/v1/usuarios/1/pedidos',
      status: 204,
      allow: COLLECTION_ALLOW,
    },
    { name: 'OPTIONS, nested item', method: 'OPTIONS', path: '/v1/users/1/orders/1', status: 204, allow: ITEM_ALLOW },
    {
      name: 'OPTIONS, nested item (pt)',
      method: 'OPTIONS',
      path: '/v1/usuarios/2/pedidos/4',
      status: 204,
      allow: ITEM_ALLOW,
    },
    {
      name: 'an unknown path is 404 before authentication',
      method: 'GET',
      path: '/v1/nothing',
      status: 404,
      code: 'route_not_found',
    },
    {
      name: 'a bad id is 404 before authentication',
      method: 'DELETE',
      path: '/v1/products/01',
      status: 404,
      code: 'route_not_found',
    },
    {
      name: 'an unversioned path is 404 before authentication',
      method: 'GET',
      path: '/users',
      status: 404,
      code: 'unversioned_path',
    },
    {
      name: 'a method not allowed is 405 before authentication',
      method: 'DELETE',
      path: '/v1/users',
      status: 405,
      allow: COLLECTION_ALLOW,
      code: 'method_not_allowed',
    },
    {
      name: 'a method not allowed is 405 before authentication',
      method: 'GET',
      path: '/v1/tokens',
      status: 405,
      allow: TOKENS_ALLOW,
      code: 'method_not_allowed',
    },
  ];
  for (const c of open) {
    test(`${c.name}: ${c.method} ${c.path} without a token → ${c.status}, not 401`, async () => {
      const response = await api.as(undefined).request(c.method, c.path, c.body === undefined ? {} : { body: c.body });
      assert.equal(response.status, c.status, response.text);
      assert.equal(response.headers.get('www-authenticate'), null);
      if (c.allow !== undefined) assert.equal(response.headers.get('allow'), c.allow);
      if (c.method === 'HEAD' || c.status === 204) assert.equal(response.text, '');
      else if (c.code !== undefined) assertProblem(response, c.status, c.code, c.path, c.errors);
      else assert.equal(response.headers.get('content-type'), 'application/json');
      if (c.path === '/v1/tokens' && c.status === 201) assert.equal(typeof response.body.access_token, 'string');
    });
  }

  test('without a token, OPTIONS and HEAD send nothing but headers on the wire, a refused HEAD included', async () => {
    const cases = [
      { method: 'OPTIONS', path: '/v1/users/1/orders/1', status: 204, challenge: undefined },
      { method: 'HEAD', path: '/v1', status: 200, challenge: undefined },
      { method: 'HEAD', path: '/healthz', status: 200, challenge: undefined },
      { method: 'HEAD', path: '/v1/users', status: 401, challenge: CHALLENGE },
      { method: 'HEAD', path: '/v1/produtos/1', status: 401, challenge: CHALLENGE },
    ];
    for (const c of cases) {
      const raw = await rawRequest(api.url, c.method, c.path);
      assert.equal(raw.status, c.status, `${c.method} ${c.path}`);
      assert.equal(raw.headers.get('www-authenticate'), c.challenge, `${c.method} ${c.path}`);
      assert.equal(raw.body.length, 0, `${c.method} ${c.path} sent a body: ${raw.body.toString('utf8')}`);
    }
  });

  // Every other known path and method: each kind of path in both vocabularies, with
  // every method its Allow header names but OPTIONS (the 405 and OPTIONS tables above
  // prove those Allow values), also on records that do not exist (401 comes before 404).
  // Each body is one the administrator may send, so the token is all that is missing.
  const seededCollections: { path: string; post: unknown }[] = [
    { path: '/v1/users', post: { name: 'Carol', email: 'carol@example.com' } },
    { path: '/v1/usuarios', post: { nome: 'Carla', email: 'carla@example.com' } },
    { path: '/v1/products', post: { name: 'New', category: 'coffee', price: 1 } },
    { path: '/v1/produtos', post: { nome: 'Novo', categoria: 'coffee', preco: 1 } },
    { path: '/v1/users/1/orders', post: { items: [{ product_id: 1, quantity: 1 }] } },
    { path: '/v1/usuarios/2/pedidos', post: { itens: [{ produto_id: 1, quantidade: 1 }] } },
  ];
  const seededItems: { path: string; put: unknown; patch: unknown }[] = [
    { path: '/v1/users/1', put: { name: 'Alice B', email: 'alice.b@example.com' }, patch: { name: 'Alice B' } },
    { path: '/v1/usuarios/2', put: { nome: 'Bob B', email: 'bob.b@example.com' }, patch: { nome: 'Bob B' } },
    { path: '/v1/products/1', put: { name: 'Renamed', category: 'coffee', price: 1 }, patch: { price: 2 } },
    { path: '/v1/produtos/12', put: { nome: 'Renomeado', categoria: 'tea', preco: 1 }, patch: { preco: 2 } },
    { path: '/v1/users/1/orders/3', put: { items: [{ product_id: 2, quantity: 1 }] }, patch: { status: 'cancelled' } },
    {
      path: '/v1/usuarios/2/pedidos/4',
      put: { itens: [{ produto_id: 2, quantidade: 1 }] },
      patch: { estado: 'cancelled' },
    },
  ];
  const missingCollections = ['/v1/users/99/orders', '/v1/usuarios/99/pedidos'];
  const missingItems = ['/v1/users/99', '/v1/produtos/999', '/v1/users/1/orders/99', '/v1/usuarios/99/pedidos/1'];

  const methodsOf = (allow: string): string[] => allow.split(', ').filter((method) => method !== 'OPTIONS');
  const guarded: { path: string; method: string; body?: unknown; withToken: number }[] = [];
  const success: Record<string, number> = { GET: 200, HEAD: 200, POST: 201, PUT: 200, PATCH: 200, DELETE: 204 };
  for (const c of seededCollections) {
    for (const method of methodsOf(COLLECTION_ALLOW)) {
      guarded.push({
        path: c.path,
        method,
        ...(method === 'POST' ? { body: c.post } : {}),
        withToken: success[method] as number,
      });
    }
  }
  for (const c of seededItems) {
    for (const method of methodsOf(ITEM_ALLOW)) {
      const body = method === 'PUT' ? c.put : method === 'PATCH' ? c.patch : undefined;
      guarded.push({
        path: c.path,
        method,
        ...(body === undefined ? {} : { body }),
        withToken: success[method] as number,
      });
    }
  }
  for (const path of missingCollections) {
    for (const method of methodsOf(COLLECTION_ALLOW)) {
      guarded.push({
        path,
        method,
        ...(method === 'POST' ? { body: { items: [{ product_id: 1, quantity: 1 }] } } : {}),
        withToken: 404,
      });
    }
  }
  for (const path of missingItems) {
    for (const method of methodsOf(ITEM_ALLOW)) {
      const body = method === 'PUT' || method === 'PATCH' ? { name: 'Anything' } : undefined;
      guarded.push({ path, method, ...(body === undefined ? {} : { body }), withToken: 404 });
    }
  }

  for (const c of guarded) {
    test(`${c.method} ${c.path} without a token → 401 unauthenticated, Bearer challenge, nothing changed; with one → ${c.withToken}`, async () => {
      const state = { 'x-request-id': 'state-check' }; // the same request id, so equal state reads equal text
      const before = await api.get(c.path, state);
      const options = c.body === undefined ? {} : { body: c.body };
      const response = await api.as(undefined).request(c.method, c.path, options);
      if (c.method === 'HEAD') {
        assert.equal(response.status, 401);
        assert.equal(response.text, '');
      } else {
        assertProblem(response, 401, 'unauthenticated', c.path);
        assert.equal(response.body.title, 'Unauthorized');
      }
      assert.equal(response.headers.get('www-authenticate'), CHALLENGE);
      const after = await api.get(c.path, state);
      assert.equal(after.status, before.status);
      assert.equal(after.text, before.text, 'a request without a token changed state');
      // The same request with the administrator's token is let through, so the token was all that was missing.
      const authorized = await api.request(c.method, c.path, options);
      assert.equal(authorized.status, c.withToken, authorized.text);
    });
  }

  test('an expired token or a bad signature is 401 invalid_token on every kind of path, with error="invalid_token"', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = tokenFor(1, 60, now - 3600);
    const forged = `${tokenFor(1).slice(0, -6)}abcdef`;
    const paths = ['/v1/users', '/v1/produtos/1', '/v1/users/1/orders', '/v1/usuarios/1/pedidos/1', '/v1/products/999'];
    for (const token of [expired, forged]) {
      for (const path of paths) {
        const response = await api.as(token).get(path);
        assertProblem(response, 401, 'invalid_token', path);
        assert.match(
          response.headers.get('www-authenticate') ?? '',
          /^Bearer realm="plainrest", error="invalid_token"/,
          path,
        );
      }
    }
  });
});

describe('query parameters on a path that is not a list → 400 invalid_query naming each one', () => {
  oneServerForAll();
  const cases = [
    { method: 'GET', path: '/healthz', query: 'verbose=1', names: ['verbose'] },
    { method: 'GET', path: '/v1', query: 'format=xml', names: ['format'] },
    { method: 'GET', path: '/v1/products/1', query: 'select=name', names: ['select'] },
    { method: 'GET', path: '/v1/products/1', query: 'page=1', names: ['page'] },
    { method: 'GET', path: '/v1/produtos/1', query: 'pagina=1', names: ['pagina'] },
    { method: 'GET', path: '/v1/users/1/orders/1', query: 'expand=items&lang=pt', names: ['expand', 'lang'] },
    { method: 'GET', path: '/v1/usuarios/1', query: 'x', names: ['x'] },
    { method: 'HEAD', path: '/v1/products/1', query: 'a=1', names: ['a'] },
    { method: 'DELETE', path: '/v1/products/1', query: 'force=true', names: ['force'] },
    { method: 'PUT', path: '/v1/products/1', query: 'upsert=1', names: ['upsert'] },
    { method: 'PATCH', path: '/v1/products/1', query: 'dry_run=1', names: ['dry_run'] },
    { method: 'POST', path: '/v1/products', query: 'dry_run=1', names: ['dry_run'] },
    { method: 'POST', path: '/v1/users/1/orders', query: 'notify=no', names: ['notify'] },
  ];
  const bodies: Record<string, unknown> = {
    PUT: { name: 'Renamed', category: 'coffee', price: 1 },
    PATCH: { name: 'Renamed' },
    POST: { name: 'New', category: 'coffee', price: 1 },
  };
  for (const c of cases) {
    test(`${c.method} ${c.path}?${c.query} → 400 invalid_query naming ${c.names.join(', ')}`, async () => {
      const target = `${c.path}?${c.query}`;
      const body = c.path.endsWith('/orders') ? { items: [{ product_id: 1, quantity: 1 }] } : bodies[c.method];
      const response = await api.request(c.method, target, body === undefined ? {} : { body });
      if (c.method === 'HEAD') {
        assert.equal(response.status, 400);
        assert.equal(response.text, '');
        return;
      }
      assertProblem(
        response,
        400,
        'invalid_query',
        c.path,
        c.names.map((name) => ({ field: name, code: 'unknown_parameter' })),
      );
      assert.equal(response.body.title, 'Bad Request');
      assert.deepEqual(
        response.body.errors.map((error: { field: string; code: string }) => ({
          field: error.field,
          code: error.code,
        })),
        c.names.map((name) => ({ field: name, code: 'unknown_parameter' })),
      );
      for (const name of c.names) assert.ok(response.body.detail.includes(name), response.body.detail);
    });
  }

  test('a write refused for its query parameters changes nothing', async () => {
    const before = await api.get('/v1/products/1');
    assert.equal((await api.delete('/v1/products/1?force=true')).status, 400);
    assert.equal((await api.patch('/v1/products/1?dry_run=1', { name: 'Renamed' })).status, 400);
    assert.equal((await api.post('/v1/products?dry_run=1', { name: 'New', category: 'coffee', price: 1 })).status, 400);
    const after = await api.get('/v1/products/1');
    assert.equal(after.status, 200);
    assert.deepEqual(after.body, before.body);
    assert.equal(after.headers.get('etag'), before.headers.get('etag'));
    assert.equal((await api.get('/v1/products')).body.meta.total, 12);
  });
});
