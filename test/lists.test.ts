// Lists (README: Lists): the {data, meta, links} envelope, paging defaults and bounds,
// links and the Link header (RFC 8288) keeping filters and sort, 400 invalid_query for
// bad parameters, sorting with ties broken by id, equality filters, the seeded example
// data, and a seeded property check against a naive filter + sort + slice.

import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { TestResponse, TestServer } from './helpers.ts';
import { createProduct, createUser, mulberry32, startTestServer, TEST_ADMIN_EMAIL } from './helpers.ts';
import { assertProblem, errorCodes } from './assertions.ts';

interface Links {
  self: string;
  first: string;
  prev: string | null;
  next: string | null;
  last: string;
}

/** The Link header the contract prescribes for these links: null relations left out. */
function linkHeaderFor(links: Links): string {
  const relations: (keyof Links)[] = ['self', 'first', 'prev', 'next', 'last'];
  return relations
    .filter((relation) => links[relation] !== null)
    .map((relation) => `<${links[relation] as string}>; rel="${relation}"`)
    .join(', ');
}

function assertLinks(response: TestResponse, links: Links): void {
  assert.deepEqual(response.body.links, links);
  assert.equal(response.headers.get('link'), linkHeaderFor(links));
}

/** A relative link split into its path and its decoded query pairs, in order (the encoding of "," or "@" is free). */
function parseLink(link: string): { path: string; query: [string, string][] } {
  const at = link.indexOf('?');
  assert.ok(at > 0, link);
  return { path: link.slice(0, at), query: [...new URLSearchParams(link.slice(at + 1))] };
}

function idsOf(response: TestResponse): number[] {
  return (response.body.data as { id: number }[]).map((record) => record.id);
}

function range(from: number, to: number): number[] {
  const ids: number[] = [];
  for (let id = from; id <= to; id++) ids.push(id);
  return ids;
}

/** Creates products one after another, so their ids are 1..n in order. */
async function createProducts(
  api: TestServer,
  fields: Partial<{ name: string; category: string; price: number }>[],
): Promise<any[]> {
  const records: any[] = [];
  for (const field of fields) records.push(await createProduct(api, field));
  return records;
}

function manyProducts(count: number): Partial<{ name: string; category: string; price: number }>[] {
  return range(1, count).map((n) => ({ name: `Product ${n}`, price: n }));
}

