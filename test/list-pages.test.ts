// List pages are kept and reused until their collection changes (src/http/page-cache.ts,
// listRecords in src/handlers/list-records.ts, Store.version): the convention
// proved here is that a reused page is never stale and never shown to the wrong caller.
//
// Over HTTP: the same list twice is byte-identical, carries the same weak ETag and is
// not built again; every committed change to the collection (POST, PATCH, PUT, DELETE,
// and a write the disk refuses and that is rolled back) shows on the very next request
// with another ETag, while a PATCH that changes nothing or a change to another
// collection keeps the page; who may see a list and whether its parent still exists are
// checked on every request, before If-None-Match; a bad query is never kept; the
// vocabulary follows the path; more lists than the cache holds still answer correctly.
// At unit level: MemoryStore.version, per collection, on commit and on rollback.
//
// "Built" is observed by counting Store.query calls: during a GET of a list, only
// building a page queries the store.

import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DELIVERIES, WEBHOOKS } from '../src/declarations/built-in-webhooks.ts';
import { MemoryStore } from '../src/index.ts';
import type { StoredRecord } from '../src/records/json.ts';
import type { Persistence, Change, StoredCollection } from '../src/store/store.ts';
import type { Query, QueryResult } from '../src/store/query.ts';
import { IDEMPOTENCY_COLLECTION } from '../src/store/store.ts';
import { EXAMPLE } from './example-definitions.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import {
  createProduct,
  createUser,
  createUserClient,
  startTestServer,
  cleanUpAfterEach,
  scratchDirectory,
} from './helpers.ts';
import { assertEmpty, assertJson, assertProblem } from './assertions.ts';
import { recordedResources } from '../src/resources/definition.ts';

// ---------------------------------------------------------------------------------------
// Helpers

interface PageMeta {
  readonly page: number;
  readonly limit: number;
  readonly total: number;
  readonly pages: number;
}

interface PageLinks {
  readonly self: string;
  readonly first: string;
  readonly prev: string | null;
  readonly next: string | null;
  readonly last: string;
}

interface ListBody {
  readonly data: readonly Record<string, unknown>[];
  readonly meta: PageMeta;
  readonly links: PageLinks;
}

/** What a list answer must hold exactly. */
interface ExpectedPage {
  readonly data: readonly unknown[];
  readonly meta: PageMeta;
  readonly links?: PageLinks;
}

const WEAK_ETAG = /^W\/"[A-Za-z0-9_-]+"$/;

/** A MemoryStore that counts its queries: during a GET of a list, one query is one page built. */
class CountingStore extends MemoryStore {
  queries = 0;

  /** The webhook worker's own reads of its subscriptions (a poll a second: docs/webhooks.md) build no page. */
  override query(collection: StoredCollection, query: Query): QueryResult {
    if (collection !== WEBHOOKS && collection !== DELIVERIES) this.queries += 1;
    return super.query(collection, query);
  }
}

const defer = cleanUpAfterEach();

/** A memory-only server over a CountingStore, closed after the test. */
async function startCountingServer(): Promise<{ api: TestServer; store: CountingStore }> {
  const store = new CountingStore(new Map());
  const api = await startTestServer({ store });
  defer(() => api.close());
  return { api, store };
}

/** How many pages `request` made the server build, with its answer. */
async function counting(
  store: CountingStore,
  request: () => Promise<TestResponse>,
): Promise<{ response: TestResponse; built: number }> {
  const before = store.queries;
  const response = await request();
  return { response, built: store.queries - before };
}

/** The Link header a list's body links call for (RFC 8288): null relations left out. */
function linkHeaderFor(links: PageLinks): string {
  return (['self', 'first', 'prev', 'next', 'last'] as const)
    .filter((relation) => links[relation] !== null)
    .map((relation) => `<${links[relation] as string}>; rel="${relation}"`)
    .join(', ');
}

