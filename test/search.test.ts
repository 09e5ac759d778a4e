// Search (CONTRACT §13): `q` on a list finds the records whose `x-search` properties hold
// every word of the text, whole words, ignoring case and accents (search-words.ts); with
// filters, ranges, sort and pages; links keep it; kept up to date by every write; a list
// without searchable properties, or a `q` without words, is a 400. Unit tests of the
// words themselves come first.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { searchWords } from '../src/search-words.js';
import type { ResourcesDeclaration } from '../src/index.js';
import type { TestServer } from './helpers.js';
import { createProduct, createUser, startTestServer, startTestServerWithAdminBootstrap } from './helpers.js';
import type { PostgresCluster } from './postgres-cluster.js';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.js';
import { assertJson, assertProblem } from './assertions.js';

describe('search words', () => {
  test('case and accents are dropped; anything but letters and digits separates words', () => {
    assert.deepEqual(searchWords('Café crème, 250 g!'), ['cafe', 'creme', '250', 'g']);
    assert.deepEqual(searchWords('ÅNGSTRÖM naïve—São Paulo'), ['angstrom', 'naive', 'sao', 'paulo']);
    assert.deepEqual(searchWords(' -- '), []);
  });
});

let api: TestServer;
let kettle: any;
before(async () => {
  api = await startTestServer();
  kettle = await createProduct(api, { name: 'Steel kettle', category: 'tea', price: 40, description: 'Brushed steel, 1.7 l.' });
  await createProduct(api, { name: 'Glass kettle', category: 'tea', price: 35 });
  await createProduct(api, { name: 'Café crème beans', category: 'coffee', price: 12, description: 'Roasted in São Paulo.' });
  await createProduct(api, { name: 'Steel mug', category: 'tea', price: 8 });
});
after(() => api.close());

const names = (answer: { body: { data: { name: string }[] } }): string[] => answer.body.data.map((record) => record.name);

describe('q on a list', () => {
  test('every word, in the name or the description, ignoring case and accents; whole words only', async () => {
    assert.deepEqual(names(await api.get('/v1/products?q=kettle')), ['Steel kettle', 'Glass kettle']);
    assert.deepEqual(names(await api.get('/v1/products?q=STEEL%20Kettle')), ['Steel kettle']);
    assert.deepEqual(names(await api.get('/v1/products?q=brushed')), ['Steel kettle'], 'a word of the description');
    assert.deepEqual(names(await api.get('/v1/products?q=cafe%20CREME')), ['Café crème beans']);
    assert.deepEqual(names(await api.get(`/v1/products?q=${encodeURIComponent('são')}`)), ['Café crème beans']);
    assert.deepEqual(names(await api.get('/v1/products?q=kett')), [], 'a part of a word is not a word');
    assert.deepEqual(names(await api.get('/v1/products?q=steel%20glass')), [], 'every word, not any');
  });

  test('with a filter, a range, a sort and pages; the total counts the matches; links keep q', async () => {
    const page = await api.get('/v1/products?q=steel&category=tea&price[gte]=5&sort=price&limit=1');
    assertJson(page, 200);
    assert.deepEqual(names(page), ['Steel mug']);
    assert.deepEqual(page.body.meta, { page: 1, limit: 1, total: 2, pages: 2 });
    assert.equal(page.body.links.next, '/v1/products?category=tea&q=steel&price%5Bgte%5D=5&sort=price&page=2&limit=1');
    assert.deepEqual(names(await api.get(page.body.links.next)), ['Steel kettle']);
  });

  test('writes are found at once: a rename, a new record, a deletion', async () => {
    assert.equal((await api.patch(`/v1/products/${kettle.id}`, { name: 'Copper kettle' })).status, 200);
    assert.deepEqual(names(await api.get('/v1/products?q=copper')), ['Copper kettle']);
    assert.deepEqual(names(await api.get('/v1/products?q=steel&sort=name')), ['Copper kettle', 'Steel mug'], 'still steel in its description');
    const pot = await createProduct(api, { name: 'Copper pot', category: 'kitchen', price: 50 });
    assert.deepEqual(names(await api.get('/v1/products?q=copper&sort=name')), ['Copper kettle', 'Copper pot']);
    assert.equal((await api.delete(`/v1/products/${pot.id}`)).status, 204);
    assert.deepEqual(names(await api.get('/v1/products?q=copper')), ['Copper kettle']);
  });

  test('users are searched by name, in Portuguese too', async () => {
    await createUser(api, { name: 'Ana Júlia Souza', email: 'ana@example.com' });
    assert.deepEqual(names(await api.get('/v1/users?q=julia')), ['Ana Júlia Souza']);
    const pt = await api.get('/v1/usuarios?q=souza');
    assertJson(pt, 200);
    assert.deepEqual(pt.body.data.map((user: { nome: string }) => user.nome), ['Ana Júlia Souza']);
  });

  test('a q without words, too long or with too many words is a 400; a list without searchable properties answers q with 400', async () => {
    for (const bad of ['', '%20-%20', 'x'.repeat(201), Array.from({ length: 11 }, (_, index) => `w${index}`).join('%20')]) {
      assertProblem(await api.get(`/v1/products?q=${bad}`), 400, 'invalid_query', '/v1/products', [{ field: 'q', code: 'invalid_value' }]);
    }
    const user = (await api.get('/v1/users?limit=1')).body.data[0];
    const orders = `/v1/users/${user.id}/orders`;
    const answer = await api.get(`${orders}?q=kettle`);
    assertProblem(answer, 400, 'invalid_query', orders, [{ field: 'q', code: 'unknown_parameter' }]);
    assert.equal(answer.body.errors[0].message, 'this list has no searchable properties (x-search)');
  });
});

describe('q on PostgreSQL: a collection made searchable after it has records', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster | undefined;
  after(() => cluster?.stop());

  const notes = (searchable: boolean): ResourcesDeclaration => ({
    resources: {
      notes: {
        singular: 'note',
        access: { list: 'user', read: 'user', create: 'user', update: 'admin', delete: 'admin' },
        properties: { text: { type: 'string', minLength: 1, maxLength: 500, ...(searchable ? { 'x-search': true } : {}) } },
        required: ['text'],
      },
    },
  });

  test('the next start gives the old records their words; dropping x-search again is no refused start', async () => {
    cluster = await startCluster();
    const database = cluster.url(await cluster.createDatabase());
    const before = await startTestServerWithAdminBootstrap({ database, resources: notes(false) });
    try {
      for (const text of ['Buy green tea', 'Call the plumber', 'Green paint for the door']) assert.equal((await before.post('/v1/notes', { text })).status, 201);
      assertProblem(await before.get('/v1/notes?q=green'), 400, 'invalid_query', '/v1/notes', [{ field: 'q', code: 'unknown_parameter' }]);
    } finally {
      await before.close();
    }
    const searchable = await startTestServerWithAdminBootstrap({ database, resources: notes(true) });
    try {
      const found = await searchable.get('/v1/notes?q=GREEN');
      assertJson(found, 200);
      assert.deepEqual(found.body.data.map((note: { text: string }) => note.text), ['Buy green tea', 'Green paint for the door']);
    } finally {
      await searchable.close();
    }
    const again = await startTestServerWithAdminBootstrap({ database, resources: notes(false) });
    await again.close();
  });
});
