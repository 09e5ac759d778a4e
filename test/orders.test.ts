// Orders (README: Records, brief "Orders"): nested under their user, priced by the server
// in exact cents, a four-state machine with 409s for illegal moves, items frozen once
// the order leaves pending, 404 under any other user's path, and deleted with their user.

import assert from 'node:assert/strict';
import { readDataDirectory } from '../src/store/data-directory.ts';
import { EXAMPLE } from './example-definitions.ts';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TestResponse, TestServer } from './helpers.ts';
import { createProduct, createUser, heldRequest, startTestServer, temporaryDirectory } from './helpers.ts';
import type { FieldErrorExpectation } from './assertions.ts';
import { assertEmpty, assertJson, assertProblem, RFC3339_UTC, STRONG_ETAG } from './assertions.ts';

type Status = 'pending' | 'paid' | 'shipped' | 'cancelled';
const STATUSES: readonly Status[] = ['pending', 'paid', 'shipped', 'cancelled'];
const ALLOWED: ReadonlySet<string> = new Set(['pending>paid', 'paid>shipped', 'pending>cancelled', 'paid>cancelled']);
/** PATCHes that lead a new (pending) order to each status. */
const ROUTE_TO: Record<Status, readonly Status[]> = {
  pending: [],
  paid: ['paid'],
  shipped: ['paid', 'shipped'],
  cancelled: ['cancelled'],
};

function ordersPath(userId: number): string {
  return `/v1/users/${userId}/orders`;
}

function orderPath(userId: number, orderId: number): string {
  return `${ordersPath(userId)}/${orderId}`;
}

interface Line {
  product_id: number;
  quantity: number;
}

async function createOrder(api: TestServer, userId: number, items: readonly Line[]): Promise<any> {
  const response = await api.post(ordersPath(userId), { items });
  assertJson(response, 201);
  return response.body;
}

/** Moves a new order to `status` through PATCHes, and returns the GET answer after it. */
async function bringTo(api: TestServer, path: string, status: Status): Promise<TestResponse> {
  for (const step of ROUTE_TO[status]) {
    const response = await api.patch(path, { status: step });
    assertJson(response, 200);
    assert.equal(response.body.status, step);
  }
  const current = await api.get(path);
  assertJson(current, 200);
  assert.equal(current.body.status, status);
  return current;
}

/** The record did not change: same body and same ETag as `before`. */
async function assertUnchanged(api: TestServer, path: string, before: TestResponse): Promise<void> {
  const after = await api.get(path);
  assertJson(after, 200);
  assert.deepEqual(after.body, before.body);
  assert.equal(after.headers.get('etag'), before.headers.get('etag'));
}

let api: TestServer;
let userId: number;
/** Products priced 0.1, 0.2 and 19.99. */
let dime: any;
let twoDimes: any;
let book: any;

beforeEach(async () => {
  api = await startTestServer();
  userId = await createUser(api);
  dime = await createProduct(api, { name: 'Dime', price: 0.1 });
  twoDimes = await createProduct(api, { name: 'Two dimes', price: 0.2 });
  book = await createProduct(api, { name: 'Book', price: 19.99 });
});

afterEach(async () => {
  await api.close();
});

