// The Portuguese vocabulary (README: Paths "Localized vocabulary"): the same records under
// /v1/usuarios, /v1/usuarios/{id}/pedidos and /v1/produtos, with Portuguese field names
// in bodies both ways, in error field names, in Location headers and in list links;
// values are never translated, and query parameter names work in either vocabulary.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import { DeclarationError } from '../src/declarations/load-declaration.ts';
import type { TestServer } from './helpers.ts';
import { createProduct, createUser, startTestServer, TEST_ADMIN_EMAIL } from './helpers.ts';
import type { FieldErrorExpectation } from './assertions.ts';
import {
  assertEmpty,
  assertJson,
  assertProblem,
  COLLECTION_ALLOW,
  ITEM_ALLOW,
  RFC3339_UTC,
  STRONG_ETAG,
} from './assertions.ts';

function keys(value: Record<string, unknown>): string[] {
  return Object.keys(value).sort();
}

const PT_USER_KEYS = ['atualizado_em', 'criado_em', 'email', 'id', 'nome', 'papel'];
const PT_PRODUCT_KEYS = ['atualizado_em', 'categoria', 'criado_em', 'descricao', 'id', 'nome', 'preco'];
const PT_ORDER_KEYS = ['atualizado_em', 'criado_em', 'estado', 'id', 'itens', 'total', 'usuario_id'];
const PT_ITEM_KEYS = ['preco_unitario', 'produto_id', 'quantidade'];

/** The English form of a Portuguese user/product/order record, as the other vocabulary must show it. */
function userInEnglish(pt: any): Record<string, unknown> {
  return {
    id: pt.id,
    name: pt.nome,
    email: pt.email,
    role: pt.papel,
    created_at: pt.criado_em,
    updated_at: pt.atualizado_em,
  };
}

function productInEnglish(pt: any): Record<string, unknown> {
  const en: Record<string, unknown> = { id: pt.id, name: pt.nome, category: pt.categoria, price: pt.preco };
  if (pt.descricao !== undefined) en['description'] = pt.descricao;
  return { ...en, created_at: pt.criado_em, updated_at: pt.atualizado_em };
}

function orderInPortuguese(en: any): Record<string, unknown> {
  return {
    id: en.id,
    usuario_id: en.user_id,
    itens: en.items.map((item: any) => ({
      produto_id: item.product_id,
      quantidade: item.quantity,
      preco_unitario: item.unit_price,
    })),
    total: en.total,
    estado: en.status,
    criado_em: en.created_at,
    atualizado_em: en.updated_at,
  };
}

let api: TestServer;

afterEach(async () => {
  await api.close();
});

