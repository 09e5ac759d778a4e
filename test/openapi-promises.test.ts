// What the OpenAPI document promises, the server answers (README: The OpenAPI document), for the example domain and
// for a declared one: a `fields=` answer fits the read's schema; `page` is bounded where the server bounds it; a
// create's enum is `x-initial`'s; a query's numbers are written as JSON writes them; sort, fields and embed refuse a
// name twice in the pattern as the server does; `_embedded` is typed per name; the change feed's two bodies have a
// schema each. Each test reads the served document, asks the server over fetch, and holds one to the other.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { STRONG_ETAG } from './assertions.ts';
import { validateJson } from './json-schema.ts';

type Json = Record<string, any>;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: any;
}

/** A request with the server's token, sent with fetch; the body parsed when it is JSON. */
async function ask(api: TestServer, path: string, init: RequestInit = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (api.token !== undefined) headers.set('Authorization', `Bearer ${api.token}`);
  if (init.body !== undefined) headers.set('Content-Type', 'application/json');
  const response = await fetch(`${api.url}${path}`, { ...init, headers });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/') === true && text !== '';
  return { status: response.status, headers: response.headers, text, body: json ? JSON.parse(text) : undefined };
}

async function documentOf(api: TestServer): Promise<Json> {
  const answer = await ask(api.as(undefined), '/v1/openapi.json');
  assert.equal(answer.status, 200);
  return answer.body;
}

/** The schema of an operation's 200 JSON body. */
function okSchema(doc: Json, path: string): Json {
  return doc['paths'][path]['get']['responses']['200']['content']['application/json']['schema'];
}

/** A query parameter of a GET, by name. */
function parameter(doc: Json, path: string, name: string): Json {
  const found = (doc['paths'][path]['get']['parameters'] as Json[]).find((each) => each['name'] === name);
  assert.ok(found !== undefined, `${path} documents ${name}`);
  return found;
}

/** A 400 naming one query parameter. */
function assertQueryRefused(answer: Answer, field: string): void {
  assert.equal(answer.status, 400, answer.text);
  assert.equal(answer.headers.get('content-type'), 'application/json');
  assert.equal(answer.body.code, 'invalid_query');
  assert.deepEqual(
    answer.body.errors.map(({ field, code }: Json) => ({ field, code })),
    [{ field, code: 'invalid_value' }],
  );
}

/** Shelves (a state created planned or open, a date), their items (embedded as a page) and notes naming a shelf. */
const SHELVES: ResourcesDeclaration = {
  resources: {
    shelves: {
      singular: 'shelf',
      access: { list: 'user', read: 'user', create: 'admin', update: 'admin', delete: 'admin' },
      properties: {
        label: { type: 'string', minLength: 1, maxLength: 40, 'x-sort': true },
        state: {
          enum: ['planned', 'open', 'closed'],
          default: 'planned',
          'x-sort': true,
          'x-initial': ['planned', 'open'],
          'x-transitions': { planned: ['open'], open: ['closed'], closed: [] },
        },
        opened: { type: 'string', format: 'date' },
      },
      required: ['label'],
    },
    items: {
      singular: 'item',
      parent: 'shelves',
      access: { list: 'user', read: 'user', create: 'admin', update: 'admin', delete: 'admin' },
      properties: { title: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['title'],
    },
    notes: {
      singular: 'note',
      access: { list: 'user', read: 'user', create: 'admin', update: 'admin', delete: 'admin' },
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 200 },
        shelf_id: { type: 'integer', 'x-references': 'shelves' },
      },
      required: ['text', 'shelf_id'],
    },
  },
};

