// The OpenAPI document (/v1/openapi.json): served without a token, generated from the
// same route table the router uses — every route is documented and every documented
// operation is served — and real responses validate against the documented schemas.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { parseId } from '../src/router.js';
import { routeTable } from '../src/routes.js';
import { validateJson } from './json-schema.js';
import type { TestResponse, TestServer } from './helpers.js';
import { createUserClient, startTestServer } from './helpers.js';

type Json = Record<string, any>;

let api: TestServer;
let doc: Json;
before(async () => {
  api = await startTestServer({ seed: true });
  doc = (await api.as(undefined).get('/v1/openapi.json')).body;
});
after(() => api.close());

/** The documented path template a concrete path falls under. */
function templateOf(path: string): string {
  const segments = path.split('/');
  const match = Object.keys(doc['paths']).find((template) => {
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((part, i) => part === segments[i] || (part.startsWith('{') && parseId(segments[i] ?? '') !== undefined));
  });
  assert.ok(match, `no documented path for ${path}`);
  return match;
}

/** Checks a response against the schema the document gives for its operation and status. */
function assertDocumented(method: string, path: string, response: TestResponse): void {
  const operation = doc['paths'][templateOf(path.split('?')[0] as string)][method.toLowerCase()];
  assert.ok(operation, `${method} ${path} is not documented`);
  const documented = operation.responses[String(response.status)];
  assert.ok(documented, `${method} ${path}: status ${response.status} is not documented`);
  if (response.text === '') return;
  const schema = documented.content?.['application/json']?.schema;
  assert.ok(schema, `${method} ${path} ${response.status}: no JSON schema documented`);
  assert.deepEqual(validateJson(doc, schema, response.body), [], `${method} ${path} ${response.status}`);
}

describe('openapi: the document', () => {
  test('is served without a token as OpenAPI 3.1 with a strong ETag, and answers If-None-Match with 304', async () => {
    const response = await api.as(undefined).get('/v1/openapi.json');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.body.openapi, '3.1.0');
    const etag = response.headers.get('etag') ?? '';
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal((await api.as(undefined).get('/v1/openapi.json', { 'if-none-match': etag })).status, 304);
  });

  test('documents every route the router serves, with exactly its methods, and nothing else', async () => {
    const routes = routeTable();
    const documented = Object.keys(doc['paths']).sort();
    assert.deepEqual(documented, routes.map((route) => route.pattern.replace(/:([a-z_]+)/g, '{$1}')).sort());
    for (const template of documented) {
      const path = template.replace(/\{[a-z_]+\}/g, '1');
      const options = await api.request('OPTIONS', path);
      const served = (options.headers.get('allow') ?? '').split(', ').filter((method) => method !== 'OPTIONS' && method !== 'HEAD');
      const operations = Object.keys(doc['paths'][template]).filter((key) => key !== 'parameters');
      assert.deepEqual(operations.map((method) => method.toUpperCase()).sort(), served.sort(), template);
    }
  });

  test('marks exactly the open operations as needing no token', () => {
    const open: string[] = [];
    for (const [path, item] of Object.entries(doc['paths'] as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (method !== 'parameters' && Array.isArray(operation.security) && operation.security.length === 0) open.push(`${method.toUpperCase()} ${path}`);
      }
    }
    assert.deepEqual(open.sort(), ['GET /', 'GET /healthz', 'GET /readyz', 'GET /v1', 'GET /v1/openapi.json', 'POST /v1/tokens'].sort());
  });
});