/** A 200 list answer with exactly `expected`, a weak ETag and the matching Link header; returns the ETag. */
function assertPage(response: TestResponse, expected: ExpectedPage): string {
  assertJson(response, 200);
  const body = response.body as ListBody;
  assert.deepEqual(Object.keys(body), ['data', 'meta', 'links']);
  assert.deepEqual(body.data, expected.data);
  assert.deepEqual(body.meta, expected.meta);
  if (expected.links !== undefined) assert.deepEqual(body.links, expected.links);
  assert.equal(response.headers.get('link'), linkHeaderFor(body.links));
  const etag = response.headers.get('etag') ?? '';
  assert.match(etag, WEAK_ETAG);
  return etag;
}

/** 304 Not Modified: the same ETag, no body. */
function assertNotModified(response: TestResponse, etag: string): void {
  assertEmpty(response, 304);
  assert.equal(response.headers.get('etag'), etag);
}

/** The current representations of records, read one by one (`prefix` fixes the vocabulary). */
async function readAll(api: TestServer, prefix: string, ids: readonly number[]): Promise<unknown[]> {
  const records: unknown[] = [];
  for (const id of ids) {
    const response = await api.get(`${prefix}/${id}`);
    assertJson(response, 200);
    records.push(response.body);
  }
  return records;
}

function meta(total: number, page = 1, limit = 20): PageMeta {
  return { page, limit, total, pages: Math.ceil(total / limit) };
}

// ---------------------------------------------------------------------------------------

