// The database going away while plainrest runs, or not there when it starts
// (docs/deploying.md): requests that need it get a 503 problem with Retry-After (never a 500 or a stack
// trace), /readyz answers 503, and when the database is back the server recovers by
// itself, without a restart, with every acknowledged write still there; an abrupt stop under
// concurrent writes leaves the process alive. On a throwaway PostgreSQL (test/postgres-cluster.ts)
// that the test stops and starts again.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import {
  eventually,
  login,
  recordingLogger,
  startTestServerWithAdminBootstrap,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_AUTH_OPTIONS,
  tokenFor,
  wrap,
} from './helpers.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

/** Waits until /readyz answers 200, failing with `why` after `ms`. */
async function readyWithin(api: TestServer, ms: number, why: string): Promise<void> {
  await eventually(async () => assert.equal((await api.get('/readyz')).status, 200, why), ms);
}

describe('PostgreSQL unreachable while running', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  let api: TestServer;
  before(async () => {
    cluster = await startCluster();
    api = await startTestServerWithAdminBootstrap({ database: cluster.url(await cluster.createDatabase()) });
  });
  after(async () => {
    await api?.close();
    await cluster?.stop();
  });

  test('503 with Retry-After and not ready while it is down; ready again and every write kept once it is back', async () => {
    const created = await api.post('/v1/products', { name: 'Before', category: 'outage', price: 1 });
    assert.equal(created.status, 201);
    assert.equal((await api.get('/readyz')).status, 200);

    await cluster.pause();
    for (const answer of [
      await api.get(`/v1/products/${created.body.id}`),
      await api.post('/v1/products', { name: 'During', category: 'outage', price: 2 }),
      await api.get('/v1/products'),
    ]) {
      assert.equal(answer.status, 503, answer.text);
      assert.equal(answer.headers.get('retry-after'), '1');
      assert.equal(answer.body.status, 503);
      assert.equal(answer.body.code, 'not_ready');
      assert.equal(answer.body.detail, 'the database cannot be reached; retry shortly');
    }
    const ready = await api.get('/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.detail, 'the database cannot be reached; retry shortly');
    assert.equal((await api.get('/healthz')).status, 200, 'the process itself is alive');

    await cluster.resume();
    await readyWithin(api, 10_000, '/readyz answers 200 again within 10 s, with no request needing the database');
    assert.equal((await api.get(`/v1/products/${created.body.id}`)).body.name, 'Before');
    assert.equal((await api.post('/v1/products', { name: 'After', category: 'outage', price: 3 })).status, 201);
    assert.deepEqual(
      (await api.get('/v1/products?category=outage&sort=price')).body.data.map(
        (product: { name: string }) => product.name,
      ),
      ['Before', 'After'],
    );
  });

  test('stopped abruptly under concurrent writes, with and without Idempotency-Key: every answer a 201 or a 503, the process alive (it runs here), then ready again', async () => {
    const statuses = new Map<number, number>();
    let stopping = false;
    let sent = 0;
    const writer = async (withKeys: boolean): Promise<void> => {
      while (!stopping) {
        const n = sent++;
        const headers: Record<string, string> = withKeys ? { 'idempotency-key': `abrupt-${n}` } : {};
        const answer = await api.post('/v1/products', { name: `Write ${n}`, category: 'abrupt', price: 1 }, headers);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        assert.ok(answer.status === 201 || answer.status === 503, `${answer.status}: ${answer.text}`);
      }
    };
    const writers = Array.from({ length: 16 }, (_, index) => writer(index % 2 === 0));
    await eventually(() => assert.ok((statuses.get(201) ?? 0) >= 100, 'writes go through before the stop'), 20_000);
    await cluster.pause('immediate');
    await eventually(
      () =>
        assert.ok(
          (statuses.get(503) ?? 0) >= 32,
          `writes are refused while it is down: ${JSON.stringify([...statuses])}`,
        ),
      20_000,
    );
    stopping = true;
    await Promise.all(writers);
    await cluster.resume();
    await readyWithin(api, 20_000, 'ready again once the database is back');
    assert.equal(
      (await api.post('/v1/products', { name: 'After', category: 'abrupt', price: 1 }, { 'idempotency-key': 'after' }))
        .status,
      201,
    );
  });
});

describe('PostgreSQL unreachable at start', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  test('the server listens and is not ready, logs each retry, and becomes ready (administrator and all) once the database answers', async () => {
    const url = cluster.url(await cluster.createDatabase());
    await cluster.pause();
    const logger = recordingLogger();
    const server = await startServer({
      port: 0,
      dataDir: null,
      seed: false,
      rateLimit: 0,
      ...TEST_AUTH_OPTIONS,
      database: url,
      logger,
    });
    try {
      const api = wrap(server, undefined);
      const notYet = 'the database has not been reached since the start; retry shortly';
      for (const answer of [
        await api.get('/readyz'),
        await api.as(tokenFor(1)).get('/v1/products'),
        await api.post('/v1/tokens', { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD }),
      ]) {
        assert.equal(answer.status, 503, answer.text);
        assert.equal(answer.headers.get('retry-after'), '1');
        assert.equal(answer.body.code, 'not_ready');
        assert.equal(answer.body.detail, notYet);
      }
      assert.equal((await api.get('/healthz')).status, 200, 'the process itself is alive');
      // The first retry comes 1 s after the first attempt failed, the second 2 s after the first retry.
      const retries = await eventually(() => {
        const warned = logger.lines.filter((line) => line.level === 'warn').map((line) => line.message);
        assert.ok(warned.length >= 2, `two retries logged: ${JSON.stringify(logger.lines)}`);
        return warned;
      }, 10_000);
      assert.match(retries[0] ?? '', /^the database cannot be reached \(.+\); trying again in 1 s$/);
      assert.match(retries[1] ?? '', /^the database cannot be reached \(.+\); trying again in 2 s$/, 'the delay grows');

      await cluster.resume();
      await readyWithin(api, 15_000, '/readyz answers 200 once the database answers, without a restart');
      assert.ok(logger.lines.some((line) => line.level === 'info' && line.message === 'the database answers: ready'));
      const token = await login(api, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      const admin = wrap(server, token);
      const created = await admin.post('/v1/products', { name: 'Late', category: 'late', price: 1 });
      assert.equal(created.status, 201, created.text);
      assert.equal((await admin.get(`/v1/products/${created.body.id}`)).body.name, 'Late');
    } finally {
      await server.close();
    }
  });
});
