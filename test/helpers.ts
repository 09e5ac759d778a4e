// Test support: a real plainrest server on port 0 with fresh state per test, and a
// small client that returns status, headers and the parsed JSON body (fetch's requests,
// sent on node:http: fetch-on-http.ts). Requests carry the administrator's bearer token
// unless a test asks for another caller.
// Starting a server is cheap: the administrator's password is hashed once per test
// process, not at every start (see startTestServer), and every password at scrypt's
// lowest cost (TEST_PASSWORD_HASH_COST).

import type { ChildProcess } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { afterEach, test } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAdmin } from '../src/server/bootstrap-admin.ts';
import { signToken } from '../src/auth/jwt.ts';
import { resolveConfig, SILENT_LOGGER } from '../src/config/config.ts';
import { recordToStore } from '../src/handlers/write-record.ts';
import type { Logger, ResourcesDeclaration, RunningServer, ServerOptions, Store, StoredRecord } from '../src/index.ts';
import { MemoryStore, startServer } from '../src/index.ts';
import { openStore } from '../src/store/open-store.ts';
import { NO_PLAN } from '../src/store/store.ts';
import { isoTimestamp } from '../src/records/timestamps.ts';
import { EXAMPLE, users } from './example-definitions.ts';
import { fetchOnHttp } from './fetch-on-http.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

/** Known credentials, so tests can log in and sign their own tokens. */
export const TEST_ADMIN_EMAIL = 'admin@example.com';
export const TEST_ADMIN_PASSWORD = 'admin-password-for-tests';
export const TEST_TOKEN_SECRET = 'test-token-secret-of-at-least-32-characters';
/**
 * scrypt's lowest cost (ServerOptions.passwordHashCost): about 4 ms a hash against 65 for the default, on the thousand
 * passwords the suite hashes. Where the cost itself is the point, a test starts its server without it.
 */
export const TEST_PASSWORD_HASH_COST = 1024;
export const TEST_AUTH_OPTIONS = {
  adminPassword: TEST_ADMIN_PASSWORD,
  tokenSecret: TEST_TOKEN_SECRET,
  passwordHashCost: TEST_PASSWORD_HASH_COST,
} as const;

/**
 * The whole environment of a plainrest a test starts as a process, so that the test's own never leaks in: PATH, the
 * suite's hash cost (PASSWORD_HASH_COST: at the default, a process's first hash also faults in its 16 MiB, about 0.1 s
 * of CPU a start on the 2-core machine), then `env`. A test of the default cost gives its process PATH alone.
 */
export function processEnvironment(env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST), ...env };
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or undefined for an empty body or the home page (HTML). */
  readonly body: any;
  readonly text: string;
}

