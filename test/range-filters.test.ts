// Range filters (README: Lists; http/list-query.ts): `price[gte]=10&price[lt]=20` (gt, gte,
// lt, lte) on numbers marked x-filter and on every record's timestamps; combined with
// equality filters, sort and paging; links keep them; either vocabulary; a bad bound or a
// field that takes none is a 400 naming the parameter. On a declared date property too.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { createProduct, startTestServer, startTestServerWithAdminBootstrap } from './helpers.ts';
import { assertJson, assertProblem } from './assertions.ts';

let api: TestServer;
before(async () => {
  api = await startTestServer();
  for (const [name, price] of [
    ['Cup', 5],
    ['Mug', 10],
    ['Kettle', 19.99],
    ['Teapot', 20],
    ['Tray', 35],
  ] as const) {
    await createProduct(api, { name, category: 'tea', price });
  }
  await createProduct(api, { name: 'Beans', category: 'coffee', price: 12 });
});
after(() => api.close());

const names = (answer: { body: { data: { name: string }[] } }): string[] =>
  answer.body.data.map((record) => record.name);

describe('range filters on a number', () => {
  test('each comparison keeps exactly the records on its side of the bound', async () => {
    assert.deepEqual(names(await api.get('/v1/products?category=tea&price[gt]=10&sort=price')), [
      'Kettle',
      'Teapot',
      'Tray',
    ]);
    assert.deepEqual(names(await api.get('/v1/products?category=tea&price[gte]=10&sort=price')), [
      'Mug',
      'Kettle',
      'Teapot',
      'Tray',
    ]);
    assert.deepEqual(names(await api.get('/v1/products?category=tea&price[lt]=19.99&sort=price')), ['Cup', 'Mug']);
    assert.deepEqual(names(await api.get('/v1/products?category=tea&price[lte]=19.99&sort=price')), [
      'Cup',
      'Mug',
      'Kettle',
    ]);
  });

  test('two bounds, an equality filter, a sort and pages; the total counts the matches; links keep the bounds', async () => {
    const first = await api.get('/v1/products?price%5Bgte%5D=10&price%5Blt%5D=20&sort=-price&limit=2');
    assertJson(first, 200);
    assert.deepEqual(names(first), ['Kettle', 'Beans']);
    assert.deepEqual(first.body.meta, { page: 1, limit: 2, total: 3, pages: 2 });
    assert.equal(first.body.links.next, '/v1/products?price%5Bgte%5D=10&price%5Blt%5D=20&sort=-price&page=2&limit=2');
    assert.deepEqual(names(await api.get(first.body.links.next)), ['Mug']);
    assert.deepEqual(names(await api.get('/v1/products?category=coffee&price[gte]=10')), ['Beans']);
    assert.equal((await api.get('/v1/products?price[gt]=100')).body.meta.total, 0);
  });

  test('a list page cached for one bound is never served for another', async () => {
    assert.equal((await api.get('/v1/products?price[gte]=20')).body.meta.total, 2);
    assert.equal((await api.get('/v1/products?price[gte]=35')).body.meta.total, 1);
    await createProduct(api, { name: 'Samovar', category: 'tea', price: 80 });
    assert.equal((await api.get('/v1/products?price[gte]=35')).body.meta.total, 2, 'a write is seen at once');
  });

  test('in Portuguese: preco[gte], with the links in Portuguese', async () => {
    const page = await api.get('/v1/produtos?categoria=tea&preco[gte]=20&ordenar=preco&limite=1');
    assertJson(page, 200);
    assert.deepEqual(
      page.body.data.map((record: { nome: string }) => record.nome),
      ['Teapot'],
    );
    assert.equal(page.body.links.next, '/v1/produtos?categoria=tea&preco%5Bgte%5D=20&ordenar=preco&pagina=2&limite=1');
  });

  test('a bad bound, a repeated one, an unknown comparison or a field without ranges: 400 naming the parameter', async () => {
    assertProblem(await api.get('/v1/products?price[gte]=cheap'), 400, 'invalid_query', '/v1/products', [
      { field: 'price[gte]', code: 'invalid_value' },
    ]);
    assertProblem(await api.get('/v1/products?price[gte]=1&price[gte]=2'), 400, 'invalid_query', '/v1/products', [
      { field: 'price[gte]', code: 'repeated_parameter' },
    ]);
    assertProblem(await api.get('/v1/products?price[like]=1'), 400, 'invalid_query', '/v1/products', [
      { field: 'price[like]', code: 'unknown_parameter' },
    ]);
    const answer = await api.get('/v1/products?category[gte]=a');
    assertProblem(answer, 400, 'invalid_query', '/v1/products', [
      { field: 'category[gte]', code: 'unsupported_operator' },
    ]);
    assert.equal(answer.body.errors[0].message, 'gte applies to price, created_at, updated_at');
    assertProblem(await api.get('/v1/products?name[lt]=M'), 400, 'invalid_query', '/v1/products', [
      { field: 'name[lt]', code: 'unknown_parameter' },
    ]);
  });
});