describe('POST /v1/users/{id}/orders creates an order', () => {
  test('201 with the full record: user_id from the path, unit_price copied, total exact, status pending, Location, ETag', async () => {
    const response = await api.post(ordersPath(userId), {
      items: [
        { product_id: dime.id, quantity: 3 },
        { product_id: twoDimes.id, quantity: 1 },
      ],
    });
    assertJson(response, 201);
    const body = response.body;
    assert.ok(Number.isSafeInteger(body.id) && body.id >= 1, 'id is a positive integer');
    assert.match(body.created_at, RFC3339_UTC);
    assert.deepEqual(body, {
      id: body.id,
      user_id: userId,
      items: [
        { product_id: dime.id, quantity: 3, unit_price: 0.1 },
        { product_id: twoDimes.id, quantity: 1, unit_price: 0.2 },
      ],
      total: 0.5,
      status: 'pending',
      created_at: body.created_at,
      updated_at: body.created_at,
    });
    assert.equal(response.headers.get('location'), `/v1/users/${userId}/orders/${body.id}`);
    const etag = response.headers.get('etag') ?? '';
    assert.match(etag, STRONG_ETAG);

    const read = await api.get(orderPath(userId, body.id));
    assertJson(read, 200);
    assert.deepEqual(read.body, body);
    assert.equal(read.headers.get('etag'), etag);
  });

  const totals: { name: string; prices: number[]; quantities: number[]; total: number }[] = [
    { name: '3 × 0.1 + 1 × 0.2 = 0.5', prices: [0.1, 0.2], quantities: [3, 1], total: 0.5 },
    { name: '3 × 19.99 = 59.97', prices: [19.99], quantities: [3], total: 59.97 },
    { name: '7 × 1.15 = 8.05', prices: [1.15], quantities: [7], total: 8.05 },
    { name: '1000 × 0.01 + 3 × 0.07 = 10.21', prices: [0.01, 0.07], quantities: [1000, 3], total: 10.21 },
    { name: '1 × 0 = 0', prices: [0], quantities: [1], total: 0 },
  ];
  for (const c of totals) {
    test(`total is exact to the cent: ${c.name}`, async () => {
      const items: Line[] = [];
      for (const [index, price] of c.prices.entries()) {
        const product = await createProduct(api, { name: `P${index}`, price });
        items.push({ product_id: product.id, quantity: c.quantities[index] as number });
      }
      const order = await createOrder(api, userId, items);
      assert.equal(order.total, c.total);
      assert.deepEqual(
        order.items.map((item: any) => item.unit_price),
        c.prices,
      );
    });
  }

  test('an explicit status "pending" on POST is accepted', async () => {
    const response = await api.post(ordersPath(userId), {
      items: [{ product_id: book.id, quantity: 1 }],
      status: 'pending',
    });
    assertJson(response, 201);
    assert.equal(response.body.status, 'pending');
  });

  test('an order for a missing user is 404 record_not_found, even with an invalid body', async () => {
    const valid = await api.post(ordersPath(999), { items: [{ product_id: book.id, quantity: 1 }] });
    assertProblem(valid, 404, 'record_not_found', ordersPath(999));
    const invalid = await api.post(ordersPath(999), { items: [] });
    assertProblem(invalid, 404, 'record_not_found', ordersPath(999));
    const list = await api.get(ordersPath(999));
    assertProblem(list, 404, 'record_not_found', ordersPath(999));
  });
});