export interface RequestOptions {
  /** Sent as JSON unless it is already a string. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export interface TestServer {
  readonly url: string;
  readonly server: RunningServer;
  /** The bearer token these requests carry, or undefined for none. */
  readonly token: string | undefined;
  /** The same server, with another caller's token (undefined: no Authorization header). */
  as(token: string | undefined): TestServer;
  /** Every request to one process, where TEST_STORE=postgres spreads them over two (for what holds within one process). */
  pinned(): TestServer;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  put(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  patch(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  delete(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * A server in memory only (dataDir null), empty but for the administrator unless `seed: true` is passed; rate limiting off unless asked for.
 *
 * Each start would cost two scrypt hashes, about 0.2 s on a 2-core machine: the start
 * creating the administrator, and the login. Where nothing can tell the difference,
 * the administrator that the start would create is put into a fresh store beforehand
 * (with the hash made once per test process) and the token is signed with
 * TEST_TOKEN_SECRET instead of logging in: when the options leave the administrator,
 * the token secret and storage as the defaults here, and the login would leave no trace
 * (no rate limit to spend a request of, no access log to show it). Other options take
 * the long way, as does startTestServerWithAdminBootstrap.
 */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  if (
    process.env['TEST_STORE'] === 'postgres' &&
    options.dataDir === undefined &&
    options.store === undefined &&
    options.seed !== true
  ) {
    return startPairOnOneDatabase(options);
  }
  if (!adminCanBePutInFirst(options) || loginWouldLeaveATrace(options))
    return startTestServerWithAdminBootstrap(options);
  return startWithAdminInPlace(options);
}

/**
 * startTestServer without the helper's login request even where the rate limiter or the
 * access log would have seen it, for tests that count neither; throws for the options
 * that need the long way (administrator, token secret, storage of the test's own).
 */
export async function startTestServerWithoutLogin(options: ServerOptions = {}): Promise<TestServer> {
  if (!adminCanBePutInFirst(options))
    throw new Error('these options need startTestServerWithAdminBootstrap: the administrator cannot be put in first');
  return startWithAdminInPlace(options);
}

/** startTestServer the long way: the start creates the administrator (a scrypt hash) and the helper logs in (another). */
export async function startTestServerWithAdminBootstrap(options: ServerOptions = {}): Promise<TestServer> {
  const server = await startServer({
    port: 0,
    dataDir: null,
    seed: false,
    rateLimit: 0,
    ...TEST_AUTH_OPTIONS,
    ...options,
  });
  return connect(server);
}

/** Options that change neither how the administrator comes to be nor where it is stored. */
const OPTIONS_BLIND_TO_THE_ADMIN: ReadonlySet<string> = new Set([
  'port',
  'host',
  'seed',
  'dataDir',
  'maxBodyBytes',
  'maxBodyBytesInFlight',
  'compactAfterBytes',
  'corsOrigins',
  'rateLimit',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'keepAliveTimeoutMs',
  'clock',
  'accessLog',
  'logger',
  'events',
  'oidcIssuer',
  'oidcJwksUrl',
  'oidcAudience',
  'oidcRoleClaim',
]);

/** True when the administrator the start would create can be put into a memory store beforehand. */
function adminCanBePutInFirst(options: ServerOptions): boolean {
  return (
    Object.keys(options).every((name) => OPTIONS_BLIND_TO_THE_ADMIN.has(name)) && (options.dataDir ?? null) === null
  );
}

/** True when the helper's login would spend a request of the address's rate limit, or show as an access-log line. */
function loginWouldLeaveATrace(options: ServerOptions): boolean {
  return (options.rateLimit ?? 0) !== 0 || (options.accessLog ?? 'off') !== 'off';
}

let testCluster: Promise<PostgresCluster> | undefined;

/**
 * TEST_STORE=postgres: a new database on one throwaway PostgreSQL per test process
 * (postgres-cluster.ts), for the servers startTestServer starts on the default storage,
 * so the same HTTP suites run against the PostgreSQL store.
 */
async function testDatabase(withAdministrator: boolean): Promise<{ url: string; drop: () => Promise<void> }> {
  if (POSTGRES_SKIP !== false) throw new Error(`TEST_STORE=postgres: ${POSTGRES_SKIP}`);
  testCluster ??= startCluster().then((cluster) => {
    // Stopped once the file's tests are done and nothing else is left to run.
    cluster.unref();
    process.once('beforeExit', () => void cluster.stop());
    return cluster;
  });
  const cluster = await testCluster;
  const created = (name: string): { url: string; drop: () => Promise<void> } => ({
    url: cluster.url(name),
    drop: () => cluster.dropDatabase(name),
  });
  if (!withAdministrator) return created(await cluster.createDatabase());
  administratorTemplate ??= (async () => {
    const template = await cluster.createDatabase();
    // The example domain's tables and the administrator (user 1), as a first start makes them.
    const server = await startServer({
      port: 0,
      dataDir: null,
      seed: false,
      ...TEST_AUTH_OPTIONS,
      database: cluster.url(template),
    });
    await server.close();
    return template;
  })();
  return created(await cluster.createDatabase(await administratorTemplate));
}

let administratorTemplate: Promise<string> | undefined;

/**
 * A skip reason, when a suite runs again on PostgreSQL (againOnSharedPostgres), for its tests that start no server on
 * the default storage (their own data directory, memory store or cluster): they ran as they are in the suite's file.
 */
export function notAgainOnSharedPostgres(): string | false {
  return process.env['TEST_STORE'] === 'postgres'
    ? 'runs in its own file: it starts no server on the shared PostgreSQL'
    : false;
}

/**
 * Runs a suite file again with TEST_STORE=postgres, in this test process: its servers are
 * pairs on one throwaway PostgreSQL. Where PostgreSQL is not installed, one skipped test says why.
 */
export async function againOnSharedPostgres(suite: string, load: () => Promise<unknown>): Promise<void> {
  if (POSTGRES_SKIP !== false) {
    test(`${suite} on two servers sharing PostgreSQL`, { skip: POSTGRES_SKIP }, () => {});
    return;
  }
  process.env['TEST_STORE'] = 'postgres';
  await load();
}

/**
 * TEST_STORE=postgres: two servers on one database, started at once, and requests sent
 * to each in turn, as a balancer in front of two processes would (docs/deploying.md). A
 * test's writes through one are read through the other.
 */
async function startPairOnOneDatabase(options: ServerOptions): Promise<TestServer> {
  // As startTestServer does in memory: where the options leave the administrator alone, the
  // database starts as a copy of one where it exists (no password to hash), with a signed token.
  const adminInPlace = adminCanBePutInFirst(options);
  const database = await testDatabase(adminInPlace);
  const settings: ServerOptions = {
    port: 0,
    dataDir: null,
    seed: false,
    rateLimit: 0,
    ...(adminInPlace
      ? { tokenSecret: TEST_TOKEN_SECRET, passwordHashCost: TEST_PASSWORD_HASH_COST }
      : TEST_AUTH_OPTIONS),
    ...options,
    database: database.url,
  };
  // One after the other: the second finds the administrator the first created, and ids stay as in one process
  // (started at once, both would take an id for it; that race is postgres-processes.test.ts's).
  const first = await startServer(settings);
  const second = await startServer(settings);
  let turn = 0;
  const balanced: RunningServer = {
    get url() {
      turn += 1;
      return turn % 2 === 0 ? first.url : second.url;
    },
    app: first.app,
    close: async () => {
      await Promise.all([first.close(), second.close()]);
      // A database per test, dropped after it: a test process makes hundreds.
      await database.drop();
    },
  };
  const anonymous = wrap(balanced, undefined);
  return anonymous.as(adminInPlace ? tokenFor(1) : await login(anonymous, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD));
}

/** Starts with the administrator already in the store, and a token signed for it. */
async function startWithAdminInPlace(options: ServerOptions): Promise<TestServer> {
  const settings: ServerOptions = {
    port: 0,
    dataDir: null,
    seed: false,
    rateLimit: 0,
    tokenSecret: TEST_TOKEN_SECRET,
    passwordHashCost: TEST_PASSWORD_HASH_COST,
    ...options,
  };
  const store = await openStore(resolveConfig(settings), EXAMPLE); // what the start would open (no `resources` option here: the example domain)
  const adminId = await addTestAdministrator(store);
  // No adminPassword: the administrator exists and its hash is already that of TEST_ADMIN_PASSWORD.
  const server = await startServer({ ...settings, store });
  return wrap(server, tokenFor(adminId));
}

let administratorAsCreated: Promise<StoredRecord> | undefined;

/** The administrator as the start creates it (src/server/bootstrap-admin.ts) from TEST_AUTH_OPTIONS, made once per process. */
function testAdministrator(): Promise<StoredRecord> {
  administratorAsCreated ??= (async () => {
    const store = new MemoryStore(new Map());
    await ensureAdmin(users, store, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, SILENT_LOGGER, TEST_PASSWORD_HASH_COST);
    const admin = store.findIgnoringCase('users', 'email', TEST_ADMIN_EMAIL);
    if (admin === undefined) throw new Error('ensureAdmin created no administrator');
    return admin;
  })();
  return administratorAsCreated;
}

/** Commits the administrator with the next user id, as the start would; returns the id. */
async function addTestAdministrator(store: Store): Promise<number> {
  const now = isoTimestamp();
  const fields = await testAdministrator();
  return store.serve(NO_PLAN, (view) =>
    view.write(() => {
      const record = recordToStore(users, fields, view.allocateId('users'), now, now);
      return { changes: [{ kind: 'put', collection: 'users', record }], result: record.id as number };
    }),
  );
}

/** Runs `run` against a fresh test server and closes it afterwards, whatever happens. */
export async function withTestServer(options: ServerOptions, run: (api: TestServer) => Promise<void>): Promise<void> {
  const api = await startTestServer(options);
  try {
    await run(api);
  } finally {
    await api.close();
  }
}

/** Wraps a running server started with TEST_AUTH_OPTIONS, logged in as the administrator. */
export async function connect(server: RunningServer): Promise<TestServer> {
  const anonymous = wrap(server, undefined);
  return anonymous.as(await login(anonymous, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD));
}

/** POST /v1/tokens; returns the access token or throws. */
export async function login(api: TestServer, email: string, password: string): Promise<string> {
  const response = await api.as(undefined).post('/v1/tokens', { email, password });
  if (response.status !== 201) throw new Error(`login failed: ${response.status} ${response.text}`);
  return response.body.access_token as string;
}

/** A token signed with TEST_TOKEN_SECRET, without logging in (fast: no password hashing). */
export function tokenFor(userId: number, lifetimeSeconds = 3600, issuedAt = Math.floor(Date.now() / 1000)): string {
  return signToken({ sub: String(userId), iat: issuedAt, exp: issuedAt + lifetimeSeconds }, TEST_TOKEN_SECRET);
}

export function wrap(server: RunningServer, token: string | undefined): TestServer {
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    if (token !== undefined && !hasAuthorization) headers['authorization'] = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      }
    }
    const { status, headers: answerHeaders, text } = await fetchOnHttp(server.url + path, method, headers, body);
    let parsed: unknown;
    // Every answer is JSON but the home page's HTML.
    if (text !== '' && !(answerHeaders.get('content-type') ?? '').startsWith('text/html')) parsed = JSON.parse(text);
    return { status, headers: answerHeaders, body: parsed, text };
  };
  return {
    url: server.url,
    server,
    token,
    as: (other) => wrap(server, other),
    // Spreading reads the URL once: a balanced pair's turn stops there.
    pinned: () => wrap({ ...server, url: server.url }, token),
    request,
    get: (path, headers) => request('GET', path, { headers }),
    post: (path, body, headers) => request('POST', path, { body, headers }),
    put: (path, body, headers) => request('PUT', path, { body, headers }),
    patch: (path, body, headers) => request('PATCH', path, { body, headers }),
    delete: (path, headers) => request('DELETE', path, { headers }),
    close: () => server.close(),
  };
}

