// The filter operators of lists (README: Lists, "Filter operators"; http/filter-operators.ts): `[in]`, a repeated
// equality read as `in`, `[ne]`, `[contains]` and `[starts]` (case and accents ignored), `[null]` and `or=(…)`, with
// equality, ranges, sort and paging; links keep them; any vocabulary; an operator a property's type cannot take, a
// bad value or a malformed `or` is a 400 naming the parameter.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { createProduct, startTestServer, startTestServerWithAdminBootstrap } from './helpers.ts';
import { assertJson, assertProblem } from './assertions.ts';

const TASKS: ResourcesDeclaration = {
  resources: {
    tasks: {
      singular: 'task',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 100, 'x-filter': true, 'x-sort': true },
        state: { enum: ['todo', 'doing', 'done'], 'x-filter': true },
        points: { type: 'integer', minimum: 0, maximum: 100, 'x-filter': true, 'x-sort': true },
        note: { type: 'string', maxLength: 100, 'x-filter': true },
        urgent: { type: 'boolean', 'x-filter': true },
      },
      required: ['title', 'state', 'points'],
      names: { pt: { collection: 'tarefas', singular: 'tarefa', properties: { title: 'titulo', state: 'estado' } } },
    },
  },
};

const TASK_ROWS = [
  { title: 'Crème brûlée', state: 'todo', points: 3, note: 'for Sunday', urgent: true },
  { title: 'Buy CREAM', state: 'doing', points: 1, urgent: false },
  { title: 'Écrire, relire', state: 'done', points: 8, note: 'a, b and c' },
  { title: 'Call Ana', state: 'todo', points: 5 },
  { title: 'a, b', state: 'done', points: 2, note: 'comma' },
  { title: 'Plan the week', state: 'doing', points: 13, urgent: true },
];

let api: TestServer;
let tasks: TestServer;
before(async () => {
  api = await startTestServer();
  for (const [name, category, price] of [
    ['Cup', 'tea', 5],
    ['Mug', 'tea', 10],
    ['Beans', 'coffee', 12],
    ['Grinder', 'coffee', 40],
    ['Kettle', 'kitchen', 25],
    ['Novel', 'books', 9],
  ] as const) {
    await createProduct(api, { name, category, price });
  }
  tasks = await startTestServerWithAdminBootstrap({ resources: TASKS });
  for (const row of TASK_ROWS) assert.equal((await tasks.post('/v1/tasks', row)).status, 201);
});
after(async () => {
  await api.close();
  await tasks.close();
});

const names = (answer: { body: { data: { name?: string; nome?: string }[] } }): string[] =>
  answer.body.data.map((record) => record.name ?? (record.nome as string));
const titles = (answer: { body: { data: { title?: string; titulo?: string }[] } }): string[] =>
  answer.body.data.map((record) => record.title ?? (record.titulo as string));

