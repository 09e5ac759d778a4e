// Secrets at rest, in logs and in answers (hardening issue, item 6; OWASP API8:2023
// Security Misconfiguration, with API2 Broken Authentication for what a leaked secret
// gives away). The conventions checked, from README "Storage and durability",
// "Security and protocol limits" (access log) and "Representations":
//   - every file plainrest writes in DATA_DIR — snapshots, journal segments, the lock,
//     token-secret, and the temporary files of atomic writes when they can be seen — has
//     mode 0600, whatever the umask, and the data directory is not world-writable;
//     no file ever holds a plaintext password or an issued token;
//   - no log line (access log in 'json' and 'text', and the logger's info/warn/error)
//     holds a password, a token, an `scrypt$` hash or the token secret — not even when a
//     request fails with a 500 whose cause quotes them;
//   - no error answer echoes the password it was sent (422, 400, 409, 401, 413, 415);
//   - no representation of a user holds `password`, `senha` or `password_hash`.

import assert from 'node:assert/strict';
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { signToken } from '../src/auth/jwt.ts';
import type { Change, Logger, Persistence } from '../src/index.ts';
import { MemoryStore } from '../src/index.ts';
import { assertProblem } from './assertions.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import {
  TEST_ADMIN_PASSWORD,
  TEST_TOKEN_SECRET,
  createUser,
  login,
  recordingLogger,
  startTestServer,
  temporaryDirectory,
} from './helpers.ts';

const HASH = /scrypt\$/;
const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;
const SEGMENT = /^journal-\d{12}\.jsonl$/;

/** A password nobody else uses, so finding it anywhere is a leak. */
function password(label: string): string {
  return `pw-${label}-${Math.random().toString(36).slice(2, 12)}`;
}

/** Fails naming the secret and quoting only the lines that hold it. */
function assertNoSecret(text: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) {
    const lines = text.split('\n').filter((line) => line.includes(secret));
    assert.deepEqual(lines, [], `${where} holds the secret "${secret}"`);
  }
}

function assertNoMatch(text: string, pattern: RegExp, where: string): void {
  const lines = text.split('\n').filter((line) => pattern.test(line));
  assert.deepEqual(lines, [], `${where} matches ${pattern}`);
}

// ---------------------------------------------------------------------------------------
// Files in DATA_DIR

interface FileMode {
  readonly name: string;
  readonly mode: number;
}