/** A fresh temporary directory, removed by the returned cleanup function. */
export async function temporaryDirectory(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'plainrest-test-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Every file of a directory (not below it) with the SHA-256 of its bytes, to show that nothing changed. */
export async function hashDirectory(directory: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) {
    hashes[name] = createHash('sha256')
      .update(await readFile(join(directory, name)))
      .digest('hex');
  }
  return hashes;
}

/** Creates a product and returns its record. */
export async function createProduct(
  api: TestServer,
  fields: Partial<{ name: string; category: string; price: number; description: string }> = {},
): Promise<any> {
  const response = await api.post('/v1/products', { name: 'Widget', category: 'tools', price: 9.99, ...fields });
  if (response.status !== 201) throw new Error(`product not created: ${response.status} ${response.text}`);
  return response.body;
}

/** Creates a user (with a password when given) and returns a client acting as that user, with its id. */
export async function createUserClient(
  api: TestServer,
  fields: Record<string, unknown> = {},
): Promise<{ id: number; client: TestServer }> {
  const id = await createUser(api, fields);
  return { id, client: api.as(tokenFor(id)) };
}

/** Creates a user and returns its id. */
export async function createUser(api: TestServer, fields: Record<string, unknown> = {}): Promise<number> {
  const unique = Math.random().toString(36).slice(2, 10);
  const response = await api.post('/v1/users', { name: 'Test User', email: `user-${unique}@example.com`, ...fields });
  if (response.status !== 201) throw new Error(`user not created: ${response.status} ${response.text}`);
  return response.body.id as number;
}