describe('lists: envelope and meta', () => {
  // One server for the group: its products grow from none to 57 through the first tests (they run in order, each
  // adding what its total needs), and the rest only read the 57.
  let api: TestServer;
  const created: any[] = [];
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  test('a page past the end of an empty list is 200 with empty data and last = page 1', async () => {
    const response = await api.get('/v1/products?page=2');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, []);
    assert.deepEqual(response.body.meta, { page: 2, limit: 20, total: 0, pages: 0 });
    assert.equal(response.body.links.next, null);
    assert.equal(response.body.links.last, '/v1/products?page=1&limit=20');
  });

  const cases = [
    { total: 0, pages: 0, ids: [], next: null, last: 1 },
    { total: 1, pages: 1, ids: [1], next: null, last: 1 },
    { total: 20, pages: 1, ids: range(1, 20), next: null, last: 1 },
    { total: 21, pages: 2, ids: range(1, 20), next: 2, last: 2 },
    { total: 57, pages: 3, ids: range(1, 20), next: 2, last: 3 },
  ];
  for (const c of cases) {
    test(`${c.total} records: page 1 of ${c.pages} by default, limit 20, pages = ceil(total/limit), last = max(pages, 1)`, async () => {
      created.push(...(await createProducts(api, manyProducts(c.total).slice(created.length))));
      const response = await api.get('/v1/products');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.deepEqual(Object.keys(response.body), ['data', 'meta', 'links']);
      assert.deepEqual(response.body.data, created.slice(0, 20));
      assert.deepEqual(idsOf(response), c.ids);
      assert.deepEqual(response.body.meta, { page: 1, limit: 20, total: c.total, pages: c.pages });
      assertLinks(response, {
        self: '/v1/products?page=1&limit=20',
        first: '/v1/products?page=1&limit=20',
        prev: null,
        next: c.next === null ? null : `/v1/products?page=${c.next}&limit=20`,
        last: `/v1/products?page=${c.last}&limit=20`,
      });
    });
  }

  test('the Link header is the exact RFC 8288 list of the body links (middle page)', async () => {
    const response = await api.get('/v1/products?page=2');
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), range(21, 40));
    assert.deepEqual(response.body.meta, { page: 2, limit: 20, total: 57, pages: 3 });
    assert.equal(
      response.headers.get('link'),
      '</v1/products?page=2&limit=20>; rel="self", </v1/products?page=1&limit=20>; rel="first", ' +
        '</v1/products?page=1&limit=20>; rel="prev", </v1/products?page=3&limit=20>; rel="next", ' +
        '</v1/products?page=3&limit=20>; rel="last"',
    );
  });

  test('the last page is partial, has prev and no next', async () => {
    const response = await api.get('/v1/products?page=3');
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), range(41, 57));
    assert.deepEqual(response.body.meta, { page: 3, limit: 20, total: 57, pages: 3 });
    assertLinks(response, {
      self: '/v1/products?page=3&limit=20',
      first: '/v1/products?page=1&limit=20',
      prev: '/v1/products?page=2&limit=20',
      next: null,
      last: '/v1/products?page=3&limit=20',
    });
  });

  test('a page past the end is 200 with empty data, meta and links (prev points back at the last page)', async () => {
    const response = await api.get('/v1/products?page=9');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, []);
    assert.deepEqual(response.body.meta, { page: 9, limit: 20, total: 57, pages: 3 });
    assertLinks(response, {
      self: '/v1/products?page=9&limit=20',
      first: '/v1/products?page=1&limit=20',
      prev: '/v1/products?page=3&limit=20',
      next: null,
      last: '/v1/products?page=3&limit=20',
    });
  });

  test('limit=1 gives one record per page', async () => {
    const response = await api.get('/v1/products?limit=1&page=2');
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), [2]);
    assert.deepEqual(response.body.meta, { page: 2, limit: 1, total: 57, pages: 57 });
    assertLinks(response, {
      self: '/v1/products?page=2&limit=1',
      first: '/v1/products?page=1&limit=1',
      prev: '/v1/products?page=1&limit=1',
      next: '/v1/products?page=3&limit=1',
      last: '/v1/products?page=57&limit=1',
    });
  });

  test('limit=100 (the maximum) returns up to 100 records on one page', async () => {
    const response = await api.get('/v1/products?limit=100');
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), range(1, 57));
    assert.deepEqual(response.body.meta, { page: 1, limit: 100, total: 57, pages: 1 });
    assertLinks(response, {
      self: '/v1/products?page=1&limit=100',
      first: '/v1/products?page=1&limit=100',
      prev: null,
      next: null,
      last: '/v1/products?page=1&limit=100',
    });
  });

  test('links follow: walking next from page 1 visits every record once', async () => {
    const seen: number[] = [];
    let path: string | null = '/v1/products?limit=5';
    while (path !== null) {
      const response = await api.get(path);
      assert.equal(response.status, 200);
      seen.push(...idsOf(response));
      path = response.body.links.next;
    }
    assert.deepEqual(seen, range(1, 57));
  });
});

