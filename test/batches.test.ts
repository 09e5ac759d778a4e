// Batches (README: Batches; docs/batches.md): POST /v1/batches runs several writes all or none, each as its own request
// would with the caller's token, on the records the earlier ones left, then commits them together (one journal entry,
// their events in order). A refusal is the batch's answer naming its operation; a malformed batch is refused whole.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { createUserClient, startTestServer, temporaryDirectory } from './helpers.ts';
import { assertJson, STRONG_ETAG, TITLES } from './assertions.ts';
import { MemoryStore } from '../src/index.ts';
import { HttpError } from '../src/errors/errors.ts';
import { PendingChanges } from '../src/store/pending-changes.ts';
import type { StoredRecord } from '../src/records/json.ts';
import { EXAMPLE } from './example-definitions.ts';

type Json = Record<string, any>;

/** A problem naming the operation refused: the members every problem has, its code, and `operation`. */
function assertRefused(
  response: { status: number; headers: Headers; body: any; text: string },
  status: number,
  code: string,
  operation: number | undefined,
): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.headers.get('content-type'), 'application/json');
  const { type, title, code: answered, instance } = response.body;
  assert.deepEqual(
    { type, title, status: response.body.status, code: answered, instance, operation: response.body.operation },
    { type: 'about:blank', title: TITLES[status], status, code, instance: '/v1/batches', operation },
  );
  assert.equal(typeof response.body.detail, 'string');
}

/** The (field, code) pairs of a problem's errors. */
function faults(response: { body: any }): { field: string; code: string }[] {
  return (response.body.errors as Json[]).map(({ field, code }) => ({ field, code }));
}

const KETTLE = { name: 'Kettle', category: 'kitchen', price: 20 };
const TEAPOT = { name: 'Teapot', category: 'kitchen', price: 12.5 };

async function count(api: TestServer, path: string): Promise<number> {
  const response = await api.get(`${path}?limit=1`);
  assert.equal(response.status, 200, response.text);
  return response.body.meta.total as number;
}

