// Errors (README: Errors, Headers): the problem-details shape and its Content-Type, X-Request-Id,
// content negotiation (406), request bodies (400 body_required / malformed_json /
// body_not_object, 413, 415), the 500 that leaks nothing, and the order in which the
// checks run when two of them would fail. Authentication (401/403) is not covered here.

import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { MemoryStore } from '../src/index.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import { startTestServer, temporaryDirectory } from './helpers.ts';
import type { FieldErrorExpectation, Reply } from './assertions.ts';
import { assertProblem, errorCodes, TITLES } from './assertions.ts';

/** A generated request id: the process's random prefix, then a counter in base 36. */
const GENERATED_ID = /^[0-9a-f]{8}-[1-9a-z][0-9a-z]*$/;

const PRODUCT = { name: 'Moka pot', category: 'equipment', price: 35.5 };

interface RawOptions {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string | number>;
  /** Written in this order; several chunks without Content-Length go out chunked. */
  readonly chunks?: readonly (string | Buffer)[];
}

/**
 * node:http directly, for what fetch cannot send: no Accept header at all, no
 * Content-Type with a body, a streamed (chunked) body. Like the helpers' client, it
 * carries the bearer token of `api` (the administrator's) unless the headers name one.
 */
function rawRequest(api: TestServer, options: RawOptions): Promise<Reply> {
  const headers: Record<string, string | number> = { ...options.headers };
  const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  if (api.token !== undefined && !hasAuthorization) headers['authorization'] = `Bearer ${api.token}`;
  return new Promise((resolve, reject) => {
    const request = httpRequest(api.url + options.path, { method: options.method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers: IncomingHttpHeaders = response.headers;
        resolve({
          status: response.statusCode ?? 0,
          headers: {
            get: (name: string) => {
              const value = headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
          },
          body: text === '' ? undefined : JSON.parse(text),
          text,
        });
      });
    });
    request.on('error', reject);
    for (const chunk of options.chunks ?? []) request.write(chunk);
    request.end();
  });
}

async function productTotal(api: TestServer): Promise<number> {
  const list = await api.get('/v1/products');
  assert.equal(list.status, 200);
  return list.body.meta.total as number;
}

/** Everything a client can see, to prove that a rejected request changed nothing. */
async function visibleState(api: TestServer): Promise<unknown> {
  const paths = [
    '/v1/users?limit=100',
    '/v1/products?limit=100',
    '/v1/users/1/orders?limit=100',
    '/v1/users/2/orders?limit=100',
  ];
  return Promise.all(paths.map(async (path) => (await api.get(path)).body));
}

