// Webhook subscriptions over HTTP (docs/webhooks.md): /v1/webhooks is an administrator's resource like any other (201
// with Location and ETag, merge patches, If-Match, 204, 404), its signing secret in the 201 only; every 4xx with its
// status, code and body; the URL refused unless https: (http: where WEBHOOKS_ALLOW_HTTP=true) and unless every
// address its name resolves to is public (WEBHOOKS_ALLOW_PRIVATE=true allows the rest); deliveries asked for by POST.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { createUserClient, startTestServer } from './helpers.ts';
import { assertEmpty, assertJson, assertProblem, RFC3339_UTC, STRONG_ETAG } from './assertions.ts';
import { createApp } from '../src/index.ts';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** RFC 5737's documentation address: public to the target policy, and reaching nothing. */
const PUBLIC_URL = 'https://203.0.113.10/plainrest-events';

describe('webhooks: the resource', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ webhooksAllowHttp: true, webhooksAllowPrivate: true });
  });
  after(() => api.close());

  test('POST answers 201 with Location, ETag and the secret, once: reads and lists show the subscription without it', async () => {
    const made = await api.post('/v1/webhooks', { url: PUBLIC_URL, collections: ['orders'], types: ['created'] });
    assertJson(made, 201);
    const { secret, ...shown } = made.body;
    assert.match(secret, SECRET);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    assert.deepEqual(Object.keys(made.body), [
      'id',
      'url',
      'collections',
      'types',
      'enabled',
      'created_at',
      'updated_at',
      'secret',
    ]);
    assert.deepEqual(
      { ...shown, created_at: 't', updated_at: 't' },
      {
        id: shown.id,
        url: PUBLIC_URL,
        collections: ['orders'],
        types: ['created'],
        enabled: true,
        created_at: 't',
        updated_at: 't',
      },
    );
    assert.match(shown.created_at, RFC3339_UTC);
    assert.equal(made.headers.get('location'), `/v1/webhooks/${shown.id}`);
    assert.match(made.headers.get('etag') ?? '', STRONG_ETAG);
    assert.equal(made.headers.get('cache-control'), 'no-store');

    const read = await api.get(`/v1/webhooks/${shown.id}`);
    assertJson(read, 200);
    assert.deepEqual(read.body, shown);
    assert.equal(read.headers.get('etag'), made.headers.get('etag'));
    const list = await api.get('/v1/webhooks');
    assert.deepEqual(
      list.body.data.find((webhook: { id: number }) => webhook.id === shown.id),
      shown,
    );
    assert.ok(!list.text.includes(secret) && !read.text.includes(secret));
    // Nor can a selection or a filter reach it, or the worker's own fields.
    for (const query of ['fields=secret', 'signing_secret=x', 'position=0', 'fields=lease_holder']) {
      const refused = await api.get(`/v1/webhooks?${query}`);
      assert.equal(refused.status, 400, query);
    }
    // The change feed holds no event of the webhooks.
    const events = await api.get('/v1/events?limit=100');
    assert.ok(!events.text.includes(secret));
    assert.ok(events.body.data.every((event: { collection: string }) => event.collection !== 'webhooks'));
  });

  test('PATCH is a merge patch under If-Match, PUT replaces, DELETE answers 204 then 404', async () => {
    const made = await api.post('/v1/webhooks', { url: PUBLIC_URL, collections: ['orders', 'products'] });
    const path = made.headers.get('location') as string;
    const etag = made.headers.get('etag') as string;
    const stale = await api.patch(path, { enabled: false }, { 'if-match': '"stale"' });
    assertProblem(stale, 412, 'precondition_failed', path);
    const paused = await api.patch(path, { enabled: false, collections: null }, { 'if-match': etag });
    assertJson(paused, 200);
    assert.equal(paused.body.enabled, false);
    assert.equal(paused.body.collections, undefined);
    assert.notEqual(paused.headers.get('etag'), etag);
    const replaced = await api.put(path, { url: 'http://127.0.0.1:9/hook', types: ['deleted'] });
    assertJson(replaced, 200);
    assert.deepEqual(
      { url: replaced.body.url, types: replaced.body.types, enabled: replaced.body.enabled },
      { url: 'http://127.0.0.1:9/hook', types: ['deleted'], enabled: false },
    );
    assertEmpty(await api.delete(path), 204);
    assertProblem(await api.get(path), 404, 'record_not_found', path);
    assertProblem(await api.get(`${path}/deliveries`), 404, 'record_not_found', `${path}/deliveries`);
    assertProblem(await api.delete(path), 404, 'record_not_found', path);
  });

  test('administrators only: a user gets 403, no token 401', async () => {
    const { client } = await createUserClient(api);
    for (const [method, path] of [
      ['GET', '/v1/webhooks'],
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks/1'],
      ['GET', '/v1/webhooks/1/deliveries'],
    ] as const) {
      const body = method === 'POST' ? { url: PUBLIC_URL } : undefined;
      assertProblem(await client.request(method, path, { body }), 403, 'forbidden', path);
      const anonymous = await api.as(undefined).request(method, path, { body });
      assertProblem(anonymous, 401, 'unauthenticated', path);
    }
  });

  test('no Idempotency-Key: a saved answer would keep the secret', async () => {
    const refused = await api.post('/v1/webhooks', { url: PUBLIC_URL }, { 'idempotency-key': 'k1' });
    assertProblem(refused, 400, 'idempotency_key_not_accepted', '/v1/webhooks');
  });

  test('422 names every invalid field: the url, unknown collections and types, server fields', async () => {
    const cases: [Record<string, unknown>, { field: string; code: string }[]][] = [
      [{}, [{ field: 'url', code: 'required' }]],
      [{ url: 'not a url' }, [{ field: 'url', code: 'invalid_format' }]],
      [{ url: 42 }, [{ field: 'url', code: 'invalid_type' }]],
      [
        { url: PUBLIC_URL, collections: ['nope', 'webhooks', 'deliveries'] },
        [
          { field: 'collections[0]', code: 'invalid_value' },
          { field: 'collections[1]', code: 'invalid_value' },
          { field: 'collections[2]', code: 'invalid_value' },
        ],
      ],
      [{ url: PUBLIC_URL, collections: [] }, [{ field: 'collections', code: 'too_few_items' }]],
      [{ url: PUBLIC_URL, types: ['removed'] }, [{ field: 'types[0]', code: 'invalid_value' }]],
      [{ url: PUBLIC_URL, enabled: 'yes' }, [{ field: 'enabled', code: 'invalid_type' }]],
      [{ url: PUBLIC_URL, secret: 'whsec_mine' }, [{ field: 'secret', code: 'server_field' }]],
      [{ url: PUBLIC_URL, disabled_reason: 'history_gone' }, [{ field: 'disabled_reason', code: 'server_field' }]],
      [{ url: PUBLIC_URL, position: 0 }, [{ field: 'position', code: 'unknown_field' }]],
      [{ url: 'ftp://203.0.113.10/drop' }, [{ field: 'url', code: 'unsupported_scheme' }]],
      [{ url: 'https://someone:secret@203.0.113.10/' }, [{ field: 'url', code: 'credentials_in_url' }]],
    ];
    for (const [body, errors] of cases) {
      const refused = await api.post('/v1/webhooks', body);
      assertProblem(refused, 422, 'validation_failed', '/v1/webhooks', errors);
    }
  });

  test('deliveries: a POST asks for a test (no event_id) or a redelivery of a kept event; never changed (405)', async () => {
    const made = await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/nobody', enabled: false });
    const deliveries = `${made.headers.get('location') as string}/deliveries`;
    const test = await api.post(deliveries, {});
    assertJson(test, 201);
    assert.deepEqual(
      { kind: test.body.kind, status: test.body.status, attempts: test.body.attempts },
      { kind: 'test', status: 'pending', attempts: 0 },
    );
    assert.equal(test.headers.get('location'), `${deliveries}/${test.body.id}`);
    const gone = await api.post(deliveries, { event_id: 999_999 });
    assertProblem(gone, 422, 'validation_failed', deliveries, [{ field: 'event_id', code: 'unknown_event' }]);
    const server = await api.post(deliveries, { status: 'succeeded', kind: 'event' });
    assertProblem(server, 422, 'validation_failed', deliveries, [
      { field: 'status', code: 'server_field' },
      { field: 'kind', code: 'server_field' },
    ]);
    const item = `${deliveries}/${test.body.id}`;
    for (const method of ['PUT', 'PATCH'] as const) {
      const refused = await api.request(method, item, { body: {} });
      assertProblem(refused, 405, 'method_not_allowed', item);
      assert.equal(refused.headers.get('allow'), 'GET, HEAD, DELETE, OPTIONS');
    }
    const second = await api.post(deliveries, {});
    const list = await api.get(deliveries);
    assertJson(list, 200);
    assert.deepEqual(
      list.body.data.map((delivery: { id: number }) => delivery.id),
      [second.body.id, test.body.id],
      'newest first',
    );
    assert.deepEqual(
      (await api.get(`${deliveries}?sort=id`)).body.data.map((delivery: { id: number }) => delivery.id),
      [test.body.id, second.body.id],
    );
  });
});