describe('batches: several writes, all or none', () => {
  let admin: TestServer;
  let alice: TestServer;
  let aliceId: number;
  let bobId: number;
  before(async () => {
    admin = await startTestServer();
    ({ id: aliceId, client: alice } = await createUserClient(admin));
    ({ id: bobId } = await createUserClient(admin));
  });
  after(() => admin.close());

  test('an order with its lines in one batch: the products made first, named by $0.id and $1.id', async () => {
    const response = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/products', body: KETTLE },
        { method: 'POST', path: '/v1/products', body: TEAPOT },
        {
          method: 'POST',
          path: `/v1/users/${aliceId}/orders`,
          body: {
            items: [
              { product_id: '$0.id', quantity: 2 },
              { product_id: '$1.id', quantity: 1 },
            ],
          },
        },
      ],
    });
    assertJson(response, 200);
    const [kettle, teapot, order] = response.body.results as Json[];
    for (const result of [kettle, teapot, order]) {
      assert.equal(result?.status, 201);
      assert.match(result?.headers.ETag, STRONG_ETAG);
    }
    assert.equal(kettle?.headers.Location, `/v1/products/${kettle?.body.id}`);
    assert.equal(order?.headers.Location, `/v1/users/${aliceId}/orders/${order?.body.id}`);
    assert.deepEqual(order?.body.items, [
      { product_id: kettle?.body.id, quantity: 2, unit_price: 20 },
      { product_id: teapot?.body.id, quantity: 1, unit_price: 12.5 },
    ]);
    assert.equal(order?.body.total, 52.5);
    // Each answer is what a read gives now, ETag and all.
    const read = await admin.get(order?.headers.Location);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, order?.body);
    assert.equal(read.headers.get('etag'), order?.headers.ETag);
    const kettleRead = await admin.get(kettle?.headers.Location);
    assert.deepEqual(kettleRead.body, kettle?.body);
  });

  test('a path may name a record made earlier in the batch ($0.id), and each answer is in order', async () => {
    const product = (await admin.post('/v1/products', KETTLE)).body.id as number;
    const response = await alice.post('/v1/batches', {
      operations: [
        {
          method: 'POST',
          path: `/v1/users/${aliceId}/orders`,
          body: { items: [{ product_id: product, quantity: 1 }] },
        },
        { method: 'PATCH', path: `/v1/users/${aliceId}/orders/$0.id`, body: { status: 'cancelled' } },
        { method: 'PATCH', path: `/v1/users/${aliceId}`, body: { name: 'Alice B.' } },
      ],
    });
    assertJson(response, 200);
    const [made, cancelled, renamed] = response.body.results as Json[];
    assert.equal(made?.status, 201);
    assert.equal(made?.body.status, 'pending');
    assert.equal(cancelled?.status, 200);
    assert.deepEqual(Object.keys(cancelled?.headers), ['ETag']);
    assert.equal(cancelled?.body.id, made?.body.id);
    assert.equal(cancelled?.body.status, 'cancelled');
    assert.equal(renamed?.body.name, 'Alice B.');
    const read = await alice.get(`/v1/users/${aliceId}/orders/${made?.body.id}`);
    assert.equal(read.body.status, 'cancelled');
    assert.equal(read.headers.get('etag'), cancelled?.headers.ETag);
  });

  test('a refused operation leaves nothing: its status and problem, with its index as operation', async () => {
    const before = await count(admin, '/v1/products');
    const response = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/products', body: KETTLE },
        { method: 'PATCH', path: '/v1/products/$0.id', body: { price: 21 } },
        { method: 'PATCH', path: '/v1/products/$0.id', body: { price: -1 } },
      ],
    });
    assertRefused(response, 422, 'validation_failed', 2);
    assert.deepEqual(faults(response), [{ field: 'price', code: 'too_small' }]);
    assert.equal(await count(admin, '/v1/products'), before);
  });

  test("each operation follows its own path's rules: a user's batch touching another user's record is a 403", async () => {
    const orders = await count(alice, `/v1/users/${aliceId}/orders`);
    const product = (await admin.post('/v1/products', TEAPOT)).body.id as number;
    const response = await alice.post('/v1/batches', {
      operations: [
        {
          method: 'POST',
          path: `/v1/users/${aliceId}/orders`,
          body: { items: [{ product_id: product, quantity: 1 }] },
        },
        { method: 'PATCH', path: `/v1/users/${bobId}`, body: { name: 'Not Bob' } },
      ],
    });
    assertRefused(response, 403, 'forbidden', 1);
    assert.equal(await count(alice, `/v1/users/${aliceId}/orders`), orders);
    assert.notEqual((await admin.get(`/v1/users/${bobId}`)).body.name, 'Not Bob');
    // Creating a product is the administrator's: the first operation is refused.
    const create = await alice.post('/v1/batches', {
      operations: [{ method: 'POST', path: '/v1/products', body: KETTLE }],
    });
    assertRefused(create, 403, 'forbidden', 0);
  });

  test("an operation's If-Match: 412 when the record changed, 200 when it holds", async () => {
    const made = await admin.post('/v1/products', KETTLE);
    const path = made.headers.get('location') as string;
    const etag = made.headers.get('etag') as string;
    const stale = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/products', body: TEAPOT },
        { method: 'PATCH', path, body: { price: 30 }, headers: { 'If-Match': '"not-the-etag"' } },
      ],
    });
    assertRefused(stale, 412, 'precondition_failed', 1);
    // If-None-Match: * refuses a DELETE of any record there is (RFC 9110 §13.1.2): the PATCH before it is undone.
    const exists = await admin.post('/v1/batches', {
      operations: [
        { method: 'PATCH', path, body: { price: 30 }, headers: { 'If-Match': etag } },
        { method: 'DELETE', path, headers: { 'if-none-match': '*' } },
      ],
    });
    assertRefused(exists, 412, 'precondition_failed', 1);
    assert.equal((await admin.get(path)).body.price, 20);
    const ok = await admin.post('/v1/batches', {
      operations: [{ method: 'PATCH', path, body: { price: 30 }, headers: { 'If-Match': etag } }],
    });
    assertJson(ok, 200);
    assert.equal(ok.body.results[0].body.price, 30);
    assert.equal((await admin.get(path)).body.price, 30);
  });

  test('an Idempotency-Key applies to the whole batch: the same batch again is replayed, another is a 422', async () => {
    const before = await count(admin, '/v1/products');
    const batch = { operations: [{ method: 'POST', path: '/v1/products', body: { ...KETTLE, name: 'Once' } }] };
    const key = { 'Idempotency-Key': `batch-${Date.now()}` };
    const first = await admin.post('/v1/batches', batch, key);
    assertJson(first, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await admin.post('/v1/batches', batch, key);
    assertJson(again, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(await count(admin, '/v1/products'), before + 1);
    const other = await admin.post('/v1/batches', { operations: [{ ...batch.operations[0], body: TEAPOT }] }, key);
    assert.equal(other.status, 422, other.text);
    assert.equal(other.body.code, 'idempotency_key_reused');
  });

  test('an API key made in a batch: its secret shown once, the answer kept by no cache; with an Idempotency-Key, 400', async () => {
    const keys = `/v1/users/${aliceId}/keys`;
    const before = await count(alice, keys);
    const made = await alice.post('/v1/batches', {
      operations: [{ method: 'POST', path: keys, body: { name: 'nightly', read_only: true } }],
    });
    assertJson(made, 200);
    assert.equal(made.headers.get('cache-control'), 'no-store');
    const secret = made.body.results[0].body.secret as string;
    assert.match(secret, /^prk_/);
    const keyed = await alice.post(
      '/v1/batches',
      { operations: [{ method: 'POST', path: keys, body: { name: 'kept' } }] },
      { 'Idempotency-Key': `keys-${Date.now()}` },
    );
    assertRefused(keyed, 400, 'idempotency_key_not_accepted', 0);
    assert.equal(await count(alice, keys), before + 1);
    // The read-only key's batch: each write refused as its own request would be.
    const readOnly = await alice.as(secret).post('/v1/batches', {
      operations: [{ method: 'PATCH', path: `/v1/users/${aliceId}`, body: { name: 'Read Only' } }],
    });
    assertRefused(readOnly, 403, 'forbidden', 0);
  });

  test("a $n.id where the path takes another collection's id is a 422: it would reach another record", async () => {
    const before = await count(admin, '/v1/products');
    const response = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/products', body: KETTLE },
        { method: 'PATCH', path: '/v1/users/$0.id', body: { name: 'Renamed' } },
      ],
    });
    assertRefused(response, 422, 'validation_failed', 1);
    assert.deepEqual(faults(response), [{ field: 'operations[1].path', code: 'invalid_reference' }]);
    assert.equal(await count(admin, '/v1/products'), before);
  });

  test('two records with one unique value in one batch: the second is a 409, as alone', async () => {
    const email = `twice-${Date.now()}@example.com`;
    const response = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/users', body: { name: 'One', email } },
        { method: 'POST', path: '/v1/users', body: { name: 'Two', email: email.toUpperCase() } },
      ],
    });
    assertRefused(response, 409, 'duplicate_value', 1);
    assert.equal((await admin.get(`/v1/users?email=${encodeURIComponent(email)}`)).body.meta.total, 0);
  });

  test('a record made and deleted in one batch, and a deletion that takes children with it', async () => {
    const { id: carolId } = await createUserClient(admin);
    const product = (await admin.post('/v1/products', KETTLE)).body.id as number;
    const response = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/products', body: TEAPOT },
        { method: 'DELETE', path: '/v1/products/$0.id' },
        {
          method: 'POST',
          path: `/v1/users/${carolId}/orders`,
          body: { items: [{ product_id: product, quantity: 3 }] },
        },
        { method: 'DELETE', path: `/v1/users/${carolId}` },
      ],
    });
    assertJson(response, 200);
    assert.deepEqual(
      (response.body.results as Json[]).map((result) => result['status']),
      [201, 204, 201, 204],
    );
    assert.equal(response.body.results[1].body, undefined);
    assert.equal((await admin.get(`/v1/products/${response.body.results[0].body.id}`)).status, 404);
    assert.equal((await admin.get(`/v1/users/${carolId}`)).status, 404);
  });

  test('the batch needs a token; a query is a 400; a body that is no object a 400', async () => {
    const anonymous = await admin.as(undefined).post('/v1/batches', { operations: [] });
    assert.equal(anonymous.status, 401);
    const query = await admin.post('/v1/batches?x=1', { operations: [] });
    assert.equal(query.status, 400, query.text);
    assert.equal(query.body.code, 'invalid_query');
    const list = await admin.post('/v1/batches', [{ method: 'POST', path: '/v1/products' }]);
    assert.equal(list.status, 400, list.text);
    assert.equal(list.body.code, 'body_not_object');
  });

  test('a malformed batch is a 422 naming each fault and the first operation at fault, before any runs', async () => {
    const before = await count(admin, '/v1/products');
    const response = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/products', body: KETTLE },
        { method: 'GET', path: '/v1/products' },
        { method: 'POST', path: '/healthz', body: {} },
        { method: 'POST', path: '/v1/batches', body: { operations: [] } },
        { method: 'POST', path: '/v1/nothing', body: {} },
        { method: 'DELETE', path: '/v1/products' },
        { method: 'PATCH', path: '/v1/products/$7.id', body: {} },
        { method: 'PATCH', path: '/v1/products/$6.id', body: {} },
        { method: 'POST', path: `/v1/users/${aliceId}/orders`, body: { items: [{ product_id: '$5.id' }] } },
        { method: 'PUT', path: '/v1/products/1', body: {}, headers: { 'Idempotency-Key': 'k' } },
        { method: 'POST', path: '/v1/products', body: [], extra: true },
        'DELETE /v1/products/1',
      ],
    });
    assertRefused(response, 422, 'validation_failed', 1);
    assert.deepEqual(faults(response), [
      { field: 'operations[1].method', code: 'invalid_value' },
      { field: 'operations[2].path', code: 'invalid_value' },
      { field: 'operations[3].path', code: 'invalid_value' },
      { field: 'operations[4].path', code: 'route_not_found' },
      { field: 'operations[5].path', code: 'method_not_allowed' },
      { field: 'operations[6].path', code: 'invalid_reference' },
      { field: 'operations[7].path', code: 'invalid_reference' },
      { field: 'operations[8].body.items[0].product_id', code: 'invalid_reference' },
      { field: 'operations[9].headers.Idempotency-Key', code: 'unknown_field' },
      { field: 'operations[10].extra', code: 'unknown_field' },
      { field: 'operations[10].body', code: 'invalid_type' },
      { field: 'operations[11]', code: 'invalid_type' },
    ]);
    assert.equal(await count(admin, '/v1/products'), before);
  });

  test('no operations, or more than 100, is a 422 on operations; 100 run', async () => {
    for (const [body, code] of [
      [{}, 'required'],
      [{ operations: [] }, 'too_few_items'],
      [{ operations: {} }, 'invalid_type'],
      [
        { operations: Array.from({ length: 101 }, () => ({ method: 'POST', path: '/v1/products', body: KETTLE })) },
        'too_many_items',
      ],
    ] as const) {
      const response = await admin.post('/v1/batches', body);
      assertRefused(response, 422, 'validation_failed', undefined);
      assert.deepEqual(faults(response), [{ field: 'operations', code }]);
    }
    const extra = await admin.post('/v1/batches', {
      operations: [{ method: 'POST', path: '/v1/products', body: KETTLE }],
      more: 1,
    });
    assert.deepEqual(faults(extra), [{ field: 'more', code: 'unknown_field' }]);
    const before = await count(admin, '/v1/products');
    const hundred = await admin.post('/v1/batches', {
      operations: Array.from({ length: 100 }, (_, index) => ({
        method: 'POST',
        path: '/v1/products',
        body: { ...KETTLE, name: `Kettle ${index}` },
      })),
    });
    assertJson(hundred, 200);
    assert.equal(hundred.body.results.length, 100);
    assert.equal(await count(admin, '/v1/products'), before + 100);
  });

  test("the events come in the operations' order, each as its own request would make it", async () => {
    const newest = (await admin.get('/v1/events?limit=100')).body as Json;
    const last = newest['meta'].pages > 1 ? (await admin.get(newest['links'].last)).body : newest;
    const after = ((last['data'] as Json[]).at(-1)?.['id'] as number | undefined) ?? 0;
    const response = await admin.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/products', body: KETTLE },
        { method: 'PATCH', path: '/v1/products/$0.id', body: { price: 22 } },
        { method: 'POST', path: '/v1/products', body: TEAPOT },
        { method: 'DELETE', path: '/v1/products/$0.id' },
      ],
    });
    assertJson(response, 200);
    const [kettle, , teapot] = (response.body.results as Json[]).map((result) => result['body']?.id as number);
    const mine = (await admin.get(`/v1/events?after=${after}`)).body.data as Json[];
    assert.deepEqual(
      mine.map(({ type, collection, record_id, path }) => ({ type, collection, record_id, path })),
      [
        { type: 'created', collection: 'products', record_id: kettle, path: `/v1/products/${kettle}` },
        { type: 'updated', collection: 'products', record_id: kettle, path: `/v1/products/${kettle}` },
        { type: 'created', collection: 'products', record_id: teapot, path: `/v1/products/${teapot}` },
        { type: 'deleted', collection: 'products', record_id: kettle, path: `/v1/products/${kettle}` },
      ],
    );
    assert.equal(mine[1]?.record.price, 22);
    // One commit: its events numbered one after another.
    for (let index = 1; index < mine.length; index++)
      assert.equal(mine[index]?.id, (mine[index - 1]?.id as number) + 1);
  });
});

