// API keys over HTTP (README: API keys): a user makes keys for programs under /v1/users/{id}/keys; the secret is in
// the 201 only and kept as its hash (never in the data directory); a key acts as its user, a read-only one gets 403 on
// every write, an expired or deleted one 401 at once; keys are never changed (405), take no Idempotency-Key and are
// not made with another key; their last use is noted within five minutes. http-suites.postgres.test.ts runs this file
// again on two servers sharing a PostgreSQL, every request to the next server: revocation across processes.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestServer, TestResponse } from './helpers.ts';
import {
  createUserClient,
  eventually,
  startTestServer,
  startTestServerWithAdminBootstrap,
  temporaryDirectory,
} from './helpers.ts';
import { assertProblem, RFC3339_UTC, STRONG_ETAG } from './assertions.ts';
import { redactSecrets } from '../src/logging/redact.ts';

const SECRET = /^prk_[A-Za-z0-9_-]{43}$/;

/** A key made through `api` for user `userId`; its 201 answer. */
async function makeKey(api: TestServer, userId: number, fields: Record<string, unknown> = {}): Promise<TestResponse> {
  const made = await api.post(`/v1/users/${userId}/keys`, { name: 'nightly export', ...fields });
  assert.equal(made.status, 201, made.text);
  return made;
}

function assertInvalidToken(response: TestResponse, path: string, reason: RegExp): void {
  assertProblem(response, 401, 'invalid_token', path);
  assert.match(response.body.detail, reason);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="plainrest", error="invalid_token"/);
}