/** The problem-details members every error body carries (README: Errors). */
export function problemShape(status: number, code: string): Record<string, unknown> {
  return { type: 'about:blank', status, code };
}

export { mulberry32 } from './random.ts';

/** A logger that keeps every line with its level. */
export function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    info: (message) => lines.push({ level: 'info', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
}

/** SIGKILLs every child in `children` that still runs, waits for each to close, and empties the list. */
export async function killChildren(children: ChildProcess[]): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGKILL');
      await gone;
    }
  }
}

/** Something to undo after the current test (close a server, remove a directory). */
export type Cleanup = () => Promise<void>;

/**
 * Registers an afterEach hook in the calling test file that runs every cleanup handed to
 * the returned `defer` during the test, newest first (servers close before their
 * directories go).
 */
export function cleanUpAfterEach(): (cleanup: Cleanup) => void {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}

/** A fresh temporary directory, removed after the test by `defer` (from cleanUpAfterEach). */
export async function scratchDirectory(defer: (cleanup: Cleanup) => void): Promise<string> {
  const dir = await temporaryDirectory();
  defer(dir.remove);
  return dir.path;
}

/**
 * A request whose headers are sent now and whose body only on `release()`: the server
 * has begun handling it (read what it reads before the body) when another request comes
 * between. For races that must happen the same way every run.
 */
