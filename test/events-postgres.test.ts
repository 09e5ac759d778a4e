// The change feed on PostgreSQL (docs/deploying.md; README: Events; packages/postgres event-feed.ts):
// two servers on one database (test/postgres-cluster.ts) show one history in one order —
// the same list on both after interleaved and concurrent writes, ids strictly growing,
// each write once; a stream on one server carries the writes made through the other, in
// id order, and resumes on the other after Last-Event-ID; a user never sees another
// user's orders; a deletion taking nested records gives one event each, in the order of
// its changes; a feed whose listening connection was cut reconnects and hands on what it
// missed, or ends its streams when retention deleted that meanwhile; retention keeps the newest events and answers an older position with 410 or
// `event: reset`; a create by a known caller is one statement; a copy writes no events and a target
// holding only the feed's tables is empty. Skipped, saying why, without PostgreSQL.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { ServerOptions } from '../src/config/server-options.ts';
import { assertProblem } from './assertions.ts';
import { EventStreamClient } from './event-stream-client.ts';
import type { StreamMessage } from './event-stream-client.ts';
import type { TestServer } from './helpers.ts';
import { createProduct, createUserClient, eventually, startTestServerWithAdminBootstrap } from './helpers.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';
import { writeAllRecords } from '../packages/postgres/src/copy.ts';
import { migrateSchema } from '../packages/postgres/src/schema-migration.ts';
import { schemaOf } from '../packages/postgres/src/schema.ts';
import { FEED_APPLICATION } from '../packages/postgres/src/open.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { statementsOf } from './postgres-statements.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

let cluster: PostgresCluster | undefined;
after(() => cluster?.stop());

/** A connection to a new database. */
async function newDatabase(): Promise<string> {
  cluster ??= await startCluster();
  return cluster.url(await cluster.createDatabase());
}

/** Runs `work` with a connection to `url`. */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Two servers on a new database, started at once; `url` is that database's. */
async function pairOnNewDatabase(options: ServerOptions = {}): Promise<[TestServer, TestServer, string]> {
  const url = await newDatabase();
  const [one, two] = await Promise.all([
    startTestServerWithAdminBootstrap({ database: url, ...options }),
    startTestServerWithAdminBootstrap({ database: url, ...options }),
  ]);
  return [one, two, url];
}

function stream(
  api: TestServer,
  path = '/v1/events',
  headers: Record<string, string> = {},
  token = api.token,
): Promise<EventStreamClient> {
  return EventStreamClient.open(api.url + path, token, headers);
}

/** The next `count` events of a stream (heartbeats skipped). */
async function events(client: EventStreamClient, count: number): Promise<StreamMessage[]> {
  const read: StreamMessage[] = [];
  while (read.length < count) read.push(await client.nextEvent(10_000));
  return read;
}