describe('batches: the body limit and the journal', () => {
  test('a batch over MAX_BODY_BYTES is a 413, and nothing is run', async () => {
    const api = await startTestServer({ maxBodyBytes: 2048 });
    try {
      const operations = Array.from({ length: 40 }, () => ({ method: 'POST', path: '/v1/products', body: KETTLE }));
      const response = await api.post('/v1/batches', { operations });
      assert.equal(response.status, 413, response.text);
      assert.equal(response.body.code, 'payload_too_large');
      assert.equal(await count(api, '/v1/products'), 0);
    } finally {
      await api.close();
    }
  });

  test('a batch is one journal entry; a refused one writes nothing, and the change feed shows nothing of it', async () => {
    const dir = await temporaryDirectory();
    const api = await startTestServer({ dataDir: dir.path });
    try {
      const entries = async (): Promise<Json[]> => {
        const names = (await readdir(dir.path)).filter((name) => /^journal-\d+\.jsonl$/.test(name)).sort();
        const texts = await Promise.all(names.map((name) => readFile(join(dir.path, name), 'utf8')));
        return texts.flatMap((text) =>
          text
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line)),
        );
      };
      const state = async () => ({
        journal: (await entries()).length,
        products: await count(api, '/v1/products'),
        events: await count(api, '/v1/events'),
      });
      const before = await state();
      const refused = await api.post('/v1/batches', {
        operations: [
          { method: 'POST', path: '/v1/products', body: KETTLE },
          { method: 'POST', path: '/v1/products', body: TEAPOT },
          { method: 'POST', path: '/v1/products', body: { ...KETTLE, price: 'free' } },
        ],
      });
      assertRefused(refused, 422, 'validation_failed', 2);
      assert.deepEqual(await state(), before);
      const done = await api.post('/v1/batches', {
        operations: [
          { method: 'POST', path: '/v1/products', body: KETTLE },
          { method: 'POST', path: '/v1/products', body: TEAPOT },
          { method: 'PATCH', path: '/v1/products/$0.id', body: { price: 19 } },
        ],
      });
      assertJson(done, 200);
      assert.deepEqual(await state(), {
        journal: before.journal + 1,
        products: before.products + 2,
        events: before.events + 3,
      });
      const last = (await entries()).at(-1) as Json;
      assert.deepEqual(
        (last['changes'] as Json[]).map((change) => [
          change['put'],
          change['record']['name'],
          change['record']['price'],
        ]),
        [
          ['products', 'Kettle', 20],
          ['products', 'Teapot', 12.5],
          ['products', 'Kettle', 19],
        ],
      );
    } finally {
      await api.close();
      await dir.remove();
    }
  });
});