describe('[in] and repeated equality', () => {
  test('category[in]=tea,books keeps the records holding either value, in id order, and counts them', async () => {
    const answer = await api.get('/v1/products?category[in]=tea,books');
    assertJson(answer, 200);
    assert.deepEqual(names(answer), ['Cup', 'Mug', 'Novel']);
    assert.equal(answer.body.meta.total, 3);
  });

  test('a repeated equality parameter means the same, in any vocabulary, and a value given twice counts once', async () => {
    assert.deepEqual(names(await api.get('/v1/products?category=tea&category=books')), ['Cup', 'Mug', 'Novel']);
    assert.deepEqual(names(await api.get('/v1/produtos?categoria=tea&category=books')), ['Cup', 'Mug', 'Novel']);
    const repeated = await api.get('/v1/produtos?categoria=tea&categoria=tea');
    assertJson(repeated, 200);
    assert.equal(repeated.body.meta.total, 2);
  });

  test('on a number, with a sort, a range and paging; links.next keeps [in] and leads to the rest', async () => {
    const first = await api.get('/v1/products?price[in]=5,10,12,40,9&price[gte]=9&sort=-price&limit=2');
    assertJson(first, 200);
    assert.deepEqual(names(first), ['Grinder', 'Beans']);
    assert.equal(first.body.meta.total, 4);
    assert.match(first.body.links.next, /price%5Bin%5D=5,10,12,40,9/);
    const second = await api.get(first.body.links.next);
    assert.deepEqual(names(second), ['Mug', 'Novel']);
  });

  test('paging through an [in] alone: each page in id order, the total the buckets hold', async () => {
    const pages: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const answer = await api.get(`/v1/products?category[in]=coffee,tea,kitchen&limit=2&page=${page}`);
      assert.equal(answer.body.meta.total, 5);
      pages.push(...names(answer));
    }
    assert.deepEqual(pages, ['Cup', 'Mug', 'Beans', 'Grinder', 'Kettle']);
  });

  test('a value holding a comma is sent percent-encoded; the raw commas separate values', async () => {
    assert.deepEqual(titles(await tasks.get('/v1/tasks?title[in]=a%2C%20b,Call%20Ana')), ['Call Ana', 'a, b']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?title=a%2C%20b')), ['a, b']);
  });

  test('an enum, a boolean; a value the type cannot hold is a 400 naming the parameter', async () => {
    assert.deepEqual(titles(await tasks.get('/v1/tasks?state[in]=todo,done&urgent=true')), ['Crème brûlée']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?urgent[in]=true,false&sort=points')), [
      'Buy CREAM',
      'Crème brûlée',
      'Plan the week',
    ]);
    assertProblem(await tasks.get('/v1/tasks?state[in]=todo,later'), 400, 'invalid_query', '/v1/tasks', [
      { field: 'state[in]', code: 'invalid_value' },
    ]);
    assertProblem(await tasks.get('/v1/tasks?points=1&points=x'), 400, 'invalid_query', '/v1/tasks', [
      { field: 'points', code: 'invalid_value' },
    ]);
    const many = Array.from({ length: 101 }, (_, index) => index).join(',');
    assertProblem(await tasks.get(`/v1/tasks?points[in]=${many}`), 400, 'invalid_query', '/v1/tasks', [
      { field: 'points[in]', code: 'invalid_value' },
    ]);
  });
});

describe('[ne], [contains], [starts], [null]', () => {
  test('[ne] keeps what differs, records without the property included', async () => {
    assert.deepEqual(names(await api.get('/v1/products?category[ne]=tea&price[lt]=30')), ['Beans', 'Kettle', 'Novel']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?note[ne]=comma&state=done')), ['Écrire, relire']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?urgent[ne]=true')), [
      'Buy CREAM',
      'Écrire, relire',
      'Call Ana',
      'a, b',
    ]);
  });

  test('[contains] and [starts] ignore case and accents, on both sides', async () => {
    assert.deepEqual(titles(await tasks.get('/v1/tasks?title[contains]=CREM')), ['Crème brûlée']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?title[contains]=cream')), ['Buy CREAM']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?title[contains]=br%C3%BBl%C3%89e')), ['Crème brûlée']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?title[starts]=ecr')), ['Écrire, relire']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?title[starts]=relire')), []);
    assert.deepEqual(titles(await tasks.get('/v1/tarefas?titulo[contains]=a&estado=doing')), [
      'Buy CREAM',
      'Plan the week',
    ]);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?note[contains]=o')), ['Crème brûlée', 'a, b']);
  });

  test('[null]=true keeps the records without the property, false those with it', async () => {
    assert.deepEqual(titles(await tasks.get('/v1/tasks?note[null]=true')), ['Buy CREAM', 'Call Ana', 'Plan the week']);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?urgent[null]=false&sort=-points')), [
      'Plan the week',
      'Crème brûlée',
      'Buy CREAM',
    ]);
    assertProblem(await tasks.get('/v1/tasks?note[null]=yes'), 400, 'invalid_query', '/v1/tasks', [
      { field: 'note[null]', code: 'invalid_value' },
    ]);
  });

  test('links keep each operator, in the path vocabulary, and lead to the same records', async () => {
    const first = await tasks.get('/v1/tarefas?titulo[contains]=e&note[null]=false&estado[ne]=doing&limit=1');
    assertJson(first, 200);
    assert.equal(first.body.meta.total, 2);
    const second = await tasks.get(first.body.links.next);
    assert.deepEqual([...titles(first), ...titles(second)], ['Crème brûlée', 'Écrire, relire']);
    assert.match(first.body.links.next, /titulo%5Bcontains%5D=e&/);
    assert.match(first.body.links.next, /estado%5Bne%5D=doing&/);
  });
});