describe('problem details: every member, the title of the status, instance and request_id', () => {
  let api: TestServer;
  // Every request here is refused or only reads: one server for all the tests.
  before(async () => {
    api = await startTestServer({ seed: true, maxBodyBytes: 1000 });
  });
  after(async () => {
    await api.close();
  });

  const cases: {
    name: string;
    send: (api: TestServer) => Promise<TestResponse>;
    status: number;
    code: string;
    instance: string;
    errors?: FieldErrorExpectation[];
  }[] = [
    {
      name: '400 invalid_query (instance is the path without the query)',
      send: (api) => api.get('/v1/products?colour=red'),
      status: 400,
      code: 'invalid_query',
      instance: '/v1/products',
      errors: [{ field: 'colour', code: 'unknown_parameter' }],
    },
    {
      name: '400 malformed_json',
      send: (api) => api.post('/v1/products', '{"name":'),
      status: 400,
      code: 'malformed_json',
      instance: '/v1/products',
    },
    {
      name: '404 route_not_found',
      send: (api) => api.get('/v1/nothing/here'),
      status: 404,
      code: 'route_not_found',
      instance: '/v1/nothing/here',
    },
    {
      name: '404 record_not_found',
      send: (api) => api.get('/v1/produtos/404'),
      status: 404,
      code: 'record_not_found',
      instance: '/v1/produtos/404',
    },
    {
      name: '405 method_not_allowed',
      send: (api) => api.delete('/v1/users'),
      status: 405,
      code: 'method_not_allowed',
      instance: '/v1/users',
    },
    {
      name: '406 not_acceptable',
      send: (api) => api.get('/v1/products/1', { accept: 'text/html' }),
      status: 406,
      code: 'not_acceptable',
      instance: '/v1/products/1',
    },
    {
      name: '409 duplicate_value',
      send: (api) => api.post('/v1/users', { name: 'Alice Again', email: 'ALICE@example.com' }),
      status: 409,
      code: 'duplicate_value',
      instance: '/v1/users',
    },
    {
      name: '412 precondition_failed',
      send: (api) => api.put('/v1/products/1', PRODUCT, { 'if-match': '"not-the-etag"' }),
      status: 412,
      code: 'precondition_failed',
      instance: '/v1/products/1',
    },
    {
      name: '413 payload_too_large',
      send: (api) => api.post('/v1/products', { ...PRODUCT, description: 'x'.repeat(1000) }),
      status: 413,
      code: 'payload_too_large',
      instance: '/v1/products',
    },
    {
      name: '415 unsupported_media_type',
      send: (api) =>
        api.request('POST', '/v1/products', {
          body: JSON.stringify(PRODUCT),
          headers: { 'content-type': 'text/plain' },
        }),
      status: 415,
      code: 'unsupported_media_type',
      instance: '/v1/products',
    },
    {
      name: '422 validation_failed',
      send: (api) => api.post('/v1/usuarios/1/pedidos', { itens: [] }),
      status: 422,
      code: 'validation_failed',
      instance: '/v1/usuarios/1/pedidos',
      errors: [{ field: 'itens', code: 'too_few_items' }],
    },
  ];
  for (const c of cases) {
    test(`${c.name}: {type, title "${TITLES[c.status]}", status, code, detail, instance, request_id}`, async () => {
      const response = await c.send(api);
      assertProblem(response, c.status, c.code, c.instance, c.errors);
      assert.equal(response.headers.get('content-type'), 'application/json');
    });
  }

  test('422 detail counts the invalid fields and errors[] has one entry per field', async () => {
    const response = await api.post('/v1/products', { name: '', price: -1, colour: 'red' });
    assertProblem(response, 422, 'validation_failed', '/v1/products', [
      { field: 'name', code: 'too_short' },
      { field: 'price', code: 'too_small' },
      { field: 'colour', code: 'unknown_field' },
      { field: 'category', code: 'required' },
    ]);
    assert.equal(response.body.detail, '4 fields are invalid');
    const fields = errorCodes(response)
      .map((error) => error.field)
      .sort();
    assert.deepEqual(fields, ['category', 'colour', 'name', 'price']);
    for (const error of response.body.errors) {
      assert.equal(typeof error.message, 'string');
    }
  });
});

