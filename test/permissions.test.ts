// The permission matrix (README: Authentication and permissions): every resource route and method, for every kind
// of caller. The expected table below is written out by hand; it is checked against
// the table the code uses (src/auth/permissions.ts), then every cell is tried over HTTP.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Operation } from '../src/auth/permissions.ts';
import { isAllowed } from '../src/auth/permissions.ts';
import type { CollectionName } from '../src/resources/definition.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import { EXAMPLE } from './example-definitions.ts';
import type { TestServer } from './helpers.ts';
import { createProduct, createUser, startTestServer, tokenFor } from './helpers.ts';

type Caller = 'none' | 'malformed' | 'bad signature' | 'expired' | 'self' | 'other' | 'admin';
const CALLERS: readonly Caller[] = ['none', 'malformed', 'bad signature', 'expired', 'self', 'other', 'admin'];

interface Route {
  readonly method: string;
  /** `{u}` is the user the path belongs to, `{o}` their order, `{p}` a product. */
  readonly path: string;
  readonly collection: CollectionName;
  readonly operation: Operation;
  /** Status for self, other and admin, written out by hand. */
  readonly expected: readonly [self: number, other: number, admin: number];
}

// prettier-ignore
const MATRIX: readonly Route[] = [
  { method: 'GET',    path: '/v1/users',               collection: 'users',    operation: 'list',   expected: [403, 403, 200] },
  { method: 'POST',   path: '/v1/users',               collection: 'users',    operation: 'create', expected: [403, 403, 201] },
  { method: 'GET',    path: '/v1/users/{u}',           collection: 'users',    operation: 'read',   expected: [200, 403, 200] },
  { method: 'PUT',    path: '/v1/users/{u}',           collection: 'users',    operation: 'update', expected: [200, 403, 200] },
  { method: 'PATCH',  path: '/v1/users/{u}',           collection: 'users',    operation: 'update', expected: [200, 403, 200] },
  { method: 'DELETE', path: '/v1/users/{u}',           collection: 'users',    operation: 'delete', expected: [204, 403, 204] },
  { method: 'GET',    path: '/v1/users/{u}/orders',    collection: 'orders',   operation: 'list',   expected: [200, 403, 200] },
  { method: 'POST',   path: '/v1/users/{u}/orders',    collection: 'orders',   operation: 'create', expected: [201, 403, 201] },
  { method: 'GET',    path: '/v1/users/{u}/orders/{o}', collection: 'orders',  operation: 'read',   expected: [200, 403, 200] },
  { method: 'PUT',    path: '/v1/users/{u}/orders/{o}', collection: 'orders',  operation: 'update', expected: [200, 403, 200] },
  { method: 'PATCH',  path: '/v1/users/{u}/orders/{o}', collection: 'orders',  operation: 'update', expected: [200, 403, 200] },
  { method: 'DELETE', path: '/v1/users/{u}/orders/{o}', collection: 'orders',  operation: 'delete', expected: [403, 403, 204] },
  { method: 'GET',    path: '/v1/products',            collection: 'products', operation: 'list',   expected: [200, 200, 200] },
  { method: 'POST',   path: '/v1/products',            collection: 'products', operation: 'create', expected: [403, 403, 201] },
  { method: 'GET',    path: '/v1/products/{p}',        collection: 'products', operation: 'read',   expected: [200, 200, 200] },
  { method: 'PUT',    path: '/v1/products/{p}',        collection: 'products', operation: 'update', expected: [403, 403, 200] },
  { method: 'PATCH',  path: '/v1/products/{p}',        collection: 'products', operation: 'update', expected: [403, 403, 200] },
  { method: 'DELETE', path: '/v1/products/{p}',        collection: 'products', operation: 'delete', expected: [403, 403, 204] },
];

const SUCCESS: Record<string, number> = { GET: 200, POST: 201, PUT: 200, PATCH: 200, DELETE: 204 };

describe('permissions: the hand-written matrix equals the code table', () => {
  for (const route of MATRIX) {
    test(`${route.method} ${route.path}`, () => {
      const owner = 1;
      // The path's ids, outermost first: the user the path belongs to, their order, a product.
      const placeholderIds: Record<string, number> = { u: owner, o: 7, p: 5 };
      const ids = [...route.path.matchAll(/\{([uop])\}/g)].map(([, name]) => placeholderIds[name as string] as number);
      const definition = EXAMPLE.get(route.collection);
      assert.ok(definition, `the example domain serves ${route.collection}`);
      const store = new MemoryStore(new Map()); // none of these collections is `owned`: ownership comes from the path
      const fromCode = [
        isAllowed({ id: owner, role: 'user' }, definition, route.operation, ids, store),
        isAllowed({ id: owner + 1, role: 'user' }, definition, route.operation, ids, store),
        isAllowed({ id: owner + 2, role: 'admin' }, definition, route.operation, ids, store),
      ].map((allowed) => (allowed ? SUCCESS[route.method] : 403));
      assert.deepEqual(fromCode, route.expected);
    });
  }
});

/** A valid body for each write, so permission is the only thing that decides. */
function bodyFor(route: Route, productId: number): unknown {
  if (route.method === 'GET' || route.method === 'DELETE') return undefined;
  const unique = Math.random().toString(36).slice(2, 10);
  if (route.collection === 'users') {
    return route.method === 'PATCH' ? { name: 'Renamed' } : { name: 'Someone', email: `someone-${unique}@example.com` };
  }
  if (route.collection === 'orders') return { items: [{ product_id: productId, quantity: 2 }] };
  return route.method === 'PATCH' ? { price: 1.5 } : { name: 'Thing', category: 'misc', price: 2 };
}

describe('permissions: every route × caller over HTTP', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  for (const route of MATRIX) {
    for (const caller of CALLERS) {
      const expected =
        caller === 'self'
          ? route.expected[0]
          : caller === 'other'
            ? route.expected[1]
            : caller === 'admin'
              ? route.expected[2]
              : 401;
      test(`${route.method} ${route.path} as ${caller} → ${expected}`, async () => {
        const owner = await createUser(api);
        const other = await createUser(api);
        const product = await createProduct(api);
        const order = await api.post(`/v1/users/${owner}/orders`, { items: [{ product_id: product.id, quantity: 1 }] });
        const path = route.path
          .replace('{u}', String(owner))
          .replace('{o}', String(order.body.id))
          .replace('{p}', String(product.id));
        const adminId = 1;
        const tokens: Record<Caller, string | undefined> = {
          none: undefined,
          malformed: 'not-a-token',
          'bad signature': `${tokenFor(owner).slice(0, -4)}AAAA`,
          expired: tokenFor(owner, 60, Math.floor(Date.now() / 1000) - 120),
          self: tokenFor(owner),
          other: tokenFor(other),
          admin: tokenFor(adminId),
        };
        const response = await api.as(tokens[caller]).request(route.method, path, { body: bodyFor(route, product.id) });
        assert.equal(response.status, expected, response.text);
        if (expected === 401) {
          const challenge =
            caller === 'none'
              ? 'Bearer realm="plainrest"'
              : /^Bearer realm="plainrest", error="invalid_token", error_description="[^"]+"$/;
          const header = response.headers.get('www-authenticate') ?? '';
          if (typeof challenge === 'string') assert.equal(header, challenge);
          else assert.match(header, challenge);
          assert.equal(response.body.code, caller === 'none' ? 'unauthenticated' : 'invalid_token');
        }
        if (expected === 403) assert.equal(response.body.code, 'forbidden');
      });
    }
  }
});
