// The OpenAPI document (/v1/openapi.json): served without a token, generated from the
// same route table the router uses — every route is documented with every method it
// answers (HEAD and OPTIONS too) and every documented operation is served — and real
// answers match it: their bodies validate against the documented schemas, the headers
// the server sends are documented (and the required ones are sent), 429 is documented
// wherever the server can refuse with it. Every operation is tagged, described and
// named in camelCase; every body and every parameter has an example, and the requests
// a generated collection makes with them, in its order, succeed on a fresh server.
// Prices are documented so that a standard validator (Ajv, as Prism uses it) accepts
// every price the server accepts.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MAX_URL_LENGTH } from '../src/http/request-target.ts';
import { ERROR_STATUS } from '../src/errors/errors.ts';
import { MAX_TARGET_LENGTH } from '../src/openapi/problem-schema.ts';
import { withArticle } from '../src/resources/names.ts';
import { parseId } from '../src/routing/router.ts';
import { routeTable } from '../src/routing/route-table.ts';
import { EXAMPLE } from './example-definitions.ts';
import { validateJson } from './json-schema.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import { createUserClient, startTestServer } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

type Json = Record<string, any>;

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

let api: TestServer;
let doc: Json;
before(async () => {
  api = await startTestServer({ seed: true });
  doc = (await api.as(undefined).get('/v1/openapi.json')).body;
});
after(() => api.close());

/** Every operation of the document: its path template, method and object. */
function operations(): { path: string; method: string; operation: Json }[] {
  return Object.entries(doc['paths'] as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );
}

/** Follows a local `$ref` (`#/components/…`). */
function resolved(node: Json): Json {
  if (typeof node['$ref'] !== 'string') return node;
  return (node['$ref'] as string)
    .slice(2)
    .split('/')
    .reduce((found: Json, part) => found[part], doc);
}

/** The documented path template a concrete path falls under. */
function templateOf(path: string): string {
  const segments = path.split('/');
  const match = Object.keys(doc['paths']).find((template) => {
    const parts = template.split('/');
    return (
      parts.length === segments.length &&
      parts.every(
        (part, i) => part === segments[i] || (part.startsWith('{') && parseId(segments[i] ?? '') !== undefined),
      )
    );
  });
  assert.ok(match, `no documented path for ${path}`);
  return match;
}

/** Headers whose presence the document must account for when the server sends them. */
const CHECKED_HEADERS = [
  'etag',
  'location',
  'link',
  'retry-after',
  'www-authenticate',
  'idempotent-replayed',
  'allow',
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'vary',
  'cache-control',
  'accept-patch',
  'access-control-allow-origin',
];

/** The value of a header against its schema: integers are sent as digits. */
function headerProblems(schema: Json, value: string): string[] {
  if (schema['type'] !== 'integer') return validateJson(doc, schema, value);
  return /^[0-9]+$/.test(value) ? validateJson(doc, schema, Number(value)) : [`${value} is not an integer`];
}