describe('API keys', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  test('POST answers 201 with the secret, once: reads and lists show the key without it', async () => {
    const { id: userId, client } = await createUserClient(api);
    const made = await makeKey(client, userId);
    const { secret, ...shown } = made.body;
    assert.match(secret, SECRET);
    assert.deepEqual(Object.keys(made.body), [
      'id',
      'user_id',
      'name',
      'read_only',
      'created_at',
      'updated_at',
      'secret',
    ]);
    assert.deepEqual(
      { ...shown, created_at: 't', updated_at: 't' },
      { id: shown.id, user_id: userId, name: 'nightly export', read_only: false, created_at: 't', updated_at: 't' },
    );
    assert.match(shown.created_at, RFC3339_UTC);
    assert.equal(made.headers.get('location'), `/v1/users/${userId}/keys/${shown.id}`);
    assert.match(made.headers.get('etag') ?? '', STRONG_ETAG);
    // A secret shown once is kept by no cache.
    assert.equal(made.headers.get('cache-control'), 'no-store');

    const read = await client.get(`/v1/users/${userId}/keys/${shown.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, shown);
    // The ETag is the representation's, which never holds the secret.
    assert.equal(read.headers.get('etag'), made.headers.get('etag'));
    const list = await client.get(`/v1/users/${userId}/keys`);
    assert.deepEqual(list.body.data, [shown]);
    assert.ok(!list.text.includes(secret) && !read.text.includes(secret));
    // Nor can a selection or a filter reach it, or its hash.
    assert.equal((await client.get(`/v1/users/${userId}/keys/${shown.id}?fields=secret`)).status, 400);
    assert.equal((await client.get(`/v1/users/${userId}/keys?secret_hash=x`)).status, 400);
  });

  test('a key acts as its user: their records, not another user’s; an admin’s key is an admin', async () => {
    const { id: userId, client } = await createUserClient(api);
    const { secret } = (await makeKey(client, userId)).body;
    const program = api.as(secret);
    const me = await program.get(`/v1/users/${userId}`);
    assert.equal(me.status, 200);
    assert.equal(me.body.id, userId);
    const order = await program.post(`/v1/users/${userId}/orders`, { items: [{ product_id: 999, quantity: 1 }] });
    assert.equal(order.status, 422, 'the key may create (the product is unknown, so nothing is made)');
    const other = await createUserClient(api);
    assertProblem(await program.get(`/v1/users/${other.id}`), 403, 'forbidden', `/v1/users/${other.id}`);
    const adminKey = (await makeKey(api, 1)).body.secret;
    assert.equal((await api.as(adminKey).get('/v1/users')).status, 200);
  });

  test('a read-only key reads, and every write with it is a 403, deleting a key included', async () => {
    const { id: userId, client } = await createUserClient(api);
    const made = await makeKey(client, userId, { read_only: true });
    assert.equal(made.body.read_only, true);
    const reader = api.as(made.body.secret);
    assert.equal((await reader.get(`/v1/users/${userId}/orders`)).status, 200);
    const writes: [string, string, unknown][] = [
      ['POST', `/v1/users/${userId}/orders`, { items: [{ product_id: 1, quantity: 1 }] }],
      ['PATCH', `/v1/users/${userId}`, { name: 'Renamed' }],
      ['PUT', `/v1/users/${userId}`, { name: 'Renamed', email: 'renamed@example.com' }],
      ['DELETE', `/v1/users/${userId}/keys/${made.body.id}`, undefined],
      ['DELETE', `/v1/users/${userId}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const answer = await reader.request(method, path, body === undefined ? {} : { body });
      assertProblem(answer, 403, 'forbidden', path);
      assert.match(answer.body.detail, /read-only/);
    }
    assert.equal((await client.get(`/v1/users/${userId}`)).body.name, 'Test User');
    assert.equal((await client.get(`/v1/users/${userId}/keys/${made.body.id}`)).status, 200);
  });

  test('a deleted key is a 401 at once; deleting the user deletes their keys', async () => {
    const { id: userId, client } = await createUserClient(api);
    const made = await makeKey(client, userId);
    const program = api.as(made.body.secret);
    assert.equal((await program.get(`/v1/users/${userId}`)).status, 200);
    assert.equal((await client.delete(`/v1/users/${userId}/keys/${made.body.id}`)).status, 204);
    assertInvalidToken(await program.get(`/v1/users/${userId}`), `/v1/users/${userId}`, /deleted|no API key/);
    assertProblem(
      await client.get(`/v1/users/${userId}/keys/${made.body.id}`),
      404,
      'record_not_found',
      `/v1/users/${userId}/keys/${made.body.id}`,
    );

    const second = await makeKey(client, userId);
    assert.equal((await api.as(second.body.secret).get(`/v1/users/${userId}`)).status, 200);
    assert.equal((await api.delete(`/v1/users/${userId}`)).status, 204);
    assertInvalidToken(await api.as(second.body.secret).get('/v1/products'), '/v1/products', /deleted|no API key/);
  });

  test('a key stops at its expires_at: 401 invalid_token; an expiry in the past is refused', async () => {
    const { id: userId, client } = await createUserClient(api);
    // The server compares whole seconds: a key stops at the start of the second its expires_at
    // falls in. A use answered before then must work; one answered later (a busy machine took
    // that long to make the key and use it) proves nothing, and is tried again with more time.
    let program: TestServer | undefined;
    for (let ahead = 3000; program === undefined; ahead *= 2) {
      assert.ok(ahead <= 24_000, 'making a key and using it took more than 12 s');
      const expiresAt = new Date(Date.now() + ahead).toISOString();
      const made = await makeKey(client, userId, { expires_at: expiresAt });
      assert.equal(made.body.expires_at, expiresAt);
      const candidate = api.as(made.body.secret);
      const answer = await candidate.get('/v1/products');
      if (Date.now() >= Math.floor(Date.parse(expiresAt) / 1000) * 1000) continue;
      assert.equal(answer.status, 200, answer.text);
      program = candidate;
    }
    const expiring = program;
    await eventually(async () => assertInvalidToken(await expiring.get('/v1/products'), '/v1/products', /expired/));

    const path = `/v1/users/${userId}/keys`;
    assertProblem(
      await client.post(path, { name: 'late', expires_at: '2020-01-01T00:00:00Z' }),
      422,
      'validation_failed',
      path,
      [{ field: 'expires_at', code: 'in_the_past' }],
    );
    // Times RFC 3339's shape allows that cannot be placed: a key must know when it ends.
    for (const expiresAt of ['2000-01-01T00:00:00+99:99', '2000-01-01T00:00:60Z', '2999-12-31T23:59:60Z'])
      assertProblem(await client.post(path, { name: 'odd', expires_at: expiresAt }), 422, 'validation_failed', path, [
        { field: 'expires_at', code: 'invalid_format' },
      ]);
    assert.equal((await client.get(path)).body.meta.total, 1);
  });

  test('any RFC 3339 date-time in the past is in_the_past: years 0000 to 0999, other offsets, a past leap second', async () => {
    const { id: userId, client } = await createUserClient(api);
    const path = `/v1/users/${userId}/keys`;
    const past = [
      '0016-10-06T14:27:09Z',
      '0999-10-06T14:27:09Z',
      '0000-01-01T00:00:00+23:59',
      '0099-12-31t23:59:59.999999z',
      '2016-12-31T23:59:60Z',
      '2016-12-31T18:59:60.5-05:00',
    ];
    for (const expiresAt of past) {
      const answer = await client.post(path, { name: 'late', expires_at: expiresAt });
      assertProblem(answer, 422, 'validation_failed', path, [{ field: 'expires_at', code: 'in_the_past' }]);
      assert.equal(answer.body.errors[0].message, 'must be in the future', expiresAt);
    }
    assert.equal((await client.get(path)).body.meta.total, 0);
  });

  test('a secret no key has, or one not shaped like a key, is a 401', async () => {
    const made = `prk_${'A'.repeat(43)}`;
    assertInvalidToken(await api.as(made).get('/v1/products'), '/v1/products', /no API key/);
    assertInvalidToken(await api.as('prk_short').get('/v1/products'), '/v1/products', /no API key/);
  });

  test('keys are never changed: PUT and PATCH are 405 with Allow', async () => {
    const made = await makeKey(api, 1);
    const path = `/v1/users/1/keys/${made.body.id}`;
    for (const method of ['PUT', 'PATCH']) {
      const answer = await api.request(method, path, { body: { name: 'renamed' } });
      assertProblem(answer, 405, 'method_not_allowed', path);
      assert.equal(answer.headers.get('allow'), 'GET, HEAD, DELETE, OPTIONS');
    }
  });

  test('only the user (or an admin) lists, makes, reads and deletes their keys', async () => {
    const owner = await createUserClient(api);
    const other = await createUserClient(api);
    const made = await makeKey(owner.client, owner.id);
    const base = `/v1/users/${owner.id}/keys`;
    assertProblem(await other.client.get(base), 403, 'forbidden', base);
    assertProblem(await other.client.post(base, { name: 'mine now' }), 403, 'forbidden', base);
    assertProblem(await other.client.get(`${base}/${made.body.id}`), 403, 'forbidden', `${base}/${made.body.id}`);
    assertProblem(await other.client.delete(`${base}/${made.body.id}`), 403, 'forbidden', `${base}/${made.body.id}`);
    assertProblem(await api.as(undefined).get(base), 401, 'unauthenticated', base);
    assert.equal((await api.get(base)).body.meta.total, 1);
    assert.equal((await api.delete(`${base}/${made.body.id}`)).status, 204);
  });

  test('a body that is not a key is a 422; the secret cannot be chosen', async () => {
    const path = '/v1/users/1/keys';
    assertProblem(await api.post(path, {}), 422, 'validation_failed', path, [{ field: 'name', code: 'required' }]);
    assertProblem(
      await api.post(path, { name: 'x', read_only: 'yes', secret: `prk_${'B'.repeat(43)}`, scope: 'all' }),
      422,
      'validation_failed',
      path,
      [
        { field: 'read_only', code: 'invalid_type' },
        { field: 'secret', code: 'server_field' },
        { field: 'scope', code: 'unknown_field' },
      ],
    );
  });

  test('a key cannot set a password, its user’s or anyone’s: 403, the password unchanged', async () => {
    const user = await createUserClient(api, { password: 'the-real-password' });
    const { secret } = (await makeKey(user.client, user.id)).body;
    const path = `/v1/users/${user.id}`;
    for (const method of ['PATCH', 'PUT']) {
      const answer = await api
        .as(secret)
        .request(method, path, { body: { name: 'Test User', email: 'x@example.com', password: 'stolen-password-1' } });
      assertProblem(answer, 403, 'forbidden', path);
      assert.match(answer.body.detail, /API key cannot set password/);
    }
    const adminKey = (await makeKey(api, 1)).body.secret;
    assertProblem(await api.as(adminKey).patch(path, { password: 'stolen-password-2' }), 403, 'forbidden', path);
    // A change without a password goes through.
    assert.equal((await api.as(secret).patch(path, { name: 'Renamed by a program' })).status, 200);
    const login = await api
      .as(undefined)
      .post('/v1/tokens', { email: (await user.client.get(path)).body.email, password: 'the-real-password' });
    assert.equal(login.status, 201);
  });

  test('no Idempotency-Key (a saved answer would keep the secret), and no key made with another key', async () => {
    const { id: userId, client } = await createUserClient(api);
    const path = `/v1/users/${userId}/keys`;
    assertProblem(
      await client.post(path, { name: 'retried' }, { 'Idempotency-Key': 'key-1' }),
      400,
      'idempotency_key_not_accepted',
      path,
    );
    const { secret } = (await makeKey(client, userId)).body;
    const answer = await api.as(secret).post(path, { name: 'another' });
    assertProblem(answer, 403, 'forbidden', path);
    assert.match(answer.body.detail, /API key cannot make API keys/);
    assert.equal((await client.get(path)).body.meta.total, 1);
  });

  test('last_used_at is written after the first use, and not again within five minutes', async () => {
    const { id: userId, client } = await createUserClient(api);
    const made = await makeKey(client, userId);
    const path = `/v1/users/${userId}/keys/${made.body.id}`;
    assert.equal((await client.get(path)).body.last_used_at, undefined);
    const program = api.as(made.body.secret);
    assert.equal((await program.get('/v1/products')).status, 200);
    const used = await eventually(async () => {
      const key = (await client.get(path)).body;
      assert.match(key.last_used_at ?? '', RFC3339_UTC);
      return key;
    });
    assert.ok(used.last_used_at >= made.body.created_at);
    for (let use = 0; use < 3; use++) assert.equal((await program.get('/v1/products')).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual((await client.get(path)).body, used);
  });

  test('in Portuguese: /v1/usuarios/{id}/chaves, with segredo in the 201', async () => {
    const { id: userId, client } = await createUserClient(api);
    const made = await client.post(`/v1/usuarios/${userId}/chaves`, { nome: 'exportação', somente_leitura: true });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(Object.keys(made.body), [
      'id',
      'usuario_id',
      'nome',
      'somente_leitura',
      'criado_em',
      'atualizado_em',
      'segredo',
    ]);
    assert.match(made.body.segredo, SECRET);
    assert.equal((await api.as(made.body.segredo).get(`/v1/usuarios/${userId}`)).status, 200);
  });
});