describe('lists: links keep filters and sort', () => {
  // One server for the group: the tests read, but for one that adds a product of another category.
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
    const fields = [
      ...range(1, 12).map((n) => ({ name: `Tea ${n}`, category: 'tea', price: n })),
      ...range(1, 5).map((n) => ({ name: `Coffee ${n}`, category: 'coffee', price: n })),
    ];
    await createProducts(api, fields);
  });
  after(() => api.close());

  test('filters first, then sort, then page, then limit, whatever the request order (exact Link header)', async () => {
    const response = await api.get('/v1/products?limit=5&sort=-price&page=2&category=tea');
    assert.equal(response.status, 200);
    // tea is ids 1..12 with price = id; -price gives 12..1, page 2 of 5 is 7..3
    assert.deepEqual(idsOf(response), [7, 6, 5, 4, 3]);
    assert.deepEqual(response.body.meta, { page: 2, limit: 5, total: 12, pages: 3 });
    assert.deepEqual(response.body.links, {
      self: '/v1/products?category=tea&sort=-price&page=2&limit=5',
      first: '/v1/products?category=tea&sort=-price&page=1&limit=5',
      prev: '/v1/products?category=tea&sort=-price&page=1&limit=5',
      next: '/v1/products?category=tea&sort=-price&page=3&limit=5',
      last: '/v1/products?category=tea&sort=-price&page=3&limit=5',
    });
    assert.equal(
      response.headers.get('link'),
      '</v1/products?category=tea&sort=-price&page=2&limit=5>; rel="self", ' +
        '</v1/products?category=tea&sort=-price&page=1&limit=5>; rel="first", ' +
        '</v1/products?category=tea&sort=-price&page=1&limit=5>; rel="prev", ' +
        '</v1/products?category=tea&sort=-price&page=3&limit=5>; rel="next", ' +
        '</v1/products?category=tea&sort=-price&page=3&limit=5>; rel="last"',
    );
  });

  test('first page of a filtered list sorted by two keys: no prev; the comma list survives in the links', async () => {
    const response = await api.get('/v1/products?category=coffee&sort=name,-price&limit=2');
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), [13, 14]);
    assert.deepEqual(response.body.meta, { page: 1, limit: 2, total: 5, pages: 3 });
    const links = response.body.links as Links;
    assert.equal(links.prev, null);
    const query = (page: number): [string, string][] => [
      ['category', 'coffee'],
      ['sort', 'name,-price'],
      ['page', String(page)],
      ['limit', '2'],
    ];
    assert.deepEqual(parseLink(links.self), { path: '/v1/products', query: query(1) });
    assert.deepEqual(parseLink(links.first), { path: '/v1/products', query: query(1) });
    assert.deepEqual(parseLink(links.next as string), { path: '/v1/products', query: query(2) });
    assert.deepEqual(parseLink(links.last), { path: '/v1/products', query: query(3) });
    assert.equal(response.headers.get('link'), linkHeaderFor(links));
  });

  test('last page of a filtered list: no next', async () => {
    const response = await api.get('/v1/products?category=tea&limit=5&page=3');
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), [11, 12]);
    assertLinks(response, {
      self: '/v1/products?category=tea&page=3&limit=5',
      first: '/v1/products?category=tea&page=1&limit=5',
      prev: '/v1/products?category=tea&page=2&limit=5',
      next: null,
      last: '/v1/products?category=tea&page=3&limit=5',
    });
  });

  test('following a link reproduces the same page', async () => {
    const first = await api.get('/v1/products?category=tea&sort=-price&limit=5');
    const next = await api.get(first.body.links.next);
    assert.equal(next.status, 200);
    assert.deepEqual(idsOf(next), [7, 6, 5, 4, 3]);
    const again = await api.get(next.body.links.self);
    assert.deepEqual(again.body, next.body);
  });

  test('a filter value with reserved characters is percent-encoded in links and round-trips', async () => {
    await createProduct(api, { name: 'Herbal', category: 'tea & herbs/1', price: 3 });
    const response = await api.get(`/v1/products?category=${encodeURIComponent('tea & herbs/1')}`);
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), [18]);
    const self = response.body.links.self as string;
    assert.deepEqual(parseLink(self), {
      path: '/v1/products',
      query: [
        ['category', 'tea & herbs/1'],
        ['page', '1'],
        ['limit', '20'],
      ],
    });
    const followed = await api.get(self);
    assert.deepEqual(followed.body, response.body);
  });

  test('on a Portuguese path the links use pt parameter and field names; the envelope stays English', async () => {
    const response = await api.get('/v1/produtos?category=tea&sort=-price&limit=5');
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body), ['data', 'meta', 'links']);
    assert.deepEqual(idsOf(response), [12, 11, 10, 9, 8]);
    assert.equal(response.body.data[0].preco, 12);
    assertLinks(response, {
      self: '/v1/produtos?categoria=tea&ordenar=-preco&pagina=1&limite=5',
      first: '/v1/produtos?categoria=tea&ordenar=-preco&pagina=1&limite=5',
      prev: null,
      next: '/v1/produtos?categoria=tea&ordenar=-preco&pagina=2&limite=5',
      last: '/v1/produtos?categoria=tea&ordenar=-preco&pagina=3&limite=5',
    });
  });
});