/** Checks an answer against what the document gives for its operation and status: body schema, headers sent and required. */
function assertDocumented(method: string, path: string, response: TestResponse): void {
  const operation = doc['paths'][templateOf(path.split('?')[0] as string)][method.toLowerCase()];
  assert.ok(operation, `${method} ${path} is not documented`);
  const answer = operation.responses[String(response.status)];
  assert.ok(answer, `${method} ${path}: status ${response.status} is not documented`);
  const documented = resolved(answer);
  const headers = Object.fromEntries(
    Object.entries((documented['headers'] ?? {}) as Json).map(([name, header]) => [
      name.toLowerCase(),
      resolved(header as Json),
    ]),
  );
  const where = `${method} ${path} ${response.status}`;
  for (const name of CHECKED_HEADERS) {
    const value = response.headers.get(name);
    if (value === null) {
      assert.notEqual(headers[name]?.['required'], true, `${where}: the required header ${name} was not sent`);
      continue;
    }
    assert.ok(headers[name], `${where}: the server sent ${name}, which is not documented`);
    assert.deepEqual(headerProblems(headers[name]['schema'], value), [], `${where}: ${name}: ${value}`);
  }
  if (response.text === '') return;
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0] as string;
  const schema = documented['content']?.[contentType]?.schema;
  assert.ok(schema, `${where}: no schema documented for ${contentType}`);
  if (contentType !== 'text/html') assert.deepEqual(validateJson(doc, schema, response.body), [], where);
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

  test('documents every route the router serves with exactly the methods of its Allow (HEAD and OPTIONS included), and nothing else', async () => {
    const routes = routeTable(EXAMPLE);
    const documented = Object.keys(doc['paths']).sort();
    assert.deepEqual(documented, routes.map((route) => route.pattern.replace(/:([a-z_]+)/g, '{$1}')).sort());
    for (const template of documented) {
      const path = template.replace(/\{[a-z_]+\}/g, '1');
      const allow = (await api.request('OPTIONS', path)).headers.get('allow') ?? '';
      const methods = Object.keys(doc['paths'][template]).filter((key) => key !== 'parameters');
      assert.equal(methods.map((method) => method.toUpperCase()).join(', '), allow, template);
    }
  });

  test('marks exactly the open operations as needing no token: the service reads, the login, and every OPTIONS', () => {
    const open = operations()
      .filter(({ operation }) => Array.isArray(operation['security']) && operation['security'].length === 0)
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    const reads = ['/', '/healthz', '/readyz', '/v1', '/v1/openapi.json'].flatMap((path) => [
      `GET ${path}`,
      `HEAD ${path}`,
    ]);
    const options = Object.keys(doc['paths']).map((path) => `OPTIONS ${path}`);
    assert.deepEqual(open.sort(), [...reads, 'POST /v1/tokens', ...options].sort());
  });

  test('has contact, an MIT license, and a description for each of its tags', () => {
    assert.equal(typeof doc['info']['contact']?.['name'], 'string');
    assert.deepEqual(doc['info']['license'], { name: 'MIT', identifier: 'MIT' });
    const tags = doc['tags'] as Json[];
    assert.deepEqual(
      tags.map((tag) => tag['name']),
      [
        'service',
        'health',
        'tokens',
        'batches',
        'events',
        'users',
        'products',
        'orders',
        'keys',
        'webhooks',
        'deliveries',
        'usuarios',
        'produtos',
        'pedidos',
        'chaves',
      ],
    );
    for (const tag of tags)
      assert.ok(typeof tag['description'] === 'string' && tag['description'].length > 10, tag['name']);
  });

  test('every operation has one declared tag, a summary, a description and a unique camelCase operationId', () => {
    const declared = new Set((doc['tags'] as Json[]).map((tag) => tag['name']));
    const ids = new Set<string>();
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.equal(operation['tags']?.length, 1, where);
      assert.ok(declared.has(operation['tags'][0]), `${where}: tag ${operation['tags'][0]}`);
      assert.ok(typeof operation['summary'] === 'string' && operation['summary'] !== '', where);
      assert.ok(typeof operation['description'] === 'string' && operation['description'].length > 20, where);
      assert.match(operation['operationId'], /^[a-z]+(?:[A-Z][a-z]*)*$/, where);
      assert.ok(!ids.has(operation['operationId']), `${where}: ${operation['operationId']} is used twice`);
      ids.add(operation['operationId']);
    }
  });

  test('operationIds read as what they do, in either vocabulary', () => {
    const idsOf = (path: string): string[] =>
      Object.entries(doc['paths'][path])
        .filter(([key]) => key !== 'parameters')
        .map(([, operation]) => (operation as Json)['operationId']);
    assert.deepEqual(idsOf('/v1/users/{user_id}/orders'), [
      'listUserOrders',
      'headUserOrders',
      'createUserOrder',
      'optionsUserOrders',
    ]);
    assert.deepEqual(idsOf('/v1/usuarios/{user_id}/pedidos/{order_id}'), [
      'readUserOrderPt',
      'headUserOrderPt',
      'replaceUserOrderPt',
      'patchUserOrderPt',
      'deleteUserOrderPt',
      'optionsUserOrderPt',
    ]);
    assert.deepEqual(idsOf('/v1/products'), ['listProducts', 'headProducts', 'createProduct', 'optionsProducts']);
    assert.deepEqual(idsOf('/v1/tokens'), ['createToken', 'optionsTokens']);
    assert.deepEqual(idsOf('/healthz'), ['getHealth', 'headHealth', 'optionsHealth']);
    assert.deepEqual(idsOf('/v1/eventos'), ['getEventsPt', 'headEventsPt', 'optionsEventsPt']);
  });

  test('summaries take the article their noun needs', () => {
    assert.equal(doc['paths']['/v1/users/{user_id}/orders']['post']['summary'], 'Create an order');
    assert.equal(doc['paths']['/v1/users']['post']['summary'], 'Create a user');
    assert.equal(doc['paths']['/v1/products/{product_id}']['delete']['summary'], 'Delete a product');
    assert.deepEqual(['order', 'user', 'item', 'unit', 'umbrella', 'hour'].map(withArticle), [
      'an order',
      'a user',
      'an item',
      'a unit',
      'an umbrella',
      'a hour',
    ]);
  });

  test('operations list only the statuses they can answer (a product read cannot be refused, a product create cannot conflict)', () => {
    const statuses = (path: string, method: string): string[] => Object.keys(doc['paths'][path][method].responses);
    assert.ok(!statuses('/v1/products/{product_id}', 'get').includes('403'));
    assert.ok(!statuses('/v1/products', 'post').includes('409'));
    assert.ok(statuses('/v1/users', 'post').includes('409'));
    assert.ok(statuses('/v1/users/{user_id}/orders/{order_id}', 'patch').includes('409'));
    assert.ok(!statuses('/v1/products', 'get').includes('404'));
    assert.ok(statuses('/v1/users/{user_id}/orders', 'get').includes('404'));
    assert.deepEqual(statuses('/', 'get'), ['200', '304', '400', '406', '429', 'default']);
    assert.deepEqual(statuses('/v1/products', 'options'), ['204', '400', 'default']);
  });

  test("a problem's instance is bounded by the longest request target the server reads", () => {
    assert.equal(MAX_TARGET_LENGTH, MAX_URL_LENGTH);
    assert.deepEqual(doc['components']['schemas']['Problem']['properties']['code']['enum'], Object.keys(ERROR_STATUS));
  });
});