describe('error Content-Type is application/json, or application/problem+json when Accept names it', () => {
  let api: TestServer;
  // Every request here is refused or only reads: one server for all the tests.
  before(async () => {
    api = await startTestServer({ seed: true });
  });
  after(async () => {
    await api.close();
  });

  const cases: { accept: string | undefined; type: string }[] = [
    { accept: undefined, type: 'application/json' },
    { accept: '*/*', type: 'application/json' },
    { accept: 'application/json', type: 'application/json' },
    { accept: 'application/problem+json', type: 'application/problem+json' },
    { accept: 'application/json, application/problem+json', type: 'application/problem+json' },
    { accept: 'application/problem+json;q=0.5, application/json', type: 'application/problem+json' },
    { accept: 'application/problem+json;q=0, application/json', type: 'application/json' },
  ];
  for (const c of cases) {
    test(`Accept ${c.accept === undefined ? 'absent' : JSON.stringify(c.accept)} → error sent as ${c.type}`, async () => {
      const headers: Record<string, string> = c.accept === undefined ? {} : { accept: c.accept };
      const response = await rawRequest(api, { method: 'GET', path: '/v1/products/999', headers });
      assertProblem(response, 404, 'record_not_found', '/v1/products/999', undefined, { contentType: c.type });
      assert.equal(response.headers.get('content-type'), c.type);
    });
  }

  test('a success answer stays application/json even when Accept also names problem+json', async () => {
    const response = await api.get('/v1/products/1', { accept: 'application/json, application/problem+json' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
  });
});

describe('X-Request-Id: echoed when it matches [A-Za-z0-9._:-]{1,128}, else a fresh generated id', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer();
  });
  afterEach(async () => {
    await api.close();
  });

  const sane = ['abc', 'req-42', 'A.b_c:d-e', '0', 'x'.repeat(128), '123e4567-e89b-12d3-a456-426614174000'];
  for (const id of sane) {
    test(`sane id ${JSON.stringify(id.length > 20 ? `${id.slice(0, 8)}…(${id.length})` : id)} is echoed on a success and on an error`, async () => {
      const ok = await api.get('/healthz', { 'x-request-id': id });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('x-request-id'), id);
      const error = await api.get('/v1/products/1', { 'x-request-id': id });
      assertProblem(error, 404, 'record_not_found', '/v1/products/1');
      assert.equal(error.headers.get('x-request-id'), id);
      assert.equal(error.body.request_id, id);
    });
  }

  const insane: { name: string; id: string }[] = [
    { name: 'too long (129 chars)', id: 'x'.repeat(129) },
    { name: 'empty', id: '' },
    { name: 'a space', id: 'has space' },
    { name: 'a slash', id: 'a/b' },
    { name: 'a quote', id: 'a"b' },
    { name: 'markup', id: '<script>' },
    { name: 'a comma', id: 'a,b' },
    { name: 'a non-ASCII letter', id: 'caf\u00e9' },
  ];
  for (const c of insane) {
    test(`an id with ${c.name} is replaced by a generated id`, async () => {
      const ok = await api.get('/healthz', { 'x-request-id': c.id });
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get('x-request-id') ?? '', GENERATED_ID);
      const error = await api.get('/v1/products/1', { 'x-request-id': c.id });
      assertProblem(error, 404, 'record_not_found', '/v1/products/1');
      assert.match(error.headers.get('x-request-id') ?? '', GENERATED_ID);
      assert.equal(error.body.request_id, error.headers.get('x-request-id'));
    });
  }

  test('without a client id every response gets its own id, from one prefix and a rising counter', async () => {
    const first = await api.get('/healthz');
    const second = await api.get('/healthz');
    const created = await api.post('/v1/products', PRODUCT);
    const deleted = await api.delete(`/v1/products/${created.body.id}`);
    const ids = [first, second, created, deleted].map((response) => response.headers.get('x-request-id') ?? '');
    for (const id of ids) assert.match(id, GENERATED_ID);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set(ids.map((id) => id.split('-')[0])).size, 1);
    const counters = ids.map((id) => Number.parseInt(id.split('-')[1] ?? '', 36));
    assert.deepEqual(
      [...counters].sort((a, b) => a - b),
      counters,
    );
    assert.equal(deleted.status, 204);
  });
});

describe('Accept that excludes JSON → 406 not_acceptable; */*, application/*, absent are fine', () => {
  let api: TestServer;
  // Every request here is refused or only reads: one server for all the tests.
  before(async () => {
    api = await startTestServer({ seed: true });
  });
  after(async () => {
    await api.close();
  });

  const refused = [
    'text/html',
    'application/xml',
    'application/json;q=0',
    'text/html, application/xhtml+xml, application/xml;q=0.9',
    'image/*',
    'text/*',
  ];
  for (const accept of refused) {
    test(`Accept ${JSON.stringify(accept)} → 406 on GET, POST and DELETE, nothing changes`, async () => {
      const before = await visibleState(api);
      const get = await api.get('/v1/products/1', { accept });
      assertProblem(get, 406, 'not_acceptable', '/v1/products/1');
      assert.equal(get.headers.get('content-type'), 'application/json');
      const list = await api.get('/v1/products', { accept });
      assertProblem(list, 406, 'not_acceptable', '/v1/products');
      const post = await api.post('/v1/products', PRODUCT, { accept });
      assertProblem(post, 406, 'not_acceptable', '/v1/products');
      const del = await api.delete('/v1/products/1', { accept });
      assertProblem(del, 406, 'not_acceptable', '/v1/products/1');
      assert.deepEqual(await visibleState(api), before);
    });
  }

  const accepted: (string | undefined)[] = [
    undefined,
    '*/*',
    'application/*',
    'application/json',
    'application/json; charset=utf-8',
    'text/html, application/json;q=0.1',
    'text/html, */*;q=0.1',
    'APPLICATION/JSON',
  ];
  for (const accept of accepted) {
    test(`Accept ${accept === undefined ? 'absent' : JSON.stringify(accept)} → 200 application/json`, async () => {
      const headers: Record<string, string> = accept === undefined ? {} : { accept };
      const response = await rawRequest(api, { method: 'GET', path: '/v1/products/1', headers });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.equal(response.body.id, 1);
    });
  }
});