async function order(api: TestServer, userId: number, productId: number): Promise<any> {
  const response = await api.post(`/v1/users/${userId}/orders`, { items: [{ product_id: productId, quantity: 1 }] });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

describe('the change feed of two servers on one PostgreSQL', { skip: POSTGRES_SKIP }, () => {
  let one: TestServer;
  let two: TestServer;
  let url: string;
  before(async () => {
    [one, two, url] = await pairOnNewDatabase();
  });
  after(async () => {
    await Promise.all([one?.close(), two?.close()]);
  });

  test('40 concurrent creates alternating between the servers: both list the same events, ids strictly growing, each create once; a stream on each carries them in that order', async () => {
    const streams = await Promise.all([
      stream(one, '/v1/events?collection=products'),
      stream(two, '/v1/events?collection=products'),
    ]);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 === 0 ? one : two).post('/v1/products', {
          name: `Feed ${index}`,
          category: 'feed',
          price: index + 1,
        }),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 201),
    );
    const [fromOne, fromTwo] = await Promise.all([one.get('/v1/events?limit=100'), two.get('/v1/events?limit=100')]);
    assert.equal(fromOne.status, 200);
    assert.equal(fromTwo.status, 200);
    assert.deepEqual(fromTwo.body, fromOne.body);
    assert.equal(fromTwo.headers.get('etag'), fromOne.headers.get('etag'));
    const ids: number[] = fromOne.body.data.map((event: any) => event.id);
    assert.ok(
      ids.every((id, index) => index === 0 || id > (ids[index - 1] as number)),
      `ids strictly growing: ${ids.join(', ')}`,
    );
    const created = fromOne.body.data.filter((event: any) => event.collection === 'products');
    assert.equal(created.length, 40);
    assert.deepEqual(
      created.map((event: any) => event.record_id).sort((a: number, b: number) => a - b),
      answers.map((answer) => answer.body.id).sort((a, b) => a - b),
    );
    for (const event of created) {
      const answer = answers.find((each) => each.body.id === event.record_id);
      assert.equal(event.type, 'created');
      assert.equal(event.path, `/v1/products/${event.record_id}`);
      assert.deepEqual(event.record, answer?.body);
    }
    assert.deepEqual(fromOne.body.meta, { page: 1, limit: 100, total: ids.length, pages: 1 });
    for (const live of streams) {
      const received = await events(live, 40);
      live.close();
      assert.deepEqual(
        received.map((message) => [Number(message.id), message.event, JSON.parse(message.data).record_id]),
        created.map((event: any) => [event.id, 'created', event.record_id]),
      );
    }
  });

  test('a stream on one server carries the writes made through the other, in id order; a reconnect to the other with Last-Event-ID resumes right after it', async () => {
    const onTwo = await stream(two, '/v1/events?collection=products');
    assert.equal(onTwo.status, 200);
    assert.equal(onTwo.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const made: any[] = [];
    for (let index = 0; index < 5; index++) made.push(await createProduct(one, { name: `Streamed ${index}` }));
    const received = await events(onTwo, 5);
    onTwo.close();
    assert.deepEqual(
      received.map((message) => [message.event, JSON.parse(message.data).record_id]),
      made.map((product) => ['created', product.id]),
    );
    const ids = received.map((message) => Number(message.id));
    assert.ok(
      ids.every((id, index) => index === 0 || id > (ids[index - 1] as number)),
      ids.join(', '),
    );
    assert.deepEqual(
      received.map((message) => JSON.parse(message.data).id),
      ids,
    );

    const resumed = await stream(one, '/v1/events?collection=products', { 'last-event-id': String(ids[2]) });
    assert.equal(resumed.status, 200);
    const later = await createProduct(two, { name: 'After the reconnect' });
    const rest = await events(resumed, 3);
    resumed.close();
    assert.deepEqual(
      rest.map((message) => [message.id, message.event, JSON.parse(message.data).record_id]),
      [
        [String(ids[3]), 'created', made[3].id],
        [String(ids[4]), 'created', made[4].id],
        [rest[2]?.id, 'created', later.id],
      ],
    );
    assert.ok(Number(rest[2]?.id) > (ids[4] as number));
  });

  test("a user's list and stream never hold another user's orders; an admin's list holds both", async () => {
    const product = await createProduct(one, { name: 'Shared' });
    const alice = await createUserClient(one, { name: 'Alice' });
    const bob = await createUserClient(two, { name: 'Bob' });
    const aliceStream = await stream(two.as(alice.client.token), '/v1/events?collection=orders');
    assert.equal(aliceStream.status, 200);
    const bobsOrder = await order(one, bob.id, product.id);
    const bobsSecond = await order(two, bob.id, product.id);
    const alicesOrder = await order(one, alice.id, product.id);
    const [first] = await events(aliceStream, 1);
    aliceStream.close();
    assert.equal(first?.event, 'created');
    assert.deepEqual(
      [JSON.parse(first?.data ?? '{}').record_id, JSON.parse(first?.data ?? '{}').path],
      [alicesOrder.id, `/v1/users/${alice.id}/orders/${alicesOrder.id}`],
    );

    const alicesList = await one.as(alice.client.token).get('/v1/events?collection=orders&limit=100');
    assert.equal(alicesList.status, 200);
    assert.deepEqual(
      alicesList.body.data.map((event: any) => [event.type, event.record_id, event.path]),
      [['created', alicesOrder.id, `/v1/users/${alice.id}/orders/${alicesOrder.id}`]],
    );
    assert.equal(alicesList.body.meta.total, 1);
    const everything = await two.as(alice.client.token).get('/v1/events?limit=100');
    assert.ok(
      everything.body.data.every(
        (event: any) =>
          event.collection === 'products' ||
          (event.collection === 'users' && event.record_id === alice.id) ||
          (event.collection === 'orders' && event.path.startsWith(`/v1/users/${alice.id}/`)),
      ),
      JSON.stringify(everything.body.data.map((event: any) => event.path)),
    );
    const adminsList = await two.get('/v1/events?collection=orders&limit=100');
    assert.deepEqual(adminsList.body.data.map((event: any) => event.record_id).slice(-3), [
      bobsOrder.id,
      bobsSecond.id,
      alicesOrder.id,
    ]);
  });

  test('deleting a user takes their orders: one deleted event each, in the order of the changes, with their paths as they were', async () => {
    const product = await createProduct(two, { name: 'For Carol' });
    const carol = await createUserClient(one, { name: 'Carol' });
    const orders = [await order(one, carol.id, product.id), await order(two, carol.id, product.id)];
    const latest = (await one.get('/v1/events?limit=100')).body.data.at(-1).id;
    assert.equal((await two.delete(`/v1/users/${carol.id}`)).status, 204);
    const after = await one.get(`/v1/events?after=${latest}&type=deleted`);
    assert.equal(after.status, 200);
    assert.deepEqual(
      after.body.data.map((event: any) => [event.collection, event.record_id, event.path]),
      [
        ['users', carol.id, `/v1/users/${carol.id}`],
        ['orders', orders[0].id, `/v1/users/${carol.id}/orders/${orders[0].id}`],
        ['orders', orders[1].id, `/v1/users/${carol.id}/orders/${orders[1].id}`],
      ],
    );
    const ids: number[] = after.body.data.map((event: any) => event.id);
    assert.deepEqual(ids, [ids[0], (ids[0] as number) + 1, (ids[0] as number) + 2], 'one commit takes consecutive ids');
  });

  test('a feed whose listening connection is cut opens another and hands on the events committed meanwhile, in order', async () => {
    const onTwo = await stream(two, '/v1/events?collection=products');
    assert.equal(onTwo.status, 200);
    const cut = await withClient(url, async (client) => {
      const result = await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
        [FEED_APPLICATION],
      );
      return result.rowCount;
    });
    assert.equal(cut, 2, "both servers' listening connections");
    // Committed while neither listens: no notification reaches them.
    const missed = [await createProduct(one, { name: 'Missed 1' }), await createProduct(two, { name: 'Missed 2' })];
    const received = await events(onTwo, 2);
    const later = await createProduct(one, { name: 'Heard' });
    received.push(...(await events(onTwo, 1)));
    onTwo.close();
    assert.deepEqual(
      received.map((message) => JSON.parse(message.data).record_id),
      [...missed, later].map((product) => product.id),
    );
    // The feeds' listeners reconnect on their own time.
    await eventually(async () => {
      const listening = await withClient(
        url,
        async (client) =>
          (
            await client.query(
              `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
              [FEED_APPLICATION],
            )
          ).rowCount,
      );
      assert.equal(listening, 2);
    }, 10_000);
  });

  test('a create by a caller the server has read before is one statement: the record, its id taken as it is written, if the caller is as it was, and its event', async () => {
    assert.equal((await two.get('/v1/products')).status, 200);
    let created: Awaited<ReturnType<TestServer['post']>> | undefined;
    const texts = await statementsOf(async () => {
      created = await two.post('/v1/products', { name: 'Counted', category: 'counted', price: 1 });
    });
    assert.equal(created?.status, 201);
    assert.equal(texts.length, 1, texts.join('\n'));
    assert.match(
      texts[0] as string,
      /^WITH "changed" AS \(INSERT INTO "products" \("name", .*\) SELECT .* WHERE EXISTS \(SELECT 1 FROM "users" WHERE "id" = .* RETURNING "id"\),\s.* pg_notify\('plainrest_events'/s,
    );
    const id = created?.body.id as number;
    assert.equal(created?.headers.get('location'), `/v1/products/${id}`);
    const read = await one.get(`/v1/products/${id}`);
    assert.deepEqual(read.body, created?.body);
    assert.equal(read.headers.get('etag'), created?.headers.get('etag'));
    const listed = await one.get(`/v1/events?collection=products&type=created&limit=100`);
    const last = await one.get(`/v1/events?collection=products&type=created&limit=100&page=${listed.body.meta.pages}`);
    const event = last.body.data.at(-1);
    assert.equal(event.record_id, id);
    assert.deepEqual(event.record, created?.body);
  });

  test('a create with an Idempotency-Key takes its id first: the id, then the record and its saved answer in one transaction', async () => {
    assert.equal((await one.get('/v1/products')).status, 200);
    const texts = await statementsOf(async () => {
      assert.equal(
        (
          await one.post(
            '/v1/products',
            { name: 'Keyed count', category: 'counted', price: 1 },
            { 'Idempotency-Key': 'counted-1' },
          )
        ).status,
        201,
      );
    });
    assert.ok(
      texts.some((text) => text.startsWith('SELECT nextval(')),
      texts.join('\n'),
    );
    assert.ok(
      !texts.some((text) => /INSERT INTO "products" \("name"/.test(text)),
      'the record is written with the id it was decided with',
    );
  });
});

describe('copying into PostgreSQL and the change feed', { skip: POSTGRES_SKIP }, () => {
  test("a database holding only the feed's tables (and every collection's, empty) is an empty target; the copy writes no events", async () => {
    const url = await newDatabase();
    const resources = exampleResources();
    await withClient(url, async (client) =>
      assert.deepEqual((await migrateSchema(client, schemaOf(resources))).problems, []),
    );
    const now = new Date().toISOString();
    const admin = { id: 1, name: 'Admin', email: 'admin@example.com', role: 'admin', created_at: now, updated_at: now };
    const written = await writeAllRecords(url, resources, new Map([['users', { records: [admin], nextId: 2 }]]));
    assert.deepEqual(written, { kind: 'written' });
    const counts = await withClient(
      url,
      async (client) =>
        (
          await client.query(
            `SELECT (SELECT count(*) FROM "__events")::int AS events, (SELECT count(*) FROM "users")::int AS users`,
          )
        ).rows[0],
    );
    assert.deepEqual(counts, { events: 0, users: 1 });
  });
});

describe('the change feed keeps the newest events (PostgreSQL)', { skip: POSTGRES_SKIP }, () => {
  let one: TestServer;
  let two: TestServer;
  let url: string;
  before(async () => {
    [one, two, url] = await pairOnNewDatabase({ events: { kept: 5, keptForMs: 0 } });
  });
  after(async () => {
    await Promise.all([one?.close(), two?.close()]);
  });

  test('beyond `kept` the oldest events go: an older `after` is a 410 history_gone, an older Last-Event-ID starts with event: reset', async () => {
    const first = await createProduct(one, { name: 'Oldest' });
    const firstEvent = (await one.get('/v1/events?collection=products')).body.data[0];
    assert.equal(firstEvent.record_id, first.id);
    for (let index = 0; index < 20; index++)
      await createProduct(index % 2 === 0 ? two : one, { name: `Later ${index}` });
    // Retention runs after the answer.
    const kept = await eventually(async () => {
      const response = await two.get('/v1/events?limit=100');
      assert.equal(response.status, 200);
      assert.equal(response.body.data.length, 5);
      return response;
    }, 10_000);
    const keptIds: number[] = kept.body.data.map((event: any) => event.id);
    const latest = keptIds[4] as number;
    const lostThrough = (keptIds[0] as number) - 1;
    assert.deepEqual(keptIds, [lostThrough + 1, lostThrough + 2, lostThrough + 3, lostThrough + 4, lostThrough + 5]);

    const gone = await one.get(`/v1/events?after=${firstEvent.id}`);
    assertProblem(gone, 410, 'history_gone', '/v1/events');
    assert.equal(
      gone.body.detail,
      `the events after ${firstEvent.id} are no longer kept (the feed keeps those after ${lostThrough}); read the records again, then follow the feed from ${latest}`,
    );
    const fromLost = await two.get(`/v1/events?after=${lostThrough}`);
    assert.equal(fromLost.status, 200);
    assert.deepEqual(
      fromLost.body.data.map((event: any) => event.id),
      keptIds,
    );

    const reset = await stream(two, '/v1/events', { 'last-event-id': String(firstEvent.id) });
    assert.equal(reset.status, 200);
    const [message] = await events(reset, 1);
    assert.deepEqual(message, {
      id: String(latest),
      event: 'reset',
      data: JSON.stringify({
        reason: 'history_gone',
        detail: `the events after ${firstEvent.id} are no longer kept (the feed keeps those after ${lostThrough}); read the records again, then follow the feed from ${latest}`,
        latest,
      }),
      comments: [],
    });
    const next = await createProduct(one, { name: 'After the reset' });
    const [created] = await events(reset, 1);
    reset.close();
    assert.equal(created?.event, 'created');
    assert.equal(JSON.parse(created?.data ?? '{}').record_id, next.id);
    assert.ok(Number(created?.id) > latest);
  });

  test('a server kept from listening while retention deleted the events after its place ends its streams with events_missed; the reconnect resets', async () => {
    const place = (await one.get('/v1/events?limit=100')).body.data.at(-1)?.id ?? 0;
    const onOne = await stream(one, '/v1/events');
    assert.equal(onOne.status, 200);
    const cutListeners = (): Promise<unknown> =>
      withClient(url, (client) =>
        client.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
          [FEED_APPLICATION],
        ),
      );
    await cutListeners();
    for (let index = 0; index < 8; index++) await createProduct(two, { name: `Unheard ${index}` });
    // Each reconnect is cut until retention has deleted the events after the place.
    for (
      let deadline = Date.now() + 10_000;
      (await two.get(`/v1/events?after=${place}`)).status !== 410 && Date.now() < deadline;
    )
      await cutListeners();
    await cutListeners();
    const [closed] = await events(onOne, 1);
    assert.equal(closed?.event, 'closed');
    assert.deepEqual(JSON.parse(closed?.data ?? '{}'), {
      reason: 'events_missed',
      detail:
        'this server missed events that are no longer kept; reconnect with Last-Event-ID: the stream starts again with event: reset',
    });
    const again = await stream(one, '/v1/events', { 'last-event-id': String(place) });
    const [reset] = await events(again, 1);
    again.close();
    assert.equal(reset?.event, 'reset');
    assert.equal(JSON.parse(reset?.data ?? '{}').reason, 'history_gone');
  });
});
