// Embedding related records (README: Lists; handlers/related-records.ts): `embed=orders` on a user or a list of users
// adds the first page of their orders under `_embedded.orders`, with meta and links; a
// declared reference (`embed=author_id`) adds the record it names; only what the caller
// may read; the ETag covers it; lists keep embed in their links and are never served stale;
// an unknown name is a 400. Both vocabularies.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { createProduct, createUserClient, startTestServer, startTestServerWithAdminBootstrap } from './helpers.ts';
import { assertJson, assertProblem } from './assertions.ts';

let api: TestServer;
let alice: { id: number; client: TestServer };
let bob: { id: number; client: TestServer };
let product: any;
before(async () => {
  api = await startTestServer();
  product = await createProduct(api, { name: 'Mug', price: 4 });
  alice = await createUserClient(api, { name: 'Alice', email: 'alice@example.com', password: 'alice-password' });
  bob = await createUserClient(api, { name: 'Bob', email: 'bob@example.com', password: 'bob-password' });
  for (let quantity = 1; quantity <= 22; quantity++) {
    assert.equal(
      (await alice.client.post(`/v1/users/${alice.id}/orders`, { items: [{ product_id: product.id, quantity }] }))
        .status,
      201,
    );
  }
});
after(() => api.close());

describe('embed on a record', () => {
  test('a user with embed=orders: the first page of their orders, with meta and links, and an ETag of the whole', async () => {
    const whole = await alice.client.get(`/v1/users/${alice.id}`);
    const answer = await alice.client.get(`/v1/users/${alice.id}?embed=orders`);
    assertJson(answer, 200);
    const { _embedded: embedded, ...user } = answer.body;
    assert.deepEqual(user, whole.body);
    const orders = embedded.orders;
    assert.equal(orders.data.length, 20);
    assert.deepEqual(
      orders.data[0],
      (await alice.client.get(`/v1/users/${alice.id}/orders/${orders.data[0].id}`)).body,
    );
    assert.deepEqual(orders.meta, { page: 1, limit: 20, total: 22, pages: 2 });
    assert.equal(orders.links.next, `/v1/users/${alice.id}/orders?page=2&limit=20`);
    assert.notEqual(answer.headers.get('etag'), whole.headers.get('etag'));
    assert.equal(
      (
        await alice.client.get(`/v1/users/${alice.id}?embed=orders`, {
          'If-None-Match': answer.headers.get('etag') as string,
        })
      ).status,
      304,
    );
    assert.equal(
      (await alice.client.post(`/v1/users/${alice.id}/orders`, { items: [{ product_id: product.id, quantity: 1 }] }))
        .status,
      201,
    );
    const after = await alice.client.get(`/v1/users/${alice.id}?embed=orders`, {
      'If-None-Match': answer.headers.get('etag') as string,
    });
    assert.equal(after.status, 200, 'a new order changes the embedded page, so the ETag');
    assert.equal(after.body._embedded.orders.meta.total, 23);
  });

  test('with fields, and in Portuguese (incluir=pedidos)', async () => {
    const answer = await api.get(`/v1/usuarios/${bob.id}?incluir=pedidos&campos=nome`);
    assertJson(answer, 200);
    assert.deepEqual(answer.body, {
      nome: 'Bob',
      _embedded: {
        pedidos: {
          data: [],
          meta: { page: 1, limit: 20, total: 0, pages: 0 },
          links: {
            self: `/v1/usuarios/${bob.id}/pedidos?pagina=1&limite=20`,
            first: `/v1/usuarios/${bob.id}/pedidos?pagina=1&limite=20`,
            prev: null,
            next: null,
            last: `/v1/usuarios/${bob.id}/pedidos?pagina=1&limite=20`,
          },
        },
      },
    });
  });

  test('an unknown name, a name twice, the parameter twice: 400 naming it; products have nothing to embed', async () => {
    const path = `/v1/users/${alice.id}`;
    for (const query of ['embed=invoices', 'embed=orders,orders', 'embed=']) {
      const answer = await api.get(`${path}?${query}`);
      assertProblem(answer, 400, 'invalid_query', path, [{ field: 'embed', code: 'invalid_value' }]);
      assert.equal(answer.body.errors[0].message, 'must list distinct names among orders, keys, separated by commas');
    }
    assertProblem(await api.get(`${path}?embed=orders&incluir=orders`), 400, 'invalid_query', path, [
      { field: 'incluir', code: 'repeated_parameter' },
    ]);
    const productPath = `/v1/products/${product.id}`;
    const answer = await api.get(`${productPath}?embed=orders`);
    assertProblem(answer, 400, 'invalid_query', productPath, [{ field: 'embed', code: 'invalid_value' }]);
    assert.equal(answer.body.errors[0].message, 'this resource has nothing to embed');
  });
});

