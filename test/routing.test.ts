// Addresses (CONTRACT §2, §4 HEAD/OPTIONS, §8): which paths exist in both vocabularies,
// what an id looks like, unversioned and unknown paths, 405 with Allow, OPTIONS, HEAD,
// the health check and the API index, and query parameters on paths that are not lists.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { assertEmpty, assertProblem, COLLECTION_ALLOW, ITEM_ALLOW } from './assertions.ts';

const READ_ONLY_ALLOW = 'GET, HEAD, OPTIONS';

interface RawResponse {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: ReadonlyMap<string, string>;
  /** Every byte the server sent after the header block. */
  readonly body: Buffer;
}

/**
 * Sends one request over a bare socket and returns exactly what came back, so that a
 * body sent where HTTP forbids one (HEAD) cannot be hidden by a client library.
 */
function rawRequest(url: string, method: string, path: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
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

beforeEach(async () => {
  api = await startTestServer({ seed: true });
});

afterEach(async () => {
  await api.close();
});

describe('every path of CONTRACT §2 exists in both vocabularies, and nothing else does', () => {
  // Seed: users 1–2, products 1–12, orders 1–3 of user 1 and 4–5 of user 2.
  const cases: { method: string; path: string; status: number; code?: string }[] = [
    { method: 'GET', path: '/v1', status: 200 },
    { method: 'GET', path: '/healthz', status: 200 },
    { method: 'GET', path: '/v1/users', status: 200 },
    { method: 'GET', path: '/v1/usuarios', status: 200 },
    { method: 'GET', path: '/v1/users/1', status: 200 },
    { method: 'GET', path: '/v1/usuarios/1', status: 200 },
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
    { method: 'GET', path: '/', status: 404, code: 'route_not_found' },
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
  const badIds = ['0', 'abc', '01', '00', '-1', '+1', '1.5', '1e3', '0x1', '1a', '99999999999999999999', '9007199254740992'];
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
  const paths = ['/v1/', '/v1/users/', '/v1/usuarios/', '/v1/users/1/', '/v1/users/1/orders/', '/v1/users/1/orders/1/', '/v1/produtos/1/', '/healthz/'];
  for (const path of paths) {
    test(`GET ${path} → 404 route_not_found`, async () => {
      assertProblem(await api.get(path), 404, 'route_not_found', path);
    });
  }
});

describe('an unversioned resource path is a 404 unversioned_path whose detail names the /v1 path', () => {
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
  const cases = [
    { kind: 'collection', path: '/v1/users', methods: ['PUT', 'PATCH', 'DELETE'], allow: COLLECTION_ALLOW },
    { kind: 'collection (pt)', path: '/v1/produtos', methods: ['PUT', 'PATCH', 'DELETE'], allow: COLLECTION_ALLOW },
    { kind: 'item', path: '/v1/products/1', methods: ['POST'], allow: ITEM_ALLOW },
    { kind: 'item (pt)', path: '/v1/usuarios/1', methods: ['POST'], allow: ITEM_ALLOW },
    { kind: 'nested collection', path: '/v1/users/1/orders', methods: ['PUT', 'PATCH', 'DELETE'], allow: COLLECTION_ALLOW },
    { kind: 'nested collection (pt)', path: '/v1/usuarios/1/pedidos', methods: ['DELETE'], allow: COLLECTION_ALLOW },
    { kind: 'nested item', path: '/v1/users/1/orders/1', methods: ['POST'], allow: ITEM_ALLOW },
    { kind: 'nested item (pt)', path: '/v1/usuarios/1/pedidos/1', methods: ['POST'], allow: ITEM_ALLOW },
    { kind: '/healthz', path: '/healthz', methods: ['POST', 'PUT', 'PATCH', 'DELETE'], allow: READ_ONLY_ALLOW },
    { kind: '/v1', path: '/v1', methods: ['POST', 'PUT', 'PATCH', 'DELETE'], allow: READ_ONLY_ALLOW },
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
      const head = await rawRequest(api.url, 'HEAD', c.path);
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
        users: '/v1/users',
        products: '/v1/products',
        usuarios: '/v1/usuarios',
        produtos: '/v1/produtos',
      },
    });
  });

  test('every link of the index answers 200', async () => {
    const index = await api.get('/v1');
    for (const link of Object.values(index.body.links) as string[]) {
      const response = await api.get(link);
      assert.equal(response.status, 200, link);
    }
  });
});

describe('query parameters on a path that is not a list → 400 invalid_query naming each one', () => {
  const cases = [
    { method: 'GET', path: '/healthz', query: 'verbose=1', names: ['verbose'] },
    { method: 'GET', path: '/v1', query: 'format=xml', names: ['format'] },
    { method: 'GET', path: '/v1/products/1', query: 'fields=name', names: ['fields'] },
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
        response.body.errors.map((error: { field: string; code: string }) => ({ field: error.field, code: error.code })),
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