describe('API keys in log lines', () => {
  test('an error line quoting a key has it redacted', () => {
    const key = `prk_${'Z9_-'.repeat(10)}abc`;
    assert.equal(redactSecrets(`failing row contains (${key})`), 'failing row contains ([redacted])');
  });
});

describe('API keys at rest', () => {
  test('the data directory keeps the secret’s SHA-256, never the secret, in the snapshot and the journal', async () => {
    const dir = await temporaryDirectory();
    try {
      const api = await startTestServerWithAdminBootstrap({ dataDir: dir.path });
      let secret: string;
      try {
        secret = (await makeKey(api, 1)).body.secret;
        assert.equal((await api.as(secret).get('/v1/users/1')).status, 200);
      } finally {
        await api.close();
      }
      const hash = createHash('sha256').update(secret).digest('base64url');
      let holdsHash = false;
      for (const name of await readdir(dir.path)) {
        const text = await readFile(join(dir.path, name), 'utf8');
        assert.ok(!text.includes(secret), `${name} holds the secret`);
        assert.ok(!text.includes(secret.slice(4)), `${name} holds the secret's random part`);
        holdsHash ||= text.includes(`"secret_hash":"${hash}"`);
      }
      assert.ok(holdsHash, 'the hash is kept, to find the key by');

      // After a restart, the key still works.
      const again = await startTestServerWithAdminBootstrap({ dataDir: dir.path });
      try {
        assert.equal((await again.as(secret).get('/v1/users/1')).status, 200);
      } finally {
        await again.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
