// The PostgreSQL store (packages/postgres, docs/deploying.md) serving the example domain's
// main flows over HTTP (test/store-flows.ts), on a throwaway PostgreSQL
// (test/postgres-cluster.ts); skipped, saying why, where PostgreSQL is not installed.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { HttpError } from '../src/errors/errors.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';
import { NO_PLAN } from '../src/store/store.ts';
import type { RequestStore } from '../src/store/store.ts';
import { recordWords } from '../src/store/search-words.ts';
import { jsonEqual } from '../src/records/json.ts';
import type { StoredRecord } from '../src/records/json.ts';
import { isIdOfKind } from '../src/records/record-id.ts';
import { describeChanges } from '../src/store/describe-changes.ts';
import { openPostgresStore } from '../packages/postgres/src/open.ts';
import type { CoreKit } from '../packages/postgres/src/core-kit.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';
import type { TestServer } from './helpers.ts';
import { startTestServerWithAdminBootstrap, tokenFor } from './helpers.ts';
import { describeStoreFlows } from './store-flows.ts';
import { statementsOf } from './postgres-statements.ts';

const KIT: CoreKit = {
  unavailable: (detail) => new HttpError('not_ready', detail, { headers: { 'Retry-After': '1' } }),
  recordWords,
  describeChanges,
  jsonEqual,
  isIdOfKind,
};

/** A request that does nothing but read and write through the store: its caller may be answered from memory. */
const REPEATABLE = { pathCollections: [], ids: [], repeatable: true };

let cluster: PostgresCluster | undefined;
after(() => cluster?.stop());

describeStoreFlows('the PostgreSQL store serves the same API', POSTGRES_SKIP, async () => {
  cluster = await startCluster();
  const url = cluster.url(await cluster.createDatabase());
  const opened = await openPostgresStore({ url, resources: exampleResources(), kit: KIT });
  if (opened.store === undefined) throw new Error(`the schema was refused: ${JSON.stringify(opened.problems)}`);
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  return {
    store: opened.store,
    ordersOf: async (userId) =>
      Number((await probe.query('SELECT count(*) AS n FROM orders WHERE user_id = $1', [userId])).rows[0].n),
    close: async () => {
      await probe.end();
    },
  };
});

describe(
  'round trips: a read of one record loads its caller and the records its path names together',
  { skip: POSTGRES_SKIP },
  () => {
    let api: TestServer | undefined;
    before(async () => {
      cluster ??= await startCluster();
      const opened = await openPostgresStore({
        url: cluster.url(await cluster.createDatabase()),
        resources: exampleResources(),
        kit: KIT,
      });
      if (opened.store === undefined) throw new Error('the schema was refused');
      api = await startTestServerWithAdminBootstrap({ store: opened.store });
    });
    after(async () => {
      await api?.close();
    });

    test('GET of a product and of a nested order: one statement each (the caller, the user and the order together)', async () => {
      const admin = api as TestServer;
      const product = await admin.post('/v1/products', { name: 'One trip', category: 'trips', price: 1 });
      const user = await admin.post('/v1/users', {
        name: 'Tripper',
        email: 'tripper@example.com',
        password: 'tripper-password',
      });
      const order = await admin.post(`/v1/users/${user.body.id}/orders`, {
        items: [{ product_id: product.body.id, quantity: 1 }],
      });
      for (const path of [`/v1/products/${product.body.id}`, `/v1/users/${user.body.id}/orders/${order.body.id}`]) {
        let status = 0;
        const statements = await statementsOf(async () => {
          status = (await admin.get(path)).status;
        });
        assert.equal(status, 200);
        assert.equal(statements.length, 1, `${path}: ${statements.join(' / ')}`);
      }
      let missing = 0;
      const statements = await statementsOf(async () => {
        missing = (await admin.get('/v1/products/999999')).status;
      });
      assert.equal(missing, 404);
      assert.equal(statements.length, 1, 'a missing record costs no more');
    });

    test('a list or a search by a caller this process has not read yet: the caller, then the page; read once', async () => {
      const admin = api as TestServer;
      await admin.post('/v1/products', { name: 'A cold trip', category: 'trips', price: 2 });
      for (const path of ['/v1/products?category=trips', '/v1/products?q=cold', '/v1/users/ID/orders']) {
        const user = await admin.post('/v1/users', {
          name: 'Cold',
          email: `cold-${path.length}-${path.charCodeAt(12)}@example.com`,
          password: 'cold-caller-password',
        });
        assert.equal(user.status, 201, user.text);
        const client = admin.as(tokenFor(user.body.id));
        const target = path.replace('ID', String(user.body.id));
        let status = 0;
        const statements = await statementsOf(async () => {
          status = (await client.get(target)).status;
        });
        assert.equal(status, 200);
        // The page runs the request again: the caller read first is that read, not one to confirm by another.
        assert.equal(statements.length, 2, `${target}: ${statements.join(' / ')}`);
        assert.match(statements[0] as string, /FROM "users"/);
      }
    });
  },
);

