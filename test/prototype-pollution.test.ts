// Prototype pollution (hardening issue, item 5; OWASP API8:2023 Security Misconfiguration
// and CWE-1321). A JSON body is parsed into plain objects; a key named `__proto__`,
// `constructor` or `prototype` must stay data and never reach an object's prototype.
// The convention (src/resources/validation.ts): only names from the resource declaration are ever
// copied, so such a key is an unknown field, 422 `validation_failed` naming it
// (`unknown_field`) — at the top level, inside an order's items, in a merge patch with a
// null or an object value, and when JSON repeats the key. In a query string such a name
// is an unknown parameter, 400 `invalid_query`. After every request: `({}).polluted` is
// undefined, Object.prototype (and Array.prototype) have exactly the own keys they had,
// no stored record holds such an own property or another prototype, and a fresh GET
// shows no such key.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FieldError } from '../src/errors/errors.ts';
import { HttpError } from '../src/errors/errors.ts';
import type { JsonObject, JsonValue, StoredRecord } from '../src/records/json.ts';
import { applyMergePatch } from '../src/records/merge-patch.ts';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { vocabularyOf } from '../src/resources/definition.ts';
import { methodsOf } from '../src/server/routes.ts';
import { routeTable } from '../src/routing/route-table.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import type { StoredCollection } from '../src/store/store.ts';
import type { WriteMode } from '../src/resources/validation.ts';
import { validateBody } from '../src/resources/validation.ts';
import type { Language } from '../src/resources/vocabulary.ts';
import { assertProblem } from './assertions.ts';
import { EXAMPLE, orders, products, translate, users } from './example-definitions.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import { TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, createProduct, createUser, startTestServer } from './helpers.ts';

const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
/** What an attack tries to plant on Object.prototype. */
const PLANTED = 'polluted';

// ---------------------------------------------------------------------------------------
// The pollution oracle

interface PrototypeState {
  readonly object: readonly string[];
  readonly array: readonly string[];
}

function prototypeState(): PrototypeState {
  return {
    object: Object.getOwnPropertyNames(Object.prototype).sort(),
    array: Object.getOwnPropertyNames(Array.prototype).sort(),
  };
}

function assertNotPolluted(before: PrototypeState, where: string): void {
  assert.equal(({} as Record<string, unknown>)[PLANTED], undefined, `${where}: ({}).${PLANTED} is set`);
  assert.equal(([] as unknown as Record<string, unknown>)[PLANTED], undefined, `${where}: [].${PLANTED} is set`);
  assert.deepEqual(prototypeState(), before, `${where}: a prototype gained or lost keys`);
}