describe('list pages: reused until the collection changes', () => {
  const TEA_BY_PRICE = '/v1/products?category=tea&sort=-price';

  /** Three products: Assam (tea, 5), Darjeeling (tea, 8), Espresso (coffee, 3) — ids 1, 2, 3. */
  async function teaShop(): Promise<{ api: TestServer; store: CountingStore }> {
    const shop = await startCountingServer();
    await createProduct(shop.api, { name: 'Assam', category: 'tea', price: 5 });
    await createProduct(shop.api, { name: 'Darjeeling', category: 'tea', price: 8 });
    await createProduct(shop.api, { name: 'Espresso', category: 'coffee', price: 3 });
    return shop;
  }

  test('the same list twice: byte-identical bodies, the same weak ETag, built once; If-None-Match → 304 with it', async () => {
    const { api, store } = await teaShop();
    const first = await counting(store, () => api.get(TEA_BY_PRICE));
    assert.equal(first.built, 1);
    const etag = assertPage(first.response, {
      data: await readAll(api, '/v1/products', [2, 1]),
      meta: meta(2),
      links: {
        self: '/v1/products?category=tea&sort=-price&page=1&limit=20',
        first: '/v1/products?category=tea&sort=-price&page=1&limit=20',
        prev: null,
        next: null,
        last: '/v1/products?category=tea&sort=-price&page=1&limit=20',
      },
    });

    const second = await counting(store, () => api.get(TEA_BY_PRICE));
    assert.equal(second.built, 0, 'the second request reuses the page');
    assert.equal(second.response.status, 200);
    assert.equal(second.response.text, first.response.text);
    assert.equal(second.response.headers.get('etag'), etag);
    assert.equal(second.response.headers.get('link'), first.response.headers.get('link'));

    const conditional = await counting(store, () => api.get(TEA_BY_PRICE, { 'if-none-match': etag }));
    assert.equal(conditional.built, 0);
    assertNotModified(conditional.response, etag);
  });

  test('POST, PATCH of a sorted field, PATCH moving a record out of the filter, PUT and DELETE each show on the very next request with a new ETag', async () => {
    const { api, store } = await teaShop();
    let etag = assertPage(await api.get(TEA_BY_PRICE), {
      data: await readAll(api, '/v1/products', [2, 1]),
      meta: meta(2),
    });

    /** After a write: the next request builds the page again, shows `ids` and a new ETag; the old ETag now gets 200; a repeat is reused. */
    const expectChange = async (write: () => Promise<TestResponse>, status: number, ids: number[]): Promise<void> => {
      assert.equal((await write()).status, status);
      const next = await counting(store, () => api.get(TEA_BY_PRICE));
      assert.equal(next.built, 1, 'the change makes the page be built again');
      const fresh = assertPage(next.response, {
        data: await readAll(api, '/v1/products', ids),
        meta: meta(ids.length),
      });
      assert.notEqual(fresh, etag);
      const stale = await api.get(TEA_BY_PRICE, { 'if-none-match': etag });
      assert.equal(stale.status, 200, 'the old ETag no longer matches');
      assert.equal(stale.text, next.response.text);
      const again = await counting(store, () => api.get(TEA_BY_PRICE, { 'if-none-match': fresh }));
      assert.equal(again.built, 0);
      assertNotModified(again.response, fresh);
      etag = fresh;
    };

    // A new tea (Sencha, 6) lands between Darjeeling (8) and Assam (5).
    await expectChange(() => api.post('/v1/products', { name: 'Sencha', category: 'tea', price: 6 }), 201, [2, 4, 1]);
    // Assam becomes the dearest.
    await expectChange(() => api.patch('/v1/products/1', { price: 9 }), 200, [1, 2, 4]);
    // Darjeeling moves to coffee: out of the filter.
    await expectChange(() => api.patch('/v1/products/2', { category: 'coffee' }), 200, [1, 4]);
    // Espresso is replaced by a tea at 7: into the filter.
    await expectChange(() => api.put('/v1/products/3', { name: 'Gyokuro', category: 'tea', price: 7 }), 200, [1, 3, 4]);
    // Sencha is deleted.
    await expectChange(() => api.delete('/v1/products/4'), 204, [1, 3]);
  });

  test('a PATCH that changes nothing commits nothing: same body, same ETag, the page is reused (and updated_at is kept)', async () => {
    const { api, store } = await teaShop();
    const before = await api.get(TEA_BY_PRICE);
    const etag = assertPage(before, { data: await readAll(api, '/v1/products', [2, 1]), meta: meta(2) });
    const product = (await api.get('/v1/products/1')).body as { price: number; updated_at: string };

    const patched = await api.patch('/v1/products/1', { price: product.price });
    assertJson(patched, 200);
    assert.equal((patched.body as { updated_at: string }).updated_at, product.updated_at);

    const after = await counting(store, () => api.get(TEA_BY_PRICE));
    assert.equal(after.built, 0);
    assert.equal(after.response.status, 200);
    assert.equal(after.response.text, before.text);
    assert.equal(after.response.headers.get('etag'), etag);
    assertNotModified(await api.get(TEA_BY_PRICE, { 'if-none-match': etag }), etag);
  });

  test('changes to other collections (a user created and renamed, an order placed) keep the products page', async () => {
    const { api, store } = await teaShop();
    const before = await api.get(TEA_BY_PRICE);
    const etag = assertPage(before, { data: await readAll(api, '/v1/products', [2, 1]), meta: meta(2) });

    const { id, client } = await createUserClient(api);
    assert.equal((await api.patch(`/v1/users/${id}`, { name: 'Renamed' })).status, 200);
    assert.equal(
      (await client.post(`/v1/users/${id}/orders`, { items: [{ product_id: 1, quantity: 2 }] })).status,
      201,
    );

    const after = await counting(store, () => api.get(TEA_BY_PRICE));
    assert.equal(after.built, 0, 'products did not change: the page is reused');
    assert.equal(after.response.status, 200);
    assert.equal(after.response.text, before.text);
    assert.equal(after.response.headers.get('etag'), etag);
  });
});