describe('the example domain keeps what its document promises', () => {
  let api: TestServer;
  let doc: Json;
  before(async () => {
    api = await startTestServer({ seed: true });
    doc = await documentOf(api);
  });
  after(() => api.close());

  test('a fields= answer ({"category":"tea"}) fits the read: a ProductSelection requires nothing and allows nothing else', async () => {
    const answer = await ask(api, '/v1/products/4?fields=category');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/json');
    assert.match(answer.headers.get('etag') ?? '', STRONG_ETAG);
    assert.equal(answer.text, '{"category":"tea"}');
    const read = okSchema(doc, '/v1/products/{product_id}');
    assert.deepEqual(validateJson(doc, read, answer.body), []);
    assert.deepEqual(validateJson(doc, read, (await ask(api, '/v1/products/4')).body), []);
    assert.notDeepEqual(validateJson(doc, read, { category: 'tea', colour: 'green' }), [], 'no other member');
    assert.notDeepEqual(validateJson(doc, read, { category: 7 }), [], 'each member typed');
    const selection = doc['components']['schemas']['ProductSelection'];
    assert.equal(selection['required'], undefined);
    assert.equal(selection['additionalProperties'], false);
    const page = await ask(api, '/v1/products?fields=name&limit=2');
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.data, [{ name: 'Espresso beans 1 kg' }, { name: 'Filter coffee 500 g' }]);
    assert.deepEqual(validateJson(doc, okSchema(doc, '/v1/products'), page.body), []);
    const portuguese = await ask(api, '/v1/produtos/4?campos=categoria');
    assert.equal(portuguese.text, '{"categoria":"tea"}');
    assert.deepEqual(validateJson(doc, okSchema(doc, '/v1/produtos/{product_id}'), portuguese.body), []);
  });

  test('page has the maximum the server keeps: 1000000000 is an empty page, 1000000001 a 400 naming page', async () => {
    for (const [path, template] of [
      ['/v1/products', '/v1/products'],
      ['/v1/users/1/orders', '/v1/users/{user_id}/orders'],
      ['/v1/events', '/v1/events'],
    ] as const) {
      assert.equal(parameter(doc, template, 'page')['schema']['maximum'], 1_000_000_000, template);
      const last = await ask(api, `${path}?page=1000000000`);
      assert.equal(last.status, 200, last.text);
      assert.deepEqual(last.body.data, []);
      assertQueryRefused(await ask(api, `${path}?page=1000000001`), 'page');
    }
  });

  test('OrderCreate.status is pending only (x-initial); a PUT or PATCH takes every state; a paid new order is a 422', async () => {
    const schemas = doc['components']['schemas'];
    assert.deepEqual(schemas['OrderCreate']['properties']['status']['enum'], ['pending']);
    assert.deepEqual(schemas['OrderCreate_pt']['properties']['estado']['enum'], ['pending']);
    for (const name of ['OrderReplace', 'OrderPatch', 'Order'])
      assert.deepEqual(
        schemas[name]['properties']['status']['enum'],
        ['pending', 'paid', 'shipped', 'cancelled'],
        name,
      );
    const items = [{ product_id: 1, quantity: 1 }];
    const paid = await ask(api, '/v1/users/1/orders', {
      method: 'POST',
      body: JSON.stringify({ items, status: 'paid' }),
    });
    assert.equal(paid.status, 422, paid.text);
    assert.equal(paid.body.code, 'validation_failed');
    assert.deepEqual(paid.body.errors, [
      { field: 'status', code: 'invalid_value', message: 'a new order starts as pending' },
    ]);
    const pending = await ask(api, '/v1/users/1/orders', {
      method: 'POST',
      body: JSON.stringify({ items, status: 'pending' }),
    });
    assert.equal(pending.status, 201, pending.text);
    assert.equal(pending.body.status, 'pending');
  });

  test('numbers in a query are written as JSON writes them: 2.49e1, 1E1 and 1.0 are 24.9, 10 and 1', async () => {
    assert.match(doc['info']['description'], /written as JSON writes one \(RFC 8259 §6: 1000, 1e3 and 1000\.0/);
    const pairs = [
      ['/v1/products?price=2.49e1', '/v1/products?price=24.9'],
      ['/v1/products?price[lt]=1E1&sort=-price', '/v1/products?price[lt]=10&sort=-price'],
      ['/v1/products?page=1.0&limit=2e0', '/v1/products?page=1&limit=2'],
      ['/v1/events?after=1e0&limit=2E%2B0', '/v1/events?after=1&limit=2'],
    ];
    for (const [written, plain] of pairs) {
      const answer = await ask(api, written as string);
      assert.equal(answer.status, 200, `${written}: ${answer.text}`);
      assert.deepEqual(answer.body, (await ask(api, plain as string)).body, written);
    }
    assert.equal((await ask(api, '/v1/products?price=2.49e1')).body.data[0].id, 1);
    assertQueryRefused(await ask(api, '/v1/products?page=1.5'), 'page');
    assertQueryRefused(await ask(api, '/v1/products?limit=1e3'), 'limit');
    assertQueryRefused(await ask(api, '/v1/products?price=0x10'), 'price');
    assertQueryRefused(await ask(api, '/v1/products?price[gte]=1e400'), 'price[gte]');
  });

  test('sort, fields and embed: a name twice is outside the pattern, as the server refuses it (400 naming it)', async () => {
    const cases = [
      ['/v1/products', 'sort', 'price,-price', 'price,-name'],
      ['/v1/products', 'sort', '-name,price,name', '-name,price'],
      ['/v1/products', 'fields', 'id,name,id', 'id,name'],
      ['/v1/users/{user_id}', 'embed', 'orders,orders', 'orders,keys'],
    ] as const;
    for (const [template, name, twice, once] of cases) {
      const schema = parameter(doc, template, name)['schema'];
      assert.notDeepEqual(validateJson(doc, schema, twice), [], `${name}=${twice} is outside the pattern`);
      assert.deepEqual(validateJson(doc, schema, once), [], `${name}=${once} is inside it`);
      const path = template.replace('{user_id}', '1');
      assertQueryRefused(await ask(api, `${path}?${name}=${twice}`), name);
      assert.equal((await ask(api, `${path}?${name}=${once}`)).status, 200, `${name}=${once}`);
    }
  });

  test('_embedded is typed per name: orders and keys each a first page of whole records, nothing else', async () => {
    const embedded = doc['components']['schemas']['User']['properties']['_embedded'];
    assert.deepEqual(embedded['properties'], {
      orders: { $ref: '#/components/schemas/OrderEmbeddedList' },
      keys: { $ref: '#/components/schemas/KeyEmbeddedList' },
    });
    assert.equal(embedded['additionalProperties'], false);
    assert.deepEqual(doc['components']['schemas']['OrderEmbeddedList']['properties']['data']['items'], {
      $ref: '#/components/schemas/Order',
    });
    assert.deepEqual(doc['components']['schemas']['User_pt']['properties']['_embedded']['properties'], {
      pedidos: { $ref: '#/components/schemas/OrderEmbeddedList_pt' },
      chaves: { $ref: '#/components/schemas/KeyEmbeddedList_pt' },
    });
    const answer = await ask(api, '/v1/users/1?embed=orders,keys');
    assert.equal(answer.status, 200);
    assert.equal(answer.body._embedded.orders.meta.total, (await ask(api, '/v1/users/1/orders')).body.meta.total);
    assert.deepEqual(answer.body._embedded.keys.data, []);
    const read = okSchema(doc, '/v1/users/{user_id}');
    assert.deepEqual(validateJson(doc, read, answer.body), []);
    const selected = await ask(api, '/v1/users/1?embed=orders&fields=name');
    assert.deepEqual(Object.keys(selected.body), ['name', '_embedded']);
    assert.deepEqual(validateJson(doc, read, selected.body), []);
    const { _embedded: orders, ...user } = answer.body;
    assert.notDeepEqual(validateJson(doc, read, { ...user, _embedded: { ...orders, invoices: {} } }), []);
    const list = await ask(api, '/v1/users?embed=orders&limit=1');
    assert.deepEqual(validateJson(doc, okSchema(doc, '/v1/users'), list.body), []);
  });

  test("the change feed's 200: ChangeEventList as application/json, ChangeEventStream as text/event-stream", async () => {
    for (const [path, suffix] of [
      ['/v1/events', ''],
      ['/v1/eventos', '_pt'],
    ] as const) {
      const content = doc['paths'][path]['get']['responses']['200']['content'];
      assert.deepEqual(content['application/json']['schema'], {
        $ref: `#/components/schemas/ChangeEventList${suffix}`,
      });
      assert.deepEqual(content['text/event-stream']['schema'], { $ref: '#/components/schemas/ChangeEventStream' });
    }
    assert.equal(doc['components']['schemas']['ChangeEventStream']['type'], 'string');
    const list = await ask(api, '/v1/events?limit=3', { headers: { Accept: 'application/json' } });
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('content-type'), 'application/json');
    assert.deepEqual(validateJson(doc, okSchema(doc, '/v1/events'), list.body), []);
    const plain = await ask(api, '/v1/events?limit=3');
    assert.equal(plain.headers.get('content-type'), 'application/json', 'the list is the default');
    const controller = new AbortController();
    const stream = await fetch(`${api.url}/v1/events`, {
      headers: { Accept: 'text/event-stream', Authorization: `Bearer ${api.token}` },
      signal: controller.signal,
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    controller.abort();
  });
});

describe('a declared domain keeps the same promises', () => {
  let api: TestServer;
  let doc: Json;
  before(async () => {
    api = await startTestServer({ resources: SHELVES });
    doc = await documentOf(api);
    const post = async (path: string, body: Json): Promise<void> =>
      assert.equal((await ask(api, path, { method: 'POST', body: JSON.stringify(body) })).status, 201, path);
    await post('/v1/shelves', { label: 'Fiction', opened: '0016-10-06' });
    await post('/v1/shelves/1/items', { title: 'Dune' });
    await post('/v1/notes', { text: 'dusty', shelf_id: 1 });
  });
  after(() => api.close());

  test('x-initial: ShelfCreate.state is planned or open, closed is a 422; a date of year 0016 is a date', async () => {
    const schemas = doc['components']['schemas'];
    assert.deepEqual(schemas['ShelfCreate']['properties']['state']['enum'], ['planned', 'open']);
    assert.deepEqual(schemas['ShelfPatch']['properties']['state']['enum'], ['planned', 'open', 'closed']);
    const closed = await ask(api, '/v1/shelves', {
      method: 'POST',
      body: JSON.stringify({ label: 'Old', state: 'closed' }),
    });
    assert.equal(closed.status, 422, closed.text);
    assert.deepEqual(closed.body.errors, [
      { field: 'state', code: 'invalid_value', message: 'a new shelf starts as planned or open' },
    ]);
    const shelf = await ask(api, '/v1/shelves/1');
    assert.equal(shelf.body.opened, '0016-10-06');
    assert.equal(shelf.body.state, 'planned');
  });

  test('fields, page, sort and _embedded (a child page, a referenced record) as the document says', async () => {
    const selected = await ask(api, '/v1/shelves/1?fields=label');
    assert.equal(selected.text, '{"label":"Fiction"}');
    assert.deepEqual(validateJson(doc, okSchema(doc, '/v1/shelves/{shelf_id}'), selected.body), []);
    assert.equal(parameter(doc, '/v1/shelves', 'page')['schema']['maximum'], 1_000_000_000);
    assertQueryRefused(await ask(api, '/v1/shelves?page=1000000001'), 'page');
    const sort = parameter(doc, '/v1/shelves', 'sort')['schema'];
    assert.notDeepEqual(validateJson(doc, sort, 'label,-label'), []);
    assertQueryRefused(await ask(api, '/v1/shelves?sort=label,-label'), 'sort');
    assert.deepEqual(doc['components']['schemas']['Shelf']['properties']['_embedded']['properties'], {
      items: { $ref: '#/components/schemas/ItemEmbeddedList' },
    });
    assert.deepEqual(doc['components']['schemas']['Note']['properties']['_embedded']['properties'], {
      shelf_id: { $ref: '#/components/schemas/Shelf' },
    });
    const shelf = await ask(api, '/v1/shelves/1?embed=items');
    assert.equal(shelf.body._embedded.items.data[0].title, 'Dune');
    assert.deepEqual(validateJson(doc, okSchema(doc, '/v1/shelves/{shelf_id}'), shelf.body), []);
    const note = await ask(api, '/v1/notes/1?embed=shelf_id');
    assert.equal(note.body._embedded.shelf_id.label, 'Fiction');
    assert.deepEqual(validateJson(doc, okSchema(doc, '/v1/notes/{note_id}'), note.body), []);
  });
});