describe('every Portuguese path answers GET/POST/PUT/PATCH/DELETE with Portuguese bodies', () => {
  beforeEach(async () => {
    api = await startTestServer();
  });

  test('POST /v1/usuarios → 201 exactly {id, nome}, Location /v1/usuarios/{id}, ETag of the record', async () => {
    const response = await api.post('/v1/usuarios', {
      nome: 'Ana Souza',
      email: 'ana@example.com',
      senha: 'segredo-forte',
    });
    assertJson(response, 201);
    assert.ok(Number.isSafeInteger(response.body.id) && response.body.id >= 1);
    assert.deepEqual(response.body, { id: response.body.id, nome: 'Ana Souza' });
    const path = `/v1/usuarios/${response.body.id}`;
    assert.equal(response.headers.get('location'), path);
    const etag = response.headers.get('etag') ?? '';
    assert.match(etag, STRONG_ETAG);

    const read = await api.get(path);
    assertJson(read, 200);
    assert.deepEqual(keys(read.body), PT_USER_KEYS);
    assert.match(read.body.criado_em, RFC3339_UTC);
    assert.deepEqual(read.body, {
      id: response.body.id,
      nome: 'Ana Souza',
      email: 'ana@example.com',
      papel: 'user',
      criado_em: read.body.criado_em,
      atualizado_em: read.body.criado_em,
    });
    assert.equal(read.headers.get('etag'), etag);
  });

  test('GET /v1/usuarios lists users with Portuguese fields, English envelope keys and Portuguese links', async () => {
    const id = await createUser(api, { name: 'Bia', email: 'bia@example.com' });
    const response = await api.get('/v1/usuarios');
    assertJson(response, 200);
    assert.deepEqual(keys(response.body), ['data', 'links', 'meta']);
    // The administrator the server ensures at start comes first (id 1), then Bia.
    assert.equal(response.body.data.length, 2);
    for (const record of response.body.data) assert.deepEqual(keys(record), PT_USER_KEYS);
    assert.equal(response.body.data[0].email, TEST_ADMIN_EMAIL);
    assert.equal(response.body.data[0].papel, 'admin');
    assert.equal(response.body.data[1].id, id);
    assert.equal(response.body.data[1].nome, 'Bia');
    assert.deepEqual(response.body.meta, { page: 1, limit: 20, total: 2, pages: 1 });
    const only = '/v1/usuarios?pagina=1&limite=20';
    assert.deepEqual(response.body.links, { self: only, first: only, prev: null, next: null, last: only });
    assert.equal(response.headers.get('link'), `<${only}>; rel="self", <${only}>; rel="first", <${only}>; rel="last"`);
  });

  test('PUT /v1/usuarios/{id} replaces with Portuguese names; papel is left as it is', async () => {
    const id = await createUser(api, { name: 'Caio', email: 'caio@example.com' });
    const path = `/v1/usuarios/${id}`;
    const response = await api.put(path, {
      nome: 'Caio Lima',
      email: 'caio.lima@example.com',
      senha: 'outra-senha-123',
    });
    assertJson(response, 200);
    assert.deepEqual(keys(response.body), PT_USER_KEYS);
    assert.equal(response.body.nome, 'Caio Lima');
    assert.equal(response.body.email, 'caio.lima@example.com');
    assert.equal(response.body.papel, 'user');
    assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
  });

  test('PATCH /v1/usuarios/{id} merges Portuguese names; papel takes untranslated values', async () => {
    const id = await createUser(api, { name: 'Duda', email: 'duda@example.com' });
    const path = `/v1/usuarios/${id}`;
    const response = await api.patch(path, { nome: 'Duda Reis', papel: 'admin' });
    assertJson(response, 200);
    assert.deepEqual(keys(response.body), PT_USER_KEYS);
    assert.equal(response.body.nome, 'Duda Reis');
    assert.equal(response.body.papel, 'admin');
    assert.equal(response.body.email, 'duda@example.com');
  });

  test('DELETE /v1/usuarios/{id} → 204; the user is gone in both vocabularies', async () => {
    const id = await createUser(api);
    assertEmpty(await api.delete(`/v1/usuarios/${id}`), 204);
    assertProblem(await api.get(`/v1/usuarios/${id}`), 404, 'record_not_found', `/v1/usuarios/${id}`);
    assertProblem(await api.get(`/v1/users/${id}`), 404, 'record_not_found', `/v1/users/${id}`);
  });

  test('POST /v1/produtos → 201 full record with Portuguese keys, Location /v1/produtos/{id}, ETag', async () => {
    const response = await api.post('/v1/produtos', {
      nome: 'Café',
      categoria: 'coffee',
      preco: 12.5,
      descricao: 'Torra média',
    });
    assertJson(response, 201);
    const body = response.body;
    assert.deepEqual(keys(body), PT_PRODUCT_KEYS);
    assert.match(body.criado_em, RFC3339_UTC);
    assert.deepEqual(body, {
      id: body.id,
      nome: 'Café',
      categoria: 'coffee',
      preco: 12.5,
      descricao: 'Torra média',
      criado_em: body.criado_em,
      atualizado_em: body.criado_em,
    });
    assert.equal(response.headers.get('location'), `/v1/produtos/${body.id}`);
    const read = await api.get(`/v1/produtos/${body.id}`);
    assertJson(read, 200);
    assert.deepEqual(read.body, body);
    assert.equal(read.headers.get('etag'), response.headers.get('etag'));
  });

  test('GET /v1/produtos lists products with Portuguese fields', async () => {
    const product = await createProduct(api, { name: 'Chá', category: 'tea', price: 3 });
    const response = await api.get('/v1/produtos');
    assertJson(response, 200);
    assert.deepEqual(response.body.data, [
      {
        id: product.id,
        nome: 'Chá',
        categoria: 'tea',
        preco: 3,
        criado_em: product.created_at,
        atualizado_em: product.updated_at,
      },
    ]);
  });

  test('PUT /v1/produtos/{id} replaces with Portuguese names; absent descricao is removed', async () => {
    const product = await createProduct(api, { name: 'Caneca', description: 'Branca' });
    const path = `/v1/produtos/${product.id}`;
    const response = await api.put(path, { nome: 'Caneca grande', categoria: 'accessories', preco: 15 });
    assertJson(response, 200);
    assert.deepEqual(response.body, {
      id: product.id,
      nome: 'Caneca grande',
      categoria: 'accessories',
      preco: 15,
      criado_em: product.created_at,
      atualizado_em: response.body.atualizado_em,
    });
  });

  test('PATCH /v1/produtos/{id} merges Portuguese names; descricao null removes it', async () => {
    const product = await createProduct(api, { name: 'Filtro', price: 4, description: 'Papel' });
    const path = `/v1/produtos/${product.id}`;
    const response = await api.patch(path, { preco: 4.5, descricao: null });
    assertJson(response, 200);
    assert.deepEqual(response.body, {
      id: product.id,
      nome: 'Filtro',
      categoria: product.category,
      preco: 4.5,
      criado_em: product.created_at,
      atualizado_em: response.body.atualizado_em,
    });
  });

  test('DELETE /v1/produtos/{id} → 204; the product is gone in both vocabularies', async () => {
    const product = await createProduct(api);
    assertEmpty(await api.delete(`/v1/produtos/${product.id}`), 204);
    assertProblem(await api.get(`/v1/produtos/${product.id}`), 404, 'record_not_found', `/v1/produtos/${product.id}`);
    assertProblem(await api.get(`/v1/products/${product.id}`), 404, 'record_not_found', `/v1/products/${product.id}`);
  });

  test('POST /v1/usuarios/{id}/pedidos → 201 full record with Portuguese keys, estado "pending", Location in Portuguese', async () => {
    const userId = await createUser(api);
    const product = await createProduct(api, { price: 19.99 });
    const response = await api.post(`/v1/usuarios/${userId}/pedidos`, {
      itens: [{ produto_id: product.id, quantidade: 3 }],
    });
    assertJson(response, 201);
    const body = response.body;
    assert.deepEqual(keys(body), PT_ORDER_KEYS);
    assert.deepEqual(keys(body.itens[0]), PT_ITEM_KEYS);
    assert.match(body.criado_em, RFC3339_UTC);
    assert.deepEqual(body, {
      id: body.id,
      usuario_id: userId,
      itens: [{ produto_id: product.id, quantidade: 3, preco_unitario: 19.99 }],
      total: 59.97,
      estado: 'pending',
      criado_em: body.criado_em,
      atualizado_em: body.criado_em,
    });
    assert.equal(response.headers.get('location'), `/v1/usuarios/${userId}/pedidos/${body.id}`);
    const read = await api.get(`/v1/usuarios/${userId}/pedidos/${body.id}`);
    assertJson(read, 200);
    assert.deepEqual(read.body, body);
    assert.equal(read.headers.get('etag'), response.headers.get('etag'));
  });

  test('GET /v1/usuarios/{id}/pedidos lists orders with Portuguese fields and links', async () => {
    const userId = await createUser(api);
    const product = await createProduct(api, { price: 2 });
    const created = await api.post(`/v1/usuarios/${userId}/pedidos`, {
      itens: [{ produto_id: product.id, quantidade: 2 }],
    });
    assertJson(created, 201);
    const path = `/v1/usuarios/${userId}/pedidos`;
    const response = await api.get(path);
    assertJson(response, 200);
    assert.deepEqual(response.body.data, [created.body]);
    const only = `${path}?pagina=1&limite=20`;
    assert.deepEqual(response.body.links, { self: only, first: only, prev: null, next: null, last: only });
  });

  test('PUT /v1/usuarios/{id}/pedidos/{id} replaces itens; PATCH moves estado; DELETE → 204', async () => {
    const userId = await createUser(api);
    const a = await createProduct(api, { name: 'A', price: 1.5 });
    const b = await createProduct(api, { name: 'B', price: 2.25 });
    const created = await api.post(`/v1/usuarios/${userId}/pedidos`, { itens: [{ produto_id: a.id, quantidade: 1 }] });
    assertJson(created, 201);
    const path = `/v1/usuarios/${userId}/pedidos/${created.body.id}`;

    const put = await api.put(path, { itens: [{ produto_id: b.id, quantidade: 2 }] });
    assertJson(put, 200);
    assert.deepEqual(put.body, {
      ...created.body,
      itens: [{ produto_id: b.id, quantidade: 2, preco_unitario: 2.25 }],
      total: 4.5,
      atualizado_em: put.body.atualizado_em,
    });

    const patch = await api.patch(path, { estado: 'paid' });
    assertJson(patch, 200);
    assert.deepEqual(patch.body, { ...put.body, estado: 'paid', atualizado_em: patch.body.atualizado_em });

    const illegal = await api.patch(path, { estado: 'pending' });
    assertProblem(illegal, 409, 'invalid_transition', path);

    assertEmpty(await api.delete(path), 204);
    assertProblem(await api.get(path), 404, 'record_not_found', path);
  });
});