describe('lists: bad parameters are 400 invalid_query naming the parameter', () => {
  let api: TestServer;
  // The tests only read: one server for all of them.
  before(async () => {
    api = await startTestServer();
    await createUser(api);
  });
  after(() => api.close());

  const cases: { name: string; path: string; errors: { field: string; code: string }[]; message?: RegExp }[] = [
    { name: 'page=0', path: '/v1/products?page=0', errors: [{ field: 'page', code: 'invalid_value' }] },
    { name: 'page=-1', path: '/v1/products?page=-1', errors: [{ field: 'page', code: 'invalid_value' }] },
    { name: 'page=abc', path: '/v1/products?page=abc', errors: [{ field: 'page', code: 'invalid_value' }] },
    { name: 'page=1.5', path: '/v1/products?page=1.5', errors: [{ field: 'page', code: 'invalid_value' }] },
    { name: 'page= (empty)', path: '/v1/products?page=', errors: [{ field: 'page', code: 'invalid_value' }] },
    { name: 'limit=0', path: '/v1/products?limit=0', errors: [{ field: 'limit', code: 'invalid_value' }] },
    { name: 'limit=101', path: '/v1/products?limit=101', errors: [{ field: 'limit', code: 'invalid_value' }] },
    { name: 'limit=500', path: '/v1/products?limit=500', errors: [{ field: 'limit', code: 'invalid_value' }] },
    { name: 'limit=abc', path: '/v1/products?limit=abc', errors: [{ field: 'limit', code: 'invalid_value' }] },
    { name: 'limite=0 (pt name)', path: '/v1/products?limite=0', errors: [{ field: 'limite', code: 'invalid_value' }] },
    {
      name: 'sort=nope',
      path: '/v1/products?sort=nope',
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message:
        /^cannot sort by "nope"; the sortable fields are id, name, category, price, created_at, updated_at \(each optionally prefixed by "-" for descending\)$/,
    },
    {
      name: 'sort= (empty)',
      path: '/v1/products?sort=',
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message: /^has an empty entry; list sortable fields separated by commas: id, /,
    },
    {
      name: 'sort=price,price',
      path: '/v1/products?sort=price,price',
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message: /^names "price" more than once; give each field once$/,
    },
    {
      name: 'sort=price,-price',
      path: '/v1/products?sort=price,-price',
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message: /^names "price" more than once/,
    },
    {
      name: 'sort=price, (trailing comma)',
      path: '/v1/products?sort=price,',
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message: /^has an empty entry/,
    },
    {
      name: 'sort=description (not sortable)',
      path: '/v1/products?sort=description',
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message: /^cannot sort by "-?description"; the sortable fields are /,
    },
    {
      name: 'sort=-region (no such field), a long word cut',
      path: `/v1/products?sort=-region${'x'.repeat(100)}`,
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message: new RegExp(`^cannot sort by "region${'x'.repeat(58)}…"; the sortable fields are `),
    },
    {
      name: 'sort=password on users',
      path: '/v1/users?sort=password',
      errors: [{ field: 'sort', code: 'invalid_value' }],
      message: /^cannot sort by "password"/,
    },
    {
      name: 'category= (empty)',
      path: '/v1/products?category=',
      errors: [{ field: 'category', code: 'invalid_value' }],
    },
    { name: 'role=boss', path: '/v1/users?role=boss', errors: [{ field: 'role', code: 'invalid_value' }] },
    {
      name: 'status=late',
      path: '/v1/users/1/orders?status=late',
      errors: [{ field: 'status', code: 'invalid_value' }],
    },
    { name: 'foo=1', path: '/v1/products?foo=1', errors: [{ field: 'foo', code: 'unknown_parameter' }] },
    {
      name: 'a filter of another resource (role on products)',
      path: '/v1/products?role=user',
      errors: [{ field: 'role', code: 'unknown_parameter' }],
    },
    {
      name: 'page=1&page=2',
      path: '/v1/products?page=1&page=2',
      errors: [{ field: 'page', code: 'repeated_parameter' }],
    },
    {
      name: 'page=1&pagina=2',
      path: '/v1/products?page=1&pagina=2',
      errors: [{ field: 'pagina', code: 'repeated_parameter' }],
    },
  ];
  for (const c of cases) {
    test(`${c.name} → 400 invalid_query, errors[] names it`, async () => {
      const response = await api.get(c.path);
      const instance = c.path.slice(0, c.path.indexOf('?'));
      assertProblem(response, 400, 'invalid_query', instance, c.errors);
      const detail = response.body.detail as string;
      assert.ok(detail.includes(c.errors[0]?.field as string), detail);
      assert.deepEqual(errorCodes(response), c.errors);
      if (c.message !== undefined) assert.match(response.body.errors[0].message, c.message);
    });
  }

  test('several bad parameters give one errors[] entry each', async () => {
    const response = await api.get('/v1/products?page=0&limit=0&foo=1');
    assertProblem(response, 400, 'invalid_query', '/v1/products', [
      { field: 'foo', code: 'unknown_parameter' },
      { field: 'limit', code: 'invalid_value' },
      { field: 'page', code: 'invalid_value' },
    ]);
  });
});