describe('order items rules on POST (422, nothing created)', () => {
  const cases: { name: string; body: () => Record<string, unknown>; errors: FieldErrorExpectation[] }[] = [
    { name: 'items missing → required', body: () => ({}), errors: [{ field: 'items', code: 'required' }] },
    {
      name: 'items empty → too_few_items',
      body: () => ({ items: [] }),
      errors: [{ field: 'items', code: 'too_few_items' }],
    },
    {
      name: 'items not an array (object) → invalid_type',
      body: () => ({ items: { product_id: book.id, quantity: 1 } }),
      errors: [{ field: 'items', code: 'invalid_type' }],
    },
    {
      name: 'items not an array (string) → invalid_type',
      body: () => ({ items: 'book' }),
      errors: [{ field: 'items', code: 'invalid_type' }],
    },
    {
      name: 'items null → invalid_type',
      body: () => ({ items: null }),
      errors: [{ field: 'items', code: 'invalid_type' }],
    },
    {
      name: 'element a number → invalid_type at items[0]',
      body: () => ({ items: [5] }),
      errors: [{ field: 'items[0]', code: 'invalid_type' }],
    },
    {
      name: 'element an array → invalid_type at items[1]',
      body: () => ({ items: [{ product_id: book.id, quantity: 1 }, [dime.id, 1]] }),
      errors: [{ field: 'items[1]', code: 'invalid_type' }],
    },
    {
      name: 'quantity 0 → too_small',
      body: () => ({ items: [{ product_id: book.id, quantity: 0 }] }),
      errors: [{ field: 'items[0].quantity', code: 'too_small' }],
    },
    {
      name: 'quantity 1001 → too_large',
      body: () => ({ items: [{ product_id: book.id, quantity: 1001 }] }),
      errors: [{ field: 'items[0].quantity', code: 'too_large' }],
    },
    {
      name: 'quantity 1.5 → invalid_type',
      body: () => ({ items: [{ product_id: book.id, quantity: 1.5 }] }),
      errors: [{ field: 'items[0].quantity', code: 'invalid_type' }],
    },
    {
      name: 'quantity "2" → invalid_type',
      body: () => ({ items: [{ product_id: book.id, quantity: '2' }] }),
      errors: [{ field: 'items[0].quantity', code: 'invalid_type' }],
    },
    {
      name: 'quantity missing → required',
      body: () => ({ items: [{ product_id: book.id }] }),
      errors: [{ field: 'items[0].quantity', code: 'required' }],
    },
    {
      name: 'product_id missing → required',
      body: () => ({ items: [{ quantity: 1 }] }),
      errors: [{ field: 'items[0].product_id', code: 'required' }],
    },
    {
      name: 'product_id 0 → too_small',
      body: () => ({ items: [{ product_id: 0, quantity: 1 }] }),
      errors: [{ field: 'items[0].product_id', code: 'too_small' }],
    },
    {
      name: 'product_id "1" → invalid_type',
      body: () => ({ items: [{ product_id: String(book.id), quantity: 1 }] }),
      errors: [{ field: 'items[0].product_id', code: 'invalid_type' }],
    },
    {
      name: 'unknown product → unknown_product at items[0].product_id',
      body: () => ({ items: [{ product_id: 999, quantity: 1 }] }),
      errors: [{ field: 'items[0].product_id', code: 'unknown_product' }],
    },
    {
      name: 'unknown product in the second item → items[1].product_id',
      body: () => ({
        items: [
          { product_id: book.id, quantity: 1 },
          { product_id: 999, quantity: 1 },
        ],
      }),
      errors: [{ field: 'items[1].product_id', code: 'unknown_product' }],
    },
    {
      name: 'same product twice → duplicate_product',
      body: () => ({
        items: [
          { product_id: book.id, quantity: 1 },
          { product_id: book.id, quantity: 2 },
        ],
      }),
      errors: [{ field: 'items[1].product_id', code: 'duplicate_product' }],
    },
    {
      name: 'unknown field inside an item → unknown_field',
      body: () => ({ items: [{ product_id: book.id, quantity: 1, colour: 'red' }] }),
      errors: [{ field: 'items[0].colour', code: 'unknown_field' }],
    },
    {
      name: 'two bad items → one entry per field',
      body: () => ({ items: [{ product_id: book.id, quantity: 0 }, { quantity: 1 }] }),
      errors: [
        { field: 'items[0].quantity', code: 'too_small' },
        { field: 'items[1].product_id', code: 'required' },
      ],
    },
    {
      name: 'unit_price on POST → server_field',
      body: () => ({ items: [{ product_id: book.id, quantity: 1, unit_price: 19.99 }] }),
      errors: [{ field: 'items[0].unit_price', code: 'server_field' }],
    },
    {
      name: 'total on POST → server_field',
      body: () => ({ items: [{ product_id: book.id, quantity: 1 }], total: 19.99 }),
      errors: [{ field: 'total', code: 'server_field' }],
    },
    {
      name: 'user_id on POST (even the path user) → server_field',
      body: () => ({ items: [{ product_id: book.id, quantity: 1 }], user_id: userId }),
      errors: [{ field: 'user_id', code: 'server_field' }],
    },
    {
      name: 'id on POST → server_field',
      body: () => ({ items: [{ product_id: book.id, quantity: 1 }], id: 77 }),
      errors: [{ field: 'id', code: 'server_field' }],
    },
    {
      name: 'status "paid" on POST → invalid_value',
      body: () => ({ items: [{ product_id: book.id, quantity: 1 }], status: 'paid' }),
      errors: [{ field: 'status', code: 'invalid_value' }],
    },
    {
      name: 'status not a known state → invalid_value',
      body: () => ({ items: [{ product_id: book.id, quantity: 1 }], status: 'PENDING' }),
      errors: [{ field: 'status', code: 'invalid_value' }],
    },
    {
      name: 'unknown top-level field → unknown_field',
      body: () => ({ items: [{ product_id: book.id, quantity: 1 }], note: 'ring twice' }),
      errors: [{ field: 'note', code: 'unknown_field' }],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const response = await api.post(ordersPath(userId), c.body());
      assertProblem(response, 422, 'validation_failed', ordersPath(userId), c.errors);
      assert.equal(response.headers.get('location'), null);
      const list = await api.get(ordersPath(userId));
      assertJson(list, 200);
      assert.equal(list.body.meta.total, 0);
    });
  }

  test('the OpenAPI document states the two rules no schema keyword can: a product that exists, each product once', async () => {
    const schemas = (await api.as(undefined).get('/v1/openapi.json')).body.components.schemas;
    const productIds = [
      ...['OrderCreate', 'OrderReplace', 'OrderPatch'].map((name) => schemas[name].properties.items),
      ...['OrderCreate_pt', 'OrderReplace_pt', 'OrderPatch_pt'].map((name) => schemas[name].properties.itens),
    ].map((items) => items.items.properties.product_id ?? items.items.properties.produto_id);
    for (const productId of productIds)
      assert.match(productId.description, /existing product.*unknown_product.*one item only.*duplicate_product/);
  });

  test('1 to 50 items: 50 distinct products accepted, 51 → too_many_items', async () => {
    const items: Line[] = [];
    for (let i = 0; i < 51; i++) {
      const product = await createProduct(api, { name: `Item ${i}`, price: 1 });
      items.push({ product_id: product.id, quantity: 1 });
    }
    const tooMany = await api.post(ordersPath(userId), { items });
    assertProblem(tooMany, 422, 'validation_failed', ordersPath(userId), [{ field: 'items', code: 'too_many_items' }]);
    const fifty = await createOrder(api, userId, items.slice(0, 50));
    assert.equal(fifty.items.length, 50);
    assert.equal(fifty.total, 50);
  });

  test('quantity bounds 1 and 1000 are accepted', async () => {
    const order = await createOrder(api, userId, [
      { product_id: dime.id, quantity: 1 },
      { product_id: twoDimes.id, quantity: 1000 },
    ]);
    assert.equal(order.total, 200.1);
  });
});

