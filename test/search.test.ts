// Search (README: Lists): `q` on a list finds the records whose `x-search` properties hold
// every word of the text, whole words, ignoring case and accents (store/search-words.ts); with
// filters, ranges, sort and pages; links keep it; kept up to date by every write; a list
// without searchable properties, or a `q` without words, is a 400. Unit tests of the
// words themselves, and of the memory store's word index (built in slices, searches
// waiting for it, writes made meanwhile applied), come first.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { searchWords } from '../src/store/search-words.ts';
import type { StoredRecord } from '../src/records/json.ts';
import { IdList } from '../src/store/id-list.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import { IndexBuilding } from '../src/store/index-building.ts';
import { WordIndex } from '../src/store/word-index.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';
import { mulberry32 } from './random.ts';
import { idsHoldingEveryWord } from './search-scan.ts';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import {
  createProduct,
  createUser,
  notAgainOnSharedPostgres,
  startTestServer,
  startTestServerWithAdminBootstrap,
} from './helpers.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';
import { assertJson, assertProblem } from './assertions.ts';

describe('search words', () => {
  test('case and accents are dropped; anything but letters and digits separates words', () => {
    assert.deepEqual(searchWords('Café crème, 250 g!'), ['cafe', 'creme', '250', 'g']);
    assert.deepEqual(searchWords('ÅNGSTRÖM naïve—São Paulo'), ['angstrom', 'naive', 'sao', 'paulo']);
    assert.deepEqual(searchWords(' -- '), []);
  });

  test('ASCII text (the quick path) gives the words the Unicode rules give', () => {
    const unicodeWords = (text: string): string[] =>
      text
        .normalize('NFD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word.length > 0);
    const random = mulberry32(23);
    for (let round = 0; round < 5000; round++) {
      const text = Array.from({ length: Math.floor(random() * 30) }, () =>
        String.fromCharCode(Math.floor(random() * 128)),
      ).join('');
      assert.deepEqual(searchWords(text), unicodeWords(text), JSON.stringify(text));
    }
  });
});

/** A list's ids, in the order forEach visits them. */
function idsOf(list: IdList): number[] {
  const ids: number[] = [];
  list.forEach((id) => ids.push(id));
  return ids;
}

describe("the memory store's word index", { skip: notAgainOnSharedPostgres() }, () => {
  const TIMESTAMP = '2026-01-01T00:00:00.000Z';
  const WORDS = ['smoky', 'floral', 'dark', 'kettle', 'mug', 'tea', 'café', 'crème', 'x1', 'rare'];
  const product = (id: number, random: () => number): StoredRecord =>
    ({
      id,
      name: Array.from({ length: 1 + Math.floor(random() * 3) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(
        ' ',
      ),
      description:
        random() < 0.5
          ? `${WORDS[Math.floor(random() * WORDS.length)]}, ${id % 7 === 0 ? 'Rare' : 'plain'}`
          : undefined,
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    }) as StoredRecord;
  const FIELDS = ['name', 'description'];
  /** What a search must find: the ids whose fields hold every word, by a scan. */
  const scanned = (records: Iterable<StoredRecord>, words: readonly string[]): number[] =>
    idsHoldingEveryWord(records, FIELDS, words);
  const QUERIES = [
    ['smoky'],
    ['tea', 'mug'],
    ['cafe', 'creme'],
    ['rare'],
    ['x1', 'dark', 'kettle'],
    ['absent'],
    ['tea', 'absent'],
  ];

  test('IdList keeps ids ascending and once each, inserting, removing, and past 2^32 − 1', () => {
    const list = new IdList();
    for (const id of [5, 1, 9, 5, 3, 2 ** 40, 7, 2 ** 33]) list.add(id);
    list.remove(9);
    list.remove(4);
    assert.deepEqual(
      Array.from({ length: list.length }, (_, index) => list.at(index)),
      [1, 3, 5, 7, 2 ** 33, 2 ** 40],
    );
    assert.equal(list.positionOf(6, 0), 3);
  });

  test('IdList keeps bits instead of ids while long and dense: has() and forEach answer as a Set does, through growth, removals and an id past 2^32 − 1', () => {
    const random = mulberry32(5);
    const list = new IdList();
    const held = new Set<number>();
    const check = (when: string): void => {
      for (let id = 0; id <= 6_100; id++) assert.equal(list.has(id), held.has(id), `${when}: has(${id})`);
      assert.equal(list.length, held.size, when);
      assert.deepEqual(
        idsOf(list),
        [...held].sort((a, b) => a - b),
        `${when}: forEach in ascending order`,
      );
    };
    for (let id = 1; id <= 3000; id += 1 + Math.floor(random() * 4)) {
      list.add(id);
      held.add(id);
    }
    assert.equal(list.dense, true, 'about one id in two up to 3,000');
    check('dense');
    for (let id = 3001; id <= 6000; id += 7) {
      list.add(id);
      held.add(id);
    }
    assert.equal(list.dense, true, 'its bits grew with it');
    check('grown');
    for (const id of [...held].filter((_, index) => index % 3 === 0)) {
      list.remove(id);
      held.delete(id);
    }
    check('after removals');
    for (const id of [...held].slice(100)) {
      list.remove(id);
      held.delete(id);
    }
    assert.equal(list.dense, false, 'too short for bits');
    check('short');
    for (let id = 6001; id <= 6100; id++) {
      list.add(id);
      held.add(id);
    }
    list.add(2 ** 40);
    held.add(2 ** 40);
    assert.equal(list.dense, false, 'an id far past the others');
    assert.equal(list.has(2 ** 40), true);
    assert.equal(list.has(2 ** 35), false);
    check('sparse again');
    const wide = new IdList(Array.from({ length: 1000 }, (_, index) => index + 1));
    assert.equal(wide.dense, true);
    wide.add(2 ** 33);
    assert.equal(wide.dense, false, 'bits up to 2^33 would take far more room than the list');
    assert.deepEqual(
      [500, 1001, 2 ** 33, 2 ** 33 + 32].map((id) => wide.has(id)),
      [true, false, true, false],
    );
  });

  test('IdList made with its room counted, then appended to (an index being built), holds what add gives: the same ids, bits and answers', () => {
    const random = mulberry32(17);
    for (const [count, spread, dense] of [
      [3000, 3, true],
      [3000, 200, false],
      [40, 3, false],
    ] as const) {
      const ids: number[] = [];
      for (let id = 0, index = 0; index < count; index++) ids.push((id += 1 + Math.floor(random() * spread)));
      const largest = ids[ids.length - 1] as number;
      const added = new IdList();
      const appended = new IdList([], { count, largest });
      assert.equal(appended.dense, dense, `${count} ids up to ${largest}: made as ${dense ? 'bits' : 'ids'}`);
      for (const [index, id] of ids.entries()) {
        added.add(id);
        appended.append(id);
        if (index % 10 === 0) appended.append(id); // a word twice in one record
      }
      appended.append(5); // below the others: put in its place
      added.add(5);
      assert.deepEqual(idsOf(appended), idsOf(added), `${count} ids, gaps up to ${spread}`);
      assert.equal(appended.dense, added.dense, `${count} ids, gaps up to ${spread}: bits kept alike`);
      for (let probe = 0; probe <= largest + 1; probe++) assert.equal(appended.has(probe), added.has(probe));
    }
  });

  test('IdList.seek finds what positionOf finds, from any start, for ids sought in ascending order', () => {
    const random = mulberry32(11);
    const list = new IdList();
    for (let count = 0; count < 2000; count++) list.add(1 + Math.floor(random() * 200_000));
    assert.equal(list.dense, false, 'sparse: it keeps ids');
    for (const from of [0, 1, 7, 500, list.length - 1, list.length]) {
      let position = from;
      for (let id = 0; id <= 200_002; id += 1 + Math.floor(random() * 400)) {
        const expected = list.positionOf(id, from);
        assert.equal(list.seek(id, from), expected, `seek(${id}, ${from})`);
        position = list.seek(id, position);
        assert.equal(position, expected, `walking: seek(${id}) after the previous id`);
      }
    }
  });

  test('built in slices: changes made meanwhile (renames, deletions, new records) are in it once built; a search then finds what a scan finds', async () => {
    const random = mulberry32(7);
    const records = new Map<number, StoredRecord>();
    for (let id = 1; id <= 3000; id++) records.set(id, product(id, random));
    const index = new WordIndex(FIELDS, [...records.values()], 0);
    const building = index.building;
    assert.ok(building instanceof Promise, 'not built in one turn');
    const change = (previous: StoredRecord | undefined, next: StoredRecord | undefined): void => {
      index.update(previous, next);
      const id = (previous ?? next)?.id as number;
      if (next === undefined) records.delete(id);
      else records.set(id, next);
    };
    for (let round = 0; round < 300; round++) {
      const id = 1 + Math.floor(random() * 3200);
      const previous = records.get(id);
      change(previous, random() < 0.3 ? undefined : product(id, random));
    }
    await building;
    assert.equal(index.building, undefined);
    for (const words of QUERIES)
      assert.deepEqual(index.idsHolding(words), scanned(records.values(), words), words.join(' '));
    // and once built, every change is applied at once
    change(records.get(7), { ...(records.get(7) as StoredRecord), name: 'absent smoky' });
    change(records.get(14), undefined);
    for (const words of QUERIES)
      assert.deepEqual(index.idsHolding(words), scanned(records.values(), words), words.join(' '));
    assert.deepEqual(index.idsHolding([]), [], 'no words: no records');
  });

  test('a word a record holds twice, in both fields, is one holding: found, renamed away and deleted alike', async () => {
    const records = new Map<number, StoredRecord>();
    for (let id = 1; id <= 400; id++)
      records.set(id, {
        id,
        name: `sku${id} kettle`,
        description: `the sku${id} kettle, sku${id} again`,
        created_at: TIMESTAMP,
        updated_at: TIMESTAMP,
      });
    const index = new WordIndex(FIELDS, [...records.values()], 0);
    await index.building;
    assert.deepEqual(index.idsHolding(['sku7']), [7]);
    assert.deepEqual(index.idsHolding(['kettle']).length, 400);
    index.update(records.get(7), { ...(records.get(7) as StoredRecord), name: 'kettle', description: 'plain' });
    assert.deepEqual(index.idsHolding(['sku7']), []);
    index.update(records.get(8), undefined);
    assert.deepEqual(index.idsHolding(['sku8']), []);
    assert.deepEqual(index.idsHolding(['sku9', 'kettle']), [9]);
  });

  /** A memory store of 60,000 products, drawn from `seed`. */
  const storeOfProducts = (seed: number): { products: StoredRecord[]; store: MemoryStore } => {
    const random = mulberry32(seed);
    const products = Array.from({ length: 60_000 }, (_, index) => product(index + 1, random));
    const records = new Map(products.map((record) => [record.id, record]));
    return { products, store: new MemoryStore(new Map([['products', { nextId: 60_001, records }]])) };
  };

  test('a search on a store whose index is being built throws IndexBuilding, and read() waits for it; once built, the same query answers', async () => {
    const { products, store } = storeOfProducts(11);
    const query = { filters: [], search: { fields: FIELDS, words: ['tea', 'mug'] }, sort: [], offset: 0, limit: 5 };
    const waiting = (() => {
      try {
        store.query('products', query);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    assert.ok(waiting instanceof IndexBuilding, 'the first search waits for the index');
    assert.equal(store.get('products', 1), products[0], 'other reads answer meanwhile');
    const read = store.read(() => store.query('products', query));
    assert.ok(read instanceof Promise, 'a read of the search waits for the index');
    await waiting.built;
    const answer = store.query('products', query);
    assert.deepEqual(await read, answer, 'then answers as the search does');
    const expected = scanned(products, ['tea', 'mug']);
    assert.equal(answer.total, expected.length);
    assert.deepEqual(
      answer.records.map((record) => record.id),
      expected.slice(0, 5),
    );
  });

  test('prepareIndexes builds the word index of every searchable collection ahead: then the first search answers at once', async () => {
    const { products, store } = storeOfProducts(12);
    const query = { filters: [], search: { fields: FIELDS, words: ['tea', 'mug'] }, sort: [], offset: 0, limit: 5 };
    const ready = store.prepareIndexes(exampleResources());
    assert.ok(ready instanceof Promise);
    assert.equal(store.get('products', 1), products[0], 'reads answer while it builds');
    await ready;
    const answer = store.query('products', query); // throws IndexBuilding if this search had to build it
    assert.deepEqual(
      answer.records.map((record) => record.id),
      scanned(products, ['tea', 'mug']).slice(0, 5),
    );
  });
});

let api: TestServer;
let kettle: any;
before(async () => {
  api = await startTestServer();
  kettle = await createProduct(api, {
    name: 'Steel kettle',
    category: 'tea',
    price: 40,
    description: 'Brushed steel, 1.7 l.',
  });
  await createProduct(api, { name: 'Glass kettle', category: 'tea', price: 35 });
  await createProduct(api, {
    name: 'Café crème beans',
    category: 'coffee',
    price: 12,
    description: 'Roasted in São Paulo.',
  });
  await createProduct(api, { name: 'Steel mug', category: 'tea', price: 8 });
});
after(() => api.close());

const names = (answer: { body: { data: { name: string }[] } }): string[] =>
  answer.body.data.map((record) => record.name);

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
    assert.deepEqual(
      names(await api.get('/v1/products?q=steel&sort=name')),
      ['Copper kettle', 'Steel mug'],
      'still steel in its description',
    );
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
    assert.deepEqual(
      pt.body.data.map((user: { nome: string }) => user.nome),
      ['Ana Júlia Souza'],
    );
  });

  test('a q without words, too long or with too many words is a 400; a list without searchable properties answers q with 400', async () => {
    for (const bad of [
      '',
      '%20-%20',
      'x'.repeat(201),
      Array.from({ length: 11 }, (_, index) => `w${index}`).join('%20'),
    ]) {
      assertProblem(await api.get(`/v1/products?q=${bad}`), 400, 'invalid_query', '/v1/products', [
        { field: 'q', code: 'invalid_value' },
      ]);
    }
    const user = (await api.get('/v1/users?limit=1')).body.data[0];
    const orders = `/v1/users/${user.id}/orders`;
    const answer = await api.get(`${orders}?q=kettle`);
    assertProblem(answer, 400, 'invalid_query', orders, [{ field: 'q', code: 'unknown_parameter' }]);
    assert.equal(answer.body.errors[0].message, 'this list has no searchable properties (x-search)');
  });
});

describe(
  'q on PostgreSQL: a collection made searchable after it has records',
  {
    skip: POSTGRES_SKIP || notAgainOnSharedPostgres(),
  },
  () => {
    let cluster: PostgresCluster | undefined;
    after(() => cluster?.stop());

    const notes = (searchable: boolean): ResourcesDeclaration => ({
      resources: {
        notes: {
          singular: 'note',
          access: { list: 'user', read: 'user', create: 'user', update: 'admin', delete: 'admin' },
          properties: {
            text: { type: 'string', minLength: 1, maxLength: 500, ...(searchable ? { 'x-search': true } : {}) },
          },
          required: ['text'],
        },
      },
    });

    test('the next start gives the old records their words; dropping x-search again is no refused start', async () => {
      cluster = await startCluster();
      const database = cluster.url(await cluster.createDatabase());
      const before = await startTestServerWithAdminBootstrap({ database, resources: notes(false) });
      try {
        for (const text of ['Buy green tea', 'Call the plumber', 'Green paint for the door'])
          assert.equal((await before.post('/v1/notes', { text })).status, 201);
        assertProblem(await before.get('/v1/notes?q=green'), 400, 'invalid_query', '/v1/notes', [
          { field: 'q', code: 'unknown_parameter' },
        ]);
      } finally {
        await before.close();
      }
      const searchable = await startTestServerWithAdminBootstrap({ database, resources: notes(true) });
      try {
        const found = await searchable.get('/v1/notes?q=GREEN');
        assertJson(found, 200);
        assert.deepEqual(
          found.body.data.map((note: { text: string }) => note.text),
          ['Buy green tea', 'Green paint for the door'],
        );
      } finally {
        await searchable.close();
      }
      const again = await startTestServerWithAdminBootstrap({ database, resources: notes(false) });
      await again.close();
    });
  },
);