describe('one record, two vocabularies', () => {
  beforeEach(async () => {
    api = await startTestServer();
  });

  test('a user created in Portuguese reads the same in English, and back', async () => {
    const created = await api.post('/v1/usuarios', { nome: 'Eva', email: 'eva@example.com' });
    assertJson(created, 201);
    const pt = await api.get(`/v1/usuarios/${created.body.id}`);
    const en = await api.get(`/v1/users/${created.body.id}`);
    assertJson(pt, 200);
    assertJson(en, 200);
    assert.deepEqual(en.body, userInEnglish(pt.body));

    const patched = await api.patch(`/v1/users/${created.body.id}`, { name: 'Eva Nunes' });
    assertJson(patched, 200);
    const again = await api.get(`/v1/usuarios/${created.body.id}`);
    assertJson(again, 200);
    assert.equal(again.body.nome, 'Eva Nunes');
    assert.deepEqual(userInEnglish(again.body), patched.body);
  });

  test('a product created in Portuguese reads the same in English; one created in English reads the same in Portuguese', async () => {
    const pt = await api.post('/v1/produtos', {
      nome: 'Moedor',
      categoria: 'equipment',
      preco: 99.9,
      descricao: 'Manual',
    });
    assertJson(pt, 201);
    const en = await api.get(`/v1/products/${pt.body.id}`);
    assertJson(en, 200);
    assert.deepEqual(en.body, productInEnglish(pt.body));

    const english = await createProduct(api, { name: 'Kettle', category: 'equipment', price: 40 });
    const portuguese = await api.get(`/v1/produtos/${english.id}`);
    assertJson(portuguese, 200);
    assert.deepEqual(productInEnglish(portuguese.body), english);
  });

  test('an order created in English reads the same in Portuguese, and a Portuguese PATCH shows in English', async () => {
    const userId = await createUser(api);
    const product = await createProduct(api, { price: 0.1 });
    const created = await api.post(`/v1/users/${userId}/orders`, { items: [{ product_id: product.id, quantity: 3 }] });
    assertJson(created, 201);
    const pt = await api.get(`/v1/usuarios/${userId}/pedidos/${created.body.id}`);
    assertJson(pt, 200);
    assert.deepEqual(pt.body, orderInPortuguese(created.body));

    const cancelled = await api.patch(`/v1/usuarios/${userId}/pedidos/${created.body.id}`, { estado: 'cancelled' });
    assertJson(cancelled, 200);
    const en = await api.get(`/v1/users/${userId}/orders/${created.body.id}`);
    assertJson(en, 200);
    assert.equal(en.body.status, 'cancelled');
    assert.deepEqual(orderInPortuguese(en.body), cancelled.body);
  });
});