/** Own keys anywhere inside a JSON value that must never be stored. */
function pollutingKeysIn(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((element, index) => pollutingKeysIn(element, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  const found: string[] = [];
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    found.push(`${path} has another prototype`);
  for (const key of Object.keys(value)) {
    if ((POLLUTING_KEYS as readonly string[]).includes(key) || key === PLANTED) found.push(`${path}.${key}`);
    found.push(...pollutingKeysIn((value as Record<string, unknown>)[key], `${path}.${key}`));
  }
  return found;
}

const COLLECTIONS: readonly StoredCollection[] = ['users', 'products', 'orders', 'idempotency_keys'];

function allRecords(store: MemoryStore): StoredRecord[] {
  const everything = { filters: [], sort: [], offset: 0, limit: Number.POSITIVE_INFINITY };
  return COLLECTIONS.flatMap((collection) => [...store.query(collection, everything).records]);
}

// ---------------------------------------------------------------------------------------
// Bodies: a valid body for each write route, in its vocabulary, with a key injected

interface WriteRoute {
  readonly method: 'POST' | 'PUT' | 'PATCH';
  readonly path: string;
  /** Members of a body that would succeed, as JSON text without the braces. */
  readonly base: string;
  /** The name of the items list on order routes (`items`, `itens`), else undefined. */
  readonly items?: string;
  /** A valid item of an order without its closing brace, so a key can be added. */
  readonly itemStart?: string;
}

interface World {
  readonly api: TestServer;
  readonly store: MemoryStore;
  readonly userId: number;
  readonly productId: number;
  readonly orderId: number;
}

function writeRoutes(world: World): WriteRoute[] {
  const routes: WriteRoute[] = [];
  for (const language of ['en', 'pt'] as const) {
    const t = (word: string): string => JSON.stringify(translate(word, language));
    const users = `/v1/${translate('users', language)}`;
    const productsPath = `/v1/${translate('products', language)}`;
    const ordersPath = `${users}/${world.userId}/${translate('orders', language)}`;
    const unique = `${language}-${Math.random().toString(36).slice(2, 10)}`;
    const product = `${t('name')}:"Polluted kettle",${t('category')}:"tea",${t('price')}:3.5`;
    const itemStart = `{${t('product_id')}:${world.productId},${t('quantity')}:1`;
    const orderBase = `${t('items')}:[${itemStart}}]`;
    routes.push(
      { method: 'POST', path: users, base: `${t('name')}:"Newcomer",${t('email')}:"new-${unique}@example.com"` },
      {
        method: 'PUT',
        path: `${users}/${world.userId}`,
        base: `${t('name')}:"Pat",${t('email')}:"pat-${unique}@example.com"`,
      },
      { method: 'PATCH', path: `${users}/${world.userId}`, base: `${t('name')}:"Pat"` },
      { method: 'POST', path: productsPath, base: product },
      { method: 'PUT', path: `${productsPath}/${world.productId}`, base: product },
      { method: 'PATCH', path: `${productsPath}/${world.productId}`, base: `${t('price')}:4` },
      { method: 'POST', path: ordersPath, base: orderBase, items: translate('items', language), itemStart },
      {
        method: 'PUT',
        path: `${ordersPath}/${world.orderId}`,
        base: orderBase,
        items: translate('items', language),
        itemStart,
      },
      {
        method: 'PATCH',
        path: `${ordersPath}/${world.orderId}`,
        base: orderBase,
        items: translate('items', language),
        itemStart,
      },
    );
  }
  routes.push({
    method: 'POST',
    path: '/v1/tokens',
    base: `"email":"${TEST_ADMIN_EMAIL}","password":"${TEST_ADMIN_PASSWORD}"`,
  });
  return routes;
}

interface Injection {
  readonly name: string;
  readonly body: string;
  /** The unknown field the 422 must name. */
  readonly field: string;
}

/** Every way to smuggle `key` into a write to `route`. */
function injections(route: WriteRoute, key: string): Injection[] {
  const planted = `{"${PLANTED}":"yes"}`;
  const list: Injection[] = [
    { name: `top-level "${key}" with an object`, body: `{${route.base},"${key}":${planted}}`, field: key },
    { name: `top-level "${key}" first`, body: `{"${key}":${planted},${route.base}}`, field: key },
    {
      name: `"${key}" holding {"prototype": …}`,
      body: `{${route.base},"${key}":{"prototype":${planted}}}`,
      field: key,
    },
    { name: `"${key}" with a string`, body: `{${route.base},"${key}":"${PLANTED}"}`, field: key },
  ];
  if (key === '__proto__') {
    list.push({
      name: 'duplicate "__proto__" keys',
      body: `{"__proto__":{"a":1},${route.base},"__proto__":${planted}}`,
      field: key,
    });
  }
  if (route.method === 'PATCH') {
    list.push(
      { name: `merge patch "${key}": null`, body: `{"${key}":null}`, field: key },
      { name: `merge patch "${key}": {…}`, body: `{"${key}":${planted}}`, field: key },
      { name: `merge patch "${key}": {"${key}": …} (nested)`, body: `{"${key}":{"${key}":${planted}}}`, field: key },
    );
  }
  if (route.items !== undefined && route.itemStart !== undefined) {
    const field = `${route.items}[0].${key}`;
    for (const value of [planted, 'null']) {
      list.push({
        name: `"${key}": ${value} inside an order item`,
        body: `{"${route.items}":[${route.itemStart},"${key}":${value}}]}`,
        field,
      });
    }
  }
  return list;
}

// ---------------------------------------------------------------------------------------

describe('prototype pollution over HTTP: bodies', () => {
  let world: World;
  let snapshot: Map<string, string>;
  before(async () => {
    const store = new MemoryStore(new Map());
    const api = await startTestServer({ store });
    const product = await createProduct(api, { name: 'Kettle', category: 'tea', price: 20 });
    const userId = await createUser(api, { name: 'Pat' });
    const order = await api.post(`/v1/users/${userId}/orders`, { items: [{ product_id: product.id, quantity: 1 }] });
    world = { api, store, userId, productId: Number(product.id), orderId: Number(order.body.id) };
    snapshot = await readAll(world);
  });
  after(() => world.api.close());

  /** Every record the attacks aim at, read back over HTTP in both vocabularies. */
  async function readAll({ api, userId, productId, orderId }: World): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    for (const path of [
      `/v1/users/${userId}`,
      `/v1/usuarios/${userId}`,
      `/v1/products/${productId}`,
      `/v1/produtos/${productId}`,
      `/v1/users/${userId}/orders/${orderId}`,
      `/v1/usuarios/${userId}/pedidos/${orderId}`,
      '/v1/users?limit=100',
      '/v1/products?limit=100',
      `/v1/users/${userId}/orders?limit=100`,
    ]) {
      texts.set(path, (await api.get(path)).text);
    }
    return texts;
  }

  for (const key of POLLUTING_KEYS) {
    test(`"${key}" on every write route, both vocabularies → 422 unknown_field, nothing planted or stored`, async () => {
      const before = prototypeState();
      let tried = 0;
      for (const route of writeRoutes(world)) {
        for (const injection of injections(route, key)) {
          const where = `${route.method} ${route.path}: ${injection.name} ${injection.body}`;
          const response = await world.api.request(route.method, route.path, { body: injection.body });
          try {
            assertProblem(response, 422, 'validation_failed', route.path, [
              { field: injection.field, code: 'unknown_field' },
            ]);
          } catch (error) {
            throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
          }
          assertNotPolluted(before, where);
          tried++;
        }
      }
      assert.ok(tried > 60, `${tried} attacks`);
      for (const record of allRecords(world.store))
        assert.deepEqual(pollutingKeysIn(record), [], `stored ${JSON.stringify(record)}`);
      const now = await readAll(world);
      for (const [path, text] of now) {
        assert.equal(text, snapshot.get(path), `${path} changed`);
        for (const word of [...POLLUTING_KEYS, PLANTED]) assert.ok(!text.includes(word), `${path} shows "${word}"`);
        assert.deepEqual(pollutingKeysIn(JSON.parse(text)), [], path);
      }
    });
  }

  test('a write that succeeds after the attacks stores a plain record with Object.prototype', async () => {
    const before = prototypeState();
    const patched = await world.api.patch(`/v1/products/${world.productId}`, {
      description: '__proto__ constructor prototype',
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.description, '__proto__ constructor prototype'); // as a value, these words are just text
    const stored = world.store.get('products', world.productId);
    assert.ok(stored !== undefined);
    assert.equal(Object.getPrototypeOf(stored), Object.prototype);
    assert.deepEqual(pollutingKeysIn(stored), []);
    assertNotPolluted(before, 'after a valid patch');
  });
});

describe('prototype pollution over HTTP: query strings', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  const NAMES = [
    ...POLLUTING_KEYS,
    'hasOwnProperty',
    'toString',
    '__proto__[polluted]',
    'constructor[prototype][polluted]',
  ];

  /** A request to every route of the table, with its first method that reads (POST for the token endpoint). */
  function probes(): { method: string; path: string }[] {
    return routeTable(EXAMPLE).map((route) => {
      const methods = methodsOf(route).split(', ');
      const method = methods.includes('GET') ? 'GET' : (methods[0] as string);
      return { method, path: route.pattern.replace(/:[a-z_]+/g, '1') };
    });
  }

  test('parameters named __proto__, constructor, … → 400 invalid_query naming them, on every route', async () => {
    const before = prototypeState();
    for (const { method, path } of probes()) {
      for (const name of NAMES) {
        for (const query of [`${encodeURIComponent(name)}=${PLANTED}`, `${name}=${PLANTED}`]) {
          const response = await send(api, method, `${path}?${query}`);
          assertProblem(response, 400, 'invalid_query', path, [{ field: name, code: 'unknown_parameter' }]);
          assertNotPolluted(before, `${method} ${path}?${query}`);
        }
      }
    }
  });

  test('__proto__ and constructor as sort fields and filter values: a 400, or a plain string that matches nothing', async () => {
    const before = prototypeState();
    for (const value of ['__proto__', 'constructor']) {
      const refused: [path: string, parameter: string][] = [
        ['/v1/products', `sort=${value}`],
        ['/v1/usuarios', `ordenar=-${value}`],
        ['/v1/users', `role=${value}`],
        ['/v1/users/1/orders', `status=${value}`],
      ];
      for (const [path, query] of refused) {
        const field = query.split('=')[0] as string;
        assertProblem(await api.get(`${path}?${query}`), 400, 'invalid_query', path, [
          { field, code: 'invalid_value' },
        ]);
      }
      for (const path of [`/v1/products?category=${value}`, `/v1/users?email=${value}`]) {
        const response = await api.get(path);
        assert.equal(response.status, 200, `${path}: ${response.text}`);
        assert.deepEqual(response.body.data, []);
        assert.equal(response.body.meta.total, 0);
      }
      assertNotPolluted(before, value);
    }
  });
});

/** A request; the token endpoint gets a body, since it reads one after the query. */
function send(api: TestServer, method: string, path: string): Promise<TestResponse> {
  if (method === 'GET') return api.get(path);
  return api.request(method, path, { body: { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD } });
}

// ---------------------------------------------------------------------------------------
// Unit level: the merge patch and the validator themselves

/** JSON text parsed as the server parses a body, so `__proto__` is an own key. */
function parse(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}

describe('prototype pollution, unit level: applyMergePatch (RFC 7396)', () => {
  const cases: [name: string, target: string, patch: string, ownKeys: string[]][] = [
    ['"__proto__" with an object', '{"a":1}', '{"__proto__":{"polluted":"yes"}}', ['a', '__proto__']],
    [
      'duplicate "__proto__" keys',
      '{"a":1}',
      '{"__proto__":{"a":1},"__proto__":{"polluted":"yes"}}',
      ['a', '__proto__'],
    ],
    ['"constructor": {"prototype": …}', '{}', '{"constructor":{"prototype":{"polluted":"yes"}}}', ['constructor']],
    ['"prototype" with an object', '{}', '{"prototype":{"polluted":"yes"}}', ['prototype']],
    ['"__proto__": null where there is none', '{"a":1}', '{"__proto__":null}', ['a']],
    ['"__proto__": null removes an own "__proto__"', '{"__proto__":{"x":1},"a":1}', '{"__proto__":null}', ['a']],
    ['"constructor": null', '{"a":1}', '{"constructor":null}', ['a']],
    [
      'a target holding "__proto__" keeps it as data',
      '{"__proto__":{"polluted":"yes"}}',
      '{"a":1}',
      ['__proto__', 'a'],
    ],
  ];
  for (const [name, targetText, patchText, ownKeys] of cases) {
    test(name, () => {
      const before = prototypeState();
      const result = applyMergePatch(parse(targetText), parse(patchText)) as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(result), Object.prototype);
      assert.deepEqual(Object.keys(result), ownKeys);
      assert.equal(result[PLANTED], undefined);
      assertNotPolluted(before, name);
    });
  }

  test('nested: {"a": {"__proto__": …}} merges into a plain object, the key kept as data', () => {
    const before = prototypeState();
    const patch = parse('{"a":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}');
    const result = applyMergePatch(parse('{"a":{"b":1}}'), patch);
    const inner = (result as Record<string, Record<string, unknown>>)['a'] as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(inner), Object.prototype);
    assert.deepEqual(Object.keys(inner), ['b', '__proto__', 'constructor']);
    assert.equal(inner[PLANTED], undefined);
    assertNotPolluted(before, 'nested');
  });

  test('the target is left as it was', () => {
    const target = parse('{"a":{"b":1}}');
    applyMergePatch(target, parse('{"a":{"__proto__":{"polluted":"yes"}}}'));
    assert.deepEqual(target, { a: { b: 1 } });
    assert.equal(Object.getPrototypeOf((target as Record<string, object>)['a']), Object.prototype);
  });
});