/** Each regular file in the directory with its permission bits (files gone before stat are skipped). */
async function fileModes(directory: string): Promise<FileMode[]> {
  const modes: FileMode[] = [];
  for (const name of await readdir(directory)) {
    try {
      const info = await stat(join(directory, name));
      if (info.isFile()) modes.push({ name, mode: info.mode & 0o777 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return modes;
}

function assertPrivate(modes: readonly FileMode[], when: string): void {
  const loose = modes.filter(({ mode }) => mode !== 0o600).map(({ name, mode }) => `${name} ${mode.toString(8)}`);
  assert.deepEqual(loose, [], `${when}: files not 0600`);
}

async function assertDirectoryNotWorldWritable(directory: string, when: string): Promise<void> {
  const mode = (await stat(directory)).mode & 0o777;
  assert.equal(mode & 0o002, 0, `${when}: ${directory} is world-writable (${mode.toString(8)})`);
}

/** Watches a directory and stats every file the moment it appears: temporary files live for milliseconds. */
function watchModes(directory: string): { readonly seen: Map<string, number>; close(): void } {
  const seen = new Map<string, number>();
  const watcher: FSWatcher = watch(directory, (_event, filename) => {
    if (filename === null) return;
    try {
      const info = statSync(join(directory, filename.toString()));
      if (info.isFile()) seen.set(filename.toString(), info.mode & 0o777);
    } catch {
      // already renamed or removed
    }
  });
  return { seen, close: () => watcher.close() };
}

async function readEveryFile(directory: string): Promise<string> {
  const texts: string[] = [];
  for (const name of await readdir(directory)) {
    try {
      texts.push(await readFile(join(directory, name), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return texts.join('\n');
}

/** Users with passwords, logins, password changes, products and orders: enough to compact a small journal many times. */
async function exercise(api: TestServer, rounds: number): Promise<{ passwords: string[]; tokens: string[] }> {
  const passwords: string[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = password(`file-${i}`);
    const email = `files-${i}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const id = await createUser(api, { name: `Files ${i}`, email, password: first });
    const token = await login(api, email, first);
    const second = password(`file-${i}-changed`);
    const user = api.as(token);
    assert.equal((await user.patch(`/v1/users/${id}`, { password: second })).status, 200);
    const product = await api.post('/v1/products', { name: `Thing ${i}`, category: 'files', price: 1 + i });
    assert.equal(
      (await user.post(`/v1/users/${id}/orders`, { items: [{ product_id: product.body.id, quantity: 1 }] })).status,
      201,
    );
    passwords.push(first, second);
    tokens.push(token);
  }
  return { passwords, tokens };
}

describe('secrets at rest: DATA_DIR', () => {
  test('every file is 0600 after start, writes, compaction, shutdown and a restart; no plaintext password or token is stored', async (t) => {
    const root = await temporaryDirectory();
    const dataDir = join(root.path, 'data'); // created by the server
    const servers: TestServer[] = [];
    let watcher: ReturnType<typeof watchModes> | undefined;
    try {
      // A generated token secret (kept in DATA_DIR/token-secret) and a journal compacted after every few writes.
      const options = { dataDir, tokenSecret: undefined, compactAfterBytes: 512 } as const;
      const api = await startTestServer(options);
      servers.push(api);
      assertPrivate(await fileModes(dataDir), 'after start');
      assert.ok((await readdir(dataDir)).includes('token-secret'));
      assert.ok((await readdir(dataDir)).includes('plainrest.lock'));
      await assertDirectoryNotWorldWritable(dataDir, 'after start');

      watcher = watchModes(dataDir);
      const first = await exercise(api, 6);
      assertPrivate(await fileModes(dataDir), 'after writes and compactions');
      assertNoSecret(
        await readEveryFile(dataDir),
        [...first.passwords, ...first.tokens, TEST_ADMIN_PASSWORD],
        'DATA_DIR while running',
      );
      const secret = (await readFile(join(dataDir, 'token-secret'), 'utf8')).trim();
      await api.close();
      assertPrivate(await fileModes(dataDir), 'after shutdown');

      const again = await startTestServer(options);
      servers.push(again);
      assertPrivate(await fileModes(dataDir), 'after a restart');
      const second = await exercise(again, 1);
      await again.close();
      watcher.close();

      const files = await fileModes(dataDir);
      const kept = [
        'deliveries.json',
        'idempotency_keys.json',
        'keys.json',
        'orders.json',
        'products.json',
        'token-secret',
        'users.json',
        'webhooks.json',
      ];
      // Nothing is rewritten at a stop: journal segments stay, from the last compaction's snapshots on.
      const segments = files.map(({ name }) => name).filter((name) => SEGMENT.test(name));
      assert.deepEqual(
        files
          .map(({ name }) => name)
          .filter((name) => !SEGMENT.test(name))
          .sort(),
        kept,
        'a clean shutdown leaves the snapshots and the secret',
      );
      assert.ok(segments.length > 0, 'the journal segments are kept');
      const covered = (JSON.parse(await readFile(join(dataDir, 'users.json'), 'utf8')) as { journal_seq: number })
        .journal_seq;
      const seqs = [];
      for (const segment of segments) {
        for (const line of (await readFile(join(dataDir, segment), 'utf8')).split('\n').filter((text) => text !== ''))
          seqs.push((JSON.parse(line) as { seq: number }).seq);
      }
      assert.ok(
        seqs.length > 0 && Math.min(...seqs) <= covered + 1,
        `the journal (from seq ${Math.min(...seqs)}) goes on from the snapshots (journal_seq ${covered})`,
      );
      assertPrivate(files, 'after the second shutdown');
      assertPrivate(
        [...watcher.seen].map(([name, mode]) => ({ name, mode })),
        'files seen while they existed',
      );
      assert.ok(
        [...watcher.seen.keys()].some((name) => /^journal-\d+\.jsonl$/.test(name)),
        'journal segments were seen',
      );
      const temporary = [...watcher.seen.keys()].filter((name) => name.endsWith('.tmp'));
      t.diagnostic(
        `files seen by the watcher: ${watcher.seen.size} (${temporary.length} temporary: ${temporary.join(', ')})`,
      );
      await assertDirectoryNotWorldWritable(dataDir, 'at the end');

      const everything = await readEveryFile(dataDir);
      const secrets = [...first.passwords, ...first.tokens, ...second.passwords, ...second.tokens, TEST_ADMIN_PASSWORD];
      assertNoSecret(everything, secrets, 'DATA_DIR after shutdown');
      assert.ok(everything.includes(secret), 'the token secret is kept in DATA_DIR/token-secret');
    } finally {
      watcher?.close();
      for (const server of servers) await server.close();
      await root.remove();
    }
  });

  test('modes do not depend on the umask: under umask 000 files are still 0600 and the data directory is not world-writable', async () => {
    const root = await temporaryDirectory();
    const dataDir = join(root.path, 'data');
    const previous = process.umask(0o000);
    let api: TestServer | undefined;
    try {
      api = await startTestServer({ dataDir, tokenSecret: undefined, compactAfterBytes: 512 });
      await exercise(api, 2);
      assertPrivate(await fileModes(dataDir), 'under umask 000, running');
      await api.close();
      assertPrivate(await fileModes(dataDir), 'under umask 000, after shutdown');
      await assertDirectoryNotWorldWritable(dataDir, 'under umask 000');
    } finally {
      process.umask(previous);
      await api?.close();
      await root.remove();
    }
  });
});

// ---------------------------------------------------------------------------------------
// Logs

/** A database stand-in that refuses the next transaction with a message the test writes (as drivers quote failing rows). */
class RefusingPersistence implements Persistence {
  readonly writable = true;
  refuseWith: ((changes: readonly Change[]) => string) | undefined;

  async persist(changes: readonly Change[]): Promise<void> {
    const refuse = this.refuseWith;
    this.refuseWith = undefined;
    if (refuse !== undefined) throw new Error(refuse(changes));
  }

  async close(): Promise<void> {}
}

interface LoggedServer {
  readonly api: TestServer;
  readonly logger: Logger & { lines: { level: string; message: string }[] };
  readonly persistence: RefusingPersistence;
}

async function loggedServer(format: 'json' | 'text'): Promise<LoggedServer> {
  const logger = recordingLogger();
  const persistence = new RefusingPersistence();
  const api = await startTestServer({ accessLog: format, logger, store: new MemoryStore(new Map(), persistence) });
  return { api, logger, persistence };
}

/** The log from line `from` on, one `level message` per line. */
function logText(server: LoggedServer, from = 0): string {
  return server.logger.lines
    .slice(from)
    .map(({ level, message }) => `${level} ${message}`)
    .join('\n');
}

for (const format of ['json', 'text'] as const) {
  describe(`secrets in logs (access log '${format}', logger info/warn/error)`, () => {
    let server: LoggedServer;
    before(async () => {
      server = await loggedServer(format);
    });
    after(() => server.api.close());

    test('logins, password changes, wrong passwords, bad tokens, secrets in query strings: no line holds a secret', async () => {
      const { api } = server;
      const secrets: string[] = [TEST_TOKEN_SECRET, TEST_ADMIN_PASSWORD, api.token ?? 'no admin token'];
      const responses: TestResponse[] = [];
      const keep = async (response: Promise<TestResponse>): Promise<TestResponse> => {
        const answer = await response;
        responses.push(answer);
        return answer;
      };

      const first = password('first');
      const email = `logged-${format}@example.com`;
      const created = await keep(api.post('/v1/users', { name: 'Logged', email, password: first }));
      assert.equal(created.status, 201);
      const id = Number(created.body.id);
      const portuguese = password('senha');
      const createdPt = await keep(
        api.post('/v1/usuarios', { nome: 'Registrada', email: `pt-${format}@example.com`, senha: portuguese }),
      );
      assert.equal(createdPt.status, 201);
      const token = await login(api, email, first);
      const user = api.as(token);
      const second = password('second');
      const third = password('third');
      assert.equal((await keep(user.patch(`/v1/users/${id}`, { password: second }))).status, 200);
      assert.equal((await keep(user.put(`/v1/users/${id}`, { name: 'Logged', email, password: third }))).status, 200);
      const wrong = password('wrong');
      for (const credentials of [
        { email, password: wrong },
        { email: 'nobody@example.com', password: wrong },
      ]) {
        assertProblem(
          await keep(api.as(undefined).post('/v1/tokens', credentials)),
          401,
          'invalid_credentials',
          '/v1/tokens',
        );
      }
      const forged = signToken(
        { sub: String(id), iat: 1, exp: 4_102_444_800 },
        'another-secret-of-at-least-32-characters!',
      );
      const garbage = `garbage-token-${Math.random().toString(36).slice(2)}`;
      const basic = Buffer.from(`${email}:${third}`).toString('base64');
      for (const authorization of [
        `Bearer ${token}x`,
        `Bearer ${forged}`,
        `Bearer ${garbage}`,
        `Basic ${basic}`,
        `Bearer ${third}`,
      ]) {
        const refused = await keep(api.get(`/v1/users/${id}`, { authorization }));
        assert.equal(refused.status, 401, refused.text);
      }
      const relogin = await keep(api.as(undefined).post('/v1/tokens', { email, password: third }));
      assert.equal(relogin.status, 201); // a real login, whose token is a secret too
      const fresh = String(relogin.body.access_token);
      const inQuery: [path: string, parameter: string][] = [
        [`/v1/products?access_token=${token}`, 'access_token'],
        [`/v1/users/${id}?token=${fresh}`, 'token'],
        [`/v1/users?password=${third}`, 'password'],
        [`/v1/users?email=${email}&senha=${third}`, 'senha'],
      ];
      for (const [path, parameter] of inQuery) {
        const refused = await keep(user.get(path));
        assertProblem(refused, 400, 'invalid_query', path.split('?')[0] as string, [
          { field: parameter, code: 'unknown_parameter' },
        ]);
      }
      const loginWithQuery = await keep(
        api.as(undefined).post(`/v1/tokens?password=${third}`, { email, password: third }),
      );
      assertProblem(loginWithQuery, 400, 'invalid_query', '/v1/tokens', [
        { field: 'password', code: 'unknown_parameter' },
      ]);

      secrets.push(first, portuguese, second, third, wrong, token, forged, garbage, basic, fresh);
      const log = logText(server);
      assert.ok(server.logger.lines.length >= responses.length, 'one access-log line per request');
      assertNoSecret(log, secrets, 'the log');
      assertNoMatch(log, HASH, 'the log');
      assertNoMatch(log, JWT, 'the log');
      for (const response of responses) {
        assertNoSecret(
          response.text,
          secrets.filter((secret) => secret !== fresh),
          'an answer',
        ); // the login answer carries its own token
        assertNoMatch(response.text, HASH, 'an answer');
      }
    });

    test('a 500 whose cause quotes the failing row: the answer and the log hold no hash', async () => {
      const { api, persistence } = server;
      const from = server.logger.lines.length;
      const secret = password('row');
      // As database drivers do ("Failing row contains (…)"): the row holds the password hash.
      persistence.refuseWith = (changes) =>
        `new row violates check constraint; failing row contains ${JSON.stringify(changes)}`;
      const failed = await api.post('/v1/users', { name: 'Row', email: `row-${format}@example.com`, password: secret });
      assertProblem(failed, 500, 'internal_error', '/v1/users');
      assertNoSecret(failed.text, [secret], 'the 500 answer');
      assertNoMatch(failed.text, HASH, 'the 500 answer');
      assert.ok(
        server.logger.lines.slice(from).some(({ level }) => level === 'error'),
        'the failure is logged',
      );
      const log = logText(server, from);
      assertNoSecret(log, [secret], 'the log');
      assertNoMatch(log, HASH, 'the log');
    });

    test('a 500 whose cause quotes the password itself: the answer and the log do not', async () => {
      const { api, persistence } = server;
      const from = server.logger.lines.length;
      const secret = password('cause');
      persistence.refuseWith = () => `could not store the user whose password is ${secret}`;
      const failed = await api.post('/v1/users', {
        name: 'Cause',
        email: `cause-${format}@example.com`,
        password: secret,
      });
      assertProblem(failed, 500, 'internal_error', '/v1/users');
      assertNoSecret(failed.text, [secret], 'the 500 answer');
      assert.ok(
        server.logger.lines.slice(from).some(({ level }) => level === 'error'),
        'the failure is logged',
      );
      assertNoSecret(logText(server, from), [secret], 'the log');
    });
  });
}

// ---------------------------------------------------------------------------------------
// Error answers

describe('error answers never echo the password they were sent', () => {
  let api: TestServer;
  let userId: number;
  const taken = 'taken@example.com';
  before(async () => {
    api = await startTestServer({ maxBodyBytes: 4096 });
    userId = await createUser(api, { email: taken, password: password('taken') });
  });
  after(() => api.close());

  interface Refusal {
    readonly method: string;
    readonly path: string;
    /** Sent as JSON unless it is already text. */
    readonly body: unknown;
    readonly secret: string;
    readonly status: number;
    readonly code: string;
    readonly errors?: { field: string; code: string }[];
    readonly headers?: Record<string, string>;
  }

  /** Sends the body, checks the exact problem, then that the secret is nowhere in the answer, headers included. */
  async function refused({ method, path, body, secret, status, code, errors, headers = {} }: Refusal): Promise<void> {
    const response = await api.request(method, path, {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers,
    });
    assertProblem(response, status, code, path, errors);
    assertNoSecret(response.text, [secret], `${method} ${path} → ${status}`);
    for (const [name, value] of response.headers) assertNoSecret(value, [secret], `header ${name}`);
  }

  test('422 for a password too short or too long, in either vocabulary and on every write', async () => {
    const short = 'Sh0rt!x';
    const long = `${password('long')}${'x'.repeat(200)}`;
    for (const secret of [short, long]) {
      const invalid = { status: 422, code: 'validation_failed', secret };
      const errors = [{ field: 'password', code: secret === short ? 'too_short' : 'too_long' }];
      const portuguese = [{ field: 'senha', code: secret === short ? 'too_short' : 'too_long' }];
      await refused({
        ...invalid,
        method: 'POST',
        path: '/v1/users',
        body: { name: 'N', email: 'n@example.com', password: secret },
        errors,
      });
      const senha = { nome: 'N', email: 'n@example.com', senha: secret };
      await refused({ ...invalid, method: 'POST', path: '/v1/usuarios', body: senha, errors: portuguese });
      await refused({ ...invalid, method: 'PATCH', path: `/v1/users/${userId}`, body: { password: secret }, errors });
      await refused({
        ...invalid,
        method: 'PUT',
        path: `/v1/users/${userId}`,
        body: { name: 'N', email: taken, password: secret },
        errors,
      });
    }
    const tooLong = `${password('login')}${'y'.repeat(200)}`;
    await refused({
      method: 'POST',
      path: '/v1/tokens',
      body: { email: taken, password: tooLong },
      secret: tooLong,
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'password', code: 'too_long' }],
    });
    const typed = password('typed');
    await refused({
      method: 'PATCH',
      path: `/v1/users/${userId}`,
      body: { password: [typed] },
      secret: typed,
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'password', code: 'invalid_type' }],
    });
  });

  test('400 for a malformed body, or one that is not an object, holding a password', async () => {
    const secret = password('malformed');
    const malformed = { secret, status: 400, code: 'malformed_json' };
    await refused({
      ...malformed,
      method: 'POST',
      path: '/v1/users',
      body: `{"name":"N","email":"n@example.com","password":"${secret}"`,
    });
    await refused({
      ...malformed,
      method: 'POST',
      path: '/v1/tokens',
      body: `{"email":"${taken}","password":"${secret}",}`,
    });
    await refused({
      method: 'PATCH',
      path: `/v1/users/${userId}`,
      body: `["${secret}"]`,
      secret,
      status: 400,
      code: 'body_not_object',
    });
  });

  test('409 for a duplicate email sent with a password', async () => {
    const secret = password('duplicate');
    const body = { name: 'Twin', email: taken.toUpperCase(), password: secret };
    await refused({ method: 'POST', path: '/v1/users', body, secret, status: 409, code: 'duplicate_value' });
  });

  test('401 for a wrong password, 413 and 415 for bodies holding one, 422 for a reused idempotency key', async () => {
    const wrong = password('wrong');
    const credentials = { email: taken, password: wrong };
    await refused({
      method: 'POST',
      path: '/v1/tokens',
      body: credentials,
      secret: wrong,
      status: 401,
      code: 'invalid_credentials',
    });
    const big = password('big');
    const padded = { name: 'Big', email: 'big@example.com', password: big, padding: 'z'.repeat(5000) };
    await refused({
      method: 'POST',
      path: '/v1/users',
      body: padded,
      secret: big,
      status: 413,
      code: 'payload_too_large',
    });
    const typed = password('media');
    await refused({
      method: 'POST',
      path: '/v1/users',
      body: { name: 'M', email: 'm@example.com', password: typed },
      secret: typed,
      status: 415,
      code: 'unsupported_media_type',
      headers: { 'content-type': 'text/plain' },
    });
    const key = { 'idempotency-key': `secret-key-${Math.random().toString(36).slice(2)}` };
    const first = password('idem-1');
    const created = await api.post('/v1/users', { name: 'Idem', email: 'idem@example.com', password: first }, key);
    assert.equal(created.status, 201, created.text);
    assertNoSecret(created.text, [first], 'the 201');
    const second = password('idem-2');
    const body = { name: 'Idem', email: 'idem@example.com', password: second };
    await refused({
      method: 'POST',
      path: '/v1/users',
      body,
      secret: second,
      status: 422,
      code: 'idempotency_key_reused',
      headers: key,
    });
  });
});

// ---------------------------------------------------------------------------------------
// Representations

describe('a user is never shown with a password or its hash', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  const FORBIDDEN_KEYS = ['password', 'senha', 'password_hash'];

  function assertNoPasswordIn(response: TestResponse, secrets: readonly string[], where: string): void {
    assert.ok(response.status < 300, `${where}: ${response.status} ${response.text}`);
    assertNoSecret(response.text, secrets, where);
    assertNoMatch(response.text, HASH, where);
    const records: unknown[] =
      response.body === undefined ? [] : Array.isArray(response.body.data) ? response.body.data : [response.body];
    for (const record of records) {
      for (const key of FORBIDDEN_KEYS)
        assert.ok(!Object.hasOwn(record as object, key), `${where}: a user shows "${key}"`);
    }
  }

  test('POST, GET item and list, PUT, PATCH, HEAD, both vocabularies, as the admin and as the user', async () => {
    const secrets = [password('shown-1'), password('shown-2'), password('shown-3'), password('shown-4')] as const;
    const email = 'shown@example.com';
    const created = await api.post('/v1/users', { name: 'Shown', email, password: secrets[0] });
    assertNoPasswordIn(created, secrets, 'POST /v1/users');
    const id = Number(created.body.id);
    const user = api.as(await login(api, email, secrets[0]));
    const createdPt = await api.post('/v1/usuarios', {
      nome: 'Mostrada',
      email: 'mostrada@example.com',
      senha: secrets[1],
    });
    assertNoPasswordIn(createdPt, secrets, 'POST /v1/usuarios');
    assertNoPasswordIn(await user.patch(`/v1/users/${id}`, { password: secrets[2] }), secrets, 'PATCH /v1/users/{id}');
    assertNoPasswordIn(
      await user.put(`/v1/usuarios/${id}`, { nome: 'Shown', email, senha: secrets[3] }),
      secrets,
      'PUT /v1/usuarios/{id}',
    );
    assertNoPasswordIn(
      await user.patch(`/v1/usuarios/${id}`, { senha: secrets[3] }),
      secrets,
      'PATCH /v1/usuarios/{id} (same password)',
    );
    for (const client of [api, user]) {
      for (const path of [`/v1/users/${id}`, `/v1/usuarios/${id}`]) {
        assertNoPasswordIn(await client.get(path), secrets, `GET ${path}`);
        const head = await client.request('HEAD', path);
        assert.equal(head.status, 200);
        assert.equal(head.text, '');
      }
    }
    const lists = [
      '/v1/users?limit=100',
      '/v1/usuarios?limite=100',
      `/v1/users?email=${email}`,
      '/v1/users?sort=-email',
      '/v1/usuarios?papel=user&ordenar=nome',
    ];
    for (const path of lists) {
      assertNoPasswordIn(await api.get(path), secrets, `GET ${path}`);
    }
    const login201 = await api.as(undefined).post('/v1/tokens', { email, password: secrets[3] });
    assert.equal(login201.status, 201);
    assert.deepEqual(Object.keys(login201.body).sort(), ['access_token', 'expires_in', 'token_type', 'user_id']);
    assertNoSecret(login201.text, secrets, 'the token answer');
  });
});