describe('field names of the other vocabulary are unknown fields (422)', () => {
  let userId: number;
  let productId: number;
  let orderId: number;
  beforeEach(async () => {
    api = await startTestServer();
    userId = await createUser(api);
    productId = (await createProduct(api)).id;
    const order = await api.post(`/v1/users/${userId}/orders`, { items: [{ product_id: productId, quantity: 1 }] });
    assertJson(order, 201);
    orderId = order.body.id;
  });

  const cases: {
    name: string;
    method: string;
    path: () => string;
    body: () => unknown;
    errors: FieldErrorExpectation[];
  }[] = [
    {
      name: 'POST /v1/usuarios with "name"',
      method: 'POST',
      path: () => '/v1/usuarios',
      body: () => ({ name: 'Ana', email: 'ana@example.com' }),
      errors: [
        { field: 'name', code: 'unknown_field' },
        { field: 'nome', code: 'required' },
      ],
    },
    {
      name: 'POST /v1/usuarios with "password"',
      method: 'POST',
      path: () => '/v1/usuarios',
      body: () => ({ nome: 'Ana', email: 'ana@example.com', password: 'segredo-forte' }),
      errors: [{ field: 'password', code: 'unknown_field' }],
    },
    {
      name: 'PATCH /v1/usuarios/{id} with "role"',
      method: 'PATCH',
      path: () => `/v1/usuarios/${userId}`,
      body: () => ({ role: 'admin' }),
      errors: [{ field: 'role', code: 'unknown_field' }],
    },
    {
      name: 'POST /v1/produtos with "description"',
      method: 'POST',
      path: () => '/v1/produtos',
      body: () => ({ nome: 'Café', categoria: 'coffee', preco: 1, description: 'x' }),
      errors: [{ field: 'description', code: 'unknown_field' }],
    },
    {
      name: 'PUT /v1/produtos/{id} with "price"',
      method: 'PUT',
      path: () => `/v1/produtos/${productId}`,
      body: () => ({ nome: 'Café', categoria: 'coffee', price: 1 }),
      errors: [
        { field: 'price', code: 'unknown_field' },
        { field: 'preco', code: 'required' },
      ],
    },
    {
      name: 'PATCH /v1/produtos/{id} with "category"',
      method: 'PATCH',
      path: () => `/v1/produtos/${productId}`,
      body: () => ({ category: 'tea' }),
      errors: [{ field: 'category', code: 'unknown_field' }],
    },
    {
      name: 'POST /v1/usuarios/{id}/pedidos with "items"',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ items: [{ produto_id: productId, quantidade: 1 }] }),
      errors: [
        { field: 'items', code: 'unknown_field' },
        { field: 'itens', code: 'required' },
      ],
    },
    {
      name: 'POST /v1/usuarios/{id}/pedidos with "product_id" inside itens',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ itens: [{ product_id: productId, quantidade: 1 }] }),
      errors: [
        { field: 'itens[0].product_id', code: 'unknown_field' },
        { field: 'itens[0].produto_id', code: 'required' },
      ],
    },
    {
      name: 'PATCH /v1/usuarios/{id}/pedidos/{id} with "status"',
      method: 'PATCH',
      path: () => `/v1/usuarios/${userId}/pedidos/${orderId}`,
      body: () => ({ status: 'paid' }),
      errors: [{ field: 'status', code: 'unknown_field' }],
    },
    {
      name: 'POST /v1/users with "nome"',
      method: 'POST',
      path: () => '/v1/users',
      body: () => ({ nome: 'Ana', email: 'ana@example.com' }),
      errors: [
        { field: 'nome', code: 'unknown_field' },
        { field: 'name', code: 'required' },
      ],
    },
    {
      name: 'PATCH /v1/users/{id} with "papel"',
      method: 'PATCH',
      path: () => `/v1/users/${userId}`,
      body: () => ({ papel: 'admin' }),
      errors: [{ field: 'papel', code: 'unknown_field' }],
    },
    {
      name: 'POST /v1/products with "preco"',
      method: 'POST',
      path: () => '/v1/products',
      body: () => ({ name: 'Coffee', category: 'coffee', preco: 1 }),
      errors: [
        { field: 'preco', code: 'unknown_field' },
        { field: 'price', code: 'required' },
      ],
    },
    {
      name: 'PATCH /v1/products/{id} with "descricao"',
      method: 'PATCH',
      path: () => `/v1/products/${productId}`,
      body: () => ({ descricao: 'x' }),
      errors: [{ field: 'descricao', code: 'unknown_field' }],
    },
    {
      name: 'POST /v1/users/{id}/orders with "itens"',
      method: 'POST',
      path: () => `/v1/users/${userId}/orders`,
      body: () => ({ itens: [{ product_id: productId, quantity: 1 }] }),
      errors: [
        { field: 'itens', code: 'unknown_field' },
        { field: 'items', code: 'required' },
      ],
    },
    {
      name: 'POST /v1/users/{id}/orders with "produto_id" inside items',
      method: 'POST',
      path: () => `/v1/users/${userId}/orders`,
      body: () => ({ items: [{ produto_id: productId, quantity: 1 }] }),
      errors: [
        { field: 'items[0].produto_id', code: 'unknown_field' },
        { field: 'items[0].product_id', code: 'required' },
      ],
    },
    {
      name: 'PATCH /v1/users/{id}/orders/{id} with "estado"',
      method: 'PATCH',
      path: () => `/v1/users/${userId}/orders/${orderId}`,
      body: () => ({ estado: 'paid' }),
      errors: [{ field: 'estado', code: 'unknown_field' }],
    },
  ];
  for (const c of cases) {
    test(`${c.name} → 422 unknown_field naming it as sent`, async () => {
      const path = c.path();
      const response = await api.request(c.method, path, { body: c.body() });
      assertProblem(response, 422, 'validation_failed', path, c.errors);
    });
  }
});