describe('an order is found only under its own user', () => {
  const attempts: { method: string; body?: unknown }[] = [
    { method: 'GET' },
    { method: 'PUT', body: { items: [{ product_id: 1, quantity: 1 }] } },
    { method: 'PATCH', body: { status: 'cancelled' } },
    { method: 'DELETE' },
  ];
  for (const attempt of attempts) {
    test(`${attempt.method} of another user's order under this user's path → 404 record_not_found, order untouched`, async () => {
      const owner = userId;
      const other = await createUser(api);
      const order = await createOrder(api, owner, [{ product_id: book.id, quantity: 2 }]);
      const before = await api.get(orderPath(owner, order.id));
      assertJson(before, 200);

      const path = orderPath(other, order.id);
      const response = await api.request(
        attempt.method,
        path,
        attempt.body === undefined ? {} : { body: attempt.body },
      );
      assertProblem(response, 404, 'record_not_found', path);
      await assertUnchanged(api, orderPath(owner, order.id), before);
    });
  }
});

describe('status transitions (PATCH status)', () => {
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const allowed = ALLOWED.has(`${from}>${to}`);
      const outcome = from === to ? '200, nothing changes' : allowed ? '200' : '409 invalid_transition';
      test(`${from} → ${to}: ${outcome}`, async () => {
        const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
        const path = orderPath(userId, order.id);
        const before = await bringTo(api, path, from);

        const response = await api.patch(path, { status: to });
        if (from === to) {
          assertJson(response, 200);
          assert.deepEqual(response.body, before.body);
          assert.equal(response.headers.get('etag'), before.headers.get('etag'));
          await assertUnchanged(api, path, before);
        } else if (allowed) {
          assertJson(response, 200);
          assert.deepEqual(response.body, { ...before.body, status: to, updated_at: response.body.updated_at });
          assert.match(response.body.updated_at, RFC3339_UTC);
          assert.ok(response.body.updated_at >= before.body.updated_at, 'updated_at does not go back');
          assert.notEqual(response.headers.get('etag'), before.headers.get('etag'));
          const read = await api.get(path);
          assertJson(read, 200);
          assert.deepEqual(read.body, response.body);
          assert.equal(read.headers.get('etag'), response.headers.get('etag'));
        } else {
          assertProblem(response, 409, 'invalid_transition', path);
          await assertUnchanged(api, path, before);
        }
      });
    }
  }

  test('two overlapping cancels: the one decided on the state the other changed gets 409, and the order is cancelled once', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const path = orderPath(userId, order.id);
    const late = await heldRequest(api, 'PATCH', path, { status: 'cancelled' });
    const first = await api.patch(path, { status: 'cancelled' });
    assertJson(first, 200);
    assert.equal(first.body.status, 'cancelled');
    const second = await late.release();
    assertProblem(second, 409, 'invalid_transition', path);
    assert.equal(
      second.body.detail,
      'an order went from pending to cancelled (status) through another request while this one was handled; read it again before changing it',
    );
    await assertUnchanged(api, path, await api.get(path));
    assert.equal((await api.get(path)).headers.get('etag'), first.headers.get('etag'), 'one write: the first');
    // Once read again, cancelling the cancelled order is no change, as ever.
    const again = await api.patch(path, { status: 'cancelled' });
    assertJson(again, 200);
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
  });

  test('a PATCH that leaves the status alone is not refused when another request changed the status meanwhile', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const path = orderPath(userId, order.id);
    const late = await heldRequest(api, 'PATCH', path, { items: [{ product_id: dime.id, quantity: 2 }] });
    assertJson(await api.patch(path, { status: 'paid' }), 200);
    // Decided on a pending order, but the items rule is checked against the order as it is now: paid, so frozen.
    const second = await late.release();
    assertProblem(second, 409, 'items_frozen', path);
    const renamed = await heldRequest(api, 'PATCH', `/v1/products/${book.id}`, { price: 21 });
    assertJson(await api.patch(`/v1/products/${book.id}`, { price: 20 }), 200);
    const priced = await renamed.release();
    assertJson(priced, 200);
    assert.equal(priced.body.price, 21, 'no state: the later write wins, as without the race');
  });

  test('PUT with an illegal status (pending → shipped) → 409 invalid_transition', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const path = orderPath(userId, order.id);
    const before = await api.get(path);
    const response = await api.put(path, { items: [{ product_id: book.id, quantity: 1 }], status: 'shipped' });
    assertProblem(response, 409, 'invalid_transition', path);
    await assertUnchanged(api, path, before);
  });

  test('PATCH status to an unknown value → 422 invalid_value', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const path = orderPath(userId, order.id);
    const response = await api.patch(path, { status: 'delivered' });
    assertProblem(response, 422, 'validation_failed', path, [{ field: 'status', code: 'invalid_value' }]);
  });

  test('PATCH status null → 422 required', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const path = orderPath(userId, order.id);
    const response = await api.patch(path, { status: null });
    assertProblem(response, 422, 'validation_failed', path, [{ field: 'status', code: 'required' }]);
  });
});