describe('list pages: who may see a kept page is checked on every request', () => {
  test('another user gets 403 and an anonymous caller 401 for the exact URL whose page is kept, even with its ETag; the owner and an admin then get the same body', async () => {
    const { api, store } = await startCountingServer();
    const product = await createProduct(api, { name: 'Kettle', category: 'tools', price: 20 });
    const a = await createUserClient(api);
    const b = await createUserClient(api);
    const ordered = await a.client.post(`/v1/users/${a.id}/orders`, {
      items: [{ product_id: product.id as number, quantity: 1 }],
    });
    assert.equal(ordered.status, 201);
    const path = `/v1/users/${a.id}/orders`;

    // B first: refused before anything is built or kept.
    const refusedFirst = await counting(store, () => b.client.get(path));
    assert.equal(refusedFirst.built, 0);
    assertProblem(refusedFirst.response, 403, 'forbidden', path);

    const mine = await counting(store, () => a.client.get(path));
    assert.equal(mine.built, 1);
    const etag = assertPage(mine.response, { data: [ordered.body], meta: meta(1) });

    assertProblem(await b.client.get(path), 403, 'forbidden', path);
    assertProblem(await b.client.get(path, { 'if-none-match': etag }), 403, 'forbidden', path);
    assertProblem(await api.as(undefined).get(path), 401, 'unauthenticated', path);
    assertProblem(await api.as(undefined).get(path, { 'if-none-match': etag }), 401, 'unauthenticated', path);

    const again = await counting(store, () => a.client.get(path));
    assert.equal(again.built, 0);
    assert.equal(again.response.status, 200);
    assert.equal(again.response.text, mine.response.text);
    assert.equal(again.response.headers.get('etag'), etag);
    const asAdmin = await api.get(path);
    assert.equal(asAdmin.status, 200);
    assert.equal(asAdmin.text, mine.response.text);
  });

  test('a user list kept for an admin is 403 for an ordinary user', async () => {
    const { api, store } = await startCountingServer();
    const { client } = await createUserClient(api);
    const listed = await counting(store, () => api.get('/v1/users'));
    assert.equal(listed.built, 1);
    assert.equal(listed.response.status, 200);
    assertProblem(await client.get('/v1/users'), 403, 'forbidden', '/v1/users');
    assertProblem(
      await client.get('/v1/users', { 'if-none-match': listed.response.headers.get('etag') ?? '' }),
      403,
      'forbidden',
      '/v1/users',
    );
  });

  test('a parent deleted: its orders list, kept while it was empty, becomes 404 record_not_found (also with the old ETag)', async () => {
    const { api, store } = await startCountingServer();
    const x = await createUser(api);
    const path = `/v1/users/${x}/orders`;
    const listed = await counting(store, () => api.get(path));
    assert.equal(listed.built, 1);
    const etag = assertPage(listed.response, { data: [], meta: meta(0) });
    assert.equal((await counting(store, () => api.get(path))).built, 0, 'the page is kept');

    assert.equal((await api.delete(`/v1/users/${x}`)).status, 204);
    // The user had no orders, so the orders collection (and the kept page's version) did not change.
    assertProblem(await api.get(path), 404, 'record_not_found', path);
    assertProblem(await api.get(path, { 'if-none-match': etag }), 404, 'record_not_found', path);
  });

  test('a parent deleted with its orders: the same URL is 404 record_not_found', async () => {
    const { api } = await startCountingServer();
    const product = await createProduct(api);
    const x = await createUserClient(api);
    const path = `/v1/users/${x.id}/orders`;
    assert.equal(
      (await x.client.post(path, { items: [{ product_id: product.id as number, quantity: 3 }] })).status,
      201,
    );
    assert.equal((await api.get(path)).status, 200);
    assert.equal((await api.delete(`/v1/users/${x.id}`)).status, 204);
    assertProblem(await api.get(path), 404, 'record_not_found', path);
  });
});

