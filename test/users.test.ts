// The user resource (README: Records, Methods): POST answers exactly {id, name}; reads return
// id, name, email, role, created_at, updated_at and never the password or its hash;
// field rules answer 422 with one errors[] entry per field; emails are unique ignoring
// case (409 duplicate_value); PUT replaces name and email and leaves role and password.
// Authentication (README: Authentication and permissions): the administrator is itself a user record (id 1 in an
// empty store, so test users start at 2); a user may read, change and delete their own
// record but not their role, and gets 403 for anyone else's.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { connect as connectSocket } from 'node:net';
import { startServer } from '../src/index.ts';
import { readDataDirectory } from '../src/store/data-directory.ts';
import { EXAMPLE } from './example-definitions.ts';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TestResponse, TestServer } from './helpers.ts';
import {
  createUser,
  createUserClient,
  login,
  startTestServer,
  startTestServerWithAdminBootstrap,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_PASSWORD_HASH_COST,
  TEST_TOKEN_SECRET,
  temporaryDirectory,
  wrap,
} from './helpers.ts';
import type { FieldErrorExpectation } from './assertions.ts';
import { assertEmpty, assertJson, assertProblem, clockPast, RFC3339_UTC, STRONG_ETAG } from './assertions.ts';

const USER_FIELDS = ['id', 'name', 'email', 'role', 'created_at', 'updated_at'];

/** The server ensures its administrator at start: user 1 of an empty store (README: Configuration, Authentication and permissions). */
const ADMIN = 1;
/** So the first and second users a test creates get ids 2 and 3. */
const FIRST = 2;
const SECOND = 3;

function assertNoPassword(response: TestResponse, plaintext?: string): void {
  assert.doesNotMatch(response.text, /password/i);
  assert.doesNotMatch(response.text, /hash/i);
  assert.doesNotMatch(response.text, /scrypt/i);
  if (plaintext !== undefined) assert.ok(!response.text.includes(plaintext), 'the plaintext password leaked');
}

const VALID = { name: 'Ana Lima', email: 'ana@example.com', password: 'correct-horse' };