describe('order items after creation', () => {
  for (const method of ['PATCH', 'PUT'] as const) {
    test(`${method} replaces the items while pending: 200, new prices from current products, new total`, async () => {
      const order = await createOrder(api, userId, [{ product_id: dime.id, quantity: 3 }]);
      const path = orderPath(userId, order.id);
      const repriced = await api.patch(`/v1/products/${dime.id}`, { price: 0.15 });
      assertJson(repriced, 200);

      const items = [
        { product_id: dime.id, quantity: 2 },
        { product_id: book.id, quantity: 1 },
      ];
      const response = await api.request(method, path, { body: { items } });
      assertJson(response, 200);
      assert.deepEqual(response.body, {
        ...order,
        items: [
          { product_id: dime.id, quantity: 2, unit_price: 0.15 },
          { product_id: book.id, quantity: 1, unit_price: 19.99 },
        ],
        total: 20.29,
        updated_at: response.body.updated_at,
      });
      assert.equal(response.body.status, 'pending');
      const read = await api.get(path);
      assertJson(read, 200);
      assert.deepEqual(read.body, response.body);
      assert.equal(read.headers.get('etag'), response.headers.get('etag'));
    });
  }

  test('replacing items with an unknown product → 422 unknown_product, order unchanged', async () => {
    const order = await createOrder(api, userId, [{ product_id: dime.id, quantity: 3 }]);
    const path = orderPath(userId, order.id);
    const before = await api.get(path);
    const response = await api.patch(path, { items: [{ product_id: 999, quantity: 1 }] });
    assertProblem(response, 422, 'validation_failed', path, [
      { field: 'items[0].product_id', code: 'unknown_product' },
    ]);
    await assertUnchanged(api, path, before);
  });

  for (const state of ['paid', 'shipped', 'cancelled'] as const) {
    for (const method of ['PATCH', 'PUT'] as const) {
      test(`${method} with changed items on a ${state} order → 409 items_frozen, order unchanged`, async () => {
        const order = await createOrder(api, userId, [{ product_id: dime.id, quantity: 3 }]);
        const path = orderPath(userId, order.id);
        const before = await bringTo(api, path, state);
        const response = await api.request(method, path, { body: { items: [{ product_id: dime.id, quantity: 4 }] } });
        assertProblem(response, 409, 'items_frozen', path);
        await assertUnchanged(api, path, before);
      });

      test(`${method} with the same items on a ${state} order → 200, nothing changes`, async () => {
        const order = await createOrder(api, userId, [
          { product_id: dime.id, quantity: 3 },
          { product_id: book.id, quantity: 1 },
        ]);
        const path = orderPath(userId, order.id);
        const before = await bringTo(api, path, state);
        const response = await api.request(method, path, {
          body: {
            items: [
              { product_id: dime.id, quantity: 3 },
              { product_id: book.id, quantity: 1 },
            ],
          },
        });
        assertJson(response, 200);
        assert.deepEqual(response.body, before.body);
        assert.equal(response.headers.get('etag'), before.headers.get('etag'));
        await assertUnchanged(api, path, before);
      });
    }
  }

  test('a product price change after ordering does not change the order', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 3 }]);
    const path = orderPath(userId, order.id);
    const before = await api.get(path);
    assertJson(before, 200);

    const repriced = await api.put(`/v1/products/${book.id}`, { name: 'Book', category: 'tools', price: 25 });
    assertJson(repriced, 200);
    assert.equal(repriced.body.price, 25);

    await assertUnchanged(api, path, before);
    assert.equal(before.body.items[0].unit_price, 19.99);
    assert.equal(before.body.total, 59.97);

    const sameItems = await api.patch(path, { items: [{ product_id: book.id, quantity: 3 }] });
    assertJson(sameItems, 200);
    assert.deepEqual(sameItems.body, before.body);
    assert.equal(sameItems.headers.get('etag'), before.headers.get('etag'));

    const list = await api.get(ordersPath(userId));
    assertJson(list, 200);
    assert.deepEqual(list.body.data, [before.body]);
  });

  test('unit_price echoed unchanged on PUT is accepted (200, nothing changes)', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 3 }]);
    const path = orderPath(userId, order.id);
    const before = await api.get(path);
    const response = await api.put(path, { items: [{ product_id: book.id, quantity: 3, unit_price: 19.99 }] });
    assertJson(response, 200);
    assert.deepEqual(response.body, before.body);
    assert.equal(response.headers.get('etag'), before.headers.get('etag'));
  });

  test('the whole record echoed back on PUT (server fields equal to the current) is accepted', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 3 }]);
    const path = orderPath(userId, order.id);
    const before = await api.get(path);
    const response = await api.put(path, before.body);
    assertJson(response, 200);
    assert.deepEqual(response.body, before.body);
    assert.equal(response.headers.get('etag'), before.headers.get('etag'));
  });

  const different: {
    name: string;
    method: 'PUT' | 'PATCH';
    body: (order: any) => Record<string, unknown>;
    field: string;
  }[] = [
    {
      name: 'a different unit_price on PUT',
      method: 'PUT',
      body: () => ({ items: [{ product_id: book.id, quantity: 3, unit_price: 1 }] }),
      field: 'items[0].unit_price',
    },
    {
      name: 'a different total on PUT',
      method: 'PUT',
      body: () => ({ items: [{ product_id: book.id, quantity: 3 }], total: 1 }),
      field: 'total',
    },
    {
      name: 'a different user_id on PUT',
      method: 'PUT',
      body: (order) => ({ items: [{ product_id: book.id, quantity: 3 }], user_id: order.user_id + 1 }),
      field: 'user_id',
    },
    {
      name: 'a different id on PUT',
      method: 'PUT',
      body: (order) => ({ items: [{ product_id: book.id, quantity: 3 }], id: order.id + 1 }),
      field: 'id',
    },
    {
      name: 'a different unit_price on PATCH',
      method: 'PATCH',
      body: () => ({ items: [{ product_id: book.id, quantity: 3, unit_price: 1 }] }),
      field: 'items[0].unit_price',
    },
    {
      name: 'a different total on PATCH',
      method: 'PATCH',
      body: () => ({ total: 1 }),
      field: 'total',
    },
  ];
  for (const c of different) {
    test(`${c.name} → 422 server_field`, async () => {
      const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 3 }]);
      const path = orderPath(userId, order.id);
      const before = await api.get(path);
      const response = await api.request(c.method, path, { body: c.body(order) });
      assertProblem(response, 422, 'validation_failed', path, [{ field: c.field, code: 'server_field' }]);
      await assertUnchanged(api, path, before);
    });
  }

  test('PUT without status keeps the status (paid stays paid)', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const path = orderPath(userId, order.id);
    const before = await bringTo(api, path, 'paid');
    const response = await api.put(path, { items: [{ product_id: book.id, quantity: 1 }] });
    assertJson(response, 200);
    assert.equal(response.body.status, 'paid');
    assert.deepEqual(response.body, before.body);
    assert.equal(response.headers.get('etag'), before.headers.get('etag'));
  });

  test('PUT without items → 422 required', async () => {
    const order = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const path = orderPath(userId, order.id);
    const response = await api.put(path, { status: 'paid' });
    assertProblem(response, 422, 'validation_failed', path, [{ field: 'items', code: 'required' }]);
  });
});