describe('lists: sorting', () => {
  let api: TestServer;
  // The tests only read: one server for all of them.
  before(async () => {
    api = await startTestServer();
    // ids 1..6; prices chosen so that numeric and string order differ (9 < 10 < 100) and with ties
    await createProducts(api, [
      { name: 'delta', category: 'tea', price: 10 },
      { name: 'alpha', category: 'coffee', price: 9 },
      { name: 'charlie', category: 'tea', price: 100 },
      { name: 'bravo', category: 'coffee', price: 10 },
      { name: 'alpha', category: 'tea', price: 9 },
      { name: 'echo', category: 'coffee', price: 100 },
    ]);
  });
  after(() => api.close());

  const cases = [
    { sort: 'price', ids: [2, 5, 1, 4, 3, 6], why: 'numeric ascending, ties by id ascending' },
    { sort: '-price', ids: [3, 6, 1, 4, 2, 5], why: 'numeric descending, ties still by id ascending' },
    { sort: 'name', ids: [2, 5, 4, 3, 1, 6], why: 'string ascending, ties by id ascending' },
    { sort: '-name', ids: [6, 1, 3, 4, 2, 5], why: 'string descending, ties still by id ascending' },
    { sort: 'category,-price', ids: [6, 4, 2, 3, 1, 5], why: 'multi-key: category ascending, then price descending' },
    { sort: '-category,price,-name', ids: [5, 1, 3, 2, 4, 6], why: 'three keys' },
    { sort: '-id', ids: [6, 5, 4, 3, 2, 1], why: 'id descending' },
    { sort: 'id', ids: [1, 2, 3, 4, 5, 6], why: 'id ascending (the default)' },
    { sort: '-preco', ids: [3, 6, 1, 4, 2, 5], why: 'a pt field name on an en path' },
    { sort: 'created_at', ids: [1, 2, 3, 4, 5, 6], why: 'creation order' },
  ];
  for (const c of cases) {
    test(`sort=${c.sort}: ${c.why}`, async () => {
      const response = await api.get(`/v1/products?sort=${c.sort}`);
      assert.equal(response.status, 200);
      assert.deepEqual(idsOf(response), c.ids);
      assert.equal(response.body.meta.total, 6);
    });
  }

  test('no sort parameter means id ascending and no sort in the links', async () => {
    const response = await api.get('/v1/products');
    assert.deepEqual(idsOf(response), [1, 2, 3, 4, 5, 6]);
    assert.equal(response.body.links.self, '/v1/products?page=1&limit=20');
  });

  test('sorting composes with paging: page 2 of sort=-price,name with limit 4', async () => {
    const response = await api.get('/v1/products?sort=-price,name&limit=4&page=2');
    assert.equal(response.status, 200);
    // -price: 100 (charlie 3, echo 6), 10 (bravo 4, delta 1), 9 (alpha 2, alpha 5)
    assert.deepEqual(idsOf(response), [2, 5]);
    assert.deepEqual(response.body.meta, { page: 2, limit: 4, total: 6, pages: 2 });
    assert.deepEqual(parseLink(response.body.links.self), {
      path: '/v1/products',
      query: [
        ['sort', '-price,name'],
        ['page', '2'],
        ['limit', '4'],
      ],
    });
  });
});