describe('users', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer();
  });
  afterEach(async () => {
    await api.close();
  });

  describe('POST /v1/users', () => {
    test('answers 201 with exactly {id, name}, Location /v1/users/{id} and a strong ETag', async () => {
      const response = await api.post('/v1/users', VALID);
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body, { id: FIRST, name: 'Ana Lima' });
      assert.deepEqual(Object.keys(response.body), ['id', 'name']);
      assert.equal(response.headers.get('location'), `/v1/users/${FIRST}`);
      assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.ok(response.headers.get('x-request-id'));
      assertNoPassword(response, VALID.password);
    });

    test('assigns increasing ids: after the admin (1) and a first user (2), the second user is 3 at /v1/users/3', async () => {
      await api.post('/v1/users', VALID);
      const response = await api.post('/v1/users', { name: 'Bia', email: 'bia@example.com' });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body, { id: SECOND, name: 'Bia' });
      assert.equal(response.headers.get('location'), `/v1/users/${SECOND}`);
    });

    test('password is optional on POST', async () => {
      const response = await api.post('/v1/users', { name: 'Ana', email: 'ana@example.com' });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body, { id: FIRST, name: 'Ana' });
    });
  });

  describe('GET /v1/users/{id}', () => {
    test('returns id, name, email, role, created_at, updated_at with RFC 3339 UTC timestamps', async () => {
      const before = new Date().toISOString();
      await api.post('/v1/users', VALID);
      const after = new Date().toISOString();
      const response = await api.get(`/v1/users/${FIRST}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
      assert.deepEqual(Object.keys(response.body), USER_FIELDS);
      const { created_at: createdAt, updated_at: updatedAt, ...rest } = response.body;
      assert.deepEqual(rest, { id: FIRST, name: 'Ana Lima', email: 'ana@example.com', role: 'user' });
      for (const stamp of [createdAt, updatedAt]) {
        assert.equal(typeof stamp, 'string');
        assert.match(stamp, RFC3339_UTC);
        assert.ok(!Number.isNaN(Date.parse(stamp)));
      }
      assert.equal(createdAt, updatedAt);
      assert.ok(Date.parse(createdAt) >= Date.parse(before) && Date.parse(createdAt) <= Date.parse(after));
    });

    test('never returns password or password_hash, not even in the raw text (item, list, HEAD)', async () => {
      await api.post('/v1/users', VALID);
      const item = await api.get(`/v1/users/${FIRST}`);
      assert.equal(item.status, 200);
      assert.equal(item.body.password, undefined);
      assert.equal(item.body.password_hash, undefined);
      assertNoPassword(item, VALID.password);
      const list = await api.get('/v1/users');
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 2, 'the admin and the user just created');
      assertNoPassword(list, VALID.password);
    });

    test('role defaults to "user" when POST omits it', async () => {
      const id = await createUser(api);
      const response = await api.get(`/v1/users/${id}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.role, 'user');
    });

    test('a missing user is 404 record_not_found', async () => {
      const response = await api.get('/v1/users/7');
      assertProblem(response, 404, 'record_not_found', '/v1/users/7');
    });
  });

  describe('field rules on POST → 422 with one errors[] entry per field', () => {
    const long = (n: number): string => 'x'.repeat(n);
    const cases: readonly { name: string; body: Record<string, unknown>; errors: FieldErrorExpectation[] }[] = [
      {
        name: 'name missing → required',
        body: { email: 'a@example.com' },
        errors: [{ field: 'name', code: 'required' }],
      },
      { name: 'name empty → too_short', body: { ...VALID, name: '' }, errors: [{ field: 'name', code: 'too_short' }] },
      {
        name: 'name of 101 characters → too_long',
        body: { ...VALID, name: long(101) },
        errors: [{ field: 'name', code: 'too_long' }],
      },
      {
        name: 'name a number → invalid_type',
        body: { ...VALID, name: 42 },
        errors: [{ field: 'name', code: 'invalid_type' }],
      },
      {
        name: 'name null → invalid_type',
        body: { ...VALID, name: null },
        errors: [{ field: 'name', code: 'invalid_type' }],
      },
      { name: 'email missing → required', body: { name: 'Ana' }, errors: [{ field: 'email', code: 'required' }] },
      ...[
        'plainaddress',
        'ana.example.com',
        'ana@',
        '@example.com',
        'ana@example',
        'ana@@example.com',
        'ana lima@example.com',
        'ana@exa mple.com',
        'ana@example..com',
        'ana@.example.com',
        'ana@example.com.',
      ].map((email) => ({
        name: `email ${JSON.stringify(email)} → invalid_format`,
        body: { ...VALID, email },
        errors: [{ field: 'email', code: 'invalid_format' }],
      })),
      {
        name: 'email of 255 characters → too_long',
        body: { ...VALID, email: `${long(243)}@example.com` },
        errors: [{ field: 'email', code: 'too_long' }],
      },
      {
        name: 'email a number → invalid_type',
        body: { ...VALID, email: 12 },
        errors: [{ field: 'email', code: 'invalid_type' }],
      },
      {
        name: 'email an array → invalid_type',
        body: { ...VALID, email: ['a@example.com'] },
        errors: [{ field: 'email', code: 'invalid_type' }],
      },
      {
        name: 'password of 7 characters → too_short',
        body: { ...VALID, password: long(7) },
        errors: [{ field: 'password', code: 'too_short' }],
      },
      {
        name: 'password of 201 characters → too_long',
        body: { ...VALID, password: long(201) },
        errors: [{ field: 'password', code: 'too_long' }],
      },
      {
        name: 'password a number → invalid_type',
        body: { ...VALID, password: 12345678 },
        errors: [{ field: 'password', code: 'invalid_type' }],
      },
      {
        name: 'role "boss" → invalid_value',
        body: { ...VALID, role: 'boss' },
        errors: [{ field: 'role', code: 'invalid_value' }],
      },
      {
        name: 'role "Admin" (case matters) → invalid_value',
        body: { ...VALID, role: 'Admin' },
        errors: [{ field: 'role', code: 'invalid_value' }],
      },
      {
        name: 'unknown field → unknown_field named as sent',
        body: { ...VALID, nickname: 'an' },
        errors: [{ field: 'nickname', code: 'unknown_field' }],
      },
      {
        name: 'password_hash is an unknown field',
        body: { ...VALID, password_hash: 'x' },
        errors: [{ field: 'password_hash', code: 'unknown_field' }],
      },
      {
        name: 'Portuguese field name on an English path → unknown_field',
        body: { ...VALID, senha: 'correct-horse' },
        errors: [{ field: 'senha', code: 'unknown_field' }],
      },
      { name: 'id on POST → server_field', body: { ...VALID, id: 5 }, errors: [{ field: 'id', code: 'server_field' }] },
      {
        name: 'created_at on POST → server_field',
        body: { ...VALID, created_at: '2024-01-01T00:00:00.000Z' },
        errors: [{ field: 'created_at', code: 'server_field' }],
      },
      {
        name: 'updated_at on POST → server_field',
        body: { ...VALID, updated_at: '2024-01-01T00:00:00.000Z' },
        errors: [{ field: 'updated_at', code: 'server_field' }],
      },
      {
        name: 'several bad fields → one entry each, detail "4 fields are invalid"',
        body: { name: '', email: 'nope', password: 'short', role: 'boss' },
        errors: [
          { field: 'name', code: 'too_short' },
          { field: 'email', code: 'invalid_format' },
          { field: 'password', code: 'too_short' },
          { field: 'role', code: 'invalid_value' },
        ],
      },
      {
        name: 'empty object → name and email required, detail "2 fields are invalid"',
        body: {},
        errors: [
          { field: 'name', code: 'required' },
          { field: 'email', code: 'required' },
        ],
      },
      {
        name: 'unknown field plus a server field plus a missing name → three entries',
        body: { email: 'a@example.com', id: 1, extra: true },
        errors: [
          { field: 'name', code: 'required' },
          { field: 'id', code: 'server_field' },
          { field: 'extra', code: 'unknown_field' },
        ],
      },
    ];
    for (const c of cases) {
      test(c.name, async () => {
        const response = await api.post('/v1/users', c.body);
        assertProblem(response, 422, 'validation_failed', '/v1/users', c.errors);
        assert.equal(response.headers.get('location'), null);
        const after = await api.get(`/v1/users/${FIRST}`);
        assert.equal(after.status, 404, 'a rejected POST must not create a record');
      });
    }
  });

  describe('field bounds accepted on POST', () => {
    const cases: readonly { name: string; body: Record<string, unknown> }[] = [
      { name: 'name of 1 character', body: { ...VALID, name: 'A' } },
      { name: 'name of 100 characters', body: { ...VALID, name: 'n'.repeat(100) } },
      {
        name: 'name of 100 non-ASCII characters (counted as characters, not bytes)',
        body: { ...VALID, name: 'é'.repeat(100) },
      },
      { name: 'password of 8 characters', body: { ...VALID, password: 'p'.repeat(8) } },
      { name: 'password of 200 characters', body: { ...VALID, password: 'p'.repeat(200) } },
      { name: 'email of 254 characters', body: { ...VALID, email: `${'e'.repeat(242)}@example.com` } },
      { name: 'email with plus and subdomain', body: { ...VALID, email: 'ana.lima+tag@mail.example.co.uk' } },
      { name: 'role "admin"', body: { ...VALID, role: 'admin' } },
    ];
    for (const c of cases) {
      test(`${c.name} → 201`, async () => {
        const response = await api.post('/v1/users', c.body);
        assert.equal(response.status, 201, response.text);
        assert.deepEqual(response.body, { id: FIRST, name: c.body['name'] });
        const read = await api.get(`/v1/users/${FIRST}`);
        assert.equal(read.status, 200);
        assert.equal(read.body.email, c.body['email']);
        assert.equal(read.body.role, c.body['role'] ?? 'user');
      });
    }
  });

  describe('email unique ignoring case → 409 duplicate_value', () => {
    test('POST with an email another user has in another case', async () => {
      await api.post('/v1/users', VALID);
      const response = await api.post('/v1/users', { name: 'Other', email: 'ANA@Example.COM' });
      assertProblem(response, 409, 'duplicate_value', '/v1/users');
      assert.equal(response.headers.get('location'), null);
      assert.equal((await api.get(`/v1/users/${SECOND}`)).status, 404);
      const list = await api.get('/v1/users');
      assert.equal(list.body.meta.total, 2, 'the admin and the first user only');
    });

    for (const withPassword of [false, true]) {
      test(`6 pipelined POSTs with one email in one packet (${withPassword ? 'each with a password to hash' : 'no password'}): one 201, five 409`, async () => {
        // Pipelined in one packet, the six requests reach the handlers together: the check
        // for a taken email and the commit must happen with no other write between them.
        const requests = Array.from({ length: 6 }, (_, n) => {
          const body = JSON.stringify({
            name: `Racer ${n}`,
            email: n % 2 === 0 ? 'race@example.com' : 'RACE@Example.com',
            ...(withPassword ? { password: `password-${n}` } : {}),
          });
          const close = n === 5 ? 'Connection: close\r\n' : '';
          return `POST /v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${close}\r\n${body}`;
        });
        const { port } = new URL(api.url);
        const socket = connectSocket(Number(port), '127.0.0.1');
        socket.write(requests.join('')); // the last asks the server to close once it has answered
        let received = '';
        for await (const chunk of socket) received += String(chunk);
        const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
        assert.deepEqual(statuses.toSorted(), [201, 409, 409, 409, 409, 409], received);
        assert.equal(received.match(/"code":"duplicate_value"/g)?.length, 5);
        const list = await api.get('/v1/users?email=race@example.com');
        assert.equal(list.body.meta.total, 1);
      });
    }

    test('POST with exactly the same email', async () => {
      await api.post('/v1/users', VALID);
      const response = await api.post('/v1/users', { name: 'Other', email: VALID.email });
      assertProblem(response, 409, 'duplicate_value', '/v1/users');
    });

    test("PUT taking another user's email (other case) leaves the user unchanged", async () => {
      await api.post('/v1/users', VALID);
      await api.post('/v1/users', { name: 'Bia', email: 'bia@example.com' });
      const before = await api.get(`/v1/users/${SECOND}`);
      const response = await api.put(`/v1/users/${SECOND}`, { name: 'Bia', email: 'Ana@EXAMPLE.com' });
      assertProblem(response, 409, 'duplicate_value', `/v1/users/${SECOND}`);
      const after = await api.get(`/v1/users/${SECOND}`);
      assert.deepEqual(after.body, before.body);
      assert.equal(after.headers.get('etag'), before.headers.get('etag'));
    });

    test("PATCH taking another user's email (other case) leaves the user unchanged", async () => {
      await api.post('/v1/users', VALID);
      await api.post('/v1/users', { name: 'Bia', email: 'bia@example.com' });
      const before = await api.get(`/v1/users/${SECOND}`);
      const response = await api.patch(`/v1/users/${SECOND}`, { email: 'ANA@EXAMPLE.COM' });
      assertProblem(response, 409, 'duplicate_value', `/v1/users/${SECOND}`);
      const after = await api.get(`/v1/users/${SECOND}`);
      assert.deepEqual(after.body, before.body);
    });

    test('a user may change the case of their own email by PATCH', async () => {
      await api.post('/v1/users', VALID);
      const response = await api.patch(`/v1/users/${FIRST}`, { email: 'Ana@Example.com' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.email, 'Ana@Example.com');
      assert.equal((await api.get(`/v1/users/${FIRST}`)).body.email, 'Ana@Example.com');
    });

    test('a user may change the case of their own email by PUT', async () => {
      await api.post('/v1/users', VALID);
      const response = await api.put(`/v1/users/${FIRST}`, { name: 'Ana Lima', email: 'ANA@EXAMPLE.COM' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.email, 'ANA@EXAMPLE.COM');
    });

    test('the email of a deleted user may be used again', async () => {
      await api.post('/v1/users', VALID);
      assert.equal((await api.delete(`/v1/users/${FIRST}`)).status, 204);
      const response = await api.post('/v1/users', { name: 'New Ana', email: 'ana@example.com' });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body, { id: SECOND, name: 'New Ana' });
    });
  });

  describe('PUT /v1/users/{id} replaces name and email', () => {
    test('answers 200 with the full record, role kept when absent, updated_at bumped', async () => {
      await api.post('/v1/users', { ...VALID, role: 'admin' });
      const before = await api.get(`/v1/users/${FIRST}`);
      await clockPast(before.body.updated_at);
      const response = await api.put(`/v1/users/${FIRST}`, { name: 'Ana Souza', email: 'souza@example.com' });
      assert.equal(response.status, 200, response.text);
      assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
      assert.notEqual(response.headers.get('etag'), before.headers.get('etag'));
      assert.deepEqual(Object.keys(response.body), USER_FIELDS);
      const { updated_at: updatedAt, ...rest } = response.body;
      assert.deepEqual(rest, {
        id: FIRST,
        name: 'Ana Souza',
        email: 'souza@example.com',
        role: 'admin',
        created_at: before.body.created_at,
      });
      assert.match(updatedAt, RFC3339_UTC);
      assert.ok(updatedAt > before.body.updated_at, 'updated_at must move forward');
      assertNoPassword(response, VALID.password);
      const read = await api.get(`/v1/users/${FIRST}`);
      assert.deepEqual(read.body, response.body);
      assert.equal(read.headers.get('etag'), response.headers.get('etag'));
    });

    const cases: readonly { name: string; body: Record<string, unknown>; errors: FieldErrorExpectation[] }[] = [
      {
        name: 'name absent → required',
        body: { email: 'ana@example.com' },
        errors: [{ field: 'name', code: 'required' }],
      },
      { name: 'email absent → required', body: { name: 'Ana' }, errors: [{ field: 'email', code: 'required' }] },
      {
        name: 'both absent → two required entries',
        body: { role: 'user' },
        errors: [
          { field: 'name', code: 'required' },
          { field: 'email', code: 'required' },
        ],
      },
      {
        name: 'name null → invalid_type',
        body: { name: null, email: 'ana@example.com' },
        errors: [{ field: 'name', code: 'invalid_type' }],
      },
      {
        name: 'password of 7 characters → too_short',
        body: { ...VALID, password: 'short77' },
        errors: [{ field: 'password', code: 'too_short' }],
      },
      {
        name: 'unknown field → unknown_field',
        body: { ...VALID, age: 30 },
        errors: [{ field: 'age', code: 'unknown_field' }],
      },
    ];
    for (const c of cases) {
      test(`PUT ${c.name}, record unchanged`, async () => {
        await api.post('/v1/users', VALID);
        const before = await api.get(`/v1/users/${FIRST}`);
        const response = await api.put(`/v1/users/${FIRST}`, c.body);
        assertProblem(response, 422, 'validation_failed', `/v1/users/${FIRST}`, c.errors);
        const after = await api.get(`/v1/users/${FIRST}`);
        assert.deepEqual(after.body, before.body);
        assert.equal(after.headers.get('etag'), before.headers.get('etag'));
      });
    }
  });

  describe('PATCH /v1/users/{id}', () => {
    test('changes only the field sent', async () => {
      await api.post('/v1/users', { ...VALID, role: 'admin' });
      const before = await api.get(`/v1/users/${FIRST}`);
      await clockPast(before.body.updated_at);
      const response = await api.patch(`/v1/users/${FIRST}`, { name: 'Ana Patched' });
      assert.equal(response.status, 200, response.text);
      assert.match(response.headers.get('etag') ?? '', STRONG_ETAG);
      assert.notEqual(response.headers.get('etag'), before.headers.get('etag'));
      const { updated_at: updatedAt, ...rest } = response.body;
      const { updated_at: previousUpdatedAt, ...previous } = before.body;
      assert.deepEqual(rest, { ...previous, name: 'Ana Patched' });
      assert.ok(updatedAt > previousUpdatedAt, 'updated_at must move forward');
      assert.deepEqual((await api.get(`/v1/users/${FIRST}`)).body, response.body);
    });

    test('may change the role', async () => {
      await api.post('/v1/users', VALID);
      const response = await api.patch(`/v1/users/${FIRST}`, { role: 'admin' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.role, 'admin');
    });

    for (const field of ['name', 'email', 'role', 'password']) {
      test(`PATCH {"${field}": null} → 422 required, record unchanged`, async () => {
        await api.post('/v1/users', VALID);
        const before = await api.get(`/v1/users/${FIRST}`);
        const response = await api.patch(`/v1/users/${FIRST}`, { [field]: null });
        assertProblem(response, 422, 'validation_failed', `/v1/users/${FIRST}`, [{ field, code: 'required' }]);
        const after = await api.get(`/v1/users/${FIRST}`);
        assert.deepEqual(after.body, before.body);
      });
    }

    const cases: readonly { name: string; body: Record<string, unknown>; errors: FieldErrorExpectation[] }[] = [
      { name: 'name empty → too_short', body: { name: '' }, errors: [{ field: 'name', code: 'too_short' }] },
      {
        name: 'email invalid → invalid_format',
        body: { email: 'not-an-email' },
        errors: [{ field: 'email', code: 'invalid_format' }],
      },
      {
        name: 'role "boss" → invalid_value',
        body: { role: 'boss' },
        errors: [{ field: 'role', code: 'invalid_value' }],
      },
      {
        name: 'password of 201 characters → too_long',
        body: { password: 'p'.repeat(201) },
        errors: [{ field: 'password', code: 'too_long' }],
      },
      {
        name: 'unknown field → unknown_field',
        body: { nick: 'x' },
        errors: [{ field: 'nick', code: 'unknown_field' }],
      },
    ];
    for (const c of cases) {
      test(`PATCH ${c.name}`, async () => {
        await api.post('/v1/users', VALID);
        const response = await api.patch(`/v1/users/${FIRST}`, c.body);
        assertProblem(response, 422, 'validation_failed', `/v1/users/${FIRST}`, c.errors);
      });
    }
  });
});