describe('list pages: which request gets which page', () => {
  test('a bad query is never kept: ?limit=0 is 400 invalid_query every time, and builds nothing', async () => {
    const { api, store } = await startCountingServer();
    await createProduct(api);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const bad = await counting(store, () => api.get('/v1/products?limit=0'));
      assert.equal(bad.built, 0);
      assertProblem(bad.response, 400, 'invalid_query', '/v1/products', [{ field: 'limit', code: 'invalid_value' }]);
    }
    assertPage(await api.get('/v1/products?limit=1'), {
      data: await readAll(api, '/v1/products', [1]),
      meta: meta(1, 1, 1),
    });
  });

  test('parameters in another order give the same page; each vocabulary gets its own words, whichever vocabulary the parameters use', async () => {
    const { api } = await startCountingServer();
    await createProduct(api, { name: 'Assam', category: 'tea', price: 5 });
    await createProduct(api, { name: 'Espresso', category: 'coffee', price: 3 });
    await createProduct(api, { name: 'Darjeeling', category: 'tea', price: 8 });

    const forward = await api.get('/v1/products?category=tea&sort=-price');
    const backward = await api.get('/v1/products?sort=-price&category=tea');
    const etag = assertPage(forward, { data: await readAll(api, '/v1/products', [3, 1]), meta: meta(2) });
    assert.equal(backward.status, 200);
    assert.equal(backward.text, forward.text);
    assert.equal(backward.headers.get('etag'), etag);

    const english = await readAll(api, '/v1/products', [1, 3]);
    const portuguese = await readAll(api, '/v1/produtos', [1, 3]);
    assert.deepEqual(Object.keys(portuguese[0] as object), [
      'id',
      'nome',
      'categoria',
      'preco',
      'criado_em',
      'atualizado_em',
    ]);
    const singlePageLinks = (target: string): PageLinks => ({
      self: target,
      first: target,
      prev: null,
      next: null,
      last: target,
    });

    const cases = [
      { path: '/v1/produtos?categoria=tea', data: portuguese, self: '/v1/produtos?categoria=tea&pagina=1&limite=20' },
      { path: '/v1/products?category=tea', data: english, self: '/v1/products?category=tea&page=1&limit=20' },
      { path: '/v1/products?categoria=tea', data: english, self: '/v1/products?category=tea&page=1&limit=20' },
      { path: '/v1/produtos?category=tea', data: portuguese, self: '/v1/produtos?categoria=tea&pagina=1&limite=20' },
      // and once more in the first order, now that every page is kept
      { path: '/v1/produtos?categoria=tea', data: portuguese, self: '/v1/produtos?categoria=tea&pagina=1&limite=20' },
      { path: '/v1/products?category=tea', data: english, self: '/v1/products?category=tea&page=1&limit=20' },
    ];
    const etags = new Map<string, string>();
    for (const c of cases) {
      const tag = assertPage(await api.get(c.path), { data: c.data, meta: meta(2), links: singlePageLinks(c.self) });
      const language = c.path.startsWith('/v1/produtos') ? 'pt' : 'en';
      const known = etags.get(language);
      if (known === undefined) etags.set(language, tag);
      else assert.equal(tag, known, `${c.path}: the same page as the other ${language} requests`);
    }
    assert.notEqual(etags.get('pt'), etags.get('en'));
  });

  test('300 distinct list URLs (more than the 256 kept) all answer correctly; the least recently used are built again, the others reused', async () => {
    const { api, store } = await startCountingServer();
    const COUNT = 300;
    const created: unknown[] = [];
    for (let n = 1; n <= COUNT; n++) created.push(await createProduct(api, { name: `Product ${n}`, price: n }));
    const pathOf = (page: number): string => `/v1/products?page=${page}&limit=1`;
    const first = new Map<number, string>();

    /** Page `page` holds exactly product `page`; returns how many pages the request built. */
    const check = async (page: number): Promise<number> => {
      const { response, built } = await counting(store, () => api.get(pathOf(page)));
      assertPage(response, { data: [created[page - 1]], meta: meta(COUNT, page, 1) });
      const earlier = first.get(page);
      if (earlier === undefined) first.set(page, response.text);
      else assert.equal(response.text, earlier, `page ${page} is the same as before`);
      return built;
    };

    for (let page = 1; page <= COUNT; page++) assert.equal(await check(page), 1, `page ${page} is new`);
    // Kept now: the 256 most recently used, pages 45..300.
    assert.equal(await check(300), 0, 'the newest page is reused');
    assert.equal(await check(45), 0, 'the oldest page still kept is reused (and is now the most recently used)');
    assert.equal(await check(44), 1, 'a page pushed out is built again, pushing out the least recently used: 46');
    assert.equal(await check(45), 0, 'page 45 was used recently, so it stayed');
    assert.equal(await check(46), 1, 'page 46 was pushed out');
    for (let page = 1; page <= 10; page++)
      assert.equal(await check(page), 1, `page ${page} was pushed out and is built again`);
  });
});

// ---------------------------------------------------------------------------------------
// A write the disk refuses: rolled back in memory, and the list page built meanwhile is not kept.

/** The journal's next write, held until `fail` is called, then refused as a full disk refuses it. */
interface HeldWrite {
  /** Resolves once the journal has started the write (the commit is applied in memory by then). */
  readonly started: Promise<void>;
  fail(): void;
}