describe("error field names are in the path's vocabulary", () => {
  let userId: number;
  let productId: number;
  beforeEach(async () => {
    api = await startTestServer();
    userId = await createUser(api);
    productId = (await createProduct(api, { price: 5 })).id;
  });

  const cases: {
    name: string;
    method: string;
    path: () => string;
    body: () => unknown;
    errors: FieldErrorExpectation[];
  }[] = [
    {
      name: 'unknown product → itens[0].produto_id unknown_product',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ itens: [{ produto_id: 999, quantidade: 1 }] }),
      errors: [{ field: 'itens[0].produto_id', code: 'unknown_product' }],
    },
    {
      name: 'same product twice → itens[1].produto_id duplicate_product',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({
        itens: [
          { produto_id: productId, quantidade: 1 },
          { produto_id: productId, quantidade: 1 },
        ],
      }),
      errors: [{ field: 'itens[1].produto_id', code: 'duplicate_product' }],
    },
    {
      name: 'quantity 0 → itens[0].quantidade too_small',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ itens: [{ produto_id: productId, quantidade: 0 }] }),
      errors: [{ field: 'itens[0].quantidade', code: 'too_small' }],
    },
    {
      name: 'unit price on POST → itens[0].preco_unitario server_field',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ itens: [{ produto_id: productId, quantidade: 1, preco_unitario: 5 }] }),
      errors: [{ field: 'itens[0].preco_unitario', code: 'server_field' }],
    },
    {
      name: 'empty itens → itens too_few_items',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ itens: [] }),
      errors: [{ field: 'itens', code: 'too_few_items' }],
    },
    {
      name: 'new order not pending → estado invalid_value',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ itens: [{ produto_id: productId, quantidade: 1 }], estado: 'paid' }),
      errors: [{ field: 'estado', code: 'invalid_value' }],
    },
    {
      name: 'user id on POST → usuario_id server_field',
      method: 'POST',
      path: () => `/v1/usuarios/${userId}/pedidos`,
      body: () => ({ itens: [{ produto_id: productId, quantidade: 1 }], usuario_id: userId }),
      errors: [{ field: 'usuario_id', code: 'server_field' }],
    },
    {
      name: 'three decimals → preco invalid_format; empty name → nome too_short; missing category → categoria required',
      method: 'POST',
      path: () => '/v1/produtos',
      body: () => ({ nome: '', preco: 1.234 }),
      errors: [
        { field: 'preco', code: 'invalid_format' },
        { field: 'nome', code: 'too_short' },
        { field: 'categoria', code: 'required' },
      ],
    },
    {
      name: 'negative price → preco too_small',
      method: 'PATCH',
      path: () => `/v1/produtos/${productId}`,
      body: () => ({ preco: -1 }),
      errors: [{ field: 'preco', code: 'too_small' }],
    },
    {
      name: 'name null in PATCH → nome required',
      method: 'PATCH',
      path: () => `/v1/produtos/${productId}`,
      body: () => ({ nome: null }),
      errors: [{ field: 'nome', code: 'required' }],
    },
    {
      name: 'short password and bad email → senha too_short, email invalid_format',
      method: 'POST',
      path: () => '/v1/usuarios',
      body: () => ({ nome: 'Ana', email: 'not-an-email', senha: 'curta' }),
      errors: [
        { field: 'email', code: 'invalid_format' },
        { field: 'senha', code: 'too_short' },
      ],
    },
    {
      name: 'creation date on POST → criado_em server_field',
      method: 'POST',
      path: () => '/v1/usuarios',
      body: () => ({ nome: 'Ana', email: 'ana@example.com', criado_em: '2026-01-01T00:00:00.000Z' }),
      errors: [{ field: 'criado_em', code: 'server_field' }],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const path = c.path();
      const response = await api.request(c.method, path, { body: c.body() });
      assertProblem(response, 422, 'validation_failed', path, c.errors);
    });
  }

  test('a different preco_unitario on PUT → itens[0].preco_unitario server_field; the same one is accepted', async () => {
    const created = await api.post(`/v1/usuarios/${userId}/pedidos`, {
      itens: [{ produto_id: productId, quantidade: 2 }],
    });
    assertJson(created, 201);
    const path = `/v1/usuarios/${userId}/pedidos/${created.body.id}`;
    const different = await api.put(path, { itens: [{ produto_id: productId, quantidade: 2, preco_unitario: 4 }] });
    assertProblem(different, 422, 'validation_failed', path, [
      { field: 'itens[0].preco_unitario', code: 'server_field' },
    ]);
    const same = await api.put(path, { itens: [{ produto_id: productId, quantidade: 2, preco_unitario: 5 }] });
    assertJson(same, 200);
    assert.deepEqual(same.body, created.body);
  });
});