describe('users: the password is write-only and stored hashed', () => {
  let api: TestServer;
  let dataDir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dataDir = await temporaryDirectory();
    api = await startTestServer({ dataDir: dataDir.path });
  });
  afterEach(async () => {
    await api.close();
    await dataDir.remove();
  });

  /** The stored record of user `id`, as the files on disk hold it (snapshot + journal, README: Storage and durability). */
  async function storedUser(id: number): Promise<Record<string, unknown>> {
    const record = (await readDataDirectory(dataDir.path, EXAMPLE)).collections.get('users')?.records.get(id);
    assert.ok(record, `user ${id} is on disk`);
    return record;
  }

  /** Every byte the server has written to the data directory. */
  async function everythingOnDisk(): Promise<string> {
    const names = await readdir(dataDir.path);
    return (await Promise.all(names.map((name) => readFile(join(dataDir.path, name), 'utf8')))).join('\n');
  }

  test('POST stores a salted hash, never the plaintext', async () => {
    await api.post('/v1/users', VALID);
    await api.post('/v1/users', { name: 'Bia', email: 'bia@example.com', password: VALID.password });
    assert.ok(!(await everythingOnDisk()).includes(VALID.password), 'the plaintext password is on disk');
    const first = await storedUser(FIRST);
    const second = await storedUser(SECOND);
    assert.equal(first['password'], undefined);
    assert.equal(typeof first['password_hash'], 'string');
    assert.notEqual(first['password_hash'], second['password_hash'], 'the same password must hash differently (salt)');
  });

  test('PUT without password keeps it; PUT with a password sets it and never returns it', async () => {
    await api.post('/v1/users', VALID);
    const original = (await storedUser(FIRST))['password_hash'];

    const kept = await api.put(`/v1/users/${FIRST}`, { name: 'Ana Kept', email: VALID.email });
    assert.equal(kept.status, 200, kept.text);
    assertNoPassword(kept, VALID.password);
    assert.equal((await storedUser(FIRST))['password_hash'], original);

    const changed = await api.put(`/v1/users/${FIRST}`, {
      name: 'Ana Kept',
      email: VALID.email,
      password: 'a-new-password',
    });
    assert.equal(changed.status, 200, changed.text);
    assertNoPassword(changed, 'a-new-password');
    assert.deepEqual(Object.keys(changed.body), USER_FIELDS);
    const stored = await storedUser(FIRST);
    assert.equal(typeof stored['password_hash'], 'string');
    assert.notEqual(stored['password_hash'], original);
    assert.ok(!JSON.stringify(stored).includes('a-new-password'));
    assertNoPassword(await api.get(`/v1/users/${FIRST}`), 'a-new-password');
  });

  test('PATCH sets the password and never returns it; other fields unchanged', async () => {
    await api.post('/v1/users', VALID);
    const before = await api.get(`/v1/users/${FIRST}`);
    const original = (await storedUser(FIRST))['password_hash'];
    const response = await api.patch(`/v1/users/${FIRST}`, { password: 'patched-password' });
    assert.equal(response.status, 200, response.text);
    assertNoPassword(response, 'patched-password');
    const { updated_at: _after, ...rest } = response.body;
    const { updated_at: _before, ...previous } = before.body;
    assert.deepEqual(rest, previous);
    const stored = await storedUser(FIRST);
    assert.notEqual(stored['password_hash'], original);
    assert.ok(!JSON.stringify(stored).includes('patched-password'));
  });

  test('a hash records its scrypt cost (passwordHashCost, 16384 by default): one of either cost logs in on either', async () => {
    await api.post('/v1/users', VALID);
    assert.match(
      String((await storedUser(FIRST))['password_hash']),
      new RegExp(`^scrypt\\$${TEST_PASSWORD_HASH_COST}\\$8\\$1\\$`),
    );
    await api.close();
    // The same data directory on a server started with the defaults (no passwordHashCost).
    const server = await startServer({
      port: 0,
      dataDir: dataDir.path,
      adminPassword: TEST_ADMIN_PASSWORD,
      tokenSecret: TEST_TOKEN_SECRET,
    });
    api = wrap(server, undefined);
    const token = await login(api, VALID.email, VALID.password);
    const changed = await api.as(token).patch(`/v1/users/${FIRST}`, { password: 'a-costlier-password' });
    assert.equal(changed.status, 200, changed.text);
    assert.match(String((await storedUser(FIRST))['password_hash']), /^scrypt\$16384\$8\$1\$/);
    await login(api, VALID.email, 'a-costlier-password');
    await api.close();
    api = await startTestServer({ dataDir: dataDir.path });
    await login(api, VALID.email, 'a-costlier-password');
  });

  test('a user created without a password gets one by PATCH', async () => {
    await api.post('/v1/users', { name: 'Ana', email: 'ana@example.com' });
    assert.equal((await storedUser(FIRST))['password_hash'], undefined);
    const response = await api.patch(`/v1/users/${FIRST}`, { password: 'first-password' });
    assert.equal(response.status, 200, response.text);
    assertNoPassword(response, 'first-password');
    assert.equal(typeof (await storedUser(FIRST))['password_hash'], 'string');
  });
});