describe('lists: filters combined with sort and paging', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer();
  });
  afterEach(() => api.close());

  test('products: category filter + sort=-price + page 2', async () => {
    await createProducts(api, [
      { category: 'tea', price: 4 },
      { category: 'coffee', price: 50 },
      { category: 'tea', price: 8 },
      { category: 'tea', price: 1 },
      { category: 'coffee', price: 9 },
      { category: 'tea', price: 8 },
      { category: 'tea', price: 2 },
    ]);
    const response = await api.get('/v1/products?category=tea&sort=-price&limit=2&page=2');
    assert.equal(response.status, 200);
    // tea by -price: 3 (8), 6 (8), 1 (4), 7 (2), 4 (1)
    assert.deepEqual(idsOf(response), [1, 7]);
    assert.deepEqual(response.body.meta, { page: 2, limit: 2, total: 5, pages: 3 });
    for (const record of response.body.data) assert.equal(record.category, 'tea');
  });

  test('products: a category nobody has gives an empty list with total 0', async () => {
    await createProducts(api, [{ category: 'tea' }]);
    const response = await api.get('/v1/products?category=cocoa');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, []);
    assert.deepEqual(response.body.meta, { page: 1, limit: 20, total: 0, pages: 0 });
  });

  test('users: email filter ignores case and the list never shows passwords', async () => {
    const carol = await createUser(api, { email: 'Carol@Example.com', password: 'correct horse' });
    await createUser(api, { email: 'dave@example.com' });
    const response = await api.get(`/v1/users?email=${encodeURIComponent('carol@EXAMPLE.COM')}`);
    assert.equal(response.status, 200);
    assert.deepEqual(idsOf(response), [carol]);
    assert.deepEqual(Object.keys(response.body.data[0]).sort(), [
      'created_at',
      'email',
      'id',
      'name',
      'role',
      'updated_at',
    ]);
    assert.equal(response.body.data[0].email, 'Carol@Example.com');
    assert.deepEqual(parseLink(response.body.links.self), {
      path: '/v1/users',
      query: [
        ['email', 'carol@EXAMPLE.COM'],
        ['page', '1'],
        ['limit', '20'],
      ],
    });
  });

  test('users: role filter + sort=-email + paging', async () => {
    const a = await createUser(api, { email: 'a@example.com', role: 'admin' });
    const b = await createUser(api, { email: 'b@example.com' });
    const c = await createUser(api, { email: 'c@example.com', role: 'admin' });
    const d = await createUser(api, { email: 'd@example.com', role: 'admin' });
    // The administrator the server ensures at start (id 1 in an empty store) is an admin
    // too, and admin@example.com sorts between c@ and a@.
    const administrator = 1;
    const admins = await api.get('/v1/users?role=admin&sort=-email&limit=2');
    assert.equal(admins.status, 200);
    assert.deepEqual(idsOf(admins), [d, c]);
    assert.deepEqual(admins.body.meta, { page: 1, limit: 2, total: 4, pages: 2 });
    assert.equal(admins.body.links.next, '/v1/users?role=admin&sort=-email&page=2&limit=2');
    const page2 = await api.get(admins.body.links.next);
    assert.deepEqual(idsOf(page2), [administrator, a]);
    assert.equal(page2.body.data[0].email, TEST_ADMIN_EMAIL);
    const users = await api.get('/v1/users?papel=user');
    assert.deepEqual(idsOf(users), [b]);
  });

  test('orders: status filter under one user + sort=-total, other users’ orders excluded', async () => {
    const owner = await createUser(api);
    const other = await createUser(api);
    const product = await createProduct(api, { price: 10 });
    const order = async (user: number, quantity: number): Promise<number> => {
      const response = await api.post(`/v1/users/${user}/orders`, { items: [{ product_id: product.id, quantity }] });
      assert.equal(response.status, 201, response.text);
      return response.body.id as number;
    };
    const o1 = await order(owner, 1);
    const o2 = await order(owner, 5);
    const o3 = await order(owner, 3);
    const o4 = await order(other, 9);
    const o5 = await order(owner, 2);
    const paid = await api.patch(`/v1/users/${owner}/orders/${o3}`, { status: 'paid' });
    assert.equal(paid.status, 200, paid.text);

    const pending = await api.get(`/v1/users/${owner}/orders?status=pending&sort=-total&limit=2`);
    assert.equal(pending.status, 200);
    assert.deepEqual(idsOf(pending), [o2, o5]);
    assert.deepEqual(pending.body.meta, { page: 1, limit: 2, total: 3, pages: 2 });
    assertLinks(pending, {
      self: `/v1/users/${owner}/orders?status=pending&sort=-total&page=1&limit=2`,
      first: `/v1/users/${owner}/orders?status=pending&sort=-total&page=1&limit=2`,
      prev: null,
      next: `/v1/users/${owner}/orders?status=pending&sort=-total&page=2&limit=2`,
      last: `/v1/users/${owner}/orders?status=pending&sort=-total&page=2&limit=2`,
    });
    const page2 = await api.get(`/v1/users/${owner}/orders?status=pending&sort=-total&limit=2&page=2`);
    assert.deepEqual(idsOf(page2), [o1]);

    const all = await api.get(`/v1/users/${owner}/orders`);
    assert.deepEqual(idsOf(all), [o1, o2, o3, o5]);
    const others = await api.get(`/v1/users/${other}/orders?estado=pending`);
    assert.deepEqual(idsOf(others), [o4]);
  });

  test('orders of a user that does not exist: 404 record_not_found', async () => {
    const response = await api.get('/v1/users/99/orders');
    assert.equal(response.status, 404);
    assert.equal(response.body.code, 'record_not_found');
  });
});