describe('GET /v1/users/{id}/orders (nested list)', () => {
  test("status=pending&sort=-total lists only this user's pending orders, highest total first, with links and Link header", async () => {
    const other = await createUser(api);
    await createOrder(api, other, [{ product_id: book.id, quantity: 5 }]);
    const small = await createOrder(api, userId, [{ product_id: dime.id, quantity: 3 }]); // 0.3
    const paid = await createOrder(api, userId, [{ product_id: book.id, quantity: 3 }]); // 59.97
    await bringTo(api, orderPath(userId, paid.id), 'paid');
    const big = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]); // 19.99
    const smallest = await createOrder(api, userId, [{ product_id: twoDimes.id, quantity: 1 }]); // 0.2
    const cancelled = await createOrder(api, userId, [{ product_id: book.id, quantity: 2 }]); // 39.98
    await bringTo(api, orderPath(userId, cancelled.id), 'cancelled');

    const base = ordersPath(userId);
    const response = await api.get(`${base}?status=pending&sort=-total`);
    assertJson(response, 200);
    assert.deepEqual(response.body.data, [big, small, smallest]);
    assert.deepEqual(response.body.meta, { page: 1, limit: 20, total: 3, pages: 1 });
    const only = `${base}?status=pending&sort=-total&page=1&limit=20`;
    assert.deepEqual(response.body.links, { self: only, first: only, prev: null, next: null, last: only });
    assert.equal(response.headers.get('link'), `<${only}>; rel="self", <${only}>; rel="first", <${only}>; rel="last"`);

    const all = await api.get(base);
    assertJson(all, 200);
    assert.deepEqual(
      all.body.data.map((order: any) => order.id),
      [small.id, paid.id, big.id, smallest.id, cancelled.id],
    );
    assert.equal(all.body.meta.total, 5);
  });

  test('paging the filtered, sorted list keeps filter and sort in prev/next links', async () => {
    const a = await createOrder(api, userId, [{ product_id: dime.id, quantity: 1 }]); // 0.1
    const b = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]); // 19.99
    const c = await createOrder(api, userId, [{ product_id: twoDimes.id, quantity: 1 }]); // 0.2
    const base = ordersPath(userId);
    const response = await api.get(`${base}?status=pending&sort=-total&page=2&limit=1`);
    assertJson(response, 200);
    assert.deepEqual(response.body.data, [c]);
    assert.deepEqual(response.body.meta, { page: 2, limit: 1, total: 3, pages: 3 });
    const at = (page: number): string => `${base}?status=pending&sort=-total&page=${page}&limit=1`;
    assert.deepEqual(response.body.links, { self: at(2), first: at(1), prev: at(1), next: at(3), last: at(3) });
    assert.equal(
      response.headers.get('link'),
      `<${at(2)}>; rel="self", <${at(1)}>; rel="first", <${at(1)}>; rel="prev", <${at(3)}>; rel="next", <${at(3)}>; rel="last"`,
    );
    assert.ok(a.total < c.total && c.total < b.total);
  });

  test('an unknown status filter value → 400 invalid_query invalid_value', async () => {
    const path = ordersPath(userId);
    const response = await api.get(`${path}?status=lost`);
    assertProblem(response, 400, 'invalid_query', path, [{ field: 'status', code: 'invalid_value' }]);
  });
});