describe('users: a user and their own record (README: Authentication and permissions)', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer();
  });
  afterEach(async () => {
    await api.close();
  });

  test('a user reads their own record (GET and HEAD): 200, what the admin sees, no password', async () => {
    const { id, client } = await createUserClient(api, VALID);
    assert.equal(id, FIRST);
    const own = await client.get(`/v1/users/${id}`);
    assertJson(own, 200);
    assert.match(own.headers.get('etag') ?? '', STRONG_ETAG);
    assert.deepEqual(Object.keys(own.body), USER_FIELDS);
    const { created_at: _created, updated_at: _updated, ...rest } = own.body;
    assert.deepEqual(rest, { id, name: 'Ana Lima', email: 'ana@example.com', role: 'user' });
    assertNoPassword(own, VALID.password);
    const byAdmin = await api.get(`/v1/users/${id}`);
    assert.deepEqual(own.body, byAdmin.body);
    assert.equal(own.headers.get('etag'), byAdmin.headers.get('etag'));
    const head = await client.request('HEAD', `/v1/users/${id}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('etag'), own.headers.get('etag'));
  });

  test('a user replaces their own name and email by PUT; role kept, updated_at bumped', async () => {
    const { id, client } = await createUserClient(api, VALID);
    const before = await client.get(`/v1/users/${id}`);
    await clockPast(before.body.updated_at);
    const response = await client.put(`/v1/users/${id}`, { name: 'Ana Souza', email: 'souza@example.com' });
    assertJson(response, 200);
    assert.deepEqual(Object.keys(response.body), USER_FIELDS);
    const { updated_at: updatedAt, ...rest } = response.body;
    assert.deepEqual(rest, {
      id,
      name: 'Ana Souza',
      email: 'souza@example.com',
      role: 'user',
      created_at: before.body.created_at,
    });
    assert.ok(updatedAt > before.body.updated_at, 'updated_at must move forward');
    assert.notEqual(response.headers.get('etag'), before.headers.get('etag'));
    assertNoPassword(response, VALID.password);
    const read = await api.get(`/v1/users/${id}`);
    assert.deepEqual(read.body, response.body);
    assert.equal(read.headers.get('etag'), response.headers.get('etag'));
  });

  test('a user changes their own record by PATCH; only the field sent changes', async () => {
    const { id, client } = await createUserClient(api, VALID);
    const before = await client.get(`/v1/users/${id}`);
    await clockPast(before.body.updated_at);
    const response = await client.patch(`/v1/users/${id}`, { name: 'Ana Patched' });
    assertJson(response, 200);
    const { updated_at: updatedAt, ...rest } = response.body;
    const { updated_at: previousUpdatedAt, ...previous } = before.body;
    assert.deepEqual(rest, { ...previous, name: 'Ana Patched' });
    assert.ok(updatedAt > previousUpdatedAt, 'updated_at must move forward');
    assertNoPassword(response, VALID.password);
    assert.deepEqual((await api.get(`/v1/users/${id}`)).body, response.body);
  });

  test('a user deletes their own record: 204, the record is gone and their token is refused (401 invalid_token)', async () => {
    const { id, client } = await createUserClient(api, VALID);
    const other = await createUser(api, { name: 'Bia', email: 'bia@example.com' });
    const response = await client.delete(`/v1/users/${id}`);
    assertEmpty(response, 204);
    assertProblem(await api.get(`/v1/users/${id}`), 404, 'record_not_found', `/v1/users/${id}`);
    const refused = await client.get(`/v1/users/${id}`);
    assertProblem(refused, 401, 'invalid_token', `/v1/users/${id}`);
    assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer realm="plainrest", error="invalid_token"/);
    const list = await api.get('/v1/users');
    assert.deepEqual(
      (list.body.data as { id: number }[]).map((user) => user.id),
      [ADMIN, other],
      'only the admin and the other user are left',
    );
  });

  test('a user created without a password sets one by PATCH and then logs in with it', async () => {
    const { id, client } = await createUserClient(api, { name: 'Ana', email: 'ana@example.com' });
    const response = await client.patch(`/v1/users/${id}`, { password: 'my-own-password' });
    assertJson(response, 200);
    assertNoPassword(response, 'my-own-password');
    const tokens = await api
      .as(undefined)
      .post('/v1/tokens', { email: 'ana@example.com', password: 'my-own-password' });
    assertJson(tokens, 201);
    assert.equal(tokens.body.user_id, id);
    const own = await api.as(tokens.body.access_token).get(`/v1/users/${id}`);
    assertJson(own, 200);
    assert.equal(own.body.id, id);
  });

  test('a user changes their own password by PUT: the new one logs in, the old one no longer does', async () => {
    const { id, client } = await createUserClient(api, VALID);
    await login(api, VALID.email, VALID.password);
    const response = await client.put(`/v1/users/${id}`, {
      name: VALID.name,
      email: VALID.email,
      password: 'a-new-password',
    });
    assertJson(response, 200);
    assertNoPassword(response, 'a-new-password');
    const token = await login(api, VALID.email, 'a-new-password');
    assertJson(await api.as(token).get(`/v1/users/${id}`), 200);
    const old = await api.as(undefined).post('/v1/tokens', { email: VALID.email, password: VALID.password });
    assertProblem(old, 401, 'invalid_credentials', '/v1/tokens');
  });

  test('a user may not change their own role: PATCH and PUT with role admin → 403 forbidden, record unchanged', async () => {
    const { id, client } = await createUserClient(api, VALID);
    const path = `/v1/users/${id}`;
    const before = await api.get(path);
    assertProblem(await client.patch(path, { role: 'admin' }), 403, 'forbidden', path);
    assertProblem(
      await client.put(path, { name: VALID.name, email: VALID.email, role: 'admin' }),
      403,
      'forbidden',
      path,
    );
    // The body permission comes before validation (README: Errors order: 403 before 422).
    assertProblem(await client.patch(path, { role: 'admin', name: '' }), 403, 'forbidden', path);
    const after = await api.get(path);
    assert.deepEqual(after.body, before.body);
    assert.equal(after.body.role, 'user');
    assert.equal(after.headers.get('etag'), before.headers.get('etag'));
    // Still a plain user: listing users stays admin-only.
    assertProblem(await client.get('/v1/users'), 403, 'forbidden', '/v1/users');
    // Sending the current role back is not a change.
    const echoed = await client.put(path, before.body);
    assertJson(echoed, 200);
    assert.deepEqual(echoed.body, before.body);
    assert.equal(echoed.headers.get('etag'), before.headers.get('etag'));
  });

  test('a user may not read another user, the admin, or a missing user: 403 forbidden (existence not leaked)', async () => {
    const { client } = await createUserClient(api, VALID);
    const other = await createUser(api, { name: 'Bia', email: 'bia@example.com' });
    for (const target of [other, ADMIN, 99]) {
      const path = `/v1/users/${target}`;
      const response = await client.get(path);
      assertProblem(response, 403, 'forbidden', path);
      assert.ok(
        !response.text.includes('bia@example.com') && !response.text.includes(TEST_ADMIN_EMAIL),
        'nothing of the record leaks',
      );
      const head = await client.request('HEAD', path);
      assert.equal(head.status, 403);
      assert.equal(head.text, '');
    }
  });

  test('a user may not change or delete another user: 403 forbidden, record unchanged', async () => {
    const { client } = await createUserClient(api, VALID);
    const other = await createUser(api, { name: 'Bia', email: 'bia@example.com' });
    const path = `/v1/users/${other}`;
    const before = await api.get(path);
    assertProblem(await client.put(path, { name: 'Taken', email: 'taken@example.com' }), 403, 'forbidden', path);
    assertProblem(await client.patch(path, { password: 'hijacked-password' }), 403, 'forbidden', path);
    assertProblem(await client.delete(path), 403, 'forbidden', path);
    const after = await api.get(path);
    assert.deepEqual(after.body, before.body);
    assert.equal(after.headers.get('etag'), before.headers.get('etag'));
  });
});

// The administrator as the start itself creates it, not as test/helpers.ts puts it in to save the hashing.
describe('users: the administrator is a user record', () => {
  test('GET /v1/users lists the admin (id 1, role admin) and never a password hash', async () => {
    const api = await startTestServerWithAdminBootstrap();
    try {
      const alone = await api.get('/v1/users');
      assertJson(alone, 200);
      assert.equal(alone.body.meta.total, 1);
      assert.equal(alone.body.data.length, 1);
      const [admin] = alone.body.data;
      assert.deepEqual(Object.keys(admin), USER_FIELDS);
      assert.equal(admin.id, ADMIN);
      assert.equal(admin.email, TEST_ADMIN_EMAIL);
      assert.equal(admin.role, 'admin');
      assert.equal(typeof admin.name, 'string');
      assert.ok(admin.name.length > 0);
      assert.match(admin.created_at, RFC3339_UTC);
      assert.match(admin.updated_at, RFC3339_UTC);
      assertNoPassword(alone, TEST_ADMIN_PASSWORD);

      await api.post('/v1/users', VALID);
      const list = await api.get('/v1/users');
      assertJson(list, 200);
      assert.equal(list.body.meta.total, 2);
      assert.deepEqual(
        (list.body.data as { id: number; role: string }[]).map(({ id, role }) => ({ id, role })),
        [
          { id: ADMIN, role: 'admin' },
          { id: FIRST, role: 'user' },
        ],
      );
      assertNoPassword(list, TEST_ADMIN_PASSWORD);
      assertNoPassword(list, VALID.password);

      const item = await api.get(`/v1/users/${ADMIN}`);
      assertJson(item, 200);
      assert.deepEqual(item.body, admin);
      assertNoPassword(item, TEST_ADMIN_PASSWORD);

      const tokens = await api
        .as(undefined)
        .post('/v1/tokens', { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
      assertJson(tokens, 201);
      assert.equal(tokens.body.user_id, ADMIN);
    } finally {
      await api.close();
    }
  });

  test('with the example data (alice 1, bob 2) the admin is user 3 and there are 3 users', async () => {
    const api = await startTestServerWithAdminBootstrap({ seed: true });
    try {
      const list = await api.get('/v1/users');
      assertJson(list, 200);
      assert.equal(list.body.meta.total, 3);
      assert.deepEqual(
        (list.body.data as { id: number; email: string; role: string }[]).map(({ id, email, role }) => ({
          id,
          email,
          role,
        })),
        [
          { id: 1, email: 'alice@example.com', role: 'user' },
          { id: 2, email: 'bob@example.com', role: 'user' },
          { id: 3, email: TEST_ADMIN_EMAIL, role: 'admin' },
        ],
      );
      assertNoPassword(list, TEST_ADMIN_PASSWORD);
      const created = await api.post('/v1/users', VALID);
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body, { id: 4, name: VALID.name });
    } finally {
      await api.close();
    }
  });
});