describe('or=(…)', () => {
  test('keeps the records meeting any condition, ANDed with the other parameters', async () => {
    assert.deepEqual(names(await api.get('/v1/products?or=(category.eq.books,price.gt.30)')), ['Grinder', 'Novel']);
    assert.deepEqual(names(await api.get('/v1/products?or=(category.in.(tea,books),price.gte.40)&price[gt]=5')), [
      'Mug',
      'Grinder',
      'Novel',
    ]);
    assert.deepEqual(titles(await tasks.get('/v1/tarefas?or=(estado.eq.done,titulo.starts.buy)&sort=-points')), [
      'Écrire, relire',
      'a, b',
      'Buy CREAM',
    ]);
    assert.deepEqual(titles(await tasks.get('/v1/tasks?or=(note.null.true,points.lt.3)&state[ne]=doing')), [
      'Call Ana',
      'a, b',
    ]);
  });

  test('links keep it, and the next page is the rest', async () => {
    const first = await api.get('/v1/products?or=(category.eq.coffee,price.lte.9)&limit=2');
    assertJson(first, 200);
    assert.equal(first.body.meta.total, 4);
    assert.match(first.body.links.next, /or=\(category\.eq\.coffee,price\.lte\.9\)/);
    assert.deepEqual(
      [...names(first), ...names(await api.get(first.body.links.next))],
      ['Cup', 'Beans', 'Grinder', 'Novel'],
    );
  });

  test('a malformed or, an unknown property or operator, or a bad value is a 400 naming or', async () => {
    for (const bad of [
      'or=category.eq.tea',
      'or=()',
      'or=(category.eq.tea',
      'or=(category.like.tea)',
      'or=(name.eq.Cup)',
      'or=(price.gt.cheap)',
      'or=(price.contains.1)',
      'or=(category.in.tea)',
      'or=(category.eq.tea)&or=(price.gt.1)',
    ]) {
      const answer = await api.get(`/v1/products?${bad}`);
      assertProblem(answer, 400, 'invalid_query', '/v1/products', [
        { field: 'or', code: bad.includes('&') ? 'repeated_parameter' : 'invalid_value' },
      ]);
    }
  });
});

describe('an operator the property cannot take', () => {
  test('is a 400 naming the parameter and the properties that take it', async () => {
    const text = await api.get('/v1/products?price[contains]=1');
    assertProblem(text, 400, 'invalid_query', '/v1/products', [
      { field: 'price[contains]', code: 'unsupported_operator' },
    ]);
    assert.equal(text.body.errors[0].message, 'contains applies to category');
    assertProblem(await tasks.get('/v1/tasks?state[starts]=to'), 400, 'invalid_query', '/v1/tasks', [
      { field: 'state[starts]', code: 'unsupported_operator' },
    ]);
    assertProblem(await api.get('/v1/products?name[in]=Cup'), 400, 'invalid_query', '/v1/products', [
      { field: 'name[in]', code: 'unknown_parameter' },
    ]);
    assertProblem(await api.get('/v1/products?price[like]=1'), 400, 'invalid_query', '/v1/products', [
      { field: 'price[like]', code: 'unknown_parameter' },
    ]);
    assertProblem(
      await api.get('/v1/products?category[in]=tea&category[in]=books'),
      400,
      'invalid_query',
      '/v1/products',
      [{ field: 'category[in]', code: 'repeated_parameter' }],
    );
  });
});