describe('lists: the seeded example data', () => {
  let api: TestServer;
  // The tests only read: one server for all of them.
  before(async () => {
    api = await startTestServer({ seed: true });
  });
  after(() => api.close());

  const cases = [
    { path: '/v1/products', total: 12, ids: range(1, 12) },
    { path: '/v1/products?category=coffee', total: 3, ids: [1, 2, 3] },
    { path: '/v1/products?category=tea', total: 3, ids: [4, 5, 6] },
    { path: '/v1/products?category=equipment', total: 3, ids: [7, 8, 9] },
    { path: '/v1/products?category=accessories', total: 3, ids: [10, 11, 12] },
    { path: '/v1/products?category=tea&sort=price', total: 3, ids: [6, 5, 4] },
    { path: '/v1/products?sort=-price&limit=3', total: 12, ids: [8, 9, 7] },
    // created_at has ties (ids 1 & 9, 2 & 10, 3 & 11, 4 & 12): broken by id ascending in both directions
    { path: '/v1/products?sort=created_at', total: 12, ids: [1, 9, 2, 10, 3, 11, 4, 12, 5, 6, 7, 8] },
    { path: '/v1/products?sort=-created_at', total: 12, ids: [8, 7, 6, 5, 4, 12, 3, 11, 2, 10, 1, 9] },
    // users 1–2 are the seeded alice and bob; 3 is the administrator the server ensures
    { path: '/v1/users', total: 3, ids: [1, 2, 3] },
    { path: '/v1/users?email=BOB@example.com', total: 1, ids: [2] },
    { path: '/v1/users/1/orders', total: 3, ids: [1, 2, 3] },
    { path: '/v1/users/2/orders', total: 2, ids: [4, 5] },
    { path: '/v1/users/1/orders?status=pending', total: 1, ids: [3] },
    { path: '/v1/users/1/orders?sort=-total', total: 3, ids: [2, 1, 3] },
    { path: '/v1/usuarios/2/pedidos?estado=cancelled', total: 1, ids: [5] },
  ];
  for (const c of cases) {
    test(`${c.path} lists ${c.total}`, async () => {
      const response = await api.get(c.path);
      assert.equal(response.status, 200);
      assert.equal(response.body.meta.total, c.total);
      assert.deepEqual(idsOf(response), c.ids);
    });
  }
});