describe(
  'a record read again unchanged is the object read before (its representation and ETag are kept per object)',
  { skip: POSTGRES_SKIP },
  () => {
    test('by id and in a page: the same object while every field is the same; a new one when a field changes, appears or goes', async () => {
      cluster ??= await startCluster();
      const url = cluster.url(await cluster.createDatabase());
      const opened = await openPostgresStore({ url, resources: exampleResources(), kit: KIT });
      const store = opened.store;
      if (store === undefined) throw new Error('the schema was refused');
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      try {
        const id = Number(
          (
            await probe.query(
              `INSERT INTO products (name, category, price, created_at, updated_at) VALUES ('Kept', 'same', 2, now(), now()) RETURNING id`,
            )
          ).rows[0].id,
        );
        const read = async (): Promise<Record<string, unknown>> => {
          const record = await store.serve(NO_PLAN, (view) => view.read(() => view.get('products', id)));
          if (record === undefined) throw new Error('the product is missing');
          return record;
        };
        const page = async (): Promise<Record<string, unknown>> => {
          const { records } = await store.serve(NO_PLAN, (view) =>
            view.read(() =>
              view.query('products', {
                filters: [{ field: 'category', value: 'same' }],
                sort: [],
                offset: 0,
                limit: 10,
              }),
            ),
          );
          return records[0] as Record<string, unknown>;
        };
        const first = await read();
        assert.equal(await read(), first, 'read again by id');
        assert.equal(await page(), first, 'read again in a page');

        await probe.query('UPDATE products SET price = 3 WHERE id = $1', [id]);
        const repriced = await read();
        assert.notEqual(repriced, first);
        assert.equal(repriced['price'], 3);
        assert.equal(await page(), repriced);

        await probe.query(`UPDATE products SET description = 'now described' WHERE id = $1`, [id]);
        const described = await page();
        assert.notEqual(described, repriced);
        assert.equal(described['description'], 'now described');
        assert.equal(await read(), described);

        await probe.query('UPDATE products SET description = NULL WHERE id = $1', [id]);
        const undescribed = await read();
        assert.notEqual(undescribed, described);
        assert.deepEqual(undescribed, repriced, 'the same fields as before the description');
        assert.equal('description' in undescribed, false);

        // Nested values (an order's items) are compared by value: equal is the same object, changed is a new one.
        const order = (items: unknown): StoredRecord =>
          ({ id: 5, user_id: 1, items, created_at: 'then', updated_at: 'then' }) as unknown as StoredRecord;
        const kept = store.remembered.sameAsLastRead('orders', order([{ product_id: 1, quantity: 2 }]));
        assert.equal(store.remembered.sameAsLastRead('orders', order([{ product_id: 1, quantity: 2 }])), kept);
        assert.notEqual(store.remembered.sameAsLastRead('orders', order([{ product_id: 1, quantity: 3 }])), kept);
      } finally {
        await probe.end();
        await store.close();
      }
    });
  },
);

