// Unit tests for the body validator (src/resources/validation.ts): each rule kind, the three
// write modes, vocabularies, and that client-chosen keys never reach an object.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpError } from '../src/errors/errors.ts';
import type { JsonObject } from '../src/records/json.ts';
import { vocabularyOf } from '../src/resources/definition.ts';
import { validateBody } from '../src/resources/validation.ts';
import { translatePath } from '../src/resources/vocabulary.ts';
import { orders, products, users } from './example-definitions.ts';

function errorsOf(run: () => unknown): { field: string; code: string }[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 422);
    return (error.errors ?? []).map(({ field, code }) => ({ field, code }));
  }
  assert.fail('expected a 422');
}

const product = { name: 'Mug', category: 'kitchen', price: 5 };
const storedProduct: JsonObject = {
  id: 1,
  ...product,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

describe('validation: field rules', () => {
  const cases: { name: string; body: JsonObject; errors: { field: string; code: string }[] }[] = [
    {
      name: 'a missing required field',
      body: { name: 'Mug', category: 'kitchen' },
      errors: [{ field: 'price', code: 'required' }],
    },
    { name: 'an empty string', body: { ...product, name: '' }, errors: [{ field: 'name', code: 'too_short' }] },
    {
      name: 'a string over the limit',
      body: { ...product, category: 'x'.repeat(51) },
      errors: [{ field: 'category', code: 'too_long' }],
    },
    {
      name: 'a number where a string goes',
      body: { ...product, name: 7 },
      errors: [{ field: 'name', code: 'invalid_type' }],
    },
    { name: 'a negative price', body: { ...product, price: -1 }, errors: [{ field: 'price', code: 'too_small' }] },
    {
      name: 'three decimals',
      body: { ...product, price: 1.005 },
      errors: [{ field: 'price', code: 'invalid_format' }],
    },
    {
      name: 'a price as a string',
      body: { ...product, price: '5' },
      errors: [{ field: 'price', code: 'invalid_type' }],
    },
    {
      name: 'an unknown field',
      body: { ...product, colour: 'red' },
      errors: [{ field: 'colour', code: 'unknown_field' }],
    },
    { name: 'a server field', body: { ...product, id: 3 }, errors: [{ field: 'id', code: 'server_field' }] },
    {
      name: 'several problems at once',
      body: { name: '', price: 'x', extra: 1 },
      errors: [
        { field: 'name', code: 'too_short' },
        { field: 'price', code: 'invalid_type' },
        { field: 'extra', code: 'unknown_field' },
        { field: 'category', code: 'required' },
      ],
    },
  ];
  for (const { name, body, errors } of cases) {
    test(`${name} is reported`, () => {
      assert.deepEqual(
        errorsOf(() => validateBody(products.fields, body, vocabularyOf(products, 'en'), 'create')),
        errors,
      );
    });
  }

  test('a valid body comes back keyed by internal names', () => {
    assert.deepEqual(
      validateBody(products.fields, { ...product, description: 'Blue' }, vocabularyOf(products, 'en'), 'create'),
      {
        ...product,
        description: 'Blue',
      },
    );
  });

  test('lengths count characters, not UTF-16 units', () => {
    const name = '😀'.repeat(200);
    assert.deepEqual(validateBody(products.fields, { ...product, name }, vocabularyOf(products, 'en'), 'create'), {
      ...product,
      name,
    });
  });

  test('emails must look like addresses', () => {
    for (const email of ['plain', 'a@b', '@b.c', 'a b@c.d', 'a@b..c', 'a@@b.c']) {
      const body = { name: 'A', email };
      assert.deepEqual(
        errorsOf(() => validateBody(users.fields, body, vocabularyOf(users, 'en'), 'create')),
        [{ field: 'email', code: 'invalid_format' }],
        email,
      );
    }
    assert.deepEqual(
      validateBody(users.fields, { name: 'A', email: 'a.b+c@d-e.example' }, vocabularyOf(users, 'en'), 'create'),
      {
        name: 'A',
        email: 'a.b+c@d-e.example',
      },
    );
  });

  test('an enum value outside the list is invalid_value', () => {
    assert.deepEqual(
      errorsOf(() =>
        validateBody(users.fields, { name: 'A', email: 'a@b.co', role: 'root' }, vocabularyOf(users, 'en'), 'create'),
      ),
      [{ field: 'role', code: 'invalid_value' }],
    );
  });
});

describe('validation: write modes', () => {
  test('replace accepts a server field equal to the current value and drops it', () => {
    assert.deepEqual(
      validateBody(products.fields, { ...product, id: 1 }, vocabularyOf(products, 'en'), 'replace', storedProduct),
      product,
    );
  });

  test('replace refuses a server field that differs', () => {
    assert.deepEqual(
      errorsOf(() =>
        validateBody(products.fields, { ...product, id: 2 }, vocabularyOf(products, 'en'), 'replace', storedProduct),
      ),
      [{ field: 'id', code: 'server_field' }],
    );
  });

  test('patch needs no required field and keeps null for an optional one', () => {
    assert.deepEqual(
      validateBody(products.fields, { description: null }, vocabularyOf(products, 'en'), 'patch', storedProduct),
      { description: null },
    );
  });

  test('patch refuses null for a required field', () => {
    assert.deepEqual(
      errorsOf(() =>
        validateBody(products.fields, { name: null }, vocabularyOf(products, 'en'), 'patch', storedProduct),
      ),
      [{ field: 'name', code: 'required' }],
    );
  });

  test('null outside patch is a type error', () => {
    assert.deepEqual(
      errorsOf(() =>
        validateBody(products.fields, { ...product, description: null }, vocabularyOf(products, 'en'), 'create'),
      ),
      [{ field: 'description', code: 'invalid_type' }],
    );
  });
});

describe('validation: nested items', () => {
  test('each element is checked and named by its position', () => {
    const body: JsonObject = { items: [{ product_id: 1, quantity: 0 }, { quantity: 2 }, 'x'] };
    assert.deepEqual(
      errorsOf(() => validateBody(orders.fields, body, vocabularyOf(orders, 'en'), 'create')),
      [
        { field: 'items[0].quantity', code: 'too_small' },
        { field: 'items[1].product_id', code: 'required' },
        { field: 'items[2]', code: 'invalid_type' },
      ],
    );
  });

  test('an item unit_price is refused on create and kept for comparison on update', () => {
    const body = { items: [{ product_id: 1, quantity: 1, unit_price: 5 }] };
    assert.deepEqual(
      errorsOf(() => validateBody(orders.fields, body, vocabularyOf(orders, 'en'), 'create')),
      [{ field: 'items[0].unit_price', code: 'server_field' }],
    );
    // Orders have a hook (priceOrder) that compares the unit prices itself, so the write keeps them for it (src/handlers/write-record.ts).
    assert.ok(orders.hook !== undefined);
    assert.deepEqual(validateBody(orders.fields, body, vocabularyOf(orders, 'en'), 'patch', {}, true), body);
  });

  test('list bounds', () => {
    assert.deepEqual(
      errorsOf(() => validateBody(orders.fields, { items: [] }, vocabularyOf(orders, 'en'), 'create')),
      [{ field: 'items', code: 'too_few_items' }],
    );
    const many = Array.from({ length: 51 }, (_, index) => ({ product_id: index + 1, quantity: 1 }));
    assert.deepEqual(
      errorsOf(() => validateBody(orders.fields, { items: many }, vocabularyOf(orders, 'en'), 'create')),
      [{ field: 'items', code: 'too_many_items' }],
    );
  });
});

describe('validation: vocabulary and safety', () => {
  test('Portuguese names are read on Portuguese paths', () => {
    assert.deepEqual(
      validateBody(
        products.fields,
        { nome: 'Caneca', categoria: 'cozinha', preco: 5 },
        vocabularyOf(products, 'pt'),
        'create',
      ),
      {
        name: 'Caneca',
        category: 'cozinha',
        price: 5,
      },
    );
  });

  test('English names are unknown on Portuguese paths, and errors use Portuguese names', () => {
    assert.deepEqual(
      errorsOf(() =>
        validateBody(
          products.fields,
          { name: 'Mug', categoria: 'c', preco: 5 },
          vocabularyOf(products, 'pt'),
          'create',
        ),
      ),
      [
        { field: 'name', code: 'unknown_field' },
        { field: 'nome', code: 'required' },
      ],
    );
  });

  test('item paths are translated', () => {
    assert.equal(translatePath('items[3].product_id', vocabularyOf(orders, 'pt')), 'itens[3].produto_id');
    assert.equal(translatePath('items[3].product_id', vocabularyOf(orders, 'en')), 'items[3].product_id');
  });

  test('"__proto__", "constructor" and "prototype" keys are unknown fields and never copied', () => {
    const body = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
    ) as JsonObject;
    assert.deepEqual(
      errorsOf(() => validateBody(products.fields, body, vocabularyOf(products, 'en'), 'patch', storedProduct)),
      [
        { field: '__proto__', code: 'unknown_field' },
        { field: 'constructor', code: 'unknown_field' },
      ],
    );
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});