const PROPERTY_SEED = 0x5eed1234;

test(`property: 30 random list queries match a naive filter + sort + slice (mulberry32 seed ${PROPERTY_SEED})`, async () => {
  const random = mulberry32(PROPERTY_SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const integer = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));

  const categories = ['coffee', 'tea', 'equipment', 'accessories'];
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
  const api = await startTestServer();
  try {
    const records: any[] = [];
    for (let i = 0; i < 60; i++) {
      // a small price pool makes ties common; the rest are random cents
      const price = random() < 0.5 ? pick([0, 1, 2.5, 9.99, 10, 100]) : integer(0, 50_000) / 100;
      records.push(await createProduct(api, { name: pick(names), category: pick(categories), price }));
    }
    const sortable = ['id', 'name', 'category', 'price', 'created_at', 'updated_at'];

    for (let run = 0; run < 30; run++) {
      const category = random() < 0.5 ? pick(categories) : undefined;
      const keyCount = integer(0, 3);
      const keys: { field: string; descending: boolean }[] = [];
      while (keys.length < keyCount) {
        const field = pick(sortable);
        if (!keys.some((key) => key.field === field)) keys.push({ field, descending: random() < 0.5 });
      }
      const limit = random() < 0.1 ? 100 : integer(1, 25);
      const matching = records.filter((record) => category === undefined || record.category === category);
      const pages = Math.ceil(matching.length / limit);
      const page = integer(1, pages + 1);

      const parameters: string[] = [];
      if (category !== undefined) parameters.push(`category=${category}`);
      if (keys.length > 0)
        parameters.push(`sort=${keys.map((key) => (key.descending ? '-' : '') + key.field).join(',')}`);
      parameters.push(`page=${page}`, `limit=${limit}`);
      const path = `/v1/products?${parameters.join('&')}`;

      const expected = [...matching].sort((a, b) => {
        for (const key of keys) {
          const order = a[key.field] < b[key.field] ? -1 : a[key.field] > b[key.field] ? 1 : 0;
          if (order !== 0) return key.descending ? -order : order;
        }
        return a.id - b.id;
      });
      const response = await api.get(path);
      assert.equal(response.status, 200, path);
      assert.deepEqual(response.body.data, expected.slice((page - 1) * limit, page * limit), path);
      assert.deepEqual(response.body.meta, { page, limit, total: matching.length, pages }, path);
      assert.equal(response.body.links.next === null, page >= pages, path);
      assert.equal(response.body.links.prev === null, page === 1, path);
    }
  } finally {
    await api.close();
  }
});