describe('embed on a list', () => {
  test('each user gets their orders; links keep embed; a new order is seen at once (no stale page)', async () => {
    const page = await api.get('/v1/users?embed=orders&sort=name&limit=2');
    assertJson(page, 200);
    assert.deepEqual(
      page.body.data.map((user: { name: string; _embedded: { orders: { meta: { total: number } } } }) => [
        user.name,
        user._embedded.orders.meta.total,
      ]),
      [
        ['Administrator', 0],
        ['Alice', 23],
      ],
    );
    assert.equal(page.body.links.next, '/v1/users?sort=name&embed=orders&page=2&limit=2');
    assert.equal(
      (await bob.client.post(`/v1/users/${bob.id}/orders`, { items: [{ product_id: product.id, quantity: 1 }] }))
        .status,
      201,
    );
    const next = await api.get(page.body.links.next);
    assert.deepEqual(
      next.body.data.map((user: { name: string; _embedded: { orders: { meta: { total: number } } } }) => [
        user.name,
        user._embedded.orders.meta.total,
      ]),
      [['Bob', 1]],
    );
  });
});

describe('embed of a reference, and only what the caller may read', () => {
  const LIBRARY: ResourcesDeclaration = {
    resources: {
      shelves: {
        singular: 'shelf',
        access: { list: 'admin', read: 'admin', create: 'admin', update: 'admin', delete: 'admin' },
        properties: { label: { type: 'string', minLength: 1, maxLength: 40 } },
        required: ['label'],
      },
      authors: {
        singular: 'author',
        access: { list: 'user', read: 'user', create: 'admin', update: 'admin', delete: 'admin' },
        properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
        required: ['name'],
      },
      books: {
        singular: 'book',
        access: { list: 'user', read: 'user', create: 'admin', update: 'admin', delete: 'admin' },
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 100 },
          author_id: { type: 'integer', 'x-references': 'authors' },
          shelf_id: { type: 'integer', 'x-references': 'shelves' },
        },
        required: ['title'],
      },
    },
  };

  test('embed=author_id adds the author; a shelf only admins may read is left out for a user; an absent reference adds nothing', async () => {
    const library = await startTestServerWithAdminBootstrap({ resources: LIBRARY });
    try {
      const author = (await library.post('/v1/authors', { name: 'Clarice Lispector' })).body;
      const shelf = (await library.post('/v1/shelves', { label: 'A1' })).body;
      const book = (
        await library.post('/v1/books', { title: 'A hora da estrela', author_id: author.id, shelf_id: shelf.id })
      ).body;
      const untitled = (await library.post('/v1/books', { title: 'Anonymous' })).body;
      const asAdmin = await library.get(`/v1/books/${book.id}?embed=author_id,shelf_id`);
      assertJson(asAdmin, 200);
      assert.deepEqual(asAdmin.body._embedded, { author_id: author, shelf_id: shelf });
      const reader = await createUserClient(library, {
        name: 'Reader',
        email: 'reader@example.com',
        password: 'reader-password',
      });
      const asUser = await reader.client.get(`/v1/books/${book.id}?embed=author_id,shelf_id`);
      assert.deepEqual(asUser.body._embedded, { author_id: author }, 'the shelf is not theirs to read');
      const list = await reader.client.get('/v1/books?embed=author_id');
      assert.deepEqual(
        list.body.data.map((each: { _embedded?: unknown }) => each._embedded),
        [{ author_id: author }, undefined],
      );
      assert.equal((await reader.client.get(`/v1/books/${untitled.id}?embed=author_id`)).body._embedded, undefined);
    } finally {
      await library.close();
    }
  });
});