describe('request bodies of POST: 400, 415 and nothing created', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer();
  });
  afterEach(async () => {
    await api.close();
  });

  test('POST with no body (Content-Length: 0) → 400 body_required', async () => {
    const response = await api.request('POST', '/v1/products', { headers: { 'content-type': 'application/json' } });
    assertProblem(response, 400, 'body_required', '/v1/products');
    assert.equal(await productTotal(api), 0);
  });

  test('POST with neither Content-Length nor a body → 400 body_required', async () => {
    const response = await rawRequest(api, {
      method: 'POST',
      path: '/v1/products',
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(response, 400, 'body_required', '/v1/products');
    assert.equal(await productTotal(api), 0);
  });

  test('POST with no body and no Content-Type → 400 body_required', async () => {
    const response = await api.request('POST', '/v1/products');
    assertProblem(response, 400, 'body_required', '/v1/products');
    assert.equal(await productTotal(api), 0);
  });

  const malformed: { name: string; bytes: Buffer }[] = [
    { name: 'truncated JSON', bytes: Buffer.from('{"name":"Moka pot","category":"equipment","price":35') },
    { name: 'unquoted keys', bytes: Buffer.from('{name:"Moka pot"}') },
    { name: 'single quotes', bytes: Buffer.from("{'name':'Moka pot'}") },
    { name: 'trailing comma', bytes: Buffer.from('{"name":"Moka pot",}') },
    { name: 'two values', bytes: Buffer.from('{} {}') },
    { name: 'whitespace only', bytes: Buffer.from('   ') },
    {
      name: 'invalid UTF-8 byte 0xFF',
      bytes: Buffer.concat([
        Buffer.from('{"name":"Moka '),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('","category":"equipment","price":35.5}'),
      ]),
    },
    {
      name: 'overlong UTF-8 encoding (C0 AF)',
      bytes: Buffer.concat([
        Buffer.from('{"name":"Moka '),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from('","category":"equipment","price":35.5}'),
      ]),
    },
    {
      name: 'UTF-8-encoded surrogate (ED A0 80)',
      bytes: Buffer.concat([
        Buffer.from('{"name":"Moka '),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('","category":"equipment","price":35.5}'),
      ]),
    },
  ];
  for (const c of malformed) {
    test(`${c.name} → 400 malformed_json, nothing created`, async () => {
      const response = await fetch(`${api.url}/v1/products`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${api.token}` },
        body: c.bytes,
      });
      const text = await response.text();
      assertProblem(
        { status: response.status, headers: response.headers, body: JSON.parse(text), text },
        400,
        'malformed_json',
        '/v1/products',
      );
      assert.equal(await productTotal(api), 0);
    });
  }

  const notObjects = [
    '[]',
    '[{"name":"Moka pot","category":"equipment","price":35.5}]',
    '"Moka pot"',
    '42',
    'null',
    'true',
  ];
  for (const body of notObjects) {
    test(`JSON ${body.length > 12 ? `${body.slice(0, 12)}…` : body} is not an object → 400 body_not_object, nothing created`, async () => {
      const response = await api.post('/v1/products', body);
      assertProblem(response, 400, 'body_not_object', '/v1/products');
      assert.equal(await productTotal(api), 0);
    });
  }

  const unsupported: { name: string; contentType: string | undefined }[] = [
    { name: 'text/plain', contentType: 'text/plain' },
    { name: 'no Content-Type with a body', contentType: undefined },
    { name: 'charset=latin1', contentType: 'application/json; charset=latin1' },
    { name: 'charset=iso-8859-1', contentType: 'application/json; charset=iso-8859-1' },
    { name: 'charset=utf-16', contentType: 'application/json; charset=utf-16' },
    { name: 'application/merge-patch+json on POST', contentType: 'application/merge-patch+json' },
    { name: 'form encoding', contentType: 'application/x-www-form-urlencoded' },
    { name: 'text/json', contentType: 'text/json' },
    { name: 'application/xml', contentType: 'application/xml' },
  ];
  for (const c of unsupported) {
    test(`POST with ${c.name} → 415 unsupported_media_type, nothing created`, async () => {
      const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(JSON.stringify(PRODUCT)) };
      if (c.contentType !== undefined) headers['content-type'] = c.contentType;
      const response = await rawRequest(api, {
        method: 'POST',
        path: '/v1/products',
        headers,
        chunks: [JSON.stringify(PRODUCT)],
      });
      assertProblem(response, 415, 'unsupported_media_type', '/v1/products');
      assert.equal(await productTotal(api), 0);
    });
  }

  const supported = [
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset="UTF-8"',
    'Application/JSON',
  ];
  for (const contentType of supported) {
    test(`POST with Content-Type ${JSON.stringify(contentType)} → 201`, async () => {
      const response = await api.request('POST', '/v1/products', {
        body: PRODUCT,
        headers: { 'content-type': contentType },
      });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.headers.get('location'), `/v1/products/${response.body.id}`);
      assert.equal(await productTotal(api), 1);
    });
  }
});

describe('request bodies of PUT and PATCH: media types, Accept-Patch, records unchanged on refusal', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer({ seed: true });
  });
  afterEach(async () => {
    await api.close();
  });

  async function assertProductOneUnchanged(before: TestResponse): Promise<void> {
    const after = await api.get('/v1/products/1');
    assert.deepEqual(after.body, before.body);
    assert.equal(after.headers.get('etag'), before.headers.get('etag'));
  }

  const patchRefused: { name: string; contentType: string | undefined }[] = [
    { name: 'text/plain', contentType: 'text/plain' },
    { name: 'no Content-Type with a body', contentType: undefined },
    { name: 'merge-patch with charset=latin1', contentType: 'application/merge-patch+json; charset=latin1' },
    { name: 'application/json-patch+json', contentType: 'application/json-patch+json' },
  ];
  for (const c of patchRefused) {
    test(`PATCH with ${c.name} → 415 with Accept-Patch naming merge-patch+json and json`, async () => {
      const before = await api.get('/v1/products/1');
      const body = JSON.stringify({ name: 'Renamed' });
      const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(body) };
      if (c.contentType !== undefined) headers['content-type'] = c.contentType;
      const response = await rawRequest(api, { method: 'PATCH', path: '/v1/products/1', headers, chunks: [body] });
      assertProblem(response, 415, 'unsupported_media_type', '/v1/products/1');
      const acceptPatch = (response.headers.get('accept-patch') ?? '')
        .split(',')
        .map((type) => type.trim())
        .sort();
      assert.deepEqual(acceptPatch, ['application/json', 'application/merge-patch+json']);
      await assertProductOneUnchanged(before);
    });
  }

  const patchAccepted = [
    'application/merge-patch+json',
    'application/json',
    'application/merge-patch+json; charset=utf-8',
  ];
  for (const contentType of patchAccepted) {
    test(`PATCH with Content-Type ${JSON.stringify(contentType)} → 200, applied`, async () => {
      const response = await api.request('PATCH', '/v1/products/1', {
        body: { name: 'Renamed' },
        headers: { 'content-type': contentType },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.name, 'Renamed');
      assert.equal((await api.get('/v1/products/1')).body.name, 'Renamed');
    });
  }

  test('PUT with application/merge-patch+json → 415, no Accept-Patch needed, record unchanged', async () => {
    const before = await api.get('/v1/products/1');
    const response = await api.request('PUT', '/v1/products/1', {
      body: PRODUCT,
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assertProblem(response, 415, 'unsupported_media_type', '/v1/products/1');
    await assertProductOneUnchanged(before);
  });

  const badBodies: { name: string; method: string; body: string; code: string }[] = [
    { name: 'PUT with no body', method: 'PUT', body: '', code: 'body_required' },
    { name: 'PATCH with no body', method: 'PATCH', body: '', code: 'body_required' },
    { name: 'PUT with truncated JSON', method: 'PUT', body: '{"name":"x"', code: 'malformed_json' },
    { name: 'PATCH with truncated JSON', method: 'PATCH', body: '{"name":', code: 'malformed_json' },
    { name: 'PUT with an array', method: 'PUT', body: '[]', code: 'body_not_object' },
    { name: 'PATCH with null', method: 'PATCH', body: 'null', code: 'body_not_object' },
    { name: 'PATCH with a string', method: 'PATCH', body: '"x"', code: 'body_not_object' },
  ];
  for (const c of badBodies) {
    test(`${c.name} → 400 ${c.code}, record unchanged`, async () => {
      const before = await api.get('/v1/products/1');
      const contentType = c.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      const response = await api.request(c.method, '/v1/products/1', {
        headers: { 'content-type': contentType },
        ...(c.body === '' ? {} : { body: c.body }),
      });
      assertProblem(response, 400, c.code, '/v1/products/1');
      await assertProductOneUnchanged(before);
    });
  }
});

describe('413 payload_too_large past maxBodyBytes, announced or streamed, with Connection: close', () => {
  const LIMIT = 100;
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer({ maxBodyBytes: LIMIT, seed: true });
  });
  afterEach(async () => {
    await api.close();
  });

  /** A valid product body of exactly `size` bytes. */
  function productOfSize(size: number): string {
    const base = JSON.stringify({ name: '', category: 'tea', price: 1 });
    const text = JSON.stringify({ name: 'n'.repeat(size - Buffer.byteLength(base)), category: 'tea', price: 1 });
    assert.equal(Buffer.byteLength(text), size);
    return text;
  }

  test('a body of exactly maxBodyBytes is accepted', async () => {
    const response = await api.post('/v1/products', productOfSize(LIMIT));
    assert.equal(response.status, 201, response.text);
    assert.equal(await productTotal(api), 13);
  });

  test('Content-Length one byte over maxBodyBytes → 413, nothing created', async () => {
    const response = await api.post('/v1/products', productOfSize(LIMIT + 1));
    assertProblem(response, 413, 'payload_too_large', '/v1/products');
    assert.equal(response.headers.get('connection'), 'close');
    assert.equal(await productTotal(api), 12);
  });

  test('Content-Length far over maxBodyBytes on PUT → 413, record unchanged', async () => {
    const before = await api.get('/v1/products/1');
    const response = await api.put('/v1/products/1', { name: 'x'.repeat(5000), category: 'tea', price: 1 });
    assertProblem(response, 413, 'payload_too_large', '/v1/products/1');
    assert.equal(response.headers.get('connection'), 'close');
    assert.deepEqual((await api.get('/v1/products/1')).body, before.body);
  });

  test('a chunked body (no Content-Length) that grows past maxBodyBytes → 413, nothing created', async () => {
    const chunks = ['{"name":"', 'n'.repeat(60), 'n'.repeat(60), 'n'.repeat(60), '","category":"tea","price":1}'];
    const response = await rawRequest(api, {
      method: 'POST',
      path: '/v1/products',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks,
    });
    assertProblem(response, 413, 'payload_too_large', '/v1/products');
    assert.equal(response.headers.get('connection'), 'close');
    assert.equal(await productTotal(api), 12);
  });

  test('a chunked body under maxBodyBytes is read whole → 201', async () => {
    const response = await rawRequest(api, {
      method: 'POST',
      path: '/v1/products',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: ['{"name":"Chunked', ' tea","category":"tea",', '"price":2.5}'],
    });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(
      { name: response.body.name, category: response.body.category, price: response.body.price },
      { name: 'Chunked tea', category: 'tea', price: 2.5 },
    );
    assert.equal(await productTotal(api), 13);
  });

  test('the server keeps answering after a 413', async () => {
    assert.equal((await api.post('/v1/products', productOfSize(LIMIT * 10))).status, 413);
    const health = await api.get('/healthz');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
  });
});

describe('500 internal_error: says only that the server failed, and the server survives', () => {
  test('a write that cannot reach the disk → 500 with no stack, path or internal message; /healthz still 200', async () => {
    const temporary = await temporaryDirectory();
    const dataDir = join(temporary.path, 'data');
    const failedPath = join(dataDir, 'journal-000000000003.jsonl');
    /** A Store (the `store` option) whose writes fail once the disk is "full", with the message a real one would carry. */
    class FullDiskStore extends MemoryStore {
      full = false;
      override commit(changes: Parameters<MemoryStore['commit']>[0]): Promise<void> {
        if (!this.full) return super.commit(changes);
        return Promise.reject(new Error(`ENOSPC: no space left on device, write '${failedPath}'`));
      }
    }
    const store = new FullDiskStore(new Map());
    const logged: string[] = [];
    const logger = { info: () => {}, warn: () => {}, error: (message: string) => logged.push(message) };
    const api = await startTestServer({ store, logger });
    try {
      assert.equal((await api.post('/v1/products', PRODUCT)).status, 201);

      // The disk fills up: every write now fails.
      store.full = true;

      const response = await api.post(
        '/v1/products',
        { ...PRODUCT, name: 'Doomed' },
        { 'x-request-id': 'failing-write-1' },
      );
      assertProblem(response, 500, 'internal_error', '/v1/products');
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.equal(response.body.request_id, 'failing-write-1');
      for (const leak of [
        '/tmp',
        temporary.path,
        dataDir,
        failedPath,
        'journal-',
        '.jsonl',
        '.ts',
        '.js',
        'at ',
        'Error:',
        'ENOSPC',
        'no space',
        'ENOTDIR',
        'ENOENT',
        'EEXIST',
        'products.json',
        'node:',
      ]) {
        assert.ok(!response.text.includes(leak), `500 body leaks ${JSON.stringify(leak)}: ${response.text}`);
      }
      // The cause goes to the log, under the request id the client was given.
      assert.ok(
        logged.some((line) => line.includes('failing-write-1') && line.includes('ENOSPC')),
        `no log line names the request id and the cause: ${JSON.stringify(logged)}`,
      );

      const health = await api.get('/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      const missing = await api.get('/v1/products/999');
      assertProblem(missing, 404, 'record_not_found', '/v1/products/999');
      // The disk has room again: writes succeed again.
      store.full = false;
      assert.equal((await api.post('/v1/products', { ...PRODUCT, name: 'Recovered' })).status, 201);
    } finally {
      await api.close();
      await temporary.remove();
    }
  });
});

describe('order of checks (README: Errors): when two checks fail, the earlier one answers', () => {
  let api: TestServer;
  // Every request here is refused or only reads: one server for all the tests.
  before(async () => {
    api = await startTestServer({ seed: true, maxBodyBytes: 200 });
  });
  after(async () => {
    await api.close();
  });

  const big = JSON.stringify({ ...PRODUCT, description: 'x'.repeat(300) });
  const textPlain = { 'content-type': 'text/plain' };
  const cases: {
    name: string;
    method: string;
    path: string;
    body?: unknown;
    headers?: Record<string, string>;
    status: number;
    code: string;
    /** Expected errors[] (field/code) for 400/422. */
    errors?: FieldErrorExpectation[];
  }[] = [
    {
      name: 'unknown path before method: DELETE /v1/nothing → 404',
      method: 'DELETE',
      path: '/v1/nothing',
      status: 404,
      code: 'route_not_found',
    },
    {
      name: 'bad id before method: POST /v1/products/abc → 404',
      method: 'POST',
      path: '/v1/products/abc',
      body: PRODUCT,
      status: 404,
      code: 'route_not_found',
    },
    {
      name: 'unversioned path before method: PUT /users → 404',
      method: 'PUT',
      path: '/users',
      body: {},
      status: 404,
      code: 'unversioned_path',
    },
    {
      name: 'method before Accept: DELETE /v1/products with Accept text/html → 405',
      method: 'DELETE',
      path: '/v1/products',
      headers: { accept: 'text/html' },
      status: 405,
      code: 'method_not_allowed',
    },
    {
      name: 'method before query: DELETE /v1/products?x=1 → 405',
      method: 'DELETE',
      path: '/v1/products?x=1',
      status: 405,
      code: 'method_not_allowed',
    },
    {
      name: 'Accept before query: GET /v1/products?nope=1 with Accept text/html → 406',
      method: 'GET',
      path: '/v1/products?nope=1',
      headers: { accept: 'text/html' },
      status: 406,
      code: 'not_acceptable',
    },
    {
      name: 'Accept before missing record: GET /v1/products/999 with Accept application/xml → 406',
      method: 'GET',
      path: '/v1/products/999',
      headers: { accept: 'application/xml' },
      status: 406,
      code: 'not_acceptable',
    },
    {
      name: 'Accept before body: POST text/plain with Accept text/html → 406',
      method: 'POST',
      path: '/v1/products',
      body: '{',
      headers: { accept: 'text/html', ...textPlain },
      status: 406,
      code: 'not_acceptable',
    },
    {
      name: 'query before missing record: GET /v1/products/999?x=1 → 400',
      method: 'GET',
      path: '/v1/products/999?x=1',
      status: 400,
      code: 'invalid_query',
      errors: [{ field: 'x', code: 'unknown_parameter' }],
    },
    {
      name: 'query before missing parent: GET /v1/users/99/orders?limit=0 → 400',
      method: 'GET',
      path: '/v1/users/99/orders?limit=0',
      status: 400,
      code: 'invalid_query',
      errors: [{ field: 'limit', code: 'invalid_value' }],
    },
    {
      name: 'query before media type: POST /v1/products?x=1 with text/plain → 400',
      method: 'POST',
      path: '/v1/products?x=1',
      body: '{}',
      headers: textPlain,
      status: 400,
      code: 'invalid_query',
      errors: [{ field: 'x', code: 'unknown_parameter' }],
    },
    {
      name: 'missing record before body size: PUT /v1/products/999 with an oversized body → 404',
      method: 'PUT',
      path: '/v1/products/999',
      body: big,
      status: 404,
      code: 'record_not_found',
    },
    {
      name: 'missing record before media type: PUT /v1/products/999 with text/plain → 404',
      method: 'PUT',
      path: '/v1/products/999',
      body: JSON.stringify(PRODUCT),
      headers: textPlain,
      status: 404,
      code: 'record_not_found',
    },
    {
      name: 'missing record before malformed body: PATCH /v1/produtos/999 with "{" → 404',
      method: 'PATCH',
      path: '/v1/produtos/999',
      body: '{',
      status: 404,
      code: 'record_not_found',
    },
    {
      name: 'missing parent before media type: POST /v1/users/99/orders with text/plain → 404',
      method: 'POST',
      path: '/v1/users/99/orders',
      body: '{}',
      headers: textPlain,
      status: 404,
      code: 'record_not_found',
    },
    {
      name: 'order under another user is missing before If-Match: DELETE /v1/users/1/orders/4 → 404',
      method: 'DELETE',
      path: '/v1/users/1/orders/4',
      headers: { 'if-match': '"nope"' },
      status: 404,
      code: 'record_not_found',
    },
    {
      name: 'body size before media type: oversized text/plain POST → 413',
      method: 'POST',
      path: '/v1/products',
      body: big,
      headers: textPlain,
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'media type before malformed body: POST "{" as text/plain → 415',
      method: 'POST',
      path: '/v1/products',
      body: '{',
      headers: textPlain,
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'media type before validation: POST {} as text/plain → 415',
      method: 'POST',
      path: '/v1/products',
      body: '{}',
      headers: textPlain,
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'malformed body before If-Match: PUT "{" with a stale If-Match → 400',
      method: 'PUT',
      path: '/v1/products/1',
      body: '{',
      headers: { 'if-match': '"stale"' },
      status: 400,
      code: 'malformed_json',
    },
    {
      name: 'If-Match before validation: PUT an invalid body with a stale If-Match → 412',
      method: 'PUT',
      path: '/v1/products/1',
      body: { name: '' },
      headers: { 'if-match': '"stale"' },
      status: 412,
      code: 'precondition_failed',
    },
    {
      name: "If-Match before conflict: PATCH another user's email with a stale If-Match → 412",
      method: 'PATCH',
      path: '/v1/users/2',
      body: { email: 'alice@example.com' },
      headers: { 'if-match': '"stale"' },
      status: 412,
      code: 'precondition_failed',
    },
    {
      name: 'validation before conflict: POST a user with an empty name and a taken email → 422',
      method: 'POST',
      path: '/v1/users',
      body: { name: '', email: 'ALICE@example.com' },
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'name', code: 'too_short' }],
    },
    {
      name: 'validation before conflict: PATCH a taken email plus an unknown field → 422',
      method: 'PATCH',
      path: '/v1/users/2',
      body: { email: 'alice@example.com', nickname: 'bob' },
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'nickname', code: 'unknown_field' }],
    },
    {
      name: 'validation before conflict: PATCH an order to pending→shipped with an unknown field → 422',
      method: 'PATCH',
      path: '/v1/users/1/orders/3',
      body: { status: 'shipped', note: 'rush' },
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'note', code: 'unknown_field' }],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const before = await visibleState(api);
      const response = await api.request(c.method, c.path, {
        ...(c.body === undefined ? {} : { body: c.body }),
        ...(c.headers === undefined ? {} : { headers: c.headers }),
      });
      const instance = c.path.split('?')[0] as string;
      assertProblem(response, c.status, c.code, instance, c.errors);
      if (c.errors !== undefined) assert.deepEqual(errorCodes(response), c.errors);
      assert.deepEqual(await visibleState(api), before, 'a refused request changed state');
    });
  }
});