describe('values are not translated', () => {
  beforeEach(async () => {
    api = await startTestServer();
  });

  test('estado is "pending" and papel is "user" on Portuguese paths', async () => {
    const created = await api.post('/v1/usuarios', { nome: 'Gil', email: 'gil@example.com' });
    assertJson(created, 201);
    const userId = created.body.id as number;
    const user = await api.get(`/v1/usuarios/${userId}`);
    assert.equal(user.body.papel, 'user');
    const product = await createProduct(api);
    const order = await api.post(`/v1/usuarios/${userId}/pedidos`, {
      itens: [{ produto_id: product.id, quantidade: 1 }],
    });
    assertJson(order, 201);
    assert.equal(order.body.estado, 'pending');
  });

  const cases: {
    name: string;
    method: string;
    path: (userId: number, orderId: number) => string;
    body: unknown;
    field: string;
  }[] = [
    {
      name: 'estado "pago"',
      method: 'PATCH',
      path: (u, o) => `/v1/usuarios/${u}/pedidos/${o}`,
      body: { estado: 'pago' },
      field: 'estado',
    },
    {
      name: 'estado "cancelado"',
      method: 'PATCH',
      path: (u, o) => `/v1/usuarios/${u}/pedidos/${o}`,
      body: { estado: 'cancelado' },
      field: 'estado',
    },
    {
      name: 'papel "administrador"',
      method: 'PATCH',
      path: (u) => `/v1/usuarios/${u}`,
      body: { papel: 'administrador' },
      field: 'papel',
    },
    {
      name: 'papel "usuario"',
      method: 'PATCH',
      path: (u) => `/v1/usuarios/${u}`,
      body: { papel: 'usuario' },
      field: 'papel',
    },
  ];
  for (const c of cases) {
    test(`a translated value (${c.name}) → 422 invalid_value`, async () => {
      const userId = await createUser(api);
      const product = await createProduct(api);
      const order = await api.post(`/v1/users/${userId}/orders`, { items: [{ product_id: product.id, quantity: 1 }] });
      assertJson(order, 201);
      const path = c.path(userId, order.body.id);
      const response = await api.request(c.method, path, { body: c.body });
      assertProblem(response, 422, 'validation_failed', path, [{ field: c.field, code: 'invalid_value' }]);
    });
  }

  test('filter values are not translated either: estado=pendente → 400 invalid_value', async () => {
    const userId = await createUser(api);
    const path = `/v1/usuarios/${userId}/pedidos`;
    const response = await api.get(`${path}?estado=pendente`);
    assertProblem(response, 400, 'invalid_query', path, [{ field: 'estado', code: 'invalid_value' }]);
  });
});