export async function heldRequest(
  api: TestServer,
  method: string,
  path: string,
  body: unknown,
): Promise<{ release(): Promise<TestResponse> }> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  };
  if (api.token !== undefined) headers['authorization'] = `Bearer ${api.token}`;
  const sent = httpRequest(`${api.url}${path}`, { method, headers });
  const answered = new Promise<TestResponse>((resolve, reject) => {
    sent.once('error', reject);
    sent.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        const answer = Buffer.concat(chunks).toString();
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers))
          if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({
          status: response.statusCode ?? 0,
          headers: responseHeaders,
          body: answer === '' ? undefined : JSON.parse(answer),
          text: answer,
        });
      });
    });
  });
  sent.flushHeaders();
  // The socket is handed over on the next tick, before the request can reach the server.
  const [socket] = (await once(sent, 'socket')) as [Socket];
  await bodyReadBegins(socket);
  return {
    release: () => {
      sent.end(text);
      return answered;
    },
  };
}

/** Node publishes each request a server receives here, before its 'request' event. */
const REQUEST_START = 'http.server.request.start';

/**
 * Resolves once an in-process server begins reading the body of the request that arrives
 * on `client`'s connection: its handler has done what it does before the body (routing,
 * authentication, reading the record and the caller). Also once the server has answered
 * without reading it (Node then discards the body). Call it before the request can arrive.
 * Watched through Node's `http.server.request.start` diagnostics channel.
 */
export function bodyReadBegins(client: Socket, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const onRequest = (message: unknown): void => {
      const { request } = message as { request: IncomingMessage };
      if (request.socket.remotePort !== client.localPort) return;
      unsubscribe(REQUEST_START, onRequest);
      request.once('resume', () => {
        clearTimeout(timer);
        resolve();
      });
    };
    const timer = setTimeout(() => {
      unsubscribe(REQUEST_START, onRequest);
      reject(new Error(`no server in this process began reading the request body within ${timeoutMs} ms`));
    }, timeoutMs);
    subscribe(REQUEST_START, onRequest);
  });
}

/** How often `eventually` looks again. */
const POLL_MS = 20;

/**
 * Calls `check` every POLL_MS until it returns without throwing, and resolves with what it
 * returned; once `timeoutMs` have passed, throws its last error. For a state that comes
 * on its own time (background work, a closed connection, a log line), which a fixed pause
 * would wait for too briefly on a busy machine: `check` asserts that state. The default
 * only bounds a hang: a busy machine can take seconds for what takes milliseconds idle.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

/** Notes of up to 600 kB each: a few writes put an event stream's reader that reads nothing far behind. */
export const LARGE_NOTES: ResourcesDeclaration = {
  resources: {
    notes: {
      singular: 'note',
      access: { list: 'user', read: 'user', create: 'user', update: 'admin', delete: 'admin' },
      properties: { text: { type: 'string', maxLength: 600_000 } },
      required: ['text'],
    },
  },
};