describe('deleting orders', () => {
  test('DELETE an order → 204 empty; then GET and a second DELETE are 404; other orders untouched', async () => {
    const gone = await createOrder(api, userId, [{ product_id: book.id, quantity: 1 }]);
    const kept = await createOrder(api, userId, [{ product_id: dime.id, quantity: 1 }]);
    const keptBefore = await api.get(orderPath(userId, kept.id));

    const path = orderPath(userId, gone.id);
    const response = await api.delete(path);
    assertEmpty(response, 204);

    assertProblem(await api.get(path), 404, 'record_not_found', path);
    assertProblem(await api.delete(path), 404, 'record_not_found', path);
    await assertUnchanged(api, orderPath(userId, kept.id), keptBefore);
    const list = await api.get(ordersPath(userId));
    assert.deepEqual(list.body.data, [kept]);
  });

  test("deleting a user deletes their orders (also on disk); other users' orders untouched", async () => {
    const dir = await temporaryDirectory();
    const disk = await startTestServer({ dataDir: dir.path });
    try {
      const product = await createProduct(disk, { price: 2.5 });
      const doomed = await createUser(disk);
      const survivor = await createUser(disk);
      const doomedOrders = [
        await createOrder(disk, doomed, [{ product_id: product.id, quantity: 1 }]),
        await createOrder(disk, doomed, [{ product_id: product.id, quantity: 2 }]),
      ];
      const survivorOrder = await createOrder(disk, survivor, [{ product_id: product.id, quantity: 3 }]);
      const survivorBefore = await disk.get(orderPath(survivor, survivorOrder.id));

      const deleted = await disk.delete(`/v1/users/${doomed}`);
      assert.equal(deleted.status, 204);

      for (const order of doomedOrders) {
        const path = orderPath(doomed, order.id);
        assertProblem(await disk.get(path), 404, 'record_not_found', path);
      }
      assertProblem(await disk.get(ordersPath(doomed)), 404, 'record_not_found', ordersPath(doomed));
      await assertUnchanged(disk, orderPath(survivor, survivorOrder.id), survivorBefore);

      const onDisk = (await readDataDirectory(dir.path, EXAMPLE)).collections.get('orders');
      assert.deepEqual([...(onDisk?.records.keys() ?? [])], [survivorOrder.id]);
    } finally {
      await disk.close();
      await dir.remove();
    }
  });
});