/**
 * Holds the next FileHandle write. The journal writes with FileHandle.prototype.write
 * (earlier with appendFile); both are replaced, and the first call restores both, as the
 * probe technique of test/storage-faults.test.ts does.
 */
async function holdNextJournalWrite(scratch: string): Promise<HeldWrite> {
  const probe = await open(join(scratch, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { write: unknown; appendFile: unknown };
  await probe.close();
  const originals = { write: prototype.write, appendFile: prototype.appendFile };
  const restore = (): void => {
    prototype.write = originals.write;
    prototype.appendFile = originals.appendFile;
  };
  let signalStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    signalStarted = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = async (): Promise<never> => {
    restore();
    signalStarted();
    await released;
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  prototype.write = held;
  prototype.appendFile = held;
  // Runs before the server's close (cleanups run newest first): a failed test leaves no write hanging.
  defer(async () => {
    restore();
    release();
  });
  return { started, fail: release };
}

/** `promise`, or a failure naming `what` after `ms` milliseconds. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('list pages: a write that is rolled back', () => {
  test('a list during the pending write is held until it is durable; when the disk refuses it, the list is a 503 and the next one is the list from before (same bytes, same ETag)', async () => {
    const api = await startTestServer({ dataDir: await scratchDirectory(defer) });
    defer(() => api.close().catch(() => undefined));
    await createProduct(api, { name: 'Kept', category: 'c', price: 1 });
    const before = await api.get('/v1/products');
    const etagBefore = assertPage(before, { data: await readAll(api, '/v1/products', [1]), meta: meta(1) });

    const held = await holdNextJournalWrite(await scratchDirectory(defer));
    const refused = api.post('/v1/products', { name: 'Refused', category: 'c', price: 2 });
    await within(
      held.started,
      15_000,
      'the journal write was never intercepted (does the journal still write with FileHandle.write?)',
    );

    // Applied in memory, not yet durable: a list that could show it is not sent while the journal write is pending.
    let answered = false;
    const during = api.get('/v1/products').finally(() => {
      answered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(answered, false, 'a list showing a change not yet durable was sent');

    held.fail();
    const answer = await refused;
    assertProblem(answer, 500, 'internal_error', '/v1/products');
    assertProblem(await during, 503, 'not_ready', '/v1/products');

    const after = await api.get('/v1/products');
    assert.equal(after.status, 200);
    assert.equal(after.text, before.text, 'the rolled-back record is gone from the list');
    assert.equal(after.headers.get('etag'), etagBefore);
    assertNotModified(await api.get('/v1/products', { 'if-none-match': etagBefore }), etagBefore);
    assertProblem(await api.get('/v1/products/2'), 404, 'record_not_found', '/v1/products/2');
  });
});

// ---------------------------------------------------------------------------------------
// Store.version on MemoryStore

function product(id: number, name = `P${id}`): StoredRecord {
  return {
    id,
    name,
    category: 'c',
    price: id,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

function order(id: number, userId: number): StoredRecord {
  return {
    id,
    user_id: userId,
    items: [],
    total: 0,
    status: 'pending',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

/**
 * The example domain's collections and the idempotency keys: every collection a store of the example holds but the
 * webhooks' two (docs/webhooks.md), which these tests never write.
 */
const STORED_COLLECTIONS: readonly StoredCollection[] = [
  ...recordedResources(EXAMPLE).map(({ collection }) => collection),
  IDEMPOTENCY_COLLECTION,
];

function versions(store: MemoryStore): Record<StoredCollection, number> {
  return Object.fromEntries(STORED_COLLECTIONS.map((collection) => [collection, store.version(collection)])) as Record<
    StoredCollection,
    number
  >;
}

const ALL: Query = { filters: [], sort: [], offset: 0, limit: 100 };

/** Persistence whose writes wait until the test settles them, one by one in order. */
class ControlledPersistence implements Persistence {
  readonly writable = true;
  readonly #pending: { resolve: () => void; reject: (error: Error) => void }[] = [];

  persist(_changes: readonly Change[]): Promise<void> {
    return new Promise((resolve, reject) => this.#pending.push({ resolve, reject }));
  }

  get pending(): number {
    return this.#pending.length;
  }

  succeedNext(): void {
    this.#pending.shift()?.resolve();
  }

  failNext(): void {
    this.#pending.shift()?.reject(new Error('ENOSPC: no space left on device'));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('Store.version (MemoryStore)', () => {
  test('starts at 0 for every collection', () => {
    assert.deepEqual(versions(new MemoryStore(new Map())), {
      users: 0,
      products: 0,
      orders: 0,
      keys: 0,
      idempotency_keys: 0,
    });
  });

  test('counts every change a commit makes, in the collections it touches only', async () => {
    const store = new MemoryStore(new Map());
    await store.commit([{ kind: 'put', collection: 'products', record: product(1) }]);
    assert.deepEqual(versions(store), { users: 0, products: 1, orders: 0, keys: 0, idempotency_keys: 0 });
    await store.commit([
      { kind: 'put', collection: 'products', record: product(1, 'Renamed') },
      { kind: 'put', collection: 'orders', record: order(1, 7) },
    ]);
    assert.deepEqual(versions(store), { users: 0, products: 2, orders: 1, keys: 0, idempotency_keys: 0 });
    await store.commit([{ kind: 'delete', collection: 'products', id: 1 }]);
    assert.deepEqual(versions(store), { users: 0, products: 3, orders: 1, keys: 0, idempotency_keys: 0 });
    // Reads change nothing.
    store.query('products', ALL);
    store.get('orders', 1);
    store.allocateId('users');
    assert.deepEqual(versions(store), { users: 0, products: 3, orders: 1, keys: 0, idempotency_keys: 0 });
  });

  test('changes as soon as the commit is applied, and again when a commit whose persist() rejects is rolled back', async () => {
    const persistence: Persistence = {
      writable: true,
      persist: () => Promise.reject(new Error('ENOSPC: no space left on device')),
      close: () => Promise.resolve(),
    };
    const store = new MemoryStore(new Map(), persistence);
    const committed = store.commit([{ kind: 'put', collection: 'products', record: product(1) }]);
    assert.equal(store.version('products'), 1, 'applied at once');
    assert.equal(store.query('products', ALL).total, 1);
    await assert.rejects(committed, /ENOSPC/);
    assert.equal(store.version('products'), 2, 'the rollback is a change too');
    assert.equal(store.get('products', 1), undefined);
    assert.deepEqual(store.query('products', ALL), { records: [], total: 0 });
    assert.deepEqual(versions(store), { users: 0, products: 2, orders: 0, keys: 0, idempotency_keys: 0 });
  });

  test('a failed persist rolls back every pending commit, and each collection it touches gets a new version; a durable commit keeps its version', async () => {
    const persistence = new ControlledPersistence();
    const store = new MemoryStore(new Map(), persistence);
    const durable = store.commit([{ kind: 'put', collection: 'products', record: product(1) }]);
    persistence.succeedNext();
    await durable;
    assert.deepEqual(versions(store), { users: 0, products: 1, orders: 0, keys: 0, idempotency_keys: 0 });

    const first = store.commit([{ kind: 'put', collection: 'products', record: product(1, 'Changed') }]);
    const second = store.commit([{ kind: 'put', collection: 'orders', record: order(1, 7) }]);
    assert.equal(persistence.pending, 2);
    assert.deepEqual(versions(store), { users: 0, products: 2, orders: 1, keys: 0, idempotency_keys: 0 });

    persistence.failNext();
    await assert.rejects(first, /ENOSPC/);
    // Both pending commits are undone at once: product 1 is back to its durable state, order 1 is gone.
    assert.deepEqual(versions(store), { users: 0, products: 3, orders: 2, keys: 0, idempotency_keys: 0 });
    assert.deepEqual(store.get('products', 1), product(1));
    assert.equal(store.get('orders', 1), undefined);

    persistence.failNext();
    await assert.rejects(second, /ENOSPC/);
    assert.deepEqual(
      versions(store),
      { users: 0, products: 3, orders: 2, keys: 0, idempotency_keys: 0 },
      'nothing left to undo',
    );
  });
});