describe('webhooks: safe targets, by default', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  test('http: is refused without WEBHOOKS_ALLOW_HTTP (422 insecure_scheme)', async () => {
    const refused = await api.post('/v1/webhooks', { url: 'http://203.0.113.10/hook' });
    assertProblem(refused, 422, 'validation_failed', '/v1/webhooks', [{ field: 'url', code: 'insecure_scheme' }]);
  });

  test('loopback, private, link-local, unspecified and multicast targets are refused (422 forbidden_target), after resolving a name', async () => {
    const targets = [
      'https://127.0.0.1/hook',
      'https://127.1.2.3:8443/hook',
      'https://[::1]/hook',
      'https://10.0.0.1/hook',
      'https://172.16.0.1/hook',
      'https://172.31.255.254/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hook',
      'https://0.0.0.0/hook',
      'https://224.0.0.1/hook',
      'https://[fc00::1]/hook',
      'https://[fd12:3456::1]/hook',
      'https://[fe80::1]/hook',
      'https://[ff02::1]/hook',
      'https://[::]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:10.1.2.3]/hook',
      'https://2130706433/hook', // 127.0.0.1, as the URL standard reads a number
      'https://localhost/hook',
      'https://LOCALHOST/hook',
    ];
    for (const url of targets) {
      const refused = await api.post('/v1/webhooks', { url });
      assertProblem(refused, 422, 'forbidden_target', '/v1/webhooks', [{ field: 'url', code: 'forbidden_target' }]);
      assert.match(refused.body.errors[0].message, /WEBHOOKS_ALLOW_PRIVATE=true/, url);
    }
    const localhost = await api.post('/v1/webhooks', { url: 'https://localhost/hook' });
    assert.match(
      localhost.body.errors[0].message,
      /localhost, which resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
    // A name that resolves to nothing cannot be checked: refused too (RFC 6761: .invalid never resolves).
    const nowhere = await api.post('/v1/webhooks', { url: 'https://nowhere.invalid/hook' });
    assertProblem(nowhere, 422, 'validation_failed', '/v1/webhooks', [{ field: 'url', code: 'unresolvable_host' }]);
    // Near the ranges, but public.
    for (const url of ['https://172.32.0.1/hook', 'https://[::ffff:8.8.8.8]/hook', PUBLIC_URL]) {
      const made = await api.post('/v1/webhooks', { url, enabled: false });
      assert.equal(made.status, 201, `${url}: ${made.text}`);
    }
  });

  test('a PATCH to a refused URL is refused as a POST is; the URL it has is not checked again', async () => {
    const made = await api.post('/v1/webhooks', { url: PUBLIC_URL, enabled: false });
    const path = made.headers.get('location') as string;
    const refused = await api.patch(path, { url: 'https://127.0.0.1/hook' });
    assertProblem(refused, 422, 'forbidden_target', path, [{ field: 'url', code: 'forbidden_target' }]);
    const batch = await api.post('/v1/batches', {
      operations: [{ method: 'POST', path: '/v1/webhooks', body: { url: 'https://[::1]/hook' } }],
    });
    assert.equal(batch.status, 422, batch.text);
    assert.equal(batch.body.code, 'forbidden_target');
    assert.equal(batch.body.operation, 0);
    assertJson(await api.patch(path, { url: PUBLIC_URL, types: ['updated'] }), 200);
  });
});

describe("webhooks: the names are the server's own", () => {
  test('a declaration may not name a collection webhooks or deliveries', async () => {
    for (const name of ['webhooks', 'deliveries']) {
      await assert.rejects(
        createApp({ dataDir: null, resources: { resources: { [name]: { singular: 'thing' } } } }),
        (error: Error) => error.message.includes(`"${name}" is reserved`),
      );
    }
  });
});
