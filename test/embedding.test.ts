// Embedding (README: Embedding): the package imports by name (`exports` with types, through
// the package self-reference, so dist/ must be built: `npm run build`), startServer and
// createApp with the options of README: Configuration in camelCase and the same defaults, no printing and no
// environment reading, a custom logger for failures (a write that fails is a bare 500,
// its cause logged), the `store` option (bring your own Store, here MemoryStore and a
// subclass of it whose writes fail), and clear errors for bad options.
// Every /v1 request carries a bearer token (README: Authentication and permissions): the administrator's, which
// is id 1 in an empty store and id 3 after the example seed (alice 1, bob 2).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { App, RunningServer, ServerOptions } from 'plainrest';
import { createApp, DEFAULTS, MemoryStore, startServer } from 'plainrest';
import type { TestServer } from './helpers.ts';
import {
  TEST_AUTH_OPTIONS,
  TEST_TOKEN_SECRET,
  connect,
  LARGE_NOTES,
  recordingLogger,
  temporaryDirectory,
  tokenFor,
  wrap,
} from './helpers.ts';
import { assertProblem } from './assertions.ts';
import { REPOSITORY_ROOT } from './repository.ts';

/** Mounts an app on our own node:http server, as an embedding program would; requests carry `token`. */
async function mount(app: App, token: string | undefined): Promise<{ api: TestServer; stop: () => Promise<void> }> {
  const server = createServer(app.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async (): Promise<void> => {
    server.closeIdleConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    await app.close();
  };
  const running: RunningServer = { url: `http://127.0.0.1:${port}`, app, close: stop };
  return { api: wrap(running, token), stop };
}

type ConsoleMethod = 'log' | 'info' | 'warn' | 'error' | 'debug';
const CONSOLE_METHODS: readonly ConsoleMethod[] = ['log', 'info', 'warn', 'error', 'debug'];

/** Replaces the console methods with recorders until `restore()`. */
function captureConsole(): { calls: string[]; restore: () => void } {
  const calls: string[] = [];
  const originals = CONSOLE_METHODS.map((method) => [method, console[method]] as const);
  for (const method of CONSOLE_METHODS) {
    console[method] = (...args: unknown[]) => {
      calls.push(`console.${method}: ${args.map(String).join(' ')}`);
    };
  }
  return {
    calls,
    restore: () => {
      for (const [method, original] of originals) console[method] = original;
    },
  };
}

describe('embedding: startServer', () => {
  test('startServer({port: 0, dataDir: null, seed: false}) listens on http://127.0.0.1:<port> and close() stops it', async () => {
    const server = await startServer({ port: 0, dataDir: null, seed: false, ...TEST_AUTH_OPTIONS });
    const match = /^http:\/\/127\.0\.0\.1:(\d+)$/.exec(server.url);
    assert.ok(match, server.url);
    assert.ok(Number(match[1]) > 0);
    const api = await connect(server);
    const health = await api.get('/healthz');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    const products = await api.get('/v1/products');
    assert.equal(products.status, 200);
    assert.equal(products.body.meta.total, 0);
    await server.close();
    await assert.rejects(fetch(`${server.url}/healthz`));
  });

  test('the exported DEFAULTS are the defaults of README: Configuration', () => {
    const { port, host, dataDir, seed, maxBodyBytes } = DEFAULTS;
    assert.deepEqual(
      { port, host, dataDir, seed, maxBodyBytes },
      { port: 3000, host: '127.0.0.1', dataDir: 'data', seed: true, maxBodyBytes: 1_048_576 },
    );
    const { adminEmail, tokenTtlSeconds } = DEFAULTS;
    assert.deepEqual({ adminEmail, tokenTtlSeconds }, { adminEmail: 'admin@example.com', tokenTtlSeconds: 3600 });
    assert.ok(Object.isFrozen(DEFAULTS));
  });

  test('options are honoured: maxBodyBytes gives 413 above it', async () => {
    const server = await startServer({ port: 0, dataDir: null, seed: false, maxBodyBytes: 64, ...TEST_AUTH_OPTIONS });
    try {
      // a signed token, not a login: the login body itself would be larger than 64 bytes
      const api = wrap(server, tokenFor(1));
      const small = await api.post('/v1/products', { name: 'A', category: 'c', price: 1 });
      assert.equal(small.status, 201);
      const large = await api.post('/v1/products', { name: 'A'.repeat(100), category: 'c', price: 1 });
      assert.equal(large.status, 413);
      assert.equal(large.body.code, 'payload_too_large');
      assert.equal(server.app.config.maxBodyBytes, 64);
    } finally {
      await server.close();
    }
  });
});

describe('embedding: createApp', () => {
  test('createApp({dataDir: null}) mounted with http.createServer(app.handle) serves /healthz and the seeded products (seed defaults to true)', async () => {
    const app = await createApp({ dataDir: null, ...TEST_AUTH_OPTIONS });
    assert.equal(typeof app.handle, 'function');
    assert.equal(typeof app.close, 'function');
    assert.equal(app.config.seed, true);
    assert.equal(app.config.dataDir, null);
    assert.deepEqual(await app.recordCounts(), { users: 3, products: 12, orders: 5, keys: 0 }); // alice, bob and the administrator
    const { api: anonymous, stop } = await mount(app, undefined);
    try {
      const health = await anonymous.get('/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      const api = await connect(anonymous.server);
      const products = await api.get('/v1/products');
      assert.equal(products.status, 200);
      assert.equal(products.body.meta.total, 12);
      assert.equal(products.body.data[0].name, 'Espresso beans 1 kg');
    } finally {
      await stop();
    }
  });

  test('createApp({dataDir: null, seed: false}) starts empty', async () => {
    const app = await createApp({ dataDir: null, seed: false, ...TEST_AUTH_OPTIONS });
    assert.deepEqual(await app.recordCounts(), { users: 1, products: 0, orders: 0, keys: 0 }); // the administrator only
    const { api, stop } = await mount(app, tokenFor(1));
    try {
      const created = await api.post('/v1/products', { name: 'A', category: 'c', price: 1 });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('location'), '/v1/products/1');
      assert.deepEqual(await app.recordCounts(), { users: 1, products: 1, orders: 0, keys: 0 });
    } finally {
      await stop();
    }
  });

  test('embedding never reads environment variables', async () => {
    const saved = { ...process.env };
    const variables = {
      PORT: '1234',
      HOST: '0.0.0.0',
      SEED: 'false',
      MAX_BODY_BYTES: '5',
      DATA_DIR: '/nonexistent',
      ADMIN_EMAIL: 'root@elsewhere.example',
      ADMIN_PASSWORD: 'password-from-the-environment',
      TOKEN_SECRET: 'a-token-secret-from-the-environment-only',
      TOKEN_TTL_SECONDS: '7',
    };
    Object.assign(process.env, variables);
    try {
      const app = await createApp({ dataDir: null });
      assert.equal(app.config.port, 3000);
      assert.equal(app.config.host, '127.0.0.1');
      assert.equal(app.config.seed, true);
      assert.equal(app.config.maxBodyBytes, 1_048_576);
      assert.equal(app.config.adminEmail, 'admin@example.com');
      assert.equal(app.config.adminPassword, undefined);
      assert.equal(app.config.tokenSecret, undefined);
      assert.equal(app.config.tokenTtlSeconds, 3600);
      assert.deepEqual(await app.recordCounts(), { users: 3, products: 12, orders: 5, keys: 0 }); // alice, bob and admin@example.com
      await app.close();
    } finally {
      for (const name of Object.keys(variables)) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('embedding: prints nothing without a logger', () => {
  test('a start / request / error / close cycle makes no console call', async () => {
    const dir = await temporaryDirectory();
    const captured = captureConsole();
    try {
      // no adminPassword: the administrator is created with a generated password, which
      // must not be printed either (the logger is silent); the example seed makes it id 3
      const server = await startServer({ port: 0, dataDir: dir.path, tokenSecret: TEST_TOKEN_SECRET });
      const api = wrap(server, tokenFor(3));
      assert.equal((await api.get('/v1/products')).status, 200);
      assert.equal((await api.post('/v1/products', { name: 'A', category: 'c', price: 1 })).status, 201);
      assert.equal((await api.get('/nowhere')).status, 404);
      assert.equal((await api.post('/v1/products', { price: 'x' })).status, 422);
      await server.close();
      const app = await createApp({ dataDir: null });
      const { api: mounted, stop } = await mount(app, undefined);
      assert.equal((await mounted.get('/healthz')).status, 200);
      await stop();
    } finally {
      captured.restore();
      await dir.remove();
    }
    assert.deepEqual(captured.calls, []);
  });

  test(
    'a separate process that embeds the server writes nothing to stdout or stderr',
    { timeout: 60_000 },
    async () => {
      const dir = await temporaryDirectory();
      try {
        // no adminPassword and no tokenSecret: both are generated (the secret kept in the
        // data dir), and neither may be printed. The administrator's token is signed with
        // the kept secret; a failed expectation throws, which would show on stderr.
        const script = `
        import { startServer, createApp } from 'plainrest';
        import { createServer } from 'node:http';
        import { createHmac } from 'node:crypto';
        import { readFileSync } from 'node:fs';
        const dataDir = ${JSON.stringify(dir.path)};
        const server = await startServer({ port: 0, dataDir });
        const secret = readFileSync(dataDir + '/token-secret', 'utf8').trim();
        const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const now = Math.floor(Date.now() / 1000);
        const unsigned = part({ alg: 'HS256', typ: 'JWT' }) + '.' + part({ sub: '3', iat: now, exp: now + 600 });
        const token = unsigned + '.' + createHmac('sha256', secret).update(unsigned).digest('base64url');
        const authorization = 'Bearer ' + token;
        const expect = async (response, status) => {
          const text = await response.text();
          if (response.status !== status) throw new Error('expected ' + status + ', got ' + response.status + ': ' + text);
        };
        await expect(await fetch(server.url + '/v1/products', { headers: { authorization } }), 200);
        await expect(await fetch(server.url + '/v1/products', { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"name":"A","category":"c","price":1}' }), 201);
        await expect(await fetch(server.url + '/v1/products', { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{bad' }), 400);
        await expect(await fetch(server.url + '/v1/products', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 401);
        await expect(await fetch(server.url + '/missing'), 404);
        await server.close();
        const app = await createApp({ dataDir: null });
        const http = createServer(app.handle);
        await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
        await (await fetch('http://127.0.0.1:' + http.address().port + '/healthz')).text();
        http.closeIdleConnections();
        await new Promise((resolve) => http.close(resolve));
        await app.close();
      `;
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
          cwd: REPOSITORY_ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        assert.equal(stderr, '');
        assert.equal(stdout, '');
        assert.equal(code, 0);
      } finally {
        await dir.remove();
      }
    },
  );
});

describe('embedding: the store option', () => {
  test('the server reads and writes through the Store it is given; dataDir and seed are not used', async () => {
    const dir = await temporaryDirectory();
    const kept = {
      id: 7,
      name: 'Kept',
      category: 'c',
      price: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const store = new MemoryStore(
      new Map([['products' as const, { nextId: 8, records: new Map([[7, Object.freeze(kept)]]) }]]),
    );
    const server = await startServer({ port: 0, store, dataDir: dir.path, seed: true, ...TEST_AUTH_OPTIONS });
    try {
      const api = await connect(server);
      assert.deepEqual((await api.get('/v1/products')).body.data, [kept]);
      assert.deepEqual(await server.app.recordCounts(), { users: 1, products: 1, orders: 0, keys: 0 }); // the administrator only: not seeded
      const created = await api.post('/v1/products', { name: 'Through the store', category: 'c', price: 2 });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.id, 8);
      assert.deepEqual(store.get('products', 8), created.body);
      assert.equal(store.findIgnoringCase('users', 'email', 'ADMIN@example.com')?.['role'], 'admin');
      assert.deepEqual(await readdir(dir.path), [], 'nothing is written to dataDir');
    } finally {
      await server.close();
      await dir.remove();
    }
  });
});

describe('embedding: a custom logger receives the 500 log line', () => {
  /** Where the failing store says it could not write: it must reach the log, never the client. */
  const FAILED_PATH = '/var/lib/plainrest-test/journal-000000000002.jsonl';

  /** A Store (brought with the `store` option) whose writes fail from `failing = true` on, as a full disk would. */
  class FailingStore extends MemoryStore {
    failing = false;
    constructor() {
      super(new Map());
    }
    override commit(changes: Parameters<MemoryStore['commit']>[0]): Promise<void> {
      if (!this.failing) return super.commit(changes);
      return Promise.reject(new Error(`ENOSPC: no space left on device, write '${FAILED_PATH}'`));
    }
  }

  test('a failing write is a bare 500 to the client and a log line with the request id to the logger', async () => {
    const logger = recordingLogger();
    const captured = captureConsole();
    const store = new FailingStore();
    let server: RunningServer | undefined;
    try {
      server = await startServer({ port: 0, store, logger, ...TEST_AUTH_OPTIONS });
      const api = await connect(server);
      store.failing = true; // after start-up: the administrator was written fine

      const response = await api.post(
        '/v1/products',
        { name: 'A', category: 'c', price: 1 },
        { 'x-request-id': 'failing-write-1' },
      );
      assertProblem(response, 500, 'internal_error', '/v1/products');
      assert.equal(response.headers.get('x-request-id'), 'failing-write-1');
      assert.equal(response.body.request_id, 'failing-write-1');
      for (const leak of [FAILED_PATH, '/var/lib', 'journal-', 'ENOSPC', 'no space']) {
        assert.equal(response.text.includes(leak), false, `the body leaks ${JSON.stringify(leak)}: ${response.text}`);
      }
      assert.equal(/\bat .*:\d+:\d+/.test(response.text), false, 'no stack trace in the body');

      const errors = logger.lines.filter((line) => line.level === 'error');
      assert.equal(errors.length, 1, JSON.stringify(logger.lines));
      assert.ok(errors[0]?.message.includes('failing-write-1'), errors[0]?.message);
      assert.ok(errors[0]?.message.includes('ENOSPC'), `the cause goes to the log: ${errors[0]?.message}`);

      // one failing request never stops the server
      assert.equal((await api.get('/healthz')).status, 200);
      store.failing = false;
      const later = await api.post('/v1/products', { name: 'B', category: 'c', price: 1 });
      assert.equal(later.status, 201, later.text);
      assert.equal(store.count('products'), 1);
    } finally {
      await server?.close();
      captured.restore();
    }
    assert.deepEqual(captured.calls, []);
  });
});

describe('embedding: invalid options reject with a clear message', () => {
  const cases: { name: string; options: ServerOptions; message: RegExp }[] = [
    { name: 'port -1', options: { port: -1 }, message: /port.*-1/ },
    { name: 'port 65536', options: { port: 65536 }, message: /port.*65536/ },
    { name: 'port 1.5', options: { port: 1.5 }, message: /port.*1\.5/ },
    { name: 'maxBodyBytes 0', options: { maxBodyBytes: 0 }, message: /maxBodyBytes.*0/ },
    { name: 'maxBodyBytes -5', options: { maxBodyBytes: -5 }, message: /maxBodyBytes.*-5/ },
    { name: 'host empty', options: { host: '' }, message: /host/ },
    { name: 'dataDir empty', options: { dataDir: '' }, message: /dataDir/ },
    {
      name: 'events.kept 0',
      options: { events: { kept: 0 } },
      message: /^events\.kept must be a positive integer, not 0$/,
    },
    {
      name: 'events.keptForMs -1',
      options: { events: { keptForMs: -1 } },
      message: /^events\.keptForMs must be an integer of 0 or more, not -1$/,
    },
    {
      name: 'events.heartbeatMs 0.5',
      options: { events: { heartbeatMs: 0.5 } },
      message: /^events\.heartbeatMs must be a positive integer, not 0\.5$/,
    },
    ...[1000, 512, 2_097_152].map((cost) => ({
      name: `passwordHashCost ${cost}`,
      options: { passwordHashCost: cost },
      message: new RegExp(`^passwordHashCost must be a power of two from 1024 to 1048576, not ${cost}$`),
    })),
  ];
  for (const c of cases) {
    test(`startServer with ${c.name} rejects naming the option`, async () => {
      await assert.rejects(startServer({ dataDir: null, seed: false, ...c.options }), (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, c.message);
        return true;
      });
    });
    test(`createApp with ${c.name} rejects naming the option`, async () => {
      await assert.rejects(createApp({ dataDir: null, seed: false, ...c.options }), (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, c.message);
        return true;
      });
    });
  }
});

describe('embedding: an app mounted on a Unix socket', () => {
  test('cuts off a change-feed reader that falls behind, and goes on serving (a reset needs TCP)', async () => {
    const directory = await temporaryDirectory();
    const socketPath = join(directory.path, 'plainrest.sock');
    const app = await createApp({
      dataDir: null,
      resources: LARGE_NOTES,
      events: { streamBufferBytes: 100_000 },
      ...TEST_AUTH_OPTIONS,
    });
    const server = createServer(app.handle);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const authorization = `Bearer ${tokenFor(1)}`; // the administrator, the first user of an empty store
    try {
      // A reader that takes nothing: the kernel's buffers fill, then the server's, and the server cuts it off.
      const stream = request({
        socketPath,
        path: '/v1/events',
        headers: { accept: 'text/event-stream', authorization },
      });
      const cutOff = new Promise<void>((resolve) => {
        stream.on('response', (response) => {
          assert.equal(response.statusCode, 200);
          response.pause();
          response.socket.on('close', () => resolve());
        });
        stream.on('error', () => resolve());
      });
      stream.end();
      await once(stream, 'response');
      let ended = false;
      void cutOff.then(() => {
        ended = true;
      });
      const text = JSON.stringify({ text: 'x'.repeat(500_000) });
      let writes = 0;
      while (!ended && writes < 200) {
        assert.equal(await statusOver(socketPath, 'POST', '/v1/notes', authorization, text), 201);
        writes++;
      }
      await cutOff;
      assert.ok(writes < 200, `cut off after ${writes} writes of 500 kB`);
      assert.equal(await statusOver(socketPath, 'GET', '/healthz', authorization), 200);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await directory.remove();
    }
  });
});

/** The status of one request to a server listening on a Unix socket. */
async function statusOver(
  socketPath: string,
  method: string,
  path: string,
  authorization: string,
  body?: string,
): Promise<number> {
  const headers: Record<string, string> = { authorization };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const sent = request({ socketPath, method, path, headers });
  sent.end(body);
  const [response] = (await once(sent, 'response')) as [IncomingMessage];
  response.resume();
  await once(response, 'end');
  return response.statusCode ?? 0;
}