describe(
  'reads arriving together share one statement (read-batches.ts), each checking its own caller',
  { skip: POSTGRES_SKIP },
  () => {
    test('twenty reads on one connection: the first alone, the other nineteen together, each given its own record; a deleted caller is refused in the batch, the others answered', async () => {
      cluster ??= await startCluster();
      const url = cluster.url(await cluster.createDatabase());
      const opened = await openPostgresStore({ url, resources: exampleResources(), kit: KIT, poolSize: 1 });
      const store = opened.store;
      if (store === undefined) throw new Error('the schema was refused');
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      try {
        const insertUser = async (email: string, role: string): Promise<number> =>
          Number(
            (
              await probe.query(
                `INSERT INTO users (name, email, password_hash, role, created_at, updated_at) VALUES ('Reader', $1, 'x', $2, now(), now()) RETURNING id`,
                [email, role],
              )
            ).rows[0].id,
          );
        const kept = await insertUser('kept@example.com', 'user');
        const deleted = await insertUser('deleted@example.com', 'admin');
        const ids: number[] = [];
        for (let n = 1; n <= 20; n++) {
          ids.push(
            Number(
              (
                await probe.query(
                  `INSERT INTO products (name, category, price, created_at, updated_at) VALUES ($1, 'batched', $2, now(), now()) RETURNING id`,
                  [`Batched ${n}`, n],
                )
              ).rows[0].id,
            ),
          );
        }
        // Each caller read once, so that the store remembers it and a later read checks it instead.
        for (const caller of [kept, deleted])
          await store.serve(NO_PLAN, (view) => view.read(() => view.caller(caller)));
        await probe.query('DELETE FROM users WHERE id = $1', [deleted]);

        // As a request does: its caller first (answered from memory: no statement of its own), then its record.
        const readAs = async (caller: number, id: number): Promise<StoredRecord | undefined> =>
          store.serve(REPEATABLE, (view) =>
            view.read(() => (view.caller(caller) === undefined ? undefined : view.get('products', id))),
          );
        let reads: PromiseSettledResult<StoredRecord | undefined>[] = [];
        const statements = await statementsOf(async () => {
          reads = await Promise.allSettled(ids.map((id, index) => readAs(index === 7 ? deleted : kept, id)));
        });
        assert.deepEqual(
          statements
            .filter((text) => text.includes('to_jsonb(t)'))
            .map((text) => (text.includes('unnest(') ? 'together' : 'alone')),
          ['alone', 'together', 'alone'],
          'the twenty reads, then the deleted caller read afresh',
        );
        reads.forEach((read, index) => {
          if (index === 7) {
            assert.deepEqual(
              read,
              { status: 'fulfilled', value: undefined },
              'the deleted caller: the request ran again, its caller read afresh, and read nothing',
            );
          } else {
            assert.equal(read.status, 'fulfilled');
            assert.deepEqual(read.value, {
              ...read.value,
              id: ids[index],
              name: `Batched ${index + 1}`,
              price: index + 1,
            });
          }
        });
      } finally {
        await probe.end();
        await store.close();
      }
    });
  },
);

