// The change feed (README: Events): GET /v1/events as a list and as a
// Server-Sent Events stream — order, filters and pages, who sees what, resuming after
// Last-Event-ID (across a restart too), the kept window (410 and event: reset), the
// heartbeat, a stream's end when its token expires or its user is deleted, a demotion
// narrowing it, the caps on streams (429), a slow reader cut off, and shutdown. Run again on
// two servers sharing PostgreSQL by events.postgres.test.ts.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { get } from 'node:http';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertProblem, RFC3339_UTC, STRONG_ETAG } from './assertions.ts';
import { EventStreamClient } from './event-stream-client.ts';
import type { TestServer } from './helpers.ts';
import {
  cleanUpAfterEach,
  connect,
  createProduct,
  createUserClient,
  eventually,
  LARGE_NOTES,
  scratchDirectory,
  startTestServer,
  TEST_AUTH_OPTIONS,
  tokenFor,
} from './helpers.ts';
import { startServer } from '../src/index.ts';

function stream(
  api: TestServer,
  path = '/v1/events',
  headers: Record<string, string> = {},
  token = api.token,
): Promise<EventStreamClient> {
  return EventStreamClient.open(api.url + path, token, headers);
}

async function order(api: TestServer, userId: number, productId: number): Promise<any> {
  const response = await api.post(`/v1/users/${userId}/orders`, { items: [{ product_id: productId, quantity: 1 }] });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** The events of a list answer, as [type, collection, record_id]. */
function summary(body: any): [string, string, number][] {
  return body.data.map((event: any) => [event.type, event.collection, event.record_id]);
}

describe('the change feed as a list', () => {
  let api: TestServer;
  after(() => api?.close());

  test('lists every change, oldest first, each with its id, type, collection, record id, path, time and the record as read', async () => {
    api = await startTestServer();
    const product = await createProduct(api, { name: 'Kettle', price: 25 });
    assert.equal((await api.patch(`/v1/products/${product.id}`, { price: 30 })).status, 200);
    assert.equal((await api.delete(`/v1/products/${product.id}`)).status, 204);
    const response = await api.get('/v1/events?collection=products');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
    assert.deepEqual(summary(response.body), [
      ['created', 'products', product.id],
      ['updated', 'products', product.id],
      ['deleted', 'products', product.id],
    ]);
    const [created, updated, deleted] = response.body.data;
    assert.deepEqual(Object.keys(created), ['id', 'type', 'collection', 'record_id', 'path', 'at', 'record']);
    assert.equal(created.path, `/v1/products/${product.id}`);
    assert.match(created.at, RFC3339_UTC);
    assert.deepEqual(created.record, product);
    assert.equal(updated.record.price, 30);
    assert.equal(deleted.record, undefined);
    assert.deepEqual(Object.keys(deleted), ['id', 'type', 'collection', 'record_id', 'path', 'at']);
    assert.ok(created.id < updated.id && updated.id < deleted.id, 'ids grow');
    assert.deepEqual(response.body.meta, { page: 1, limit: 20, total: 3, pages: 1 });
    const etag = response.headers.get('etag') ?? '';
    assert.equal((await api.get('/v1/events?collection=products', { 'if-none-match': etag })).status, 304);
    const administrator = (await api.get('/v1/events?collection=users')).body.data;
    assert.deepEqual(
      summary({ data: administrator }),
      [['created', 'users', 1]],
      "the start's administrator is the first change",
    );
  });

  test('filters by collection, type and after, pages like any list and keeps the filters in its links', async () => {
    const products: any[] = [];
    for (let index = 0; index < 5; index++) products.push(await createProduct(api, { name: `Item ${index}` }));
    const all = (await api.get('/v1/events?limit=100')).body.data;
    const firstNew = all.find((event: any) => event.record_id === products[0].id && event.type === 'created').id;
    const page = await api.get(`/v1/events?collection=products&type=created&after=${firstNew}&limit=2&page=2`);
    assert.equal(page.status, 200);
    assert.deepEqual(summary(page.body), [
      ['created', 'products', products[3].id],
      ['created', 'products', products[4].id],
    ]);
    assert.deepEqual(page.body.meta, { page: 2, limit: 2, total: 4, pages: 2 });
    const base = `/v1/events?collection=products&type=created&after=${firstNew}`;
    assert.deepEqual(page.body.links, {
      self: `${base}&page=2&limit=2`,
      first: `${base}&page=1&limit=2`,
      prev: `${base}&page=1&limit=2`,
      next: null,
      last: `${base}&page=2&limit=2`,
    });
    assert.equal(
      page.headers.get('link'),
      `<${base}&page=2&limit=2>; rel="self", <${base}&page=1&limit=2>; rel="first", <${base}&page=1&limit=2>; rel="prev", <${base}&page=2&limit=2>; rel="last"`,
    );
    const deletions = await api.get('/v1/events?type=deleted');
    assert.deepEqual(summary(deletions.body), [['deleted', 'products', all[0].record_id]]);
  });

  test('a bad parameter is a 400 naming it; a page in a stream too; no token is a 401; Accept without JSON or a stream is a 406', async () => {
    const cases: [string, string, string][] = [
      ['/v1/events?colour=red', 'colour', 'unknown_parameter'],
      ['/v1/events?type=moved', 'type', 'invalid_value'],
      ['/v1/events?collection=planets', 'collection', 'invalid_value'],
      ['/v1/events?after=-1', 'after', 'invalid_value'],
      ['/v1/events?after=abc', 'after', 'invalid_value'],
      ['/v1/events?after=1&after=2', 'after', 'repeated_parameter'],
      ['/v1/events?limit=0', 'limit', 'invalid_value'],
    ];
    for (const [path, field, code] of cases) {
      assertProblem(await api.get(path), 400, 'invalid_query', '/v1/events', [{ field, code }]);
    }
    const paged = await stream(api, '/v1/events?page=2');
    assert.equal(paged.status, 400);
    assert.match(JSON.parse(paged.text).errors[0].message, /a stream is not paged/);
    const documented = (await api.as(undefined).get('/v1/openapi.json')).body.paths['/v1/events'].get.parameters;
    for (const name of ['page', 'limit'])
      assert.match(documented.find((parameter: { name: string }) => parameter.name === name).description, /a 400/);
    const badId = await stream(api, '/v1/events', { 'last-event-id': 'x1' });
    assert.equal(badId.status, 400);
    assert.equal(JSON.parse(badId.text).errors[0].field, 'Last-Event-ID');
    assertProblem(await api.as(undefined).get('/v1/events'), 401, 'unauthenticated', '/v1/events');
    assertProblem(await api.get('/v1/events', { accept: 'text/html' }), 406, 'not_acceptable', '/v1/events');
  });

  test('an after beyond the history is a 410 that says where the history stands', async () => {
    const latest = (await api.get('/v1/events?limit=100')).body.data.at(-1).id;
    const response = await api.get(`/v1/events?after=${latest + 1000}`);
    assertProblem(response, 410, 'history_gone', '/v1/events');
    assert.match(
      response.body.detail,
      new RegExp(`event ${latest + 1000} is not in this feed's history, whose newest event is ${latest}`),
    );
    assert.equal((await api.get(`/v1/events?after=${latest}`)).body.data.length, 0);
  });

  test('in Portuguese at /v1/eventos: the collection, the path and the record in that vocabulary', async () => {
    const { id } = await createUserClient(api, { name: 'Rita' });
    const product = await createProduct(api);
    const created = await order(api, id, product.id);
    const response = await api.get(`/v1/eventos?colecao=pedidos&tipo=created`);
    assert.equal(response.status, 200);
    const [event] = response.body.data;
    assert.equal(event.collection, 'pedidos');
    assert.equal(event.path, `/v1/usuarios/${id}/pedidos/${created.id}`);
    assert.equal(event.record.itens[0].produto_id, product.id);
    assert.equal(response.body.links.self, '/v1/eventos?colecao=pedidos&tipo=created&pagina=1&limite=20');
  });
});

describe('who sees which events', () => {
  test("a user sees their own records' events and the catalogue's, never another user's; an admin sees all", async () => {
    const api = await startTestServer();
    try {
      const product = await createProduct(api);
      const alice = await createUserClient(api, { name: 'Alice' });
      const bob = await createUserClient(api, { name: 'Bob' });
      const aliceOrder = await order(api, alice.id, product.id);
      const bobOrder = await order(bob.client, bob.id, product.id);
      assert.equal(
        (await bob.client.patch(`/v1/users/${bob.id}/orders/${bobOrder.id}`, { status: 'cancelled' })).status,
        200,
      );
      const aliceStream = await stream(alice.client);
      await order(api, bob.id, product.id);
      const ownLater = await order(api, alice.id, product.id);

      const seen = summary((await alice.client.get('/v1/events?limit=100')).body);
      assert.deepEqual(seen, [
        ['created', 'products', product.id],
        ['created', 'users', alice.id],
        ['created', 'orders', aliceOrder.id],
        ['created', 'orders', ownLater.id],
      ]);
      const live = await aliceStream.nextEvent();
      assert.equal(live.event, 'created');
      assert.equal(JSON.parse(live.data).record_id, ownLater.id, "Bob's order never reached Alice's stream");
      aliceStream.close();
      const everything = summary((await api.get('/v1/events?limit=100')).body);
      assert.equal(
        everything.filter(([, collection]) => collection === 'orders').length,
        5,
        'the admin sees every order change',
      );
      assert.deepEqual(
        summary((await alice.client.get(`/v1/events?collection=orders&limit=100`)).body).map(([, , id]) => id),
        [aliceOrder.id, ownLater.id],
      );
    } finally {
      await api.close();
    }
  });
});

// Concurrent: a stream the client hangs up on can leave fetch's connection to be closed by the drain (up to DRAIN_TIMEOUT_MS).
describe('the change feed as a stream', { concurrency: true }, () => {
  test('sends each change as it is committed (id, event, data), and resumes after Last-Event-ID', async (t) => {
    const api = await startTestServer();
    t.after(() => api.close());
    const events = await stream(api);
    assert.equal(events.status, 200);
    assert.equal(events.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(events.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await events.next(), { id: undefined, event: '', data: '', comments: [] }); // retry: 1000
    const first = await createProduct(api, { name: 'First' });
    const message = await events.nextEvent();
    const data = JSON.parse(message.data);
    assert.equal(message.event, 'created');
    assert.equal(message.id, String(data.id));
    assert.deepEqual(data.record, first);
    events.close();

    const second = await createProduct(api, { name: 'Second' });
    await api.delete(`/v1/products/${first.id}`);
    const resumed = await stream(api, '/v1/events', { 'last-event-id': message.id as string });
    await resumed.next();
    const missed = [await resumed.nextEvent(), await resumed.nextEvent()].map((each) => [
      each.event,
      JSON.parse(each.data).record_id,
    ]);
    assert.deepEqual(missed, [
      ['created', second.id],
      ['deleted', first.id],
    ]);
    resumed.close();
    // `after` in the address starts a stream there too; Last-Event-ID (a reconnect) wins over it.
    const fromAfter = await stream(api, `/v1/events?after=${message.id}&type=deleted`);
    await fromAfter.next();
    assert.equal(JSON.parse((await fromAfter.nextEvent()).data).record_id, first.id);
    fromAfter.close();
  });

  test('a heartbeat comment comes every heartbeatMs, carrying the newest id looked at when the caller was shown none', async (t) => {
    const api = await startTestServer({ events: { heartbeatMs: 150 } });
    t.after(() => api.close());
    const product = await createProduct(api);
    const alice = await createUserClient(api);
    const bob = await createUserClient(api);
    const events = await stream(alice.client);
    await events.next();
    const bobOrder = await order(api, bob.id, product.id);
    const orderEvent = (await api.get('/v1/events?collection=orders')).body.data[0];
    assert.equal(orderEvent.record_id, bobOrder.id);
    // The order reaches the streams FAN_OUT_MS after its commit; the beats before that (as many as
    // came while the order was being made: several on a busy machine) carry no id. The first after
    // it carries the order's, though Alice is shown no event.
    const deadline = Date.now() + 20_000;
    let beat = await events.next(10_000);
    while (beat.id === undefined && Date.now() < deadline) {
      assert.deepEqual(beat, { id: undefined, event: '', data: '', comments: ['keep-alive'] });
      beat = await events.next(10_000);
    }
    assert.deepEqual(
      beat,
      { id: String(orderEvent.id), event: '', data: '', comments: ['keep-alive'] },
      'the position moves past the event Alice may not see',
    );
    const next = await events.next(10_000);
    assert.deepEqual(next, { id: undefined, event: '', data: '', comments: ['keep-alive'] }, 'and moves once');
    events.close();
  });

  test('ends with event: closed when its token expires, and the reconnect is refused', async (t) => {
    const api = await startTestServer();
    t.after(() => api.close());
    const { id } = await createUserClient(api);
    // Expiry is in whole seconds: a token minted late in a second has a second less. Four leave
    // a busy machine three to open the stream in, before the expiry it is to see.
    const token = tokenFor(id, 4);
    const events = await stream(api, '/v1/events', {}, token);
    await events.next();
    const closed = await events.nextEvent(15_000);
    assert.equal(closed.event, 'closed');
    assert.equal(JSON.parse(closed.data).reason, 'token_expired');
    await events.untilEnd();
    const again = await stream(api, '/v1/events', {}, token);
    assert.equal(again.status, 401);
  });

  test("ends when its user is deleted; a demoted admin's stream narrows at once to what a user sees", async (t) => {
    const api = await startTestServer();
    t.after(() => api.close());
    const product = await createProduct(api);
    const doomed = await createUserClient(api);
    const boss = await createUserClient(api, { role: 'admin' });
    const other = await createUserClient(api);
    const doomedStream = await stream(doomed.client);
    const bossStream = await stream(boss.client);
    await doomedStream.next();
    await bossStream.next();

    const seenAsAdmin = await order(api, other.id, product.id);
    assert.equal(JSON.parse((await bossStream.nextEvent()).data).record_id, seenAsAdmin.id);
    assert.equal((await api.patch(`/v1/users/${boss.id}`, { role: 'user' })).status, 200);
    const demotion = await bossStream.nextEvent();
    assert.equal(JSON.parse(demotion.data).record_id, boss.id, 'the user sees their own record change');
    await order(api, other.id, product.id);
    const ownProduct = await createProduct(api, { name: 'After the demotion' });
    const next = await bossStream.nextEvent();
    assert.equal(
      JSON.parse(next.data).record_id,
      ownProduct.id,
      "another user's order no longer reaches a demoted admin",
    );
    bossStream.close();

    assert.equal((await api.delete(`/v1/users/${doomed.id}`)).status, 204);
    let closed = await doomedStream.nextEvent();
    while (closed.event === 'created') closed = await doomedStream.nextEvent(); // the catalogue's changes came first
    assert.equal(closed.event, 'closed');
    assert.deepEqual(JSON.parse(closed.data), { reason: 'user_deleted', detail: 'the user of this token was deleted' });
    await doomedStream.untilEnd();
  });

  test('a stream opened with an API key ends when the key is deleted; its user goes on', async (t) => {
    const api = await startTestServer();
    t.after(() => api.close());
    const user = await createUserClient(api);
    const made = await user.client.post(`/v1/users/${user.id}/keys`, { name: 'watcher' });
    assert.equal(made.status, 201);
    // A stream is held by one process; the deletion may come through another, sharing the database.
    const keyStream = await stream(api.pinned().as(made.body.secret));
    await keyStream.next();
    assert.equal((await user.client.delete(`/v1/users/${user.id}/keys/${made.body.id}`)).status, 204);
    let closed = await keyStream.nextEvent();
    while (closed.event !== 'closed') closed = await keyStream.nextEvent(); // the key's own events came first
    assert.deepEqual(JSON.parse(closed.data), {
      reason: 'key_deleted',
      detail: 'the API key of this stream was deleted',
    });
    await keyStream.untilEnd();
    assert.equal((await user.client.get(`/v1/users/${user.id}`)).status, 200);
  });

  test('streams are capped per user and in all: 429 too_many_streams with Retry-After', async (t) => {
    const api = await startTestServer({ events: { maxStreamsPerUser: 2, maxStreams: 3 } });
    t.after(() => api.close());
    const user = await createUserClient(api);
    // Each process counts its own streams: all of them to one.
    const one = api.pinned();
    const alice = { client: one.as(user.client.token) };
    const open = [await stream(one), await stream(one)];
    const third = await stream(one);
    assert.equal(third.status, 429);
    assert.equal(third.headers.get('retry-after'), '5');
    assert.equal(JSON.parse(third.text).code, 'too_many_streams');
    assert.match(JSON.parse(third.text).detail, /you have 2 event streams open/);
    open.push(await stream(alice.client));
    const fourth = await stream(alice.client);
    assert.equal(fourth.status, 429);
    assert.match(JSON.parse(fourth.text).detail, /the server has 3 event streams open/);
    for (const each of open) each.close();
    // Closed streams are counted out, once the server has seen their connections close.
    const again = await eventually(async () => {
      const opened = await stream(alice.client);
      assert.equal(opened.status, 200, opened.text);
      return opened;
    });
    again.close();
  });
});

describe('the kept window and restarts', () => {
  const defer = cleanUpAfterEach();

  test('a position older than the kept events: 410 in the list, event: reset in the stream, which goes on from the newest event', async () => {
    const api = await startTestServer({ events: { kept: 3, keptForMs: 0 } });
    defer(() => api.close());
    const products: any[] = [];
    for (let index = 0; index < 6; index++) products.push(await createProduct(api, { name: `P${index}` }));
    // PostgreSQL trims the history just after the write that passes the bound (README: History), not before answering it.
    let kept = (await api.get('/v1/events')).body.data;
    for (const deadline = Date.now() + 15_000; kept.length > 3 && Date.now() < deadline; await sleep(20))
      kept = (await api.get('/v1/events')).body.data;
    assert.deepEqual(
      kept.map((event: any) => event.record_id),
      products.slice(3).map((product) => product.id),
    );
    const oldest = kept[0].id;
    assert.equal(
      (await api.get(`/v1/events?after=${oldest - 1}`)).status,
      200,
      'the position just before the oldest kept event can resume',
    );
    const gone = await api.get(`/v1/events?after=${oldest - 2}`);
    assertProblem(gone, 410, 'history_gone', '/v1/events');
    assert.match(
      gone.body.detail,
      new RegExp(`the events after ${oldest - 2} are no longer kept \\(the feed keeps those after ${oldest - 1}\\)`),
    );

    const events = await stream(api, '/v1/events', { 'last-event-id': '1' });
    await events.next();
    const reset = await events.nextEvent();
    assert.equal(reset.event, 'reset');
    assert.equal(reset.id, String(kept[2].id));
    assert.equal(JSON.parse(reset.data).reason, 'history_gone');
    assert.equal(JSON.parse(reset.data).latest, kept[2].id);
    const fresh = await createProduct(api, { name: 'After the reset' });
    // The whole message in the failure's text: one run (of many, on a busy machine) read one without a record_id here.
    const next = await events.nextEvent();
    assert.deepEqual(
      { event: next.event, record_id: JSON.parse(next.data).record_id },
      { event: 'created', record_id: fresh.id },
      JSON.stringify(next),
    );
    events.close();
  });

  test('with a data directory the history survives a restart: the same ids, new ones after them, and a stream resumes across it', async () => {
    const dataDir = await scratchDirectory(defer);
    const options = { port: 0, dataDir, seed: false, rateLimit: 0, ...TEST_AUTH_OPTIONS };
    let api = await connect(await startServer(options));
    const product = await createProduct(api, { name: 'Before' });
    await api.patch(`/v1/products/${product.id}`, { price: 1 });
    const before = (await api.get('/v1/events?collection=products')).body.data;
    await api.close();

    api = await connect(await startServer(options));
    defer(() => api.close());
    assert.deepEqual((await api.get('/v1/events?collection=products')).body.data, before);
    const events = await stream(api, '/v1/events', { 'last-event-id': String(before[0].id) });
    await events.next();
    assert.equal(JSON.parse((await events.nextEvent()).data).id, before[1].id);
    const later = await createProduct(api, { name: 'After' });
    const live = JSON.parse((await events.nextEvent()).data);
    assert.equal(live.record_id, later.id);
    assert.ok(live.id > before[1].id, 'ids go on after the restart');
    events.close();
  });
});

describe('a slow reader', () => {
  test('is disconnected (reset) once it falls streamBufferBytes behind, and its next stream begins with event: notice saying why', async () => {
    const api = await startTestServer({ resources: LARGE_NOTES, events: { streamBufferBytes: 100_000 } });
    try {
      // A reader that takes nothing: node:http, paused, so the kernel's buffers fill and then the server's.
      // Its next streams go to the same process, which tells the notice (the writes to any).
      const one = api.pinned();
      const request = get(`${one.url}/v1/events`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${api.token}` },
      });
      const opened = once(request, 'response');
      // How the connection ended: reset by the server, so its kernel lets go of what it held for this reader.
      const hungUp = new Promise<string>((resolve) => {
        request.on('response', (response) => {
          assert.equal(response.statusCode, 200);
          response.pause();
          response.socket.on('close', () => resolve('closed'));
        });
        request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
      let closed = false;
      void hungUp.then(() => {
        closed = true;
      });
      await opened; // the server holds the stream (its head goes out with the stream's first write): every note from now on is sent to it
      const text = 'x'.repeat(500_000);
      let writes = 0;
      while (!closed && writes < 200) {
        assert.equal((await api.post('/v1/notes', { text })).status, 201);
        writes++;
      }
      assert.equal(await hungUp, 'ECONNRESET');
      assert.ok(writes < 200, `cut off after ${writes} writes of 500 kB`);
      const next = await stream(one);
      assert.deepEqual(await next.next(), { id: undefined, event: '', data: '', comments: [] });
      const notice = await next.nextEvent();
      assert.equal(notice.event, 'notice');
      assert.deepEqual(JSON.parse(notice.data), {
        reason: 'slow_reader',
        detail: 'the previous stream fell more than 100000 bytes behind and was closed; it resumes from Last-Event-ID',
      });
      next.close();
      const third = await stream(one);
      await third.next();
      await createNote(api);
      assert.equal((await third.nextEvent()).event, 'created', 'the notice is told once');
      third.close();
    } finally {
      await api.close();
    }
  });
});

async function createNote(api: TestServer): Promise<void> {
  assert.equal((await api.post('/v1/notes', { text: 'short' })).status, 201);
}

describe('shutdown', () => {
  test('every stream ends with event: closed when the server shuts down, so clients reconnect elsewhere', async () => {
    const api = await startTestServer();
    const events = [await stream(api), await stream(api)];
    await Promise.all(events.map((each) => each.next()));
    const closing = api.close();
    for (const each of events) {
      const closed = await each.nextEvent();
      assert.equal(closed.event, 'closed');
      assert.equal(JSON.parse(closed.data).reason, 'shutting_down');
      await each.untilEnd();
    }
    await closing;
  });
});