describe('range filters on timestamps', () => {
  test('created_at[gte] and updated_at[lt] take a date-time with any offset, or a date (its midnight, UTC)', async () => {
    const all = await api.get('/v1/products?sort=created_at&limit=100');
    const third = all.body.data[2];
    const since = await api.get(
      `/v1/products?created_at[gte]=${encodeURIComponent(third.created_at)}&sort=created_at&limit=100`,
    );
    assertJson(since, 200);
    const atOrAfter = all.body.data.filter((record: { created_at: string }) => record.created_at >= third.created_at);
    assert.deepEqual(
      names(since),
      atOrAfter.map((record: { name: string }) => record.name),
    );
    assert.ok(atOrAfter.length < all.body.data.length, 'the bound leaves some out');
    const before = await api.get(`/v1/products?created_at[lt]=${encodeURIComponent(third.created_at)}&limit=100`);
    assert.equal(before.body.meta.total, all.body.data.length - atOrAfter.length);
    // The same instant written with another offset.
    const instant = new Date(third.created_at);
    const shifted = new Date(instant.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    assert.equal(
      (await api.get(`/v1/products?created_at[gte]=${encodeURIComponent(shifted)}&limit=100`)).body.meta.total,
      since.body.meta.total,
    );
    assert.equal((await api.get('/v1/products?updated_at[lt]=2000-01-01')).body.meta.total, 0);
    assert.equal(
      (await api.get('/v1/products?updated_at[gte]=2000-01-01&limit=100')).body.meta.total,
      all.body.meta.total,
    );
  });

  test('a bound that is no date-time is a 400', async () => {
    for (const bad of ['yesterday', '2026-13-01', '2026-11-24T25:00:00Z', '2026-11-24T10:00:00']) {
      assertProblem(await api.get(`/v1/products?created_at[gt]=${bad}`), 400, 'invalid_query', '/v1/products', [
        { field: 'created_at[gt]', code: 'invalid_value' },
      ]);
    }
  });
});

describe('range filters on a declared date', () => {
  const DECLARATION: ResourcesDeclaration = {
    resources: {
      meetings: {
        singular: 'meeting',
        access: { list: 'user', read: 'user', create: 'user', update: 'admin', delete: 'admin' },
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 100 },
          day: { type: 'string', format: 'date', 'x-filter': true, 'x-sort': true },
          seats: { type: 'integer', minimum: 0, maximum: 1000 },
        },
        required: ['title', 'day'],
      },
    },
  };

  test('day[gte] and day[lte] compare dates; an undeclared range (seats) is a 400', async () => {
    const declared = await startTestServerWithAdminBootstrap({ resources: DECLARATION });
    try {
      for (const [title, day] of [
        ['Opening', '2026-03-01'],
        ['Talk', '2026-03-15'],
        ['Closing', '2026-04-01'],
      ]) {
        assert.equal((await declared.post('/v1/meetings', { title, day, seats: 10 })).status, 201);
      }
      const march = await declared.get('/v1/meetings?day[gte]=2026-03-01&day[lte]=2026-03-31&sort=day');
      assertJson(march, 200);
      assert.deepEqual(
        march.body.data.map((meeting: { title: string }) => meeting.title),
        ['Opening', 'Talk'],
      );
      assertProblem(await declared.get('/v1/meetings?day[gte]=March'), 400, 'invalid_query', '/v1/meetings', [
        { field: 'day[gte]', code: 'invalid_value' },
      ]);
      assertProblem(await declared.get('/v1/meetings?seats[gte]=5'), 400, 'invalid_query', '/v1/meetings', [
        { field: 'seats[gte]', code: 'unknown_parameter' },
      ]);
    } finally {
      await declared.close();
    }
  });
});