describe('prototype pollution, unit level: validateBody', () => {
  const times = { created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
  const storedUser = { id: 1, name: 'Pat', email: 'pat@example.com', role: 'user', ...times };
  const storedProduct = { id: 1, name: 'Mug', category: 'c', price: 5, ...times };
  const storedOrder = {
    id: 1,
    user_id: 1,
    items: [{ product_id: 1, quantity: 1, unit_price: 5 }],
    total: 5,
    status: 'pending',
    ...times,
  };
  const resources: [ResourceDefinition, JsonObject, Record<string, JsonValue>][] = [
    [users, storedUser, { name: 'Pat', email: 'pat@example.com' }],
    [products, storedProduct, { name: 'Mug', category: 'c', price: 5 }],
    [orders, storedOrder, { items: [{ product_id: 1, quantity: 1 }] }],
  ];

  /** The field errors of a validation that must fail. */
  function errorsOf(run: () => unknown): { field: string; code: string }[] {
    try {
      run();
    } catch (error) {
      assert.ok(error instanceof HttpError, String(error));
      assert.equal(error.status, 422);
      return (error.errors ?? []).map(({ field, code }: FieldError) => ({ field, code }));
    }
    assert.fail('validation passed');
  }

  for (const [definition, current, valid] of resources) {
    for (const language of ['en', 'pt'] as const) {
      for (const mode of ['create', 'replace', 'patch'] as WriteMode[]) {
        test(`${definition.collection}, ${mode}, ${language}: every polluting key is an unknown field and never copied`, () => {
          const before = prototypeState();
          const base = JSON.stringify(translateKeys(valid, language)).slice(1, -1);
          for (const key of POLLUTING_KEYS) {
            for (const value of ['{"polluted":"yes"}', 'null', '{"prototype":{"polluted":"yes"}}']) {
              const body = parse(`{${base},"${key}":${value}}`) as JsonObject;
              assert.ok(Object.hasOwn(body, key), 'JSON.parse makes the key an own property');
              const errors = errorsOf(() =>
                validateBody(definition.fields, body, vocabularyOf(definition, language), mode, current),
              );
              assert.deepEqual(errors, [{ field: key, code: 'unknown_field' }]);
              assertNotPolluted(before, `${key}: ${value}`);
            }
          }
          if (definition === orders) {
            const items = translate('items', language);
            const item = JSON.stringify(translateKeys({ product_id: 1, quantity: 1 }, language)).slice(0, -1);
            for (const key of POLLUTING_KEYS) {
              const body = parse(`{"${items}":[${item},"${key}":{"polluted":"yes"}}]}`) as JsonObject;
              const errors = errorsOf(() =>
                validateBody(definition.fields, body, vocabularyOf(definition, language), mode, current),
              );
              assert.deepEqual(errors, [{ field: `${items}[0].${key}`, code: 'unknown_field' }]);
            }
          }
          assertNotPolluted(before, definition.collection);
        });
      }
    }
  }

  test('a valid body is returned as a plain object with only declared names', () => {
    const fields = validateBody(
      products.fields,
      parse('{"name":"Mug","category":"c","price":5}') as JsonObject,
      vocabularyOf(products, 'en'),
      'create',
    );
    assert.equal(Object.getPrototypeOf(fields), Object.prototype);
    assert.deepEqual(Object.keys(fields).sort(), ['category', 'name', 'price']);
  });
});

function translateKeys(value: JsonValue, language: Language): JsonValue {
  if (Array.isArray(value)) return (value as readonly JsonValue[]).map((element) => translateKeys(element, language));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [translate(key, language), translateKeys(inner, language)]),
  );
}
