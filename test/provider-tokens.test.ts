// Provider tokens over HTTP (README: Provider tokens), against a test provider: accepted beside plainrest's own; a
// person made a user on first sight (once, however many requests race), with an email or without (a service's token;
// on PostgreSQL too), who owns records; the role from the claim; forgeries, expired tokens and a taken email 401; an
// unreachable provider, or one whose keys never end, with no key at hand 503.

import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { generateKeyPairSync, sign } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { TestResponse, TestServer } from './helpers.ts';
import { assertProblem, RFC3339_UTC } from './assertions.ts';
import { startTestServer, temporaryDirectory } from './helpers.ts';
import { validateJson } from './json-schema.ts';

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A provider: discovery and a JWKS of one ES256 and one RS256 key, and tokens signed with them. */
class TestProvider {
  issuer = '';
  up = true;
  readonly #keys = {
    ec: { kid: 'ec-1', alg: 'ES256', pair: generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
    rsa: { kid: 'rsa-1', alg: 'RS256', pair: generateKeyPairSync('rsa', { modulusLength: 2048 }) },
  };
  #server: Server | undefined;

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      if (!this.up) return void res.writeHead(503).end();
      const jwks = {
        keys: Object.values(this.#keys).map(({ kid, alg, pair }) => ({
          ...(pair.publicKey.export({ format: 'jwk' }) as object),
          kid,
          alg,
          use: 'sig',
        })),
      };
      const body = req.url?.endsWith('/.well-known/openid-configuration')
        ? { issuer: this.issuer, jwks_uri: `${this.issuer}/certs` }
        : jwks;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/realms/shop`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server?.close(() => resolve()));
  }

  token(claims: Record<string, unknown>, which: 'ec' | 'rsa' = 'ec', privateKey?: KeyObject): string {
    const key = this.#keys[which];
    const now = Math.floor(Date.now() / 1000);
    const input = `${part({ alg: key.alg, typ: 'JWT', kid: key.kid })}.${part({
      iss: this.issuer,
      aud: ['account', 'plainrest'],
      exp: now + 300,
      iat: now,
      ...claims,
    })}`;
    const signer = privateKey ?? key.pair.privateKey;
    const signature =
      key.alg === 'ES256'
        ? sign('sha256', Buffer.from(input), { key: signer, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', Buffer.from(input), signer);
    return `${input}.${signature.toString('base64url')}`;
  }
}

describe('provider tokens over HTTP', () => {
  const provider = new TestProvider();
  let api: TestServer;
  before(async () => {
    await provider.start();
    api = await startTestServer({ seed: true, oidcIssuer: provider.issuer, oidcAudience: 'plainrest' });
  });
  after(async () => {
    await api.close();
    await provider.stop();
  });

  const person = (sub: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    sub,
    name: `Person ${sub}`,
    email: `${sub}@people.example.com`,
    ...extra,
  });

  test('a new person is made a user on first sight, once however many requests race, and owns records', async () => {
    const token = provider.token(person('ada'));
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.as(token).get('/v1/products?limit=1')));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200, 200],
    );
    const found = await api.get('/v1/users?email=ada@people.example.com');
    assert.equal(found.status, 200);
    assert.equal(found.body.data.length, 1, 'one user, not five');
    const user = found.body.data[0];
    assert.equal(user.name, 'Person ada');
    assert.equal(user.role, 'user');
    assert.equal(user.provider_identity, `${provider.issuer} ada`);
    const order = await api.as(token).post(`/v1/users/${user.id}/orders`, { items: [{ product_id: 1, quantity: 1 }] });
    assert.equal(order.status, 201, order.text);
    assert.equal((await api.as(token).get(`/v1/users/${user.id}/orders/${order.body.id}`)).status, 200);
    assertProblem(await api.as(token).get('/v1/users/1'), 403, 'forbidden', '/v1/users/1');
    // RS256 from the same provider: the same person, the same user.
    const rsa = await api.as(provider.token(person('ada'), 'rsa')).get(`/v1/users/${user.id}`);
    assert.equal(rsa.status, 200);
    assert.equal(rsa.body.id, user.id);
    // plainrest's own tokens still work beside them.
    assert.equal((await api.get('/v1/users?limit=1')).status, 200);
  });

  test('the role comes from the claim of each token', async () => {
    const plain = provider.token(person('grace'));
    const admin = provider.token(person('grace', { roles: ['offline_access', 'admin'] }));
    assertProblem(await api.as(plain).get('/v1/users'), 403, 'forbidden', '/v1/users');
    assert.equal((await api.as(admin).get('/v1/users')).status, 200);
    assertProblem(await api.as(plain).get('/v1/users'), 403, 'forbidden', '/v1/users');
  });

  test('a token expired less than the 60 s leeway ago is accepted, again and again', async () => {
    const late = provider.token(person('ada', { exp: Math.floor(Date.now() / 1000) - 30 }));
    for (let round = 0; round < 3; round++) assert.equal((await api.as(late).get('/v1/products?limit=1')).status, 200);
  });

  test('forged, for another audience, expired or from another issuer: 401 invalid_token', async () => {
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const cases: [string, string][] = [
      ['forged', provider.token(person('eve'), 'ec', stranger)],
      ['another audience', provider.token(person('eve', { aud: 'another-api' }))],
      ['expired', provider.token(person('eve', { exp: Math.floor(Date.now() / 1000) - 120 }))],
      ['another issuer', provider.token(person('eve', { iss: `${provider.issuer}-x` }))],
    ];
    for (const [what, token] of cases) {
      const answer = await api.as(token).get('/v1/products');
      assertProblem(answer, 401, 'invalid_token', '/v1/products');
      assert.match(answer.headers.get('www-authenticate') ?? '', /error="invalid_token"/, what);
    }
    assert.equal((await api.get('/v1/users?email=eve@people.example.com')).body.data.length, 0);
  });

  test("a new person with a user's email is not made a user", async () => {
    const taken = provider.token(person('mallory', { email: 'alice@example.com' }));
    const answer = await api.as(taken).get('/v1/products');
    assertProblem(answer, 401, 'invalid_token', '/v1/products');
    assert.match(answer.body.detail, /already another plainrest user's/);
  });

  test('a provider user has no password: none can be set, and POST /v1/tokens does not let them in', async () => {
    const token = provider.token(person('linus'));
    await api.as(token).get('/v1/products');
    const id = (await api.get('/v1/users?email=linus@people.example.com')).body.data[0].id;
    for (const caller of [token, api.token]) {
      const set = await api.as(caller).patch(`/v1/users/${id}`, { password: 'a-password-of-mine' });
      assertProblem(set, 403, 'forbidden', `/v1/users/${id}`);
    }
    const login = await api
      .as(undefined)
      .post('/v1/tokens', { email: 'linus@people.example.com', password: 'anything-at-all' });
    assertProblem(login, 401, 'invalid_credentials', '/v1/tokens');
  });

  test('the provider down: the keys at hand go on; with none at hand, 503 not_ready with Retry-After', async () => {
    provider.up = false;
    try {
      assert.equal((await api.as(provider.token(person('ada'))).get('/v1/products?limit=2')).status, 200);
      const fresh = await startTestServer({ oidcIssuer: provider.issuer });
      try {
        const answer = await fresh.as(provider.token(person('ada'))).get('/v1/products');
        assertProblem(answer, 503, 'not_ready', '/v1/products');
        assert.equal(answer.headers.get('retry-after'), '5');
        // What needs no key is refused without one: 401, not 503.
        assertProblem(await fresh.as('not.a-token').get('/v1/products'), 401, 'invalid_token', '/v1/products');
      } finally {
        await fresh.close();
      }
    } finally {
      provider.up = true;
    }
  });

  test('a provider whose keys never end (chunked, no Content-Length): cut past 1 MiB, 503 not_ready with Retry-After', async () => {
    let onClose: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (onClose = resolve));
    const chunk = Buffer.alloc(64 * 1024, ' ');
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"keys": [');
      let open = true;
      const pump = (): void => {
        while (open && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', () => {
        open = false;
        onClose();
      });
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/realms/endless`;
    const fresh = await startTestServer({ oidcIssuer: issuer, oidcJwksUrl: `${issuer}/certs` });
    try {
      const started = Date.now();
      const answer = await fresh.as(provider.token(person('ada', { iss: issuer }))).get('/v1/products');
      // Cut as it arrived, not at the 5 s timeout (well under a second on an idle machine).
      assert.ok(Date.now() - started < 4000, `answered after ${Date.now() - started} ms`);
      assertProblem(answer, 503, 'not_ready', '/v1/products');
      assert.equal(answer.headers.get('retry-after'), '5');
      await closed;
    } finally {
      await fresh.close();
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  test('a provider without an audience is accepted with a warning at start', async () => {
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (line: string) => void warnings.push(line), error: () => undefined };
    const open = await startTestServer({ oidcIssuer: provider.issuer, logger });
    await open.close();
    // One line per process started (two where TEST_STORE=postgres starts a pair).
    const about = warnings.filter((line) => line.includes('OIDC_AUDIENCE'));
    assert.ok(about.length > 0, 'warned');
    for (const line of about) {
      assert.equal(
        line,
        "OIDC_AUDIENCE is unset: tokens the identity provider issues for any of its clients are accepted; set it to this API's",
      );
    }
  });

  test('settings: an http issuer elsewhere than this machine, or provider settings without an issuer, refuse the start', async () => {
    await assert.rejects(startTestServer({ oidcIssuer: 'http://id.example.com/realms/shop' }), /https/);
    await assert.rejects(startTestServer({ oidcAudience: 'plainrest' }), /needs oidcIssuer/);
  });
});