describe('openapi: real answers match the document (bodies and headers)', () => {
  test('reads, lists, creates, changes and deletes in both vocabularies, with HEAD, OPTIONS and conditional requests', async () => {
    const exchanges: [string, string, unknown?, Record<string, string>?][] = [
      ['GET', '/v1'],
      ['GET', '/v1', undefined, { accept: 'text/html' }],
      ['GET', '/', undefined, { accept: 'text/html' }],
      ['HEAD', '/v1/openapi.json'],
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['OPTIONS', '/v1/users/1/orders'],
      ['OPTIONS', '/healthz'],
      ['GET', '/v1/users'],
      ['HEAD', '/v1/users'],
      ['GET', '/v1/users/1'],
      ['HEAD', '/v1/users/1'],
      ['GET', '/v1/usuarios/1'],
      ['GET', '/v1/products?category=tea&sort=-price&limit=2'],
      ['GET', '/v1/produtos?categoria=tea&ordenar=-preco'],
      ['GET', '/v1/products/1'],
      ['GET', '/v1/users/1/orders'],
      ['GET', '/v1/usuarios/1/pedidos/1'],
      [
        'POST',
        '/v1/products',
        { name: 'Documented', category: 'docs', price: 3.5, description: 'checked' },
        { 'idempotency-key': 'documented-1' },
      ],
      [
        'POST',
        '/v1/products',
        { name: 'Documented', category: 'docs', price: 3.5, description: 'checked' },
        { 'idempotency-key': 'documented-1' },
      ],
      ['POST', '/v1/products', { name: 'Other', category: 'docs', price: 3.5 }, { 'idempotency-key': 'documented-1' }],
      ['POST', '/v1/produtos', { nome: 'Documentado', categoria: 'docs', preco: 2 }],
      ['POST', '/v1/users', { name: 'Doc', email: 'doc@example.com', password: 'doc-password' }],
      ['POST', '/v1/users', { name: 'Doc Again', email: 'DOC@example.com' }],
      ['POST', '/v1/usuarios', { nome: 'Doc Pt', email: 'doc-pt@example.com' }],
      ['POST', '/v1/users/1/orders', { items: [{ product_id: 2, quantity: 3 }] }],
      ['POST', '/v1/usuarios/2/pedidos', { itens: [{ produto_id: 3, quantidade: 1 }] }],
      ['PUT', '/v1/products/1', { name: 'Espresso', category: 'coffee', price: 25 }],
      ['PUT', '/v1/products/1', { name: 'Espresso', category: 'coffee', price: 25 }, { 'if-match': '"stale"' }],
      ['PATCH', '/v1/produtos/2', { descricao: 'moído' }],
      ['PATCH', '/v1/produtos/2', '{}', { 'content-type': 'text/plain' }],
      ['PATCH', '/v1/users/1/orders/3', { status: 'paid' }],
      ['DELETE', '/v1/products/12'],
      ['GET', '/v1/products/999'],
      ['HEAD', '/v1/products/999'],
      ['GET', '/v1/products?bogus=1'],
      ['POST', '/v1/products', '{"name":', { 'content-type': 'application/json' }],
      ['POST', '/v1/products', { name: '' }],
      ['PATCH', '/v1/users/1/orders/1', { status: 'pending' }],
      ['GET', '/v1/products', undefined, { accept: 'text/plain' }],
      ['GET', '/v1/products/1', undefined, { accept: 'application/problem+json, application/json' }],
    ];
    for (const [method, path, body, headers] of exchanges) {
      const response = await api.request(method, path, { body, headers });
      assert.ok(response.status < 500, `${method} ${path} → ${response.status}`);
      assertDocumented(method, path, response);
    }
    const item = await api.get('/v1/products/1');
    assertDocumented(
      'GET',
      '/v1/products/1',
      await api.get('/v1/products/1', { 'if-none-match': item.headers.get('etag') ?? '' }),
    );
    const list = await api.get('/v1/products');
    assertDocumented(
      'GET',
      '/v1/products',
      await api.get('/v1/products', { 'if-none-match': list.headers.get('etag') ?? '' }),
    );
    for (const path of ['/', '/v1']) {
      const page = await api.get(path, { accept: 'text/html' });
      assertDocumented(
        'GET',
        path,
        await api.get(path, { accept: 'text/html', 'if-none-match': page.headers.get('etag') ?? '' }),
      );
    }
  });

  test('token, 401 (with its WWW-Authenticate) and 403 answers match too', async () => {
    const { id, client } = await createUserClient(api, { password: 'schema-password' });
    const email = (await api.get(`/v1/users/${id}`)).body.email;
    assertDocumented(
      'POST',
      '/v1/tokens',
      await api.as(undefined).post('/v1/tokens', { email, password: 'schema-password' }),
    );
    assertDocumented(
      'POST',
      '/v1/tokens',
      await api.as(undefined).post('/v1/tokens', { email, password: 'wrong-password' }),
    );
    assertDocumented('GET', '/v1/products', await api.as(undefined).get('/v1/products'));
    assertDocumented('GET', '/v1/products', await api.as('not-a-token').get('/v1/products'));
    assertDocumented('GET', '/v1/users', await client.get('/v1/users'));
  });

  test('429, with Retry-After and the RateLimit fields, is documented on every operation the limit applies to, and only there', async () => {
    const limited = await startTestServer({ seed: true, rateLimit: 1 });
    try {
      await limited.get('/v1/products'); // the administrator's one request this minute
      await limited.as(undefined).get('/healthz'); // the address's one request
      for (const { path, method, operation } of operations()) {
        const concrete = path.replace(/\{[a-z_]+\}/g, '1');
        const caller =
          Array.isArray(operation['security']) && operation['security'].length === 0 ? limited.as(undefined) : limited;
        const response = await caller.request(method.toUpperCase(), concrete, {
          headers: { accept: path === '/' ? 'text/html' : 'application/json' },
        });
        const where = `${method.toUpperCase()} ${path}`;
        if (method === 'options') {
          assert.equal(response.status, 204, where);
          assert.equal(operation['responses']['429'], undefined, `${where} documents a 429 it never answers`);
        } else {
          assert.equal(response.status, 429, where);
          const answer = resolved(operation['responses']['429']);
          assert.ok(answer['headers']['Retry-After'], where);
          if (method !== 'head') assert.ok(answer['content']['application/json'], where);
        }
        assertDocumented(method.toUpperCase(), concrete, response);
      }
    } finally {
      await limited.close();
    }
  });
});

