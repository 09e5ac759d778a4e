// Webhooks on PostgreSQL (docs/webhooks.md: Several processes): the subscriptions and deliveries are tables, and the
// servers sharing the database share the work, one process delivering a subscription's events at a time under a lease
// kept in its row: written through either server, each event reaches the receiver once, in order; the server that
// held the lease closes, and the other takes the subscription up where it stopped. Skipped, saying why, without it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { ServerOptions } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { eventually, startTestServerWithAdminBootstrap } from './helpers.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';
import { Receiver, verifiesStandardSignature } from './webhook-receiver.ts';

const PRODUCT = { name: 'Tea', category: 'tea', price: 3 };

describe('webhooks on one PostgreSQL shared by two servers', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  let url: string;
  let receiver: Receiver;
  let one: TestServer;
  let two: TestServer;
  const options = (): ServerOptions => ({
    database: url,
    webhooksAllowHttp: true,
    webhooksAllowPrivate: true,
    webhookWorker: { pollMs: 50 },
  });
  before(async () => {
    cluster = await startCluster();
    url = cluster.url(await cluster.createDatabase());
    receiver = await Receiver.start();
    one = await startTestServerWithAdminBootstrap(options());
  });
  after(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await receiver?.close();
    await cluster?.stop();
  });

  test('written through either server, each event is delivered once, in order, by the lease holder; the other takes over when it closes', async () => {
    const made = await one.post('/v1/webhooks', { url: `${receiver.url}/hook`, collections: ['products'] });
    assert.equal(made.status, 201, made.text);
    const { secret } = made.body;
    const path = made.headers.get('location') as string;
    const ids = [(await one.post('/v1/products', PRODUCT)).body.id];
    await receiver.waitFor(1);
    // The first server holds the subscription's lease now: the second, started after, leaves it be.
    two = await startTestServerWithAdminBootstrap(options());
    for (let index = 0; index < 20; index++)
      ids.push((await (index % 2 === 0 ? two : one).post('/v1/products', PRODUCT)).body.id);
    await receiver.waitFor(ids.length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bodies = receiver.received.map(({ body }) => JSON.parse(body));
    assert.deepEqual(
      bodies.map((body) => body.record_id),
      ids,
      'each once, in order',
    );
    assert.ok(receiver.received.every(({ headers, body }) => verifiesStandardSignature(secret, headers, body)));
    // Tables, as any collection's: the deliveries, and the subscription's position and lease in its row.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const row = (await client.query('SELECT "position", "lease_holder", "lease_until" FROM "webhooks"')).rows[0];
      assert.equal(Number(row.position), bodies.at(-1).id);
      const holder = row.lease_holder as string;
      assert.match(holder, /^[0-9a-f-]{36}$/);
      const deliveries = await client.query(`SELECT count(*) AS n FROM "deliveries" WHERE "status" = 'succeeded'`);
      assert.equal(Number(deliveries.rows[0].n), ids.length);

      // The holder closes, letting go of the lease: the other server delivers what comes next.
      await one.close();
      const later = [];
      for (let index = 0; index < 5; index++) later.push((await two.post('/v1/products', PRODUCT)).body.id);
      await receiver.waitFor(ids.length + later.length);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        receiver.received.slice(ids.length).map(({ body }) => JSON.parse(body).record_id),
        later,
      );
      const taken = (await client.query('SELECT "lease_holder" FROM "webhooks"')).rows[0];
      assert.notEqual(taken.lease_holder, holder, 'the second server holds the lease now');
      const listed = await eventually(async () => {
        const page = (await two.get(`${path}/deliveries?limit=100`)).body;
        assert.equal(page.meta.total, ids.length + later.length);
        return page;
      });
      assert.ok(listed.data.every((delivery: { status: string }) => delivery.status === 'succeeded'));
    } finally {
      await client.end();
    }
  });
});