describe("query parameter names in either vocabulary, links in the path's vocabulary (seeded)", () => {
  beforeEach(async () => {
    api = await startTestServer({ seed: true });
  });

  /** Tea, by price descending: 4 (6.8), 5 (5.95), 6 (4.2); page 2 of 1 each is product 5. */
  const productCases: { name: string; path: string; links: string; pt: boolean }[] = [
    {
      name: 'Portuguese names on /v1/products → English links',
      path: '/v1/products?categoria=tea&ordenar=-preco&pagina=2&limite=1',
      links: '/v1/products?category=tea&sort=-price',
      pt: false,
    },
    {
      name: 'English names with a Portuguese sort field on /v1/products → English links',
      path: '/v1/products?category=tea&sort=-preco&page=2&limit=1',
      links: '/v1/products?category=tea&sort=-price',
      pt: false,
    },
    {
      name: 'English names on /v1/produtos → Portuguese links',
      path: '/v1/produtos?category=tea&sort=-price&page=2&limit=1',
      links: '/v1/produtos?categoria=tea&ordenar=-preco',
      pt: true,
    },
    {
      name: 'Portuguese names on /v1/produtos → Portuguese links',
      path: '/v1/produtos?categoria=tea&ordenar=-preco&pagina=2&limite=1',
      links: '/v1/produtos?categoria=tea&ordenar=-preco',
      pt: true,
    },
  ];
  for (const c of productCases) {
    test(c.name, async () => {
      const response = await api.get(c.path);
      assertJson(response, 200);
      const record = (await api.get(c.pt ? '/v1/produtos/5' : '/v1/products/5')).body;
      assert.deepEqual(response.body.data, [record]);
      assert.deepEqual(
        keys(record),
        c.pt
          ? ['atualizado_em', 'categoria', 'criado_em', 'descricao', 'id', 'nome', 'preco']
          : ['category', 'created_at', 'description', 'id', 'name', 'price', 'updated_at'],
      );
      assert.deepEqual(response.body.meta, { page: 2, limit: 1, total: 3, pages: 3 });
      const page = c.pt ? 'pagina' : 'page';
      const limit = c.pt ? 'limite' : 'limit';
      const at = (n: number): string => `${c.links}&${page}=${n}&${limit}=1`;
      assert.deepEqual(response.body.links, { self: at(2), first: at(1), prev: at(1), next: at(3), last: at(3) });
      assert.equal(
        response.headers.get('link'),
        `<${at(2)}>; rel="self", <${at(1)}>; rel="first", <${at(1)}>; rel="prev", <${at(3)}>; rel="next", <${at(3)}>; rel="last"`,
      );
    });
  }

  test('page/limit on /v1/produtos without other parameters → links with pagina/limite', async () => {
    const response = await api.get('/v1/produtos?page=3&limit=5');
    assertJson(response, 200);
    assert.deepEqual(
      response.body.data.map((product: any) => product.id),
      [11, 12],
    );
    assert.deepEqual(response.body.meta, { page: 3, limit: 5, total: 12, pages: 3 });
    const at = (n: number): string => `/v1/produtos?pagina=${n}&limite=5`;
    assert.deepEqual(response.body.links, { self: at(3), first: at(1), prev: at(2), next: null, last: at(3) });
    assert.equal(
      response.headers.get('link'),
      `<${at(3)}>; rel="self", <${at(1)}>; rel="first", <${at(2)}>; rel="prev", <${at(3)}>; rel="last"`,
    );
  });

  test('users on /v1/usuarios: papel filter and ordenar=-nome → Portuguese links', async () => {
    const response = await api.get('/v1/usuarios?role=user&sort=-name&limit=1');
    assertJson(response, 200);
    assert.deepEqual(
      response.body.data.map((user: any) => [user.id, user.nome, user.papel]),
      [[2, 'Bob Example', 'user']],
    );
    const at = (n: number): string => `/v1/usuarios?papel=user&ordenar=-nome&pagina=${n}&limite=1`;
    assert.deepEqual(response.body.links, { self: at(1), first: at(1), prev: null, next: at(2), last: at(2) });
    assert.equal(
      response.headers.get('link'),
      `<${at(1)}>; rel="self", <${at(1)}>; rel="first", <${at(2)}>; rel="next", <${at(2)}>; rel="last"`,
    );
  });

  test('orders on /v1/usuarios/1/pedidos: status filter and sort=-created_at → estado and ordenar=-criado_em in links', async () => {
    const path = '/v1/usuarios/1/pedidos';
    const response = await api.get(`${path}?status=pending&sort=-created_at`);
    assertJson(response, 200);
    assert.deepEqual(
      response.body.data.map((order: any) => [order.id, order.estado]),
      [[3, 'pending']],
    );
    const only = `${path}?estado=pending&ordenar=-criado_em&pagina=1&limite=20`;
    assert.deepEqual(response.body.links, { self: only, first: only, prev: null, next: null, last: only });
    assert.equal(response.headers.get('link'), `<${only}>; rel="self", <${only}>; rel="first", <${only}>; rel="last"`);
  });

  test('orders on /v1/users/1/orders with estado and ordenar=-total → English links', async () => {
    const path = '/v1/users/1/orders';
    const response = await api.get(`${path}?estado=pending&ordenar=-total`);
    assertJson(response, 200);
    assert.deepEqual(
      response.body.data.map((order: any) => [order.id, order.status]),
      [[3, 'pending']],
    );
    const only = `${path}?status=pending&sort=-total&page=1&limit=20`;
    assert.deepEqual(response.body.links, { self: only, first: only, prev: null, next: null, last: only });
  });

  const repeated: { path: string; names: [string, string] }[] = [
    { path: '/v1/products?page=1&pagina=2', names: ['page', 'pagina'] },
    { path: '/v1/produtos?pagina=1&page=2', names: ['pagina', 'page'] },
    { path: '/v1/produtos?limite=5&limit=5', names: ['limite', 'limit'] },
    { path: '/v1/products?sort=price&ordenar=preco', names: ['sort', 'ordenar'] },
  ];
  for (const c of repeated) {
    test(`${c.path} → 400 invalid_query repeated_parameter`, async () => {
      const response = await api.get(c.path);
      const instance = c.path.slice(0, c.path.indexOf('?'));
      assertJson(response, 400);
      assert.equal(response.body.errors.length, 1);
      const field = response.body.errors[0].field as string;
      assert.ok(c.names.includes(field), `the error names one of ${c.names.join(', ')}, not ${field}`);
      assertProblem(response, 400, 'invalid_query', instance, [{ field, code: 'repeated_parameter' }]);
    });
  }

  const badValues: { path: string; field: string; code: string }[] = [
    { path: '/v1/produtos?pagina=0', field: 'pagina', code: 'invalid_value' },
    { path: '/v1/produtos?limite=500', field: 'limite', code: 'invalid_value' },
    { path: '/v1/produtos?ordenar=nope', field: 'ordenar', code: 'invalid_value' },
    { path: '/v1/produtos?cor=azul', field: 'cor', code: 'unknown_parameter' },
  ];
  for (const c of badValues) {
    test(`${c.path} → 400 invalid_query naming "${c.field}" as sent`, async () => {
      const response = await api.get(c.path);
      assertProblem(response, 400, 'invalid_query', c.path.slice(0, c.path.indexOf('?')), [
        { field: c.field, code: c.code },
      ]);
    });
  }
});

describe('ETags differ between vocabularies, each stable', () => {
  beforeEach(async () => {
    api = await startTestServer({ seed: true });
  });

  const pairs: { name: string; pt: string; en: string; patch: Record<string, unknown> }[] = [
    { name: 'user', pt: '/v1/usuarios/1', en: '/v1/users/1', patch: { nome: 'Alice Souza' } },
    { name: 'product', pt: '/v1/produtos/1', en: '/v1/products/1', patch: { preco: 25 } },
    { name: 'order', pt: '/v1/usuarios/1/pedidos/3', en: '/v1/users/1/orders/3', patch: { estado: 'paid' } },
  ];
  for (const c of pairs) {
    test(`${c.name}: stable per vocabulary, different across; If-None-Match and If-Match compare within one vocabulary`, async () => {
      const pt1 = await api.get(c.pt);
      const pt2 = await api.get(c.pt);
      const en1 = await api.get(c.en);
      const en2 = await api.get(c.en);
      for (const response of [pt1, pt2, en1, en2]) assertJson(response, 200);
      const ptTag = pt1.headers.get('etag') ?? '';
      const enTag = en1.headers.get('etag') ?? '';
      assert.match(ptTag, STRONG_ETAG);
      assert.match(enTag, STRONG_ETAG);
      assert.equal(pt2.headers.get('etag'), ptTag);
      assert.equal(en2.headers.get('etag'), enTag);
      assert.notEqual(ptTag, enTag);

      const notModified = await api.get(c.pt, { 'if-none-match': ptTag });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.text, '');
      assert.equal(notModified.headers.get('etag'), ptTag);
      const otherTag = await api.get(c.pt, { 'if-none-match': enTag });
      assertJson(otherTag, 200);
      assert.deepEqual(otherTag.body, pt1.body);

      const stale = await api.patch(c.pt, c.patch, { 'if-match': enTag });
      assertProblem(stale, 412, 'precondition_failed', c.pt);
      const unchanged = await api.get(c.pt);
      assert.equal(unchanged.headers.get('etag'), ptTag);
      const fresh = await api.patch(c.pt, c.patch, { 'if-match': ptTag });
      assertJson(fresh, 200);
      assert.notEqual(fresh.headers.get('etag'), ptTag);
    });
  }
});

