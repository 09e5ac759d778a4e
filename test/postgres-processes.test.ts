// Two plainrest servers on one PostgreSQL behave as one server (docs/deploying.md), started
// with `database` as DATABASE_URL would (test/postgres-cluster.ts gives a throwaway
// PostgreSQL): a record written through one is read through the other at once, lists
// and totals included; racing creates of one unique value give one 201 and one 409;
// racing transitions give one 200 and one 409; If-Match is checked against the committed
// version; an Idempotency-Key replays from the other server; ids are never reused; an API key deleted through one
// is refused by the other at once, and the database holds only its hash; a
// deleted or demoted user is refused or demoted by the other at its next request, also
// when that request is a POST or a read decided with the caller as it was last read (a
// read of a record or a page is then one statement, which checks the caller). And a
// declaration the stored data no longer fits is refused at start, in the data directory's words.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startServer } from '../src/server/server.ts';
import { StartupError } from '../src/store/data-directory.ts';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import type { TestServer } from './helpers.ts';
import { assertProblem } from './assertions.ts';
import { heldRequest, login, startTestServerWithAdminBootstrap, TEST_AUTH_OPTIONS } from './helpers.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';
import { statementsOf } from './postgres-statements.ts';

describe('two servers on one PostgreSQL', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  let url: string;
  let one: TestServer;
  let two: TestServer;
  before(async () => {
    cluster = await startCluster();
    url = cluster.url(await cluster.createDatabase());
    [one, two] = await Promise.all([
      startTestServerWithAdminBootstrap({ database: url }),
      startTestServerWithAdminBootstrap({ database: url }),
    ]);
  });
  after(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await cluster?.stop();
  });

  test('one administrator although both started at once; a write through one is read through the other at once', async () => {
    assert.equal((await one.get('/v1/users?role=admin')).body.meta.total, 1);
    const created = await one.post('/v1/products', { name: 'Shared', category: 'shared', price: 3 });
    assert.equal(created.status, 201);
    const read = await two.get(`/v1/products/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('etag'), created.headers.get('etag'));
    assert.equal((await two.get('/v1/products?category=shared')).body.meta.total, 1);
    await two.patch(`/v1/products/${created.body.id}`, { price: 4 });
    assert.equal((await one.get(`/v1/products/${created.body.id}`)).body.price, 4);
    assert.equal((await one.get('/v1/products?category=shared&sort=-price')).body.data[0].price, 4);
  });

  test('racing creates of one email: one 201, the others 409, one user', async () => {
    const answers = await Promise.all(
      [one, two, one, two].map((server, index) =>
        server.post('/v1/users', { name: `Racer ${index}`, email: 'racer@example.com', password: 'racing-password' }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409, 409, 409]);
    assert.equal((await one.get('/v1/users?email=RACER@example.com')).body.meta.total, 1);
  });

  test('racing transitions of one order: ship and cancel a paid order, one 200 and one 409', async () => {
    const product = await one.post('/v1/products', { name: 'Race', category: 'race', price: 2 });
    const user = await one.post('/v1/users', { name: 'Buyer', email: 'buyer@example.com', password: 'buyer-password' });
    for (let round = 0; round < 5; round++) {
      const order = await one.post(`/v1/users/${user.body.id}/orders`, {
        items: [{ product_id: product.body.id, quantity: 1 }],
      });
      const path = `/v1/users/${user.body.id}/orders/${order.body.id}`;
      assert.equal((await two.patch(path, { status: 'paid' })).status, 200);
      const [shipped, cancelled] = await Promise.all([
        one.patch(path, { status: 'shipped' }),
        two.patch(path, { status: 'cancelled' }),
      ]);
      assert.deepEqual(
        [shipped.status, cancelled.status].sort(),
        [200, 409],
        `round ${round}: ${shipped.text} ${cancelled.text}`,
      );
      const loser = shipped.status === 409 ? shipped : cancelled;
      assert.equal(loser.body.code, 'invalid_transition');
      const final = (await one.get(path)).body.status;
      assert.equal(final, shipped.status === 200 ? 'shipped' : 'cancelled');
    }
  });

  test('two racing cancels through the two servers: one 200, one 409, one write', async () => {
    const product = await one.post('/v1/products', { name: 'Cancel race', category: 'race', price: 2 });
    const user = await one.post('/v1/users', {
      name: 'Canceller',
      email: 'canceller@example.com',
      password: 'canceller-password',
    });
    for (let round = 0; round < 3; round++) {
      const order = await one.post(`/v1/users/${user.body.id}/orders`, {
        items: [{ product_id: product.body.id, quantity: 1 }],
      });
      const path = `/v1/users/${user.body.id}/orders/${order.body.id}`;
      const late = await heldRequest(two, 'PATCH', path, { status: 'cancelled' });
      const first = await one.patch(path, { status: 'cancelled' });
      assert.equal(first.status, 200, first.text);
      const second = await late.release();
      assert.equal(second.status, 409, second.text);
      assert.equal(second.body.code, 'invalid_transition');
      assert.equal((await two.get(path)).headers.get('etag'), first.headers.get('etag'), 'one write');
    }
    // Fired together, with nothing held: whatever the timing, the order is cancelled once and nobody sees a 5xx.
    const order = await one.post(`/v1/users/${user.body.id}/orders`, {
      items: [{ product_id: product.body.id, quantity: 1 }],
    });
    const path = `/v1/users/${user.body.id}/orders/${order.body.id}`;
    const answers = await Promise.all([
      one.patch(path, { status: 'cancelled' }),
      two.patch(path, { status: 'cancelled' }),
    ]);
    assert.ok(answers.some((answer) => answer.status === 200));
    assert.ok(
      answers.every((answer) => answer.status === 200 || answer.status === 409),
      answers.map((answer) => answer.text).join(' '),
    );
  });

  test('racing first uses of one Idempotency-Key on the two servers create one record; the later answer is its replay', async () => {
    for (let round = 0; round < 5; round++) {
      const body = { name: `Raced key ${round}`, category: `raced-key-${round}`, price: 1 };
      const answers = await Promise.all([
        one.post('/v1/products', body, { 'Idempotency-Key': `race-${round}` }),
        two.post('/v1/products', body, { 'Idempotency-Key': `race-${round}` }),
      ]);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [201, 201],
        answers.map((answer) => answer.text).join(' '),
      );
      assert.equal(answers[0]?.body.id, answers[1]?.body.id, 'the same record');
      assert.equal(
        answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true').length,
        1,
        'exactly one is the replay',
      );
      assert.equal((await one.get(`/v1/products?category=raced-key-${round}`)).body.meta.total, 1);
    }
  });

  test('If-Match is checked against the committed version, whichever server wrote it', async () => {
    const created = await one.post('/v1/products', { name: 'Versioned', category: 'etag', price: 1 });
    const etag = created.headers.get('etag') as string;
    assert.equal((await two.patch(`/v1/products/${created.body.id}`, { price: 2 }, { 'If-Match': etag })).status, 200);
    const stale = await one.patch(`/v1/products/${created.body.id}`, { price: 3 }, { 'If-Match': etag });
    assert.equal(stale.status, 412);
    assert.equal((await one.get(`/v1/products/${created.body.id}`)).body.price, 2);
  });

  test('an Idempotency-Key replays from the other server; ids are never reused', async () => {
    const body = { name: 'Keyed', category: 'keyed', price: 1 };
    const first = await one.post('/v1/products', body, { 'Idempotency-Key': 'across-1' });
    const again = await two.post('/v1/products', body, { 'Idempotency-Key': 'across-1' });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.id, first.body.id);
    assert.equal((await one.get('/v1/products?category=keyed')).body.meta.total, 1);

    const deleted = await two.post('/v1/products', { name: 'Gone', category: 'ids', price: 1 });
    assert.equal((await one.delete(`/v1/products/${deleted.body.id}`)).status, 204);
    const next = await one.post('/v1/products', { name: 'Next', category: 'ids', price: 1 });
    assert.ok(next.body.id > deleted.body.id);
  });

  test('a user deleted or demoted through one server is refused or demoted by the other at its next request', async () => {
    const created = await one.post('/v1/users', {
      name: 'Temp',
      email: 'temp@example.com',
      password: 'temporary-password',
    });
    const admin2 = await two.post('/v1/users', {
      name: 'Second admin',
      email: 'admin2@example.com',
      password: 'second-admin-password',
    });
    assert.equal((await one.patch(`/v1/users/${admin2.body.id}`, { role: 'admin' })).status, 200);
    const asTemp = two.as(await login(two, 'temp@example.com', 'temporary-password'));
    const asAdmin2 = two.as(await login(two, 'admin2@example.com', 'second-admin-password'));
    assert.equal((await asTemp.get('/v1/products')).status, 200);
    assert.equal((await asAdmin2.get('/v1/users')).status, 200);

    assert.equal((await one.delete(`/v1/users/${created.body.id}`)).status, 204);
    assert.equal((await one.patch(`/v1/users/${admin2.body.id}`, { role: 'user' })).status, 200);
    assert.equal((await asTemp.get('/v1/products')).status, 401);
    assert.equal((await asAdmin2.get('/v1/users')).status, 403);
  });

  test('an API key made through one server works through the other; the database keeps its hash only; deleted through one, the other refuses it at its next request', async () => {
    const made = await one.post('/v1/users/1/keys', { name: 'cross-process' });
    assert.equal(made.status, 201);
    const secret = made.body.secret as string;
    const program = two.as(secret);
    assert.equal((await program.get('/v1/users/1')).status, 200);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = (await client.query('SELECT * FROM "keys"')).rows;
      const dump = JSON.stringify(rows);
      assert.ok(!dump.includes(secret) && !dump.includes(secret.slice(4)), 'the keys table holds no secret');
      assert.deepEqual(
        rows.map((row: Record<string, unknown>) => row['secret_hash']),
        [createHash('sha256').update(secret).digest('base64url')],
      );
      // A key is found by its hash: one unique index, so a made-up key costs no scan.
      const indexes = (await client.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'keys'`)).rows;
      assert.ok(
        indexes.some((row: { indexdef: string }) => /UNIQUE INDEX .* \(secret_hash\)$/.test(row.indexdef)),
        JSON.stringify(indexes),
      );
    } finally {
      await client.end();
    }
    assert.equal((await one.delete(`/v1/users/1/keys/${made.body.id}`)).status, 204);
    assertProblem(await program.get('/v1/users/1'), 401, 'invalid_token', '/v1/users/1');
  });

  test('a POST decided with its caller as this server last read it stands only if the caller still is: promoted 201, renamed 201, demoted 403, deleted 401, nothing written when refused', async () => {
    const user = await one.post('/v1/users', {
      name: 'Remembered',
      email: 'remembered@example.com',
      password: 'remembered-password',
    });
    const admin3 = await one.post('/v1/users', {
      name: 'Third admin',
      email: 'admin3@example.com',
      password: 'third-admin-password',
    });
    assert.equal((await one.patch(`/v1/users/${admin3.body.id}`, { role: 'admin' })).status, 200);
    const asUser = two.pinned().as(await login(two, 'remembered@example.com', 'remembered-password'));
    const asAdmin3 = two.pinned().as(await login(two, 'admin3@example.com', 'third-admin-password'));
    const product = { name: 'Remembered', category: 'remembered', price: 1 };
    const count = async (): Promise<number> => (await one.get('/v1/products?category=remembered')).body.meta.total;

    // Each server now remembers both callers as they were.
    assertProblem(await asUser.post('/v1/products', product), 403, 'forbidden', '/v1/products');
    assert.equal((await asAdmin3.post('/v1/products', product)).status, 201);
    assert.equal(await count(), 1);

    assert.equal((await one.patch(`/v1/users/${user.body.id}`, { role: 'admin' })).status, 200);
    assert.equal((await asUser.post('/v1/products', product)).status, 201, 'a promotion counts at the next request');
    assert.equal((await one.patch(`/v1/users/${user.body.id}`, { name: 'Renamed' })).status, 200);
    assert.equal(
      (await asUser.post('/v1/products', product)).status,
      201,
      'a change other than the role does not refuse the caller',
    );
    assert.equal(await count(), 3);

    assert.equal((await one.patch(`/v1/users/${admin3.body.id}`, { role: 'user' })).status, 200);
    assertProblem(await asAdmin3.post('/v1/products', product), 403, 'forbidden', '/v1/products');
    // Refused before its body is looked at, as at any request: a refusal decided with the remembered caller is decided again.
    assertProblem(await asAdmin3.post('/v1/products', { name: 7 }), 403, 'forbidden', '/v1/products');
    assert.equal((await one.delete(`/v1/users/${user.body.id}`)).status, 204);
    assertProblem(await asUser.post('/v1/products', product), 401, 'invalid_token', '/v1/products');
    assert.equal(await count(), 3);
  });

  test('a read of a record or a page by a caller this server has read before is one statement that checks the caller: a promotion, a demotion and a deletion count at once', async () => {
    const reader = await one.post('/v1/users', {
      name: 'Reader',
      email: 'reader@example.com',
      password: 'reader-password',
    });
    const product = await one.post('/v1/products', { name: 'Read', category: 'read-checked', price: 1 });
    const asReader = two.pinned().as(await login(two, 'reader@example.com', 'reader-password'));
    const item = `/v1/products/${product.body.id}`;
    const page = '/v1/products?category=read-checked';
    assert.equal((await asReader.get(item)).status, 200);

    // Now remembered by this server: each read is one statement, the caller checked in it.
    let answers: Awaited<ReturnType<TestServer['get']>>[] = [];
    const texts = await statementsOf(async () => {
      answers = [await asReader.get(item), await asReader.get(page)];
    });
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200],
    );
    assert.deepEqual(
      answers[1]?.body.data.map((record: { id: number }) => record.id),
      [product.body.id],
    );
    assert.equal(texts.length, 2, texts.join('\n'));
    assert.match(
      texts[0] as string,
      /^SELECT \(SELECT to_jsonb\(t\) FROM "products" t WHERE "id" = \$1\) AS "r0", EXISTS \(SELECT 1 FROM "users" WHERE "id" = \$2::bigint AND "role" IS NOT DISTINCT FROM \$3::text\) AS "caller"$/,
    );
    assert.match(
      texts[1] as string,
      /^WITH matching AS .* EXISTS \(SELECT 1 FROM "users" WHERE "id" = \$2::bigint AND "role" IS NOT DISTINCT FROM \$3::text\) AS "__caller" FROM /,
    );

    // Each change is first met by a read that checks the remembered caller: a page, a record, a page.
    assertProblem(await asReader.get('/v1/users'), 403, 'forbidden', '/v1/users');
    assert.equal((await one.patch(`/v1/users/${reader.body.id}`, { role: 'admin' })).status, 200);
    assert.equal((await asReader.get('/v1/users')).status, 200, 'a promotion counts at the next read');
    assert.equal((await asReader.get('/v1/users/1')).status, 200);
    assert.equal((await one.patch(`/v1/users/${reader.body.id}`, { role: 'user' })).status, 200);
    assertProblem(await asReader.get('/v1/users/1'), 403, 'forbidden', '/v1/users/1');
    assertProblem(await asReader.get('/v1/users'), 403, 'forbidden', '/v1/users');
    assert.equal((await one.delete(`/v1/users/${reader.body.id}`)).status, 204);
    assertProblem(await asReader.get(page), 401, 'invalid_token', '/v1/products');
    assertProblem(await asReader.get(item), 401, 'invalid_token', item);
  });

  test('the remembered caller of a nested create or of an Idempotency-Key replay is confirmed too: a deleted user gets 401', async () => {
    const product = await one.post('/v1/products', { name: 'For orders', category: 'remembered-orders', price: 2 });
    const buyer = await one.post('/v1/users', {
      name: 'Gone buyer',
      email: 'gone-buyer@example.com',
      password: 'gone-buyer-password',
    });
    const keyed = await one.post('/v1/users', {
      name: 'Gone keyed',
      email: 'gone-keyed@example.com',
      password: 'gone-keyed-password',
    });
    const asBuyer = two.pinned().as(await login(two, 'gone-buyer@example.com', 'gone-buyer-password'));
    const asKeyed = two.pinned().as(await login(two, 'gone-keyed@example.com', 'gone-keyed-password'));
    const order = { items: [{ product_id: product.body.id, quantity: 1 }] };
    assert.equal((await asBuyer.post(`/v1/users/${buyer.body.id}/orders`, order)).status, 201);
    const first = await asKeyed.post(`/v1/users/${keyed.body.id}/orders`, order, { 'Idempotency-Key': 'remembered-1' });
    assert.equal(first.status, 201);

    assert.equal((await one.delete(`/v1/users/${buyer.body.id}`)).status, 204);
    assert.equal((await one.delete(`/v1/users/${keyed.body.id}`)).status, 204);
    assertProblem(
      await asBuyer.post(`/v1/users/${buyer.body.id}/orders`, order),
      401,
      'invalid_token',
      `/v1/users/${buyer.body.id}/orders`,
    );
    assertProblem(
      await asKeyed.post(`/v1/users/${keyed.body.id}/orders`, order, { 'Idempotency-Key': 'remembered-1' }),
      401,
      'invalid_token',
      `/v1/users/${keyed.body.id}/orders`,
    );
  });

  test('a declaration the stored data no longer fits stops the start, in the words of a data directory, and nothing changes', async () => {
    const notes = { resources: { notes: { singular: 'note', properties: { text: { type: 'string' } } } } };
    const database = cluster.url(await cluster.createDatabase());
    const server = await startTestServerWithAdminBootstrap({
      database,
      resources: notes as unknown as ResourcesDeclaration,
    });
    assert.equal((await server.post('/v1/notes', { text: 'kept' })).status, 201);
    await server.close();
    const changed = {
      resources: {
        notes: {
          singular: 'note',
          properties: { text: { type: 'string' }, title: { type: 'string' } },
          required: ['title'],
        },
      },
    };
    const error = await startServer({
      port: 0,
      database,
      resources: changed as unknown as ResourcesDeclaration,
      ...TEST_AUTH_OPTIONS,
    }).then(
      async (started) => {
        await started.close();
        return assert.fail('the server started');
      },
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof StartupError, String(error));
    assert.equal(
      error.message,
      'the data in the database no longer fits the declaration: notes: 1 record (id 1) lack "title", which the declaration requires; give it a "default" and make it optional, or set it in those records first; nothing was changed',
    );
    const again = await startTestServerWithAdminBootstrap({
      database,
      resources: notes as unknown as ResourcesDeclaration,
    });
    assert.equal((await again.get('/v1/notes')).body.data[0].text, 'kept');
    await again.close();
  });
});