describe('batches: the decisions are made again at the commit (store/pending-changes.ts)', () => {
  test('a write that came between an operation and the commit is seen: the refusal names the operation', async () => {
    const store = new MemoryStore(new Map());
    const put = (id: number, value: number): StoredRecord =>
      Object.freeze({ id, value, created_at: 'a', updated_at: 'a' }) as StoredRecord;
    await store.write(() => ({ changes: [{ kind: 'put', collection: 'things', record: put(1, 1) }], result: 0 }));
    const pending = new PendingChanges(store, EXAMPLE, async (collection) => store.allocateId(collection));
    // Operation 0 makes a thing; operation 1 changes thing 1 only while its value is 1.
    pending.beginOperation(0);
    const made = await pending.write(() => {
      const id = pending.allocateId('things');
      return { changes: [{ kind: 'put', collection: 'things', record: put(id, 5) }], result: id };
    });
    pending.beginOperation(1);
    const whileOne = () => {
      if (pending.get('things', 1)?.['value'] !== 1) throw new HttpError('precondition_failed', 'thing 1 changed');
      return { changes: [{ kind: 'put' as const, collection: 'things', record: put(1, 2) }], result: 'changed' };
    };
    assert.equal(await pending.write(whileOne), 'changed');
    assert.equal(pending.get('things', made)?.['value'], 5, 'the pending thing reads as made');
    assert.equal(store.get('things', made), undefined, 'and is not committed');
    assert.equal(pending.count('things'), 2);
    // Another request changes thing 1 before the batch commits.
    await store.write(() => ({ changes: [{ kind: 'put', collection: 'things', record: put(1, 9) }], result: 0 }));
    await assert.rejects(
      store.write(() => ({ changes: pending.decideAgain().changes, result: 0 })),
      (error: unknown) => error instanceof HttpError && error.status === 412 && error.operation === 1,
    );
    assert.equal(store.get('things', made), undefined);
    assert.equal(store.get('things', 1)?.['value'], 9);
    // Decided again on the data as it is, the same ids are taken.
    await store.write(() => ({ changes: [{ kind: 'put', collection: 'things', record: put(1, 1) }], result: 0 }));
    const again = pending.decideAgain();
    assert.deepEqual(
      again.changes.map((change) => (change.kind === 'put' ? [change.record.id, change.record['value']] : [])),
      [
        [made, 5],
        [1, 2],
      ],
    );
    assert.deepEqual(
      [...again.results],
      [
        [0, made],
        [1, 'changed'],
      ],
    );
  });
});

