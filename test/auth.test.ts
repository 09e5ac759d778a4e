// Authentication (README: Authentication and permissions): the token endpoint, bearer tokens on every other /v1
// request (RFC 6750), roles read from the current record, permissions that depend on
// the body, the administrator bootstrap and the kept token secret.

import assert from 'node:assert/strict';
import { readFile, stat, chmod, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Authenticator } from '../src/auth/authenticate.ts';
import { PASSWORD_HASH_COST } from '../src/auth/passwords.ts';
import { HttpError } from '../src/errors/errors.ts';
import type { Logger } from '../src/index.ts';
import { MemoryStore, startServer } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import {
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_AUTH_OPTIONS,
  TEST_TOKEN_SECRET,
  connect,
  createProduct,
  createUser,
  createUserClient,
  login,
  startTestServer,
  temporaryDirectory,
  tokenFor,
  wrap,
} from './helpers.ts';

async function withServer(run: (api: TestServer) => Promise<void>): Promise<void> {
  const api = await startTestServer();
  try {
    await run(api);
  } finally {
    await api.close();
  }
}

function decodePayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;
}

describe('auth: POST /v1/tokens', () => {
  test('valid credentials → 201 {access_token, token_type, expires_in, user_id}, not cacheable', () =>
    withServer(async (api) => {
      const id = await createUser(api, { email: 'carol@example.com', password: 'carol-password' });
      const response = await api
        .as(undefined)
        .post('/v1/tokens', { email: 'carol@example.com', password: 'carol-password' });
      assert.equal(response.status, 201);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.deepEqual(Object.keys(response.body).sort(), ['access_token', 'expires_in', 'token_type', 'user_id']);
      assert.equal(response.body.token_type, 'Bearer');
      assert.equal(response.body.expires_in, 3600);
      assert.equal(response.body.user_id, id);
      const claims = decodePayload(response.body.access_token);
      assert.equal(claims['sub'], String(id));
      assert.equal((claims['exp'] as number) - (claims['iat'] as number), 3600);
      const me = await api.as(response.body.access_token).get(`/v1/users/${id}`);
      assert.equal(me.status, 200);
      assert.equal(me.body.email, 'carol@example.com');
    }));

  test('the email is matched ignoring case', () =>
    withServer(async (api) => {
      await createUser(api, { email: 'Dave@Example.com', password: 'dave-password' });
      assert.equal(typeof (await login(api, 'dave@EXAMPLE.com', 'dave-password')), 'string');
    }));

  test('TOKEN_TTL_SECONDS sets expires_in and exp', async () => {
    const api = await startTestServer({ tokenTtlSeconds: 120 });
    try {
      const response = await api
        .as(undefined)
        .post('/v1/tokens', { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
      assert.equal(response.body.expires_in, 120);
      const claims = decodePayload(response.body.access_token);
      assert.equal((claims['exp'] as number) - (claims['iat'] as number), 120);
    } finally {
      await api.close();
    }
  });

  test('a wrong password, an unknown email and a user without password get the same 401', () =>
    withServer(async (api) => {
      await createUser(api, { email: 'erin@example.com', password: 'erin-password' });
      await createUser(api, { email: 'nopass@example.com' });
      const attempts = [
        { email: 'erin@example.com', password: 'wrong-password' },
        { email: 'nobody@example.com', password: 'erin-password' },
        { email: 'nopass@example.com', password: 'anything-at-all' },
      ];
      const bodies = [];
      for (const attempt of attempts) {
        const response = await api.as(undefined).post('/v1/tokens', attempt);
        assert.equal(response.status, 401);
        assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plainrest"');
        const { request_id: _requestId, ...rest } = response.body;
        bodies.push(rest);
      }
      assert.deepEqual(bodies[0], {
        type: 'about:blank',
        title: 'Unauthorized',
        status: 401,
        code: 'invalid_credentials',
        detail: 'the email or the password is wrong',
        instance: '/v1/tokens',
      });
      assert.deepEqual(bodies[1], bodies[0]);
      assert.deepEqual(bodies[2], bodies[0]);
    }));

  // At the default cost of a hash (65 ms each here), not the suite's lowest (4 ms), and the fastest of seven answers
  // each: a busy machine only adds time, and at 4 ms its preemptions put medians of nine at 0.42 to 1.79 of each
  // other. At the default one suite run still read medians of five at 0.35, with single hashes taking 33 to 230 ms; the
  // fastest answers are the hash's own time. Without the check against the hash of nothing known the ratio is 0.05.
  test('a failed login takes as long for an unknown email as for a wrong password', async () => {
    const api = await startTestServer({ passwordHashCost: PASSWORD_HASH_COST });
    try {
      await createUser(api, { email: 'frank@example.com', password: 'frank-password' });
      const time = async (email: string): Promise<number> => {
        const started = process.hrtime.bigint();
        const response = await api.as(undefined).post('/v1/tokens', { email, password: 'not-the-password' });
        assert.equal(response.status, 401);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const known: number[] = [];
      const unknown: number[] = [];
      for (let round = 0; round < 7; round++) {
        known.push(await time('frank@example.com'));
        unknown.push(await time('ghost@example.com'));
      }
      const ratio = Math.min(...unknown) / Math.min(...known);
      // Both pay for one scrypt verification; without the dummy hash an unknown email
      // would answer in a few milliseconds (ratio near 0).
      assert.ok(ratio > 0.5 && ratio < 2, `unknown/known ratio of the fastest answers ${ratio.toFixed(2)}`);
    } finally {
      await api.close();
    }
  });

  const invalidBodies: { name: string; body: unknown; status: number; field?: string }[] = [
    { name: 'missing password', body: { email: 'a@example.com' }, status: 422, field: 'password' },
    { name: 'missing email', body: { password: 'x' }, status: 422, field: 'email' },
    {
      name: 'password not a string',
      body: { email: 'a@example.com', password: 12345678 },
      status: 422,
      field: 'password',
    },
    {
      name: 'an extra field',
      body: { email: 'a@example.com', password: 'x', remember: true },
      status: 422,
      field: 'remember',
    },
    { name: 'not JSON', body: '{"email":', status: 400 },
  ];
  for (const c of invalidBodies) {
    test(`${c.name} → ${c.status}`, () =>
      withServer(async (api) => {
        const response = await api.as(undefined).post('/v1/tokens', c.body);
        assert.equal(response.status, c.status, response.text);
        if (c.field !== undefined)
          assert.ok(response.body.errors.some((entry: { field: string }) => entry.field === c.field));
      }));
  }

  test('GET /v1/tokens → 405 with Allow "POST, OPTIONS"', () =>
    withServer(async (api) => {
      const response = await api.get('/v1/tokens');
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST, OPTIONS');
    }));
});

describe('auth: bearer tokens (RFC 6750)', () => {
  test('the open endpoints answer without a token', () =>
    withServer(async (api) => {
      const anonymous = api.as(undefined);
      assert.equal((await anonymous.get('/v1')).status, 200);
      assert.equal((await anonymous.request('HEAD', '/v1')).status, 200);
      assert.equal((await anonymous.get('/healthz')).status, 200);
      assert.equal((await anonymous.request('OPTIONS', '/v1/users')).status, 204);
      assert.equal((await anonymous.request('OPTIONS', '/v1/users/1/orders/1')).status, 204);
    }));

  const headers: { name: string; authorization: string; code: string; challenge: RegExp }[] = [
    {
      name: 'another scheme',
      authorization: 'Basic YWxpY2U6cGFzc3dvcmQ=',
      code: 'unauthenticated',
      challenge: /^Bearer realm="plainrest"$/,
    },
    {
      name: 'the scheme alone',
      authorization: 'Bearer',
      code: 'unauthenticated',
      challenge: /^Bearer realm="plainrest"$/,
    },
    { name: 'garbage', authorization: 'Bearer !!!', code: 'invalid_token', challenge: /error="invalid_token"/ },
    {
      name: 'a token for a user id that never existed',
      authorization: `Bearer ${tokenFor(424242)}`,
      code: 'invalid_token',
      challenge: /no longer exists/,
    },
    {
      name: 'a token signed with another secret',
      authorization: `Bearer ${tokenFor(1).slice(0, -6)}abcdef`,
      code: 'invalid_token',
      challenge: /signature/,
    },
  ];
  for (const c of headers) {
    test(`${c.name} → 401 ${c.code}`, () =>
      withServer(async (api) => {
        const response = await api.get('/v1/products', { authorization: c.authorization });
        assert.equal(response.status, 401);
        assert.equal(response.body.code, c.code);
        assert.match(response.headers.get('www-authenticate') ?? '', c.challenge);
      }));
  }

  test('the scheme name is case-insensitive (RFC 9110 §11.1)', () =>
    withServer(async (api) => {
      assert.equal((await api.get('/v1/products', { authorization: `bearer ${api.token}` })).status, 200);
      assert.equal((await api.get('/v1/products', { authorization: `BEARER ${api.token}` })).status, 200);
    }));

  test("a deleted user's token is refused at once", () =>
    withServer(async (api) => {
      const { id, client } = await createUserClient(api);
      assert.equal((await client.get(`/v1/users/${id}`)).status, 200);
      assert.equal((await client.delete(`/v1/users/${id}`)).status, 204);
      const response = await client.get('/v1/products');
      assert.equal(response.status, 401);
      assert.equal(response.body.code, 'invalid_token');
    }));

  test('a promotion and a demotion take effect on the next request', () =>
    withServer(async (api) => {
      const { id, client } = await createUserClient(api);
      assert.equal((await client.get('/v1/users')).status, 403);
      assert.equal((await api.patch(`/v1/users/${id}`, { role: 'admin' })).status, 200);
      assert.equal((await client.get('/v1/users')).status, 200);
      assert.equal((await api.patch(`/v1/users/${id}`, { role: 'user' })).status, 200);
      assert.equal((await client.get('/v1/users')).status, 403);
    }));

  test("another user's records are 403 whether or not they exist", () =>
    withServer(async (api) => {
      const { client } = await createUserClient(api);
      for (const path of [
        '/v1/users/9999',
        '/v1/users/9999/orders',
        '/v1/users/9999/orders/1',
        '/v1/users/1/orders/9999',
      ]) {
        const response = await client.get(path);
        assert.equal(response.status, 403, path);
        assert.equal(response.body.code, 'forbidden');
      }
    }));
});

/** GET requests over one keep-alive connection, each saying whether it went over the connection the first one opened. */
function oneConnection(url: string): {
  get: (path: string, authorization: string) => Promise<{ status: number; code: unknown; reused: boolean }>;
  close: () => void;
} {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string, authorization: string) =>
    new Promise<{ status: number; code: unknown; reused: boolean }>((resolve, reject) => {
      const outgoing = request(`${url}${path}`, { agent, headers: { authorization } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            code: (JSON.parse(text) as { code?: unknown }).code,
            reused: outgoing.reusedSocket,
          }),
        );
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  return { get, close: () => agent.destroy() };
}

describe('auth: many requests on one connection', () => {
  test("a connection's repeated token still reads the user every time: deleted meanwhile → 401 on the same connection", () =>
    withServer(async (api) => {
      const id = await createUser(api);
      const connection = oneConnection(api.url);
      try {
        const header = `Bearer ${tokenFor(id)}`;
        assert.deepEqual(await connection.get(`/v1/users/${id}`, header), {
          status: 200,
          code: undefined,
          reused: false,
        });
        assert.deepEqual(await connection.get(`/v1/users/${id}`, header), {
          status: 200,
          code: undefined,
          reused: true,
        });
        assert.equal((await api.delete(`/v1/users/${id}`)).status, 204);
        assert.deepEqual(await connection.get('/v1/products', header), {
          status: 401,
          code: 'invalid_token',
          reused: true,
        });
      } finally {
        connection.close();
      }
    }));

  test("another token on the same connection is that token's user; a bad one is 401, and the first works again after it", () =>
    withServer(async (api) => {
      const first = await createUser(api);
      const second = await createUser(api);
      const connection = oneConnection(api.url);
      try {
        assert.equal((await connection.get(`/v1/users/${first}`, `Bearer ${tokenFor(first)}`)).status, 200);
        assert.deepEqual(await connection.get(`/v1/users/${first}`, `Bearer ${tokenFor(second)}`), {
          status: 403,
          code: 'forbidden',
          reused: true,
        });
        assert.equal((await connection.get(`/v1/users/${second}`, `Bearer ${tokenFor(second)}`)).status, 200);
        assert.deepEqual(await connection.get(`/v1/users/${second}`, `Bearer ${tokenFor(second).slice(0, -6)}abcdef`), {
          status: 401,
          code: 'invalid_token',
          reused: true,
        });
        assert.deepEqual(await connection.get(`/v1/users/${second}`, 'Basic YWxpY2U6cGFzc3dvcmQ='), {
          status: 401,
          code: 'unauthenticated',
          reused: true,
        });
        assert.deepEqual(await connection.get(`/v1/users/${first}`, `Bearer ${tokenFor(first)}`), {
          status: 200,
          code: undefined,
          reused: true,
        });
      } finally {
        connection.close();
      }
    }));

  test('a token that expires while its connection stays open is refused there from its expiry on', () => {
    let now = 1_000_000;
    const user = Object.freeze({
      id: 1,
      name: 'A',
      email: 'a@example.com',
      role: 'user',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    const store = new MemoryStore(new Map([['users' as const, { nextId: 2, records: new Map([[1, user]]) }]]));
    const authenticator = new Authenticator(TEST_TOKEN_SECRET, 60, { nowSeconds: () => now });
    const header = `Bearer ${tokenFor(1, 60, now)}`;
    const connection = {};
    assert.deepEqual(authenticator.authenticate(header, connection, store), { id: 1, role: 'user' });
    now += 59;
    assert.deepEqual(authenticator.authenticate(header, connection, store), { id: 1, role: 'user' });
    now += 1;
    assert.throws(
      () => authenticator.authenticate(header, connection, store),
      (error: unknown) => error instanceof HttpError && error.code === 'invalid_token',
    );
    assert.throws(
      () => authenticator.authenticate(header, connection, store),
      (error: unknown) => error instanceof HttpError && error.code === 'invalid_token',
    );
  });
});

describe('auth: permission that depends on the body', () => {
  test('a user may not change their own role, but may send it back unchanged', () =>
    withServer(async (api) => {
      const { id, client } = await createUserClient(api);
      const promote = await client.patch(`/v1/users/${id}`, { role: 'admin' });
      assert.equal(promote.status, 403);
      assert.match(promote.body.detail, /role/);
      assert.equal((await api.get(`/v1/users/${id}`)).body.role, 'user');
      assert.equal((await client.patch(`/v1/users/${id}`, { role: 'user', name: 'Still Me' })).status, 200);
      assert.equal((await client.put(`/v1/users/${id}`, { name: 'Me', email: `me-${id}@example.com` })).status, 200);
      assert.equal((await client.patch(`/v1/usuarios/${id}`, { papel: 'admin' })).status, 403);
    }));

  test('an owner may cancel an order but not mark it paid or shipped; an admin may', () =>
    withServer(async (api) => {
      const { id, client } = await createUserClient(api);
      const product = await createProduct(api);
      const created = await client.post(`/v1/users/${id}/orders`, { items: [{ product_id: product.id, quantity: 1 }] });
      assert.equal(created.status, 201);
      const path = `/v1/users/${id}/orders/${created.body.id}`;
      assert.equal((await client.patch(path, { status: 'paid' })).status, 403);
      assert.equal(
        (await client.put(path, { items: [{ product_id: product.id, quantity: 1 }], status: 'shipped' })).status,
        403,
      );
      assert.equal((await client.get(path)).body.status, 'pending');
      assert.equal((await api.patch(path, { status: 'paid' })).status, 200);
      assert.equal(
        (await client.patch(path, { status: 'paid' })).status,
        200,
        'sending the current status back is not a change',
      );
      const cancelled = await client.patch(path, { status: 'cancelled' });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
    }));

  test('an owner creating an order may say "pending" but nothing else', () =>
    withServer(async (api) => {
      const { id, client } = await createUserClient(api);
      const product = await createProduct(api);
      const items = [{ product_id: product.id, quantity: 1 }];
      assert.equal((await client.post(`/v1/users/${id}/orders`, { items, status: 'paid' })).status, 403);
      assert.equal((await client.post(`/v1/users/${id}/orders`, { items, status: 'pending' })).status, 201);
    }));
});

describe('auth: order of checks (README: Errors)', () => {
  const cases: {
    name: string;
    method: string;
    path: string;
    token: 'none' | 'user';
    headers?: Record<string, string>;
    body?: unknown;
    status: number;
  }[] = [
    { name: 'unknown path before authentication', method: 'GET', path: '/v1/nothing', token: 'none', status: 404 },
    { name: 'method before authentication', method: 'DELETE', path: '/v1/users', token: 'none', status: 405 },
    {
      name: 'authentication before Accept',
      method: 'GET',
      path: '/v1/products',
      token: 'none',
      headers: { accept: 'text/html' },
      status: 401,
    },
    {
      name: 'authentication before query parameters',
      method: 'GET',
      path: '/v1/products?bogus=1',
      token: 'none',
      status: 401,
    },
    {
      name: 'query parameters before permission',
      method: 'GET',
      path: '/v1/users?bogus=1',
      token: 'user',
      status: 400,
    },
    { name: 'permission before a missing record', method: 'GET', path: '/v1/users/9999', token: 'user', status: 403 },
    {
      name: 'permission before media type',
      method: 'POST',
      path: '/v1/products',
      token: 'user',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
      status: 403,
    },
    {
      name: 'permission before validation',
      method: 'POST',
      path: '/v1/products',
      token: 'user',
      body: { bogus: true },
      status: 403,
    },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.method} ${c.path} → ${c.status}`, () =>
      withServer(async (api) => {
        const { client } = await createUserClient(api);
        const caller = c.token === 'none' ? api.as(undefined) : client;
        const response = await caller.request(c.method, c.path, { headers: c.headers, body: c.body });
        assert.equal(response.status, c.status, response.text);
      }));
  }
});

describe('auth: administrator and token secret', () => {
  test('a generated admin password is logged once and works; the next start keeps it and logs nothing', async () => {
    const dir = await temporaryDirectory();
    const lines: string[] = [];
    const logger: Logger = {
      info: (line) => lines.push(line),
      warn: (line) => lines.push(line),
      error: (line) => lines.push(line),
    };
    try {
      const first = await startServer({ port: 0, dataDir: dir.path, seed: false, logger });
      const generated = /generated password (\S+) /.exec(lines.join('\n'))?.[1];
      assert.ok(generated !== undefined, lines.join('\n'));
      const token = await login(wrap(first, undefined), 'admin@example.com', generated);
      await first.close();

      lines.length = 0;
      const second = await startServer({ port: 0, dataDir: dir.path, seed: false, logger });
      assert.deepEqual(lines, []);
      const api = wrap(second, token);
      assert.equal((await api.get('/v1/users')).status, 200, 'a token survives a restart (the secret is kept)');
      assert.equal(typeof (await login(api, 'admin@example.com', generated)), 'string');
      await second.close();
    } finally {
      await dir.remove();
    }
  });

  test('the token secret file is written with mode 0600 and tightened if loosened', async () => {
    const dir = await temporaryDirectory();
    try {
      const server = await startServer({ port: 0, dataDir: dir.path, seed: false, adminPassword: TEST_ADMIN_PASSWORD });
      await server.close();
      const path = join(dir.path, 'token-secret');
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.ok((await readFile(path, 'utf8')).trim().length >= 32);
      await chmod(path, 0o644);
      const again = await startServer({ port: 0, dataDir: dir.path, seed: false, adminPassword: TEST_ADMIN_PASSWORD });
      await again.close();
      assert.equal((await stat(path)).mode & 0o777, 0o600);
    } finally {
      await dir.remove();
    }
  });

  test('with TOKEN_SECRET given, no secret file is written', async () => {
    const dir = await temporaryDirectory();
    try {
      const server = await startServer({ port: 0, dataDir: dir.path, seed: false, ...TEST_AUTH_OPTIONS });
      await server.close();
      await assert.rejects(stat(join(dir.path, 'token-secret')), { code: 'ENOENT' });
    } finally {
      await dir.remove();
    }
  });

  test('ADMIN_PASSWORD replaces the stored password of the existing administrator', async () => {
    const dir = await temporaryDirectory();
    try {
      const first = await startServer({ port: 0, dataDir: dir.path, seed: false, ...TEST_AUTH_OPTIONS });
      await first.close();
      const second = await startServer({
        port: 0,
        dataDir: dir.path,
        adminPassword: 'a-brand-new-password',
        tokenSecret: TEST_AUTH_OPTIONS.tokenSecret,
      });
      const api = wrap(second, undefined);
      await assert.rejects(login(api, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD));
      const token = await login(api, TEST_ADMIN_EMAIL, 'a-brand-new-password');
      assert.equal((await api.as(token).get('/v1/users')).status, 200);
      await second.close();
    } finally {
      await dir.remove();
    }
  });

  test('an ordinary user holding ADMIN_EMAIL is not promoted (a user may change their own email); a warning says so', async () => {
    const dir = await temporaryDirectory();
    const lines: string[] = [];
    const logger: Logger = { info: () => {}, warn: (line) => lines.push(line), error: () => {} };
    try {
      const first = await connect(await startServer({ port: 0, dataDir: dir.path, seed: false, ...TEST_AUTH_OPTIONS }));
      const { id, client } = await createUserClient(first, {
        email: 'mallory@example.com',
        password: 'mallory-password',
      });
      assert.equal((await client.patch(`/v1/users/${id}`, { email: 'boss@example.com' })).status, 200);
      await first.close();

      const second = await startServer({
        port: 0,
        dataDir: dir.path,
        adminEmail: 'boss@example.com',
        adminPassword: 'boss-password-123',
        tokenSecret: TEST_AUTH_OPTIONS.tokenSecret,
        logger,
      });
      const api = wrap(second, undefined);
      assert.match(
        lines.join('\n'),
        new RegExp(`user ${id} holding ADMIN_EMAIL boss@example.com is not an administrator`),
      );
      const mallory = api.as(client.token);
      assert.equal((await mallory.get('/v1/users')).status, 403, 'still an ordinary user');
      assert.equal((await mallory.get(`/v1/users/${id}`)).body.role, 'user');
      await assert.rejects(
        login(api, 'boss@example.com', 'boss-password-123'),
        'ADMIN_PASSWORD does not take over her account',
      );
      assert.equal(typeof (await login(api, 'boss@example.com', 'mallory-password')), 'string');
      await second.close();
    } finally {
      await dir.remove();
    }
  });

  test('a secret file that is empty stops the start with a message naming it', async () => {
    const dir = await temporaryDirectory();
    try {
      await writeFile(join(dir.path, 'token-secret'), '\n');
      await assert.rejects(startServer({ port: 0, dataDir: dir.path, seed: false }), /token-secret/);
    } finally {
      await dir.remove();
    }
  });
});