describe('404 and 405 on Portuguese paths carry the same codes as in English', () => {
  beforeEach(async () => {
    api = await startTestServer({ seed: true });
  });

  const notFound: { path: string; code: string }[] = [
    { path: '/v1/usuarios/999', code: 'record_not_found' },
    { path: '/v1/produtos/999', code: 'record_not_found' },
    { path: '/v1/usuarios/999/pedidos', code: 'record_not_found' },
    { path: '/v1/usuarios/1/pedidos/999', code: 'record_not_found' },
    { path: '/v1/usuarios/2/pedidos/1', code: 'record_not_found' },
    { path: '/v1/usuarios/abc', code: 'route_not_found' },
    { path: '/v1/usuarios/0', code: 'route_not_found' },
    { path: '/v1/produtos/01', code: 'route_not_found' },
    { path: '/v1/produtos/1.5', code: 'route_not_found' },
    { path: '/v1/usuarios/', code: 'route_not_found' },
    { path: '/v1/usuarios/1/pedidos/', code: 'route_not_found' },
    { path: '/v1/pedidos', code: 'route_not_found' },
    { path: '/v1/usuarios/1/orders', code: 'route_not_found' },
    { path: '/v1/users/1/pedidos', code: 'route_not_found' },
  ];
  for (const c of notFound) {
    test(`GET ${c.path} → 404 ${c.code}`, async () => {
      assertProblem(await api.get(c.path), 404, c.code, c.path);
    });
  }

  for (const c of [
    { path: '/usuarios', twin: '/v1/usuarios' },
    { path: '/produtos/3', twin: '/v1/produtos/3' },
    { path: '/usuarios/1/pedidos', twin: '/v1/usuarios/1/pedidos' },
  ]) {
    test(`GET ${c.path} → 404 unversioned_path pointing at ${c.twin}`, async () => {
      const response = await api.get(c.path);
      assertProblem(response, 404, 'unversioned_path', c.path);
      assert.ok(response.body.detail.includes(c.twin), `detail mentions ${c.twin}: ${response.body.detail}`);
    });
  }

  const wrongMethods: { method: string; pt: string; en: string; allow: string }[] = [
    { method: 'DELETE', pt: '/v1/usuarios', en: '/v1/users', allow: COLLECTION_ALLOW },
    { method: 'PUT', pt: '/v1/produtos', en: '/v1/products', allow: COLLECTION_ALLOW },
    { method: 'PATCH', pt: '/v1/usuarios/1/pedidos', en: '/v1/users/1/orders', allow: COLLECTION_ALLOW },
    { method: 'POST', pt: '/v1/usuarios/1', en: '/v1/users/1', allow: ITEM_ALLOW },
    { method: 'POST', pt: '/v1/produtos/1', en: '/v1/products/1', allow: ITEM_ALLOW },
    { method: 'POST', pt: '/v1/usuarios/1/pedidos/1', en: '/v1/users/1/orders/1', allow: ITEM_ALLOW },
  ];
  for (const c of wrongMethods) {
    test(`${c.method} ${c.pt} → 405 method_not_allowed with Allow "${c.allow}", like ${c.en}`, async () => {
      for (const path of [c.pt, c.en]) {
        const response = await api.request(c.method, path);
        assertProblem(response, 405, 'method_not_allowed', path);
        assert.equal(response.headers.get('allow'), c.allow);
      }
    });

    test(`OPTIONS ${c.pt} → 204 with Allow "${c.allow}"`, async () => {
      const response = await api.request('OPTIONS', c.pt);
      assertEmpty(response, 204);
      assert.equal(response.headers.get('allow'), c.allow);
    });
  }
});

describe('a vocabulary may not name a collection as a path plainrest serves itself (README: Your own resources)', () => {
  const notes = (collection: string): ResourcesDeclaration => ({
    resources: {
      notes: {
        singular: 'note',
        access: { list: 'public', read: 'public', create: 'admin', update: 'admin', delete: 'admin' },
        properties: { text: { type: 'string' } },
        names: { pt: { collection, singular: 'nota' } },
      },
    },
  });

  test('names.pt.collection "eventos" (the change feed in Portuguese) stops the start; "notas" is served beside the feed', async () => {
    await assert.rejects(
      startTestServer({ resources: notes('eventos') }),
      new DeclarationError([
        'resources: /resources/notes/names/pt/collection: "eventos" is reserved: plainrest serves /v1/eventos itself ' +
          '(its change feed, in Portuguese)',
      ]),
    );
    api = await startTestServer({ resources: notes('notas') });
    assert.equal((await api.post('/v1/notas', { text: 'olá' })).status, 201);
    assert.equal((await api.as(undefined).get('/v1/notas')).body.meta.total, 1);
    const feed = await api.get('/v1/eventos?colecao=notas');
    assert.equal(feed.status, 200);
    assert.deepEqual(
      feed.body.data.map((event: { collection: string; path: string }) => [event.collection, event.path]),
      [['notas', '/v1/notas/1']],
    );
  });
});