describe('batches: declared ids (uuids the server makes, strings the client chooses)', () => {
  const KANBAN: ResourcesDeclaration = {
    resources: {
      cards: {
        singular: 'card',
        'x-id': 'uuid',
        properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
        required: ['title'],
      },
      boards: {
        singular: 'board',
        'x-id': 'string',
        properties: { name: { type: 'string', minLength: 1, maxLength: 80 } },
        required: ['name'],
      },
      columns: {
        singular: 'column',
        parent: 'boards',
        properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
        required: ['title'],
      },
      checklists: {
        singular: 'checklist',
        parent: 'cards',
        properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
        required: ['title'],
      },
      tasks: {
        singular: 'task',
        properties: {
          text: { type: 'string', minLength: 1 },
          card_id: { type: 'string', 'x-references': 'cards' },
          board_ids: { type: 'array', items: { type: 'string', 'x-references': 'boards' } },
        },
        required: ['text'],
      },
    },
  };
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ resources: KANBAN });
  });
  after(() => api.close());

  test('$n.id is the id as its collection has it: a uuid in a path and a body, a chosen string id', async () => {
    const board = `b-${Date.now()}`;
    const response = await api.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/cards', body: { title: 'Plan' } },
        { method: 'POST', path: '/v1/boards', body: { id: board, name: 'Week' } },
        { method: 'POST', path: '/v1/boards/$1.id/columns', body: { title: 'To do' } },
        { method: 'POST', path: '/v1/tasks', body: { text: 'Write it', card_id: '$0.id', board_ids: ['$1.id'] } },
        { method: 'PATCH', path: '/v1/cards/$0.id', body: { title: 'Plan B' } },
        { method: 'PUT', path: `/v1/boards/${board}-2`, body: { name: 'Made by its PUT' } },
      ],
    });
    assertJson(response, 200);
    const [card, made, column, task, renamed, put] = response.body.results as Json[];
    const cardId = card?.body.id as string;
    assert.match(cardId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(made?.body.id, board);
    assert.equal(column?.headers.Location, `/v1/boards/${board}/columns/${column?.body.id}`);
    assert.equal(task?.body.card_id, cardId);
    assert.deepEqual(task?.body.board_ids, [board]);
    assert.equal(renamed?.headers.ETag, (await api.get(`/v1/cards/${cardId}`)).headers.get('etag'));
    assert.equal(renamed?.body.title, 'Plan B');
    assert.deepEqual([put?.status, put?.headers.Location], [201, `/v1/boards/${board}-2`]);
  });

  test('a path naming two records made in the batch, of two kinds of id: a uuid, then an integer under it', async () => {
    const response = await api.post('/v1/batches', {
      operations: [
        { method: 'POST', path: '/v1/cards', body: { title: 'Trip' } },
        { method: 'POST', path: '/v1/cards/$0.id/checklists', body: { title: 'Pack' } },
        { method: 'PATCH', path: '/v1/cards/$0.id/checklists/$1.id', body: { title: 'Pack light' } },
      ],
    });
    assertJson(response, 200);
    const [card, made, renamed] = response.body.results as Json[];
    const cardId = card?.body.id as string;
    assert.deepEqual(
      [made?.status, made?.headers.Location, made?.body.card_id],
      [201, `/v1/cards/${cardId}/checklists/1`, cardId],
    );
    assert.deepEqual([renamed?.status, renamed?.body.id, renamed?.body.title], [200, 1, 'Pack light']);
    const read = await api.get(`/v1/cards/${cardId}/checklists/1`);
    assertJson(read, 200);
    assert.equal(read.body.title, 'Pack light');
    assert.equal(read.headers.get('etag'), renamed?.headers.ETag);
  });
});