describe('openapi: real responses match the documented schemas', () => {
  test('reads, lists, creates, changes and deletes in both vocabularies', async () => {
    const exchanges: [string, string, unknown?][] = [
      ['GET', '/v1'],
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/v1/users'],
      ['GET', '/v1/users/1'],
      ['GET', '/v1/usuarios/1'],
      ['GET', '/v1/products?category=tea&sort=-price&limit=2'],
      ['GET', '/v1/produtos?categoria=tea&ordenar=-preco'],
      ['GET', '/v1/products/1'],
      ['GET', '/v1/users/1/orders'],
      ['GET', '/v1/usuarios/1/pedidos/1'],
      ['POST', '/v1/products', { name: 'Documented', category: 'docs', price: 3.5, description: 'checked' }],
      ['POST', '/v1/produtos', { nome: 'Documentado', categoria: 'docs', preco: 2 }],
      ['POST', '/v1/users', { name: 'Doc', email: 'doc@example.com', password: 'doc-password' }],
      ['POST', '/v1/usuarios', { nome: 'Doc Pt', email: 'doc-pt@example.com' }],
      ['POST', '/v1/users/1/orders', { items: [{ product_id: 2, quantity: 3 }] }],
      ['POST', '/v1/usuarios/2/pedidos', { itens: [{ produto_id: 3, quantidade: 1 }] }],
      ['PUT', '/v1/products/1', { name: 'Espresso', category: 'coffee', price: 25 }],
      ['PATCH', '/v1/produtos/2', { descricao: 'moído' }],
      ['PATCH', '/v1/users/1/orders/3', { status: 'paid' }],
      ['DELETE', '/v1/products/12'],
      ['GET', '/v1/products/999'],
      ['GET', '/v1/products?bogus=1'],
      ['POST', '/v1/products', { name: '' }],
      ['PATCH', '/v1/users/1/orders/1', { status: 'pending' }],
    ];
    for (const [method, path, body] of exchanges) {
      const response = await api.request(method, path, { body });
      assert.ok(response.status < 500, `${method} ${path} → ${response.status}`);
      assertDocumented(method, path, response);
    }
  });

  test('token, 401 and 403 answers match too', async () => {
    const { id, client } = await createUserClient(api, { password: 'schema-password' });
    const login = await api.as(undefined).post('/v1/tokens', { email: (await api.get(`/v1/users/${id}`)).body.email, password: 'schema-password' });
    assertDocumented('POST', '/v1/tokens', login);
    assertDocumented('GET', '/v1/products', await api.as(undefined).get('/v1/products'));
    assertDocumented('GET', '/v1/users', await client.get('/v1/users'));
  });
});

describe('openapi: examples', () => {
  test('every documented request body example validates against its schema, and each create example is accepted (201)', async () => {
    for (const [name, schema] of Object.entries(doc['components']['schemas'] as Json)) {
      for (const example of (schema.examples ?? []) as unknown[]) assert.deepEqual(validateJson(doc, schema, example), [], name);
    }
    for (const [template, item] of Object.entries(doc['paths'] as Json)) {
      const post = (item as Json)['post'];
      const reference = post?.requestBody?.content?.['application/json']?.schema?.['$ref'] as string | undefined;
      if (reference === undefined || template === '/v1/tokens') continue;
      const example = doc['components']['schemas'][reference.split('/').pop() as string].examples[0];
      const path = template.replace('{user_id}', '1');
      const fresh = await startTestServer({ seed: true });
      try {
        const response = await fresh.post(path, example);
        assert.equal(response.status, 201, `${template}: ${response.text}`);
      } finally {
        await fresh.close();
      }
    }
  });
});

describe('openapi: the command line', () => {
  test('`plainrest openapi` prints the same document through a pipe, whole (over 64 KiB)', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/main.js', 'openapi'], { cwd: root, maxBuffer: 8 << 20 });
    assert.ok(stdout.length > 65_536, `${stdout.length} bytes`);
    assert.deepEqual(JSON.parse(stdout), doc);
  });

  test('operations list only the statuses they can answer (a product read cannot be refused, a product create cannot conflict)', () => {
    const statuses = (path: string, method: string): string[] => Object.keys(doc['paths'][path][method].responses);
    assert.ok(!statuses('/v1/products/{product_id}', 'get').includes('403'));
    assert.ok(!statuses('/v1/products', 'post').includes('409'));
    assert.ok(statuses('/v1/users', 'post').includes('409'));
    assert.ok(statuses('/v1/users/{user_id}/orders/{order_id}', 'patch').includes('409'));
    assert.ok(!statuses('/v1/products', 'get').includes('404'));
    assert.ok(statuses('/v1/users/{user_id}/orders', 'get').includes('404'));
  });
});

describe('openapi: the schema checker can fail', () => {
  test('undocumented members, wrong types, missing members and out-of-range values are caught', () => {
    const product = { $ref: '#/components/schemas/Product' };
    const good = { id: 1, name: 'A', category: 'c', price: 1.5, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
    assert.deepEqual(validateJson(doc, product, good), []);
    assert.equal(validateJson(doc, product, { ...good, secret: 1 }).length, 1);
    assert.equal(validateJson(doc, product, { ...good, price: '1.5' }).length, 1);
    assert.equal(validateJson(doc, product, { ...good, price: 1.555 }).length, 1);
    const { name: _name, ...nameless } = good;
    assert.equal(validateJson(doc, product, nameless).length, 1);
    assert.equal(validateJson(doc, { $ref: '#/components/schemas/UserCreated' }, { id: 1, name: 'A', email: 'a@b.c' }).length, 1);
  });
});
