// The product resource (README: Records, Methods): POST answers 201 with the full record,
// Location and ETag; name 1–200, category 1–50, price ≥ 0 with at most two decimals
// (up to 1e9), description ≤ 2000 and optional; PUT removes an absent description,
// PATCH null removes it; ids are never reused.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { createProduct, startTestServer } from './helpers.ts';
import type { FieldErrorExpectation } from './assertions.ts';
import { assertProblem, RFC3339_UTC, STRONG_ETAG } from './assertions.ts';

const PRODUCT_FIELDS = ['id', 'name', 'category', 'price', 'description', 'created_at', 'updated_at'];
const VALID = { name: 'Espresso beans', category: 'coffee', price: 19.99, description: 'Dark roast, 1 kg' };

describe('products', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer();
  });
  afterEach(async () => {
    await api.close();
  });

  describe('POST /v1/products', () => {
    test('answers 201 with the full record, Location /v1/products/{id} and a strong ETag', async () => {
      const before = new Date().toISOString();
      const response = await api.post('/v1/products', VALID);
      const after = new Date().toISOString();
      assert.equal(response.status, 201, response.text);
      assert.equal(response.headers.get('location'), '/v1/products/1');
      assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.deepEqual(Object.keys(response.body), PRODUCT_FIELDS);
      const { created_at: createdAt, updated_at: updatedAt, ...rest } = response.body;
      assert.deepEqual(rest, { id: 1, ...VALID });
      assert.match(createdAt, RFC3339_UTC);
      assert.equal(updatedAt, createdAt);
      assert.ok(createdAt >= before && createdAt <= after, 'created_at is the time of the request');

      const read = await api.get('/v1/products/1');
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, response.body);
    });

    test('without description the field is omitted, not null', async () => {
      const response = await api.post('/v1/products', { name: 'Mug', category: 'accessories', price: 8 });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(Object.keys(response.body), ['id', 'name', 'category', 'price', 'created_at', 'updated_at']);
      assert.equal('description' in response.body, false);
      assert.doesNotMatch(response.text, /description/);
    });

    test('a second product gets id 2', async () => {
      await api.post('/v1/products', VALID);
      const response = await api.post('/v1/products', { ...VALID, name: 'Filter papers' });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.id, 2);
      assert.equal(response.headers.get('location'), '/v1/products/2');
    });
  });

  describe('field rules on POST → 422 with one errors[] entry per field', () => {
    const cases: readonly { name: string; body: Record<string, unknown>; errors: FieldErrorExpectation[] }[] = [
      {
        name: 'name missing → required',
        body: { category: 'tea', price: 1 },
        errors: [{ field: 'name', code: 'required' }],
      },
      { name: 'name empty → too_short', body: { ...VALID, name: '' }, errors: [{ field: 'name', code: 'too_short' }] },
      {
        name: 'name of 201 characters → too_long',
        body: { ...VALID, name: 'n'.repeat(201) },
        errors: [{ field: 'name', code: 'too_long' }],
      },
      {
        name: 'name a number → invalid_type',
        body: { ...VALID, name: 7 },
        errors: [{ field: 'name', code: 'invalid_type' }],
      },
      {
        name: 'category missing → required',
        body: { name: 'Tea', price: 1 },
        errors: [{ field: 'category', code: 'required' }],
      },
      {
        name: 'category empty → too_short',
        body: { ...VALID, category: '' },
        errors: [{ field: 'category', code: 'too_short' }],
      },
      {
        name: 'category of 51 characters → too_long',
        body: { ...VALID, category: 'c'.repeat(51) },
        errors: [{ field: 'category', code: 'too_long' }],
      },
      {
        name: 'category a boolean → invalid_type',
        body: { ...VALID, category: true },
        errors: [{ field: 'category', code: 'invalid_type' }],
      },
      {
        name: 'price missing → required',
        body: { name: 'Tea', category: 'tea' },
        errors: [{ field: 'price', code: 'required' }],
      },
      {
        name: 'price -0.01 → too_small',
        body: { ...VALID, price: -0.01 },
        errors: [{ field: 'price', code: 'too_small' }],
      },
      {
        name: 'price 1.999 (three decimals) → invalid_format',
        body: { ...VALID, price: 1.999 },
        errors: [{ field: 'price', code: 'invalid_format' }],
      },
      {
        name: 'price 0.001 → invalid_format',
        body: { ...VALID, price: 0.001 },
        errors: [{ field: 'price', code: 'invalid_format' }],
      },
      {
        name: 'price "5" (a string) → invalid_type',
        body: { ...VALID, price: '5' },
        errors: [{ field: 'price', code: 'invalid_type' }],
      },
      {
        name: 'price 1e9+1 → too_large',
        body: { ...VALID, price: 1e9 + 1 },
        errors: [{ field: 'price', code: 'too_large' }],
      },
      {
        name: 'price null → invalid_type',
        body: { ...VALID, price: null },
        errors: [{ field: 'price', code: 'invalid_type' }],
      },
      {
        name: 'description of 2001 characters → too_long',
        body: { ...VALID, description: 'd'.repeat(2001) },
        errors: [{ field: 'description', code: 'too_long' }],
      },
      {
        name: 'description a number → invalid_type',
        body: { ...VALID, description: 3 },
        errors: [{ field: 'description', code: 'invalid_type' }],
      },
      {
        name: 'description null on POST → invalid_type',
        body: { ...VALID, description: null },
        errors: [{ field: 'description', code: 'invalid_type' }],
      },
      {
        name: 'unknown field → unknown_field named as sent',
        body: { ...VALID, stock: 3 },
        errors: [{ field: 'stock', code: 'unknown_field' }],
      },
      {
        name: 'Portuguese field name → unknown_field',
        body: { ...VALID, preco: 3 },
        errors: [{ field: 'preco', code: 'unknown_field' }],
      },
      { name: 'id on POST → server_field', body: { ...VALID, id: 1 }, errors: [{ field: 'id', code: 'server_field' }] },
      {
        name: 'created_at on POST → server_field',
        body: { ...VALID, created_at: '2024-01-01T00:00:00.000Z' },
        errors: [{ field: 'created_at', code: 'server_field' }],
      },
      {
        name: 'updated_at on POST → server_field',
        body: { ...VALID, updated_at: '2024-01-01T00:00:00.000Z' },
        errors: [{ field: 'updated_at', code: 'server_field' }],
      },
      {
        name: 'several bad fields → one entry each, detail "3 fields are invalid"',
        body: { name: '', category: 'c'.repeat(51), price: -1 },
        errors: [
          { field: 'name', code: 'too_short' },
          { field: 'category', code: 'too_long' },
          { field: 'price', code: 'too_small' },
        ],
      },
      {
        name: 'empty object → three required entries',
        body: {},
        errors: [
          { field: 'name', code: 'required' },
          { field: 'category', code: 'required' },
          { field: 'price', code: 'required' },
        ],
      },
    ];
    for (const c of cases) {
      test(c.name, async () => {
        const response = await api.post('/v1/products', c.body);
        assertProblem(response, 422, 'validation_failed', '/v1/products', c.errors);
        assert.equal(response.headers.get('location'), null);
        assert.equal((await api.get('/v1/products/1')).status, 404, 'a rejected POST must not create a record');
      });
    }
  });

  describe('field bounds accepted on POST', () => {
    const cases: readonly { name: string; fields: Record<string, unknown> }[] = [
      { name: 'price 0', fields: { price: 0 } },
      { name: 'price 0.1', fields: { price: 0.1 } },
      { name: 'price 19.99', fields: { price: 19.99 } },
      { name: 'price 0.29 (not exactly representable in binary)', fields: { price: 0.29 } },
      { name: 'price 1e9', fields: { price: 1e9 } },
      { name: 'price an integer', fields: { price: 5 } },
      { name: 'name of 1 character', fields: { name: 'N' } },
      { name: 'name of 200 characters', fields: { name: 'n'.repeat(200) } },
      { name: 'category of 1 character', fields: { category: 'c' } },
      { name: 'category of 50 characters', fields: { category: 'c'.repeat(50) } },
      { name: 'description of 2000 characters', fields: { description: 'd'.repeat(2000) } },
      { name: 'description of 2000 non-ASCII characters', fields: { description: 'ç'.repeat(2000) } },
    ];
    for (const c of cases) {
      test(`${c.name} → 201 and stored as sent`, async () => {
        const body = { ...VALID, ...c.fields };
        const response = await api.post('/v1/products', body);
        assert.equal(response.status, 201, response.text);
        const { id, created_at: _created, updated_at: _updated, ...rest } = response.body;
        assert.equal(id, 1);
        assert.deepEqual(rest, body);
        const read = await api.get('/v1/products/1');
        assert.deepEqual(read.body, response.body);
      });
    }
  });

  describe('PUT /v1/products/{id}', () => {
    test('replaces every client field and keeps id and created_at', async () => {
      const created = await createProduct(api, VALID);
      const replacement = { name: 'Green tea', category: 'tea', price: 4.5, description: 'Sencha' };
      const response = await api.put('/v1/products/1', replacement);
      assert.equal(response.status, 200, response.text);
      assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
      assert.deepEqual(Object.keys(response.body), PRODUCT_FIELDS);
      const { updated_at: _updated, ...rest } = response.body;
      assert.deepEqual(rest, { id: 1, ...replacement, created_at: created.created_at });
      assert.deepEqual((await api.get('/v1/products/1')).body, response.body);
    });

    test('without description removes it', async () => {
      await createProduct(api, VALID);
      const response = await api.put('/v1/products/1', {
        name: VALID.name,
        category: VALID.category,
        price: VALID.price,
      });
      assert.equal(response.status, 200, response.text);
      assert.equal('description' in response.body, false);
      const read = await api.get('/v1/products/1');
      assert.equal(read.status, 200);
      assert.equal('description' in read.body, false);
      assert.deepEqual(read.body, response.body);
    });

    const cases: readonly { name: string; body: Record<string, unknown>; errors: FieldErrorExpectation[] }[] = [
      {
        name: 'missing price → required',
        body: { name: 'Tea', category: 'tea' },
        errors: [{ field: 'price', code: 'required' }],
      },
      {
        name: 'missing name → required',
        body: { category: 'tea', price: 1 },
        errors: [{ field: 'name', code: 'required' }],
      },
      {
        name: 'missing category → required',
        body: { name: 'Tea', price: 1 },
        errors: [{ field: 'category', code: 'required' }],
      },
      {
        name: 'description null → invalid_type',
        body: { ...VALID, description: null },
        errors: [{ field: 'description', code: 'invalid_type' }],
      },
      {
        name: 'price 1.999 → invalid_format',
        body: { ...VALID, price: 1.999 },
        errors: [{ field: 'price', code: 'invalid_format' }],
      },
    ];
    for (const c of cases) {
      test(`PUT ${c.name}, record unchanged`, async () => {
        await createProduct(api, VALID);
        const before = await api.get('/v1/products/1');
        const response = await api.put('/v1/products/1', c.body);
        assertProblem(response, 422, 'validation_failed', '/v1/products/1', c.errors);
        const after = await api.get('/v1/products/1');
        assert.deepEqual(after.body, before.body);
        assert.equal(after.headers.get('etag'), before.headers.get('etag'));
      });
    }
  });

  describe('PATCH /v1/products/{id}', () => {
    test('changes only the fields sent', async () => {
      const created = await createProduct(api, VALID);
      const response = await api.patch('/v1/products/1', { price: 21.5 });
      assert.equal(response.status, 200, response.text);
      const { updated_at: _after, ...rest } = response.body;
      const { updated_at: _before, ...previous } = created;
      assert.deepEqual(rest, { ...previous, price: 21.5 });
    });

    test('{"description": null} removes the description', async () => {
      await createProduct(api, VALID);
      const response = await api.patch('/v1/products/1', { description: null });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body), ['id', 'name', 'category', 'price', 'created_at', 'updated_at']);
      const read = await api.get('/v1/products/1');
      assert.equal('description' in read.body, false);
      assert.deepEqual(read.body, response.body);
    });

    test('{"description": null} on a product without one changes nothing', async () => {
      const created = await createProduct(api, { name: 'Mug', category: 'accessories', price: 8 });
      const before = await api.get('/v1/products/1');
      const response = await api.patch('/v1/products/1', { description: null });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, created);
      assert.equal(response.headers.get('etag'), before.headers.get('etag'));
    });

    test('adds a description to a product without one', async () => {
      await createProduct(api, { name: 'Mug', category: 'accessories', price: 8 });
      const response = await api.patch('/v1/products/1', { description: 'Stoneware' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.description, 'Stoneware');
    });

    for (const field of ['name', 'category', 'price']) {
      test(`{"${field}": null} → 422 required, record unchanged`, async () => {
        await createProduct(api, VALID);
        const before = await api.get('/v1/products/1');
        const response = await api.patch('/v1/products/1', { [field]: null });
        assertProblem(response, 422, 'validation_failed', '/v1/products/1', [{ field, code: 'required' }]);
        assert.deepEqual((await api.get('/v1/products/1')).body, before.body);
      });
    }

    test('several bad fields → one entry each', async () => {
      await createProduct(api, VALID);
      const response = await api.patch('/v1/products/1', { name: null, price: '3', colour: 'red' });
      assertProblem(response, 422, 'validation_failed', '/v1/products/1', [
        { field: 'name', code: 'required' },
        { field: 'price', code: 'invalid_type' },
        { field: 'colour', code: 'unknown_field' },
      ]);
    });
  });

  describe('ids are never reused', () => {
    test('create 2, delete the 2nd, create again → id 3', async () => {
      await createProduct(api, { name: 'One' });
      await createProduct(api, { name: 'Two' });
      const deleted = await api.delete('/v1/products/2');
      assert.equal(deleted.status, 204);
      const response = await api.post('/v1/products', { ...VALID, name: 'Three' });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.id, 3);
      assert.equal(response.headers.get('location'), '/v1/products/3');
      assertProblem(await api.get('/v1/products/2'), 404, 'record_not_found', '/v1/products/2');
      assert.equal((await api.get('/v1/products/1')).body.name, 'One');
    });

    test('deleting every product does not restart ids at 1', async () => {
      await createProduct(api);
      assert.equal((await api.delete('/v1/products/1')).status, 204);
      const response = await api.post('/v1/products', VALID);
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.id, 2);
    });
  });
});