describe(
  'creates arriving together are written by one statement (create-batches.ts), each checking its own caller',
  { skip: POSTGRES_SKIP },
  () => {
    test('twenty creates on one connection: the first alone, the other nineteen together, with their ids and events in order; a deleted caller writes nothing', async () => {
      cluster ??= await startCluster();
      const url = cluster.url(await cluster.createDatabase());
      // Retention checked every 3 events (a tenth of `kept`): the nineteen events written together pass that mark, so a trim follows.
      const opened = await openPostgresStore({
        url,
        resources: exampleResources(),
        kit: KIT,
        poolSize: 1,
        events: { kept: 30, keptForMs: 86_400_000 },
      });
      const store = opened.store;
      if (store === undefined) throw new Error('the schema was refused');
      store.describeEvents(exampleResources());
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      try {
        const insertUser = async (email: string, role: string): Promise<number> =>
          Number(
            (
              await probe.query(
                `INSERT INTO users (name, email, password_hash, role, created_at, updated_at) VALUES ('Writer', $1, 'x', $2, now(), now()) RETURNING id`,
                [email, role],
              )
            ).rows[0].id,
          );
        const kept = await insertUser('kept-writer@example.com', 'user');
        const deleted = await insertUser('deleted-writer@example.com', 'admin');
        for (const caller of [kept, deleted])
          await store.serve(NO_PLAN, (view) => view.read(() => view.caller(caller)));
        await probe.query('DELETE FROM users WHERE id = $1', [deleted]);

        // As a request does: its caller first (answered from memory), then its write.
        const createAs = async (caller: number, name: string): Promise<number | undefined> =>
          store.serve(REPEATABLE, async (view) =>
            (await view.read(() => view.caller(caller))) === undefined ? undefined : createProduct(view, name),
          );
        // Its time taken before deciding: the store decides again once it knows the id, and must get the same record.
        const createProduct = (view: RequestStore, name: string, now = new Date().toISOString()): Promise<number> =>
          view.write(() => {
            const record = Object.freeze({
              id: view.allocateId('products') as number,
              name,
              category: 'together',
              price: 1,
              created_at: now,
              updated_at: now,
            }) as StoredRecord;
            return {
              changes: [{ kind: 'put', collection: 'products', record, json: JSON.stringify(record), created: true }],
              result: record.id as number,
            };
          });
        const names = Array.from({ length: 20 }, (_, index) => `Together ${index + 1}`);
        let made: PromiseSettledResult<number | undefined>[] = [];
        const statements = await statementsOf(async () => {
          made = await Promise.allSettled(names.map((name, index) => createAs(index === 7 ? deleted : kept, name)));
          await store.close(); // after the trim the creates started, if any (the feed's close waits for it)
        });
        assert.ok(
          statements.some((text) => text.includes('DELETE FROM "__events"')),
          'the statement written together told the feed how many events it wrote: retention ran',
        );
        // The creates' statements (the feed's own reads of what was committed go on beside them).
        assert.deepEqual(
          statements
            .filter((text) => text.includes('INSERT INTO "products"'))
            .map((text) => (text.includes('unnest(') ? 'together' : 'alone')),
          ['alone', 'together'],
        );
        assert.deepEqual(
          made[7],
          { status: 'fulfilled', value: undefined },
          'the deleted caller: the request ran again, its caller read afresh, and wrote nothing',
        );
        const written = names.filter((_, index) => index !== 7);
        const ids = made
          .filter(
            (result): result is PromiseFulfilledResult<number> =>
              result.status === 'fulfilled' && typeof result.value === 'number',
          )
          .map((result) => result.value);
        assert.equal(new Set(ids).size, 19, 'nineteen ids, all different');

        const rows = (await probe.query(`SELECT id, name FROM products WHERE category = 'together' ORDER BY id`)).rows;
        assert.deepEqual(
          rows.map((row) => [Number(row.id), row.name]).sort((a, b) => (a[0] as number) - (b[0] as number)),
          written.map((name, index) => [ids[index], name]).sort((a, b) => (a[0] as number) - (b[0] as number)),
          'each create has the id it was answered with',
        );
        const events = (
          await probe.query(`SELECT record_id, record FROM __events WHERE collection = 'products' ORDER BY id`)
        ).rows;
        assert.deepEqual(
          events.map((event) => [Number(event.record_id), event.record.id, event.record.name]),
          written.map((name, index) => [ids[index], ids[index], name]),
          'one event per create, in the order of the creates, naming its record and its id',
        );
      } finally {
        await probe.end();
        await store.close();
      }
    });
  },
);