// Without `seed`, so that where TEST_STORE=postgres (http-suites.postgres.test.ts) these run on two servers sharing one
// PostgreSQL, whose users.email then holds NULLs.
describe("provider users without an email (a service's token)", () => {
  const provider = new TestProvider();
  let api: TestServer;
  before(async () => {
    await provider.start();
    api = await startTestServer({ oidcIssuer: provider.issuer, oidcAudience: 'plainrest' });
  });
  after(async () => {
    await api.close();
    await provider.stop();
  });

  /** The users a provider's token made, by subject: read as the administrator. */
  const madeUsers = async (): Promise<Map<string, Record<string, unknown>>> => {
    const list = await api.get('/v1/users?limit=100');
    assert.equal(list.status, 200);
    const made = new Map<string, Record<string, unknown>>();
    for (const user of list.body.data as Record<string, unknown>[]) {
      const identity = user['provider_identity'];
      if (typeof identity === 'string') made.set(identity.slice(provider.issuer.length + 1), user);
    }
    return made;
  };

  test('a token with no email claim is made a user on first sight, once, who owns records and reads without an email', async () => {
    // A client-credentials token as Keycloak issues it: no email, the service account's name.
    const token = provider.token({ sub: 'f1e2d3c4', preferred_username: 'service-account-billing', azp: 'billing' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.as(token).get('/v1/products')));
    for (const answer of answers) {
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body.data, []);
    }
    const made = await madeUsers();
    assert.deepEqual([...made.keys()], ['f1e2d3c4'], 'one user, not five');
    const id = made.get('f1e2d3c4')?.['id'] as number;
    const read = await api.get(`/v1/users/${id}`);
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('content-type'), 'application/json');
    assert.deepEqual(read.body, {
      id,
      name: 'service-account-billing',
      role: 'user',
      provider_identity: `${provider.issuer} f1e2d3c4`,
      created_at: read.body.created_at,
      updated_at: read.body.created_at,
    });
    assert.match(read.body.created_at, RFC3339_UTC);
    // The OpenAPI document's user schema allows the absence.
    const document = (await api.get('/v1/openapi.json')).body;
    assert.deepEqual(validateJson(document, { $ref: '#/components/schemas/User' }, read.body), []);
    assert.deepEqual(document.components.schemas.User.required, ['id', 'name', 'role', 'created_at', 'updated_at']);
    assert.deepEqual(document.components.schemas.UserCreate.required, ['name', 'email']);
    // The service reads itself, and owns the records it makes.
    assert.deepEqual((await api.as(token).get(`/v1/users/${id}`)).body, read.body);
    const product = await api.post('/v1/products', { name: 'Ledger', category: 'office', price: 12.5 });
    assert.equal(product.status, 201, product.text);
    const order = await api
      .as(token)
      .post(`/v1/users/${id}/orders`, { items: [{ product_id: product.body.id, quantity: 2 }] });
    assert.equal(order.status, 201, order.text);
    assert.equal(order.headers.get('location'), `/v1/users/${id}/orders/${order.body.id}`);
    assert.equal(order.body.user_id, id);
    const again = await api.as(token).get(`/v1/users/${id}/orders/${order.body.id}`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, order.body);
    assert.deepEqual(
      (await api.as(token).get(`/v1/users/${id}/orders`)).body.data.map((each: { id: number }) => each.id),
      [order.body.id],
    );
    assertProblem(await api.as(token).get('/v1/users/1'), 403, 'forbidden', '/v1/users/1');
    // Changing its name keeps it without an email; a PUT, like any request that replaces a user, needs one.
    const renamed = await api.as(token).patch(`/v1/users/${id}`, { name: 'Billing' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(Object.keys(renamed.body), [
      'id',
      'name',
      'role',
      'provider_identity',
      'created_at',
      'updated_at',
    ]);
    assert.equal(renamed.body.name, 'Billing');
    assertProblem(
      await api.as(token).put(`/v1/users/${id}`, { name: 'Billing' }),
      422,
      'validation_failed',
      `/v1/users/${id}`,
      [{ field: 'email', code: 'required' }],
    );
  });

  test('two users without an email coexist; an address plainrest cannot keep, or an unverified one, is left out', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['svc-a', {}],
      ['svc-b', { name: 'Stock service' }],
      ['not-an-address', { email: 'billing at example' }],
      ['too-long', { email: `${'a'.repeat(250)}@example.com` }],
      ['unverified', { email: 'unverified@people.example.com', email_verified: false }],
    ];
    for (const [sub, claims] of cases) {
      const answer = await api.as(provider.token({ sub, ...claims })).get('/v1/products');
      assert.equal(answer.status, 200, `${sub}: ${answer.text}`);
    }
    const made = await madeUsers();
    for (const [sub, claims] of cases) {
      const user = made.get(sub);
      assert.ok(user !== undefined, sub);
      assert.equal(user['email'], undefined, sub);
      assert.equal(user['name'], claims['name'] ?? sub);
    }
    const ids = cases.map(([sub]) => made.get(sub)?.['id']);
    assert.equal(new Set(ids).size, cases.length, 'a user each');
    // A user with an email is still unique by it; an email-less one clashes with nobody.
    const withEmail = await api.post('/v1/users', { name: 'Unverified', email: 'unverified@people.example.com' });
    assert.equal(withEmail.status, 201, withEmail.text);
    assertProblem(
      await api.post('/v1/users', { name: 'Again', email: 'UNVERIFIED@people.example.com' }),
      409,
      'duplicate_value',
      '/v1/users',
    );
    assert.deepEqual(
      (await api.get('/v1/users?email=unverified@people.example.com')).body.data.map((each: { id: number }) => each.id),
      [withEmail.body.id],
    );
  });

  test('a data directory holding a user without an email starts again, the user as it was', async () => {
    const directory = await temporaryDirectory();
    try {
      const settings = { dataDir: directory.path, oidcIssuer: provider.issuer, oidcAudience: 'plainrest' };
      const token = provider.token({ sub: 'svc-kept' });
      const first = await startTestServer(settings);
      let before: TestResponse;
      try {
        assert.equal((await first.as(token).get('/v1/products')).status, 200);
        const id = (await first.get('/v1/users?limit=100')).body.data.find(
          (user: Record<string, unknown>) => user['provider_identity'] === `${provider.issuer} svc-kept`,
        ).id;
        before = await first.get(`/v1/users/${id}`);
        assert.equal(before.status, 200);
        assert.equal(before.body.email, undefined);
      } finally {
        await first.close();
      }
      const second = await startTestServer(settings);
      try {
        const after = await second.get(`/v1/users/${before.body.id}`);
        assert.equal(after.status, 200);
        assert.deepEqual(after.body, before.body);
        assert.equal((await second.as(token).get(`/v1/users/${before.body.id}`)).status, 200);
      } finally {
        await second.close();
      }
    } finally {
      await directory.remove();
    }
  });
});