/** Reads a text/event-stream answer until `done` holds for what has arrived; returns it. */
async function readStream(response: Response, done: (text: string) => boolean): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!done(text)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

/** The data of each `event: <type>` block of a stream's text. */
function streamData(text: string, type: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.split('\n').includes(`event: ${type}`))
    .map((block) =>
      JSON.parse((block.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice('data: '.length)),
    );
}

describe('openapi: the change feed', () => {
  const FEEDS = [
    {
      path: '/v1/events',
      language: 'en',
      names: ['collection', 'type', 'after', 'page', 'limit'],
      collection: 'products',
      suffix: '',
    },
    {
      path: '/v1/eventos',
      language: 'pt',
      names: ['colecao', 'tipo', 'apos', 'pagina', 'limite'],
      collection: 'produtos',
      suffix: '_pt',
    },
  ] as const;

  test("GET /v1/events and /v1/eventos: parameters in the path's vocabulary, If-None-Match and Last-Event-ID, a bearer token, the events tag", () => {
    for (const feed of FEEDS) {
      const get = doc['paths'][feed.path]['get'];
      const parameters = get['parameters'] as Json[];
      assert.deepEqual(
        parameters.map((parameter) => `${parameter['in']} ${parameter['name']}`),
        [...feed.names.map((name) => `query ${name}`), 'header If-None-Match', 'header Last-Event-ID'],
        feed.path,
      );
      const byName = (name: string): Json => parameters.find((parameter) => parameter['name'] === name) as Json;
      assert.deepEqual(byName(feed.names[1])['schema']['enum'], ['created', 'updated', 'deleted']);
      assert.ok(byName(feed.names[0])['schema']['enum'].includes(feed.collection), feed.path);
      assert.deepEqual(byName(feed.names[2])['schema'], {
        type: 'integer',
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
      });
      assert.match(byName('Last-Event-ID')['description'], /stream/);
      assert.deepEqual(get['security'], [{ bearer: [] }]);
      assert.deepEqual(get['tags'], ['events']);
      assert.deepEqual(doc['paths'][feed.path]['head']['parameters'], parameters, 'HEAD takes the same parameters');
    }
    assert.equal(
      (doc['tags'] as Json[]).find((tag) => tag['name'] === 'events')?.['description'].includes('Server-Sent Events'),
      true,
    );
  });

  test('its 200 is a list (application/json) or a stream (text/event-stream); 304, 410 history_gone and 429 too_many_streams (with Retry-After) are described', () => {
    for (const feed of FEEDS) {
      const responses = doc['paths'][feed.path]['get']['responses'] as Json;
      assert.deepEqual(
        Object.keys(responses),
        ['200', '304', '400', '401', '406', '410', '429', '503', 'default'],
        feed.path,
      );
      const content = responses['200']['content'];
      assert.deepEqual(Object.keys(content), ['application/json', 'text/event-stream']);
      assert.deepEqual(content['application/json']['schema'], {
        $ref: `#/components/schemas/ChangeEventList${feed.suffix}`,
      });
      // The stream's body is a component of its own, so a typed client names each body by its media type.
      assert.deepEqual(content['text/event-stream']['schema'], { $ref: '#/components/schemas/ChangeEventStream' });
      const stream = doc['components']['schemas']['ChangeEventStream'];
      assert.equal(stream['type'], 'string');
      assert.match(stream['description'], /`reset` \(data \{reason: "history_gone", detail, latest\}\).*`closed`/);
      const wire = content['text/event-stream']['example'] as string;
      assert.match(
        wire,
        /^retry: 1000\n\nid: 14\nevent: created\ndata: \{.*\}\n\n: keep-alive\n\nid: 15\nevent: deleted\ndata: \{.*\}\n\n$/,
      );
      for (const data of streamData(wire, 'created').concat(streamData(wire, 'deleted'))) {
        assert.deepEqual(
          validateJson(doc, { $ref: `#/components/schemas/ChangeEvent${feed.suffix}` }, data),
          [],
          `${feed.path}: the stream's example event`,
        );
      }
      assert.deepEqual(Object.keys(resolved(responses['304'])['headers']).includes('ETag'), true);
      const gone = resolved(responses['410']);
      assert.equal(gone['content']['application/json']['example']['code'], 'history_gone');
      const tooMany = resolved(responses['429']);
      assert.equal(tooMany['content']['application/json']['example']['code'], 'too_many_streams');
      assert.match(tooMany['description'], /rate_limited.*too_many_streams/);
      assert.ok(tooMany['headers']['Retry-After'], 'Retry-After on 429');
      assert.ok(resolved(responses['200'])['headers']['Cache-Control'], "the stream's Cache-Control");
    }
    const event = doc['components']['schemas']['ChangeEvent'];
    assert.deepEqual(event['required'], ['id', 'type', 'collection', 'record_id', 'path', 'at']);
    assert.deepEqual(event['properties']['type']['enum'], ['created', 'updated', 'deleted']);
    assert.deepEqual(
      new Set(event['properties']['record']['anyOf'].map((ref: Json) => ref['$ref'])),
      new Set(['User', 'Product', 'Order', 'Key'].map((name) => `#/components/schemas/${name}`)),
    );
    assert.deepEqual(
      new Set(
        doc['components']['schemas']['ChangeEvent_pt']['properties']['record']['anyOf'].map((ref: Json) => ref['$ref']),
      ),
      new Set(['User_pt', 'Product_pt', 'Order_pt', 'Key_pt'].map((name) => `#/components/schemas/${name}`)),
    );
    assert.deepEqual([...doc['components']['schemas']['ChangeEvent_pt']['properties']['collection']['enum']].sort(), [
      'chaves',
      'pedidos',
      'produtos',
      'usuarios',
    ]);
  });

  test("real answers match: a page in each vocabulary, its 304, a 400, a 410, a stream (its headers and events) and a second stream's 429 too_many_streams", async () => {
    const feedServer = await startTestServer({ seed: true, events: { maxStreamsPerUser: 1 } });
    const one = feedServer.pinned();
    const stream = new AbortController();
    try {
      const opened = await fetch(`${one.url}/v1/events?collection=products`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${one.token as string}` },
        signal: stream.signal,
      });
      assert.equal(opened.status, 200);
      assert.equal(opened.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assertDocumented('GET', '/v1/events', {
        status: opened.status,
        headers: opened.headers,
        body: undefined,
        text: '',
      });
      assert.equal((await one.post('/v1/products', { name: 'Fed', category: 'feed', price: 1 })).status, 201);
      const text = await readStream(opened, (arrived) => arrived.includes('event: created'));
      const [created] = streamData(text, 'created') as Json[];
      assert.equal(created?.['record']?.['name'], 'Fed');
      assert.deepEqual(validateJson(doc, { $ref: '#/components/schemas/ChangeEvent' }, created), []);

      const second = await one.get('/v1/events', { accept: 'text/event-stream' });
      assert.equal(second.status, 429);
      assert.equal(second.body.code, 'too_many_streams');
      assertDocumented('GET', '/v1/events', second);

      const exchanges: [string, Record<string, string>?][] = [
        ['/v1/events'],
        ['/v1/events?collection=products&type=created&after=0&limit=1'],
        ['/v1/eventos?colecao=produtos&tipo=created'],
        ['/v1/events?type=renamed'],
        ['/v1/events', { accept: 'text/event-stream', 'last-event-id': 'x' }],
        ['/v1/events?after=999999999'],
        ['/v1/eventos?apos=999999999'],
        ['/v1/events', { accept: 'text/plain' }],
      ];
      for (const [path, headers] of exchanges) assertDocumented('GET', path, await one.get(path, headers));
      const page = await one.get('/v1/eventos');
      assert.equal(page.body.data.at(-1).collection, 'produtos');
      assert.equal(page.body.data.at(-1).record.nome, 'Fed');
      const unchanged = await one.get('/v1/eventos', { 'if-none-match': page.headers.get('etag') ?? '' });
      assert.equal(unchanged.status, 304);
      assertDocumented('GET', '/v1/eventos', unchanged);
      assert.equal((await one.get('/v1/events?after=999999999')).body.code, 'history_gone');
    } finally {
      stream.abort();
      await feedServer.close();
    }
  });
});

/** The order in which a collection generated from the document (openapi-to-postmanv2, a folder per path segment) makes its requests: a folder's own requests first, then its folders, in document order. */
function collectionOrder(): { path: string; method: string; operation: Json }[] {
  interface Folder {
    readonly requests: { path: string; method: string; operation: Json }[];
    readonly folders: Map<string, Folder>;
  }
  const root: Folder = { requests: [], folders: new Map() };
  for (const entry of operations()) {
    let folder = root;
    for (const segment of entry.path.split('/').filter((part) => part !== '')) {
      const next = folder.folders.get(segment) ?? { requests: [], folders: new Map() };
      folder.folders.set(segment, next);
      folder = next;
    }
    folder.requests.push(entry);
  }
  const order: { path: string; method: string; operation: Json }[] = [];
  // A folder's DELETE runs after the folders under it: their requests are made under the record it deletes (a
  // webhook's deliveries under the webhook the collection made, where the users' orders are under a seeded user).
  const visit = (folder: Folder): void => {
    order.push(...folder.requests.filter(({ method }) => method !== 'delete'));
    for (const child of folder.folders.values()) visit(child);
    order.push(...folder.requests.filter(({ method }) => method === 'delete'));
  };
  visit(root);
  return order;
}

describe('openapi: examples', () => {
  test('every request body and every answer with a body has an example in each media type, valid against its schema', () => {
    let checked = 0;
    const check = (where: string, content: Json | undefined): void => {
      for (const [mediaType, media] of Object.entries(content ?? {})) {
        assert.notEqual((media as Json)['example'], undefined, `${where} ${mediaType}: no example`);
        if (mediaType !== 'text/html')
          assert.deepEqual(
            validateJson(doc, (media as Json)['schema'], (media as Json)['example']),
            [],
            `${where} ${mediaType}`,
          );
        checked += 1;
      }
    };
    for (const { path, method, operation } of operations()) {
      check(`${method} ${path} request`, operation['requestBody']?.['content']);
      for (const [status, answer] of Object.entries(operation['responses'] as Json))
        check(`${method} ${path} ${status}`, resolved(answer as Json)['content']);
    }
    assert.ok(checked > 400, `${checked} media types checked`);
  });

  test('every parameter has an example, valid against its schema', () => {
    for (const { path, method, operation } of operations()) {
      for (const parameter of [
        ...(doc['paths'][path]['parameters'] ?? []),
        ...(operation['parameters'] ?? []),
      ] as Json[]) {
        const where = `${method} ${path} ${parameter['name']}`;
        assert.notEqual(parameter['example'], undefined, where);
        assert.deepEqual(validateJson(doc, parameter['schema'], parameter['example']), [], where);
      }
    }
  });

  test('the requests a generated collection makes, in its order and with only the examples, all succeed on a fresh server with the example dataset', async () => {
    const fresh = await startTestServer({ seed: true });
    try {
      const order = collectionOrder();
      assert.deepEqual(
        order.slice(0, 3).map(({ method, path }) => `${method} ${path}`),
        ['get /', 'head /', 'options /'],
      );
      for (const { path, method, operation } of order) {
        const parameters = [...(doc['paths'][path]['parameters'] ?? []), ...(operation['parameters'] ?? [])] as Json[];
        const concrete = parameters
          .filter((p) => p['in'] === 'path')
          .reduce((target: string, p) => target.replace(`{${p['name']}}`, String(p['example'])), path);
        const query = new URLSearchParams(
          parameters.filter((p) => p['in'] === 'query').map((p): [string, string] => [p['name'], String(p['example'])]),
        ).toString();
        const headers: Record<string, string> = Object.fromEntries(
          parameters.filter((p) => p['in'] === 'header').map((p) => [p['name'], String(p['example'])]),
        );
        const [mediaType, media] = Object.entries((operation['requestBody']?.['content'] ?? {}) as Json)[0] ?? [];
        if (mediaType !== undefined) headers['content-type'] = mediaType;
        const success = Object.entries(operation['responses'] as Json).find(([status]) =>
          status.startsWith('2'),
        )?.[1] as Json | undefined;
        const accept = Object.keys(success?.['content'] ?? {})[0];
        if (accept !== undefined) headers['accept'] = accept;
        const caller =
          Array.isArray(operation['security']) && operation['security'].length === 0 ? fresh.as(undefined) : fresh;
        const target = query === '' ? concrete : `${concrete}?${query}`;
        const response = await caller.request(method.toUpperCase(), target, {
          body: media === undefined ? undefined : JSON.stringify((media as Json)['example']),
          headers,
        });
        assert.ok(
          response.status >= 200 && response.status < 300,
          `${method.toUpperCase()} ${target} → ${response.status} ${response.text}`,
        );
        assertDocumented(method.toUpperCase(), target, response);
      }
    } finally {
      await fresh.close();
    }
  });
});

describe('openapi: money', () => {
  const prices = (): number[] => {
    const values: number[] = [];
    for (let cents = 0; cents <= 100_000; cents += 1) values.push(cents / 100);
    for (let cents = 99_999_900_000; cents <= 100_000_000_000; cents += 7) values.push(cents / 100);
    return values;
  };

  test('no schema says multipleOf; every amount is a number with at most two decimals stated in words and in x-max-decimal-places', () => {
    assert.equal(JSON.stringify(doc).match(/"multipleOf"/g)?.length ?? 0, 0, 'no schema says multipleOf');
    const schemas = doc['components']['schemas'];
    const itemOf = (order: Json): Json =>
      (order['properties']['items'] ?? order['properties']['itens'])['items']['properties'];
    const amounts: [string, Json][] = [
      ['price', schemas['Product']['properties']['price']],
      ['preco', schemas['Product_pt']['properties']['preco']],
      ['total', schemas['Order']['properties']['total']],
      ['total (pt)', schemas['Order_pt']['properties']['total']],
      ['unit_price', itemOf(schemas['Order'])['unit_price']],
      ['preco_unitario', itemOf(schemas['Order_pt'])['preco_unitario']],
    ];
    for (const [name, amount] of amounts) {
      assert.equal(amount['type'], 'number', name);
      assert.equal(amount['x-max-decimal-places'], 2, name);
      assert.match(amount['description'], /two decimal places/, name);
    }
  });

  test('every price the server accepts passes a standard validator (Ajv as Prism runs it), which multipleOf: 0.01 would not', () => {
    // Prism validates with Ajv (draft 2020-12 for OpenAPI 3.1) and leaves unknown keywords alone (strict off).
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validProduct = ajv.compile({ ...doc['components']['schemas']['ProductCreate'], examples: undefined });
    const rejected = prices().filter(
      (price) => Number(price.toFixed(2)) === price && !validProduct({ name: 'A', category: 'c', price }),
    );
    assert.equal(rejected.length, 0, `refused, among others: ${rejected.slice(0, 5).join(', ')}`);
    const withMultipleOf = ajv.compile({ type: 'number', minimum: 0, multipleOf: 0.01 });
    assert.equal(withMultipleOf(19.99), false, 'the reason: 19.99 / 0.01 is 1998.9999999999998');
    assert.equal(withMultipleOf(0.29), false);
  });

  test('the server keeps its own check exact: 19.99 is a price, 1.555 is not', async () => {
    assert.equal((await api.post('/v1/products', { name: 'Nineteen', category: 'money', price: 19.99 })).status, 201);
    const refused = await api.post('/v1/products', { name: 'Odd', category: 'money', price: 1.555 });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.errors, [
      { field: 'price', code: 'invalid_format', message: 'must have at most two decimals' },
    ]);
  });
});

describe('openapi: the command line', () => {
  test('`plainrest openapi` prints the same document through a pipe, whole (over 64 KiB)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/plainrest.mjs', 'openapi'], {
      cwd: REPOSITORY_ROOT,
      maxBuffer: 8 << 20,
    });
    assert.ok(stdout.length > 65_536, `${stdout.length} bytes`);
    assert.deepEqual(JSON.parse(stdout), doc);
  });
});

describe('openapi: the schema checker can fail', () => {
  test('undocumented members, wrong types, missing members and out-of-range values are caught', () => {
    const product = { $ref: '#/components/schemas/Product' };
    const good = {
      id: 1,
      name: 'A',
      category: 'c',
      price: 1.5,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    assert.deepEqual(validateJson(doc, product, good), []);
    assert.equal(validateJson(doc, product, { ...good, secret: 1 }).length, 1);
    assert.equal(validateJson(doc, product, { ...good, price: '1.5' }).length, 1);
    assert.equal(validateJson(doc, product, { ...good, price: -0.01 }).length, 1);
    const { name: _name, ...nameless } = good;
    assert.equal(validateJson(doc, product, nameless).length, 1);
    assert.equal(
      validateJson(doc, { $ref: '#/components/schemas/UserCreated' }, { id: 1, name: 'A', email: 'a@b.c' }).length,
      1,
    );
  });
});
