// Storage by snapshots (CONTRACT §9, as far as it is implemented: no journal or lock
// yet): one readable JSON file per collection, written atomically before a write is
// acknowledged; restarts keep records and id counters; a corrupt snapshot stops the
// start naming the file and changes nothing; first-start seeding; close() drains.
// Every start ensures the administrator (a user record: id 1 in an empty store, id 3
// after the example seed), and without a configured tokenSecret the data directory
// also holds `token-secret` (mode 0600).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { connect as openSocket } from 'node:net';
import { join } from 'node:path';
import { afterEach, before, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startServer, StartupError } from '../src/index.js';
import type { TestServer } from './helpers.js';
import {
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_AUTH_OPTIONS,
  connect,
  createProduct,
  createUser,
  login,
  startTestServer,
  temporaryDirectory,
  wrap,
} from './helpers.js';

const EXAMPLE_DIR = fileURLToPath(new URL('../data/example/', import.meta.url));
const SNAPSHOT_FILES = ['orders.json', 'products.json', 'users.json'];
/** A data dir started without a configured tokenSecret also keeps the generated one. */
const DATA_DIR_FILES = ['orders.json', 'products.json', 'token-secret', 'users.json'];

interface Snapshot {
  next_id: number;
  records: any[];
}

async function readSnapshot(dataDir: string, collection: string): Promise<Snapshot> {
  return JSON.parse(await readFile(join(dataDir, `${collection}.json`), 'utf8')) as Snapshot;
}

async function recordIds(dataDir: string, collection: string): Promise<number[]> {
  return (await readSnapshot(dataDir, collection)).records.map((record: { id: number }) => record.id);
}

async function hashDirectory(directory: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) {
    hashes[name] = createHash('sha256').update(await readFile(join(directory, name))).digest('hex');
  }
  return hashes;
}

let exampleHashesBefore: Record<string, string>;
before(async () => {
  exampleHashesBefore = await hashDirectory(EXAMPLE_DIR);
});

describe('storage: with a data directory', () => {
  let dir: { path: string; remove: () => Promise<void> };
  const running: TestServer[] = [];
  const start = async (seed = false): Promise<TestServer> => {
    const api = await startTestServer({ dataDir: dir.path, seed });
    running.push(api);
    return api;
  };
  beforeEach(async () => {
    dir = await temporaryDirectory();
  });
  afterEach(async () => {
    for (const api of running.splice(0)) await api.close();
    await dir.remove();
  });

  test('a restart with the same dataDir keeps every record and the id counters (a deleted highest id is not reused)', async () => {
    const first = await start();
    const p1 = await createProduct(first, { name: 'One' });
    const p2 = await createProduct(first, { name: 'Two', description: 'second' });
    const p3 = await createProduct(first, { name: 'Three' });
    const user = await createUser(first, { email: 'keep@example.com' });
    const order = await first.post(`/v1/users/${user}/orders`, { items: [{ product_id: p2.id, quantity: 2 }] });
    assert.equal(order.status, 201, order.text);
    assert.equal((await first.delete(`/v1/products/${p3.id}`)).status, 204);
    const userBefore = await first.get(`/v1/users/${user}`);
    await first.close();
    assert.equal((await readSnapshot(dir.path, 'products')).next_id, 4);

    const second = await start();
    const products = await second.get('/v1/products');
    assert.deepEqual(products.body.data, [p1, p2]);
    const userAfter = await second.get(`/v1/users/${user}`);
    assert.deepEqual(userAfter.body, userBefore.body);
    assert.equal(userAfter.headers.get('etag'), userBefore.headers.get('etag'));
    assert.deepEqual((await second.get(`/v1/users/${user}/orders/${order.body.id}`)).body, order.body);

    const p4 = await createProduct(second, { name: 'Four' });
    assert.equal(p4.id, 4);
    const secondUser = await createUser(second);
    assert.equal(secondUser, user + 1);
  });

  test('snapshot files are {next_id, records} with one record per line', async () => {
    const api = await start();
    const product = await createProduct(api, { name: 'Line "quoted"\nbreak', description: 'multi\nline' });
    await createProduct(api, { name: 'Second' });
    const user = await createUser(api, { password: 'a secret password' });
    await api.post(`/v1/users/${user}/orders`, { items: [{ product_id: product.id, quantity: 1 }] });

    assert.deepEqual((await readdir(dir.path)).sort(), SNAPSHOT_FILES);
    for (const collection of ['users', 'products', 'orders']) {
      const text = await readFile(join(dir.path, `${collection}.json`), 'utf8');
      const snapshot = JSON.parse(text) as Snapshot;
      assert.deepEqual(Object.keys(snapshot).sort(), ['next_id', 'records'], collection);
      assert.ok(Number.isInteger(snapshot.next_id), collection);
      assert.ok(Array.isArray(snapshot.records), collection);
      // every record is alone on its own line: each line holding a record parses to exactly it
      const recordLines = text.split('\n').filter((line) => line.trimStart().startsWith('{"'));
      assert.equal(recordLines.length, snapshot.records.length, collection);
      recordLines.forEach((line, index) => {
        assert.deepEqual(JSON.parse(line.trim().replace(/,$/, '')), snapshot.records[index], `${collection} line ${index}`);
      });
    }
    const products = await readSnapshot(dir.path, 'products');
    assert.deepEqual(products, { next_id: 3, records: [product, products.records[1]] });
  });

  test('the password is stored hashed, never in plain text', async () => {
    const api = await start();
    const id = await createUser(api, { password: 'plain-text-never-stored' });
    const text = await readFile(join(dir.path, 'users.json'), 'utf8');
    assert.equal(text.includes('plain-text-never-stored'), false);
    const record = (JSON.parse(text) as Snapshot).records.find((stored: { id: number }) => stored.id === id);
    assert.ok(record !== undefined, text);
    assert.equal(record.password, undefined);
    assert.equal(typeof record.password_hash, 'string');
  });

  test('no temporary files are left in the dataDir after many concurrent writes', async () => {
    const api = await start();
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, n) => api.post('/v1/products', { name: `P${n}`, category: 'c', price: n })),
    );
    for (const response of created) assert.equal(response.status, 201);
    await Promise.all([
      api.patch('/v1/products/1', { price: 99 }),
      api.put('/v1/products/2', { name: 'Put', category: 'c', price: 1 }),
      api.delete('/v1/products/3'),
      createUser(api),
    ]);
    assert.deepEqual((await readdir(dir.path)).sort(), SNAPSHOT_FILES);
    const ids = await recordIds(dir.path, 'products');
    assert.deepEqual(ids, Array.from({ length: 30 }, (_, n) => n + 1).filter((id) => id !== 3));
  });

  test('every acknowledged write is on disk when its response arrives (POST, PUT, PATCH, DELETE)', async () => {
    const api = await start();
    const created = await api.post('/v1/products', { name: 'Durable', category: 'c', price: 1.5 });
    assert.equal(created.status, 201);
    assert.deepEqual((await readSnapshot(dir.path, 'products')).records, [created.body]);

    const put = await api.put(`/v1/products/${created.body.id}`, { name: 'Put', category: 'd', price: 2 });
    assert.equal(put.status, 200);
    assert.deepEqual((await readSnapshot(dir.path, 'products')).records, [put.body]);

    const patched = await api.patch(`/v1/products/${created.body.id}`, { description: 'patched' });
    assert.equal(patched.status, 200);
    assert.deepEqual((await readSnapshot(dir.path, 'products')).records, [patched.body]);

    const user = await api.post('/v1/users', { name: 'Ann', email: 'ann@example.com' });
    assert.equal(user.status, 201);
    // the administrator (id 1) comes first; the new user is the last record
    const storedUsers = (await readSnapshot(dir.path, 'users')).records;
    assert.deepEqual(storedUsers.map((record: { id: number }) => record.id), [1, user.body.id]);
    const storedUser = storedUsers.at(-1);
    assert.equal(storedUser.id, user.body.id);
    assert.equal(storedUser.email, 'ann@example.com');

    const order = await api.post(`/v1/users/${user.body.id}/orders`, { items: [{ product_id: created.body.id, quantity: 3 }] });
    assert.equal(order.status, 201);
    assert.deepEqual((await readSnapshot(dir.path, 'orders')).records, [order.body]);

    const deleted = await api.delete(`/v1/products/${created.body.id}`);
    assert.equal(deleted.status, 204);
    assert.deepEqual(await readSnapshot(dir.path, 'products'), { next_id: 2, records: [] });
  });

  test('deleting a user deletes their orders from orders.json too', async () => {
    const api = await start(true);
    assert.deepEqual(await recordIds(dir.path, 'orders'), [1, 2, 3, 4, 5]);
    const response = await api.delete('/v1/users/1');
    assert.equal(response.status, 204);
    assert.deepEqual(await recordIds(dir.path, 'users'), [2, 3]); // bob, and the administrator (id 3)
    const orders = await readSnapshot(dir.path, 'orders');
    assert.deepEqual(
      orders.records.map((record: { id: number; user_id: number }) => [record.id, record.user_id]),
      [
        [4, 2],
        [5, 2],
      ],
    );
    assert.equal(orders.next_id, 6);
    assert.equal((await api.get('/v1/users/1/orders/1')).status, 404);
  });

  test('first start with an empty dir and seed:true writes the example data (2 users, 12 products, 5 orders) and the administrator', async () => {
    const api = await start(true);
    assert.deepEqual((await readdir(dir.path)).sort(), SNAPSHOT_FILES);
    for (const [collection, count] of [
      ['users', 2],
      ['products', 12],
      ['orders', 5],
    ] as const) {
      const snapshot = await readSnapshot(dir.path, collection);
      // users.json also holds the administrator ensured at start, after the example users
      const written = collection === 'users' ? { next_id: snapshot.next_id - 1, records: snapshot.records.slice(0, -1) } : snapshot;
      const example = JSON.parse(await readFile(join(EXAMPLE_DIR, `${collection}.json`), 'utf8')) as Snapshot;
      assert.equal(written.records.length, count, collection);
      assert.deepEqual(written, example, collection);
    }
    const users = await readSnapshot(dir.path, 'users');
    assert.equal(users.records.length, 3);
    assert.deepEqual(
      users.records.map((record: { id: number; email: string; role: string }) => [record.id, record.email, record.role]),
      [
        [1, 'alice@example.com', 'user'],
        [2, 'bob@example.com', 'user'],
        [3, TEST_ADMIN_EMAIL, 'admin'],
      ],
    );
    assert.equal((await api.get('/v1/products')).body.meta.total, 12);
    assert.deepEqual(api.server.app.recordCounts(), { users: 3, products: 12, orders: 5 });
  });

  test('without a tokenSecret the dir also holds token-secret (mode 0600); the seeded users.json has the administrator as id 3', async () => {
    const server = await startServer({ port: 0, dataDir: dir.path, seed: true, adminPassword: TEST_ADMIN_PASSWORD });
    running.push(wrap(server, undefined));
    assert.deepEqual((await readdir(dir.path)).sort(), DATA_DIR_FILES);
    const secretFile = join(dir.path, 'token-secret');
    assert.equal((await stat(secretFile)).mode & 0o777, 0o600);
    assert.ok((await readFile(secretFile, 'utf8')).trim().length >= 32, 'the kept secret is at least 32 characters');

    const text = await readFile(join(dir.path, 'users.json'), 'utf8');
    assert.equal(text.includes(TEST_ADMIN_PASSWORD), false, 'the admin password is stored hashed only');
    const users = JSON.parse(text) as Snapshot;
    assert.equal(users.next_id, 4);
    assert.deepEqual(users.records.map((record: { id: number }) => record.id), [1, 2, 3]);
    const admin = users.records[2];
    assert.equal(admin.id, 3);
    assert.equal(admin.email, TEST_ADMIN_EMAIL);
    assert.equal(admin.role, 'admin');
    assert.equal(admin.password, undefined);
    assert.equal(typeof admin.password_hash, 'string');
    assert.ok(admin.password_hash.length > 0);

    // the stored hash is the configured password's, and a token signed with the kept secret is accepted
    const token = await login(wrap(server, undefined), TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const me = await wrap(server, token).get('/v1/users/3');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.role, 'admin');
  });

  test('a missing dataDir is created', async () => {
    const nested = join(dir.path, 'a', 'b');
    const api = await startTestServer({ dataDir: nested, seed: false });
    running.push(api);
    assert.deepEqual((await readdir(nested)).sort(), SNAPSHOT_FILES);
  });

  test('seed:false starts empty (but for the administrator) and writes empty snapshots', async () => {
    const api = await start(false);
    for (const collection of ['products', 'orders']) {
      assert.deepEqual(await readSnapshot(dir.path, collection), { next_id: 1, records: [] }, collection);
    }
    const users = await readSnapshot(dir.path, 'users');
    assert.equal(users.next_id, 2);
    assert.deepEqual(
      users.records.map((record: { id: number; email: string; role: string }) => [record.id, record.email, record.role]),
      [[1, TEST_ADMIN_EMAIL, 'admin']],
    );
    assert.deepEqual((await api.get('/v1/products')).body.meta.total, 0);
    assert.deepEqual((await api.get('/v1/users')).body.meta.total, 1);
  });

  test('a dir that already has snapshots is not re-seeded, even empty ones', async () => {
    const first = await start(false);
    await createProduct(first, { name: 'Mine' });
    await first.close();
    const before = await hashDirectory(dir.path);

    const second = await start(true);
    const products = await second.get('/v1/products');
    assert.deepEqual(
      products.body.data.map((record: { name: string }) => record.name),
      ['Mine'],
    );
    assert.equal((await second.get('/v1/users')).body.meta.total, 1); // the administrator only
    await second.close();
    assert.deepEqual(await hashDirectory(dir.path), before);
  });

  test('a dir holding only products.json is not a first start: the other collections start empty', async () => {
    const only = '{"next_id":8,"records":[{"id":7,"name":"Kept","category":"c","price":1,"created_at":"2026-01-01T00:00:00.000Z","updated_at":"2026-01-01T00:00:00.000Z"}]}\n';
    await writeFile(join(dir.path, 'products.json'), only);
    const api = await start(true);
    assert.deepEqual((await api.get('/v1/products')).body.data.map((record: { id: number }) => record.id), [7]);
    assert.deepEqual(
      (await api.get('/v1/users')).body.data.map((record: { id: number; email: string }) => [record.id, record.email]),
      [[1, TEST_ADMIN_EMAIL]],
    ); // the administrator only: the example users were not seeded
    assert.equal((await api.get('/v1/users')).body.meta.total, 1);
    assert.equal((await api.get('/v1/users/1/orders')).body.meta.total, 0);
    assert.equal((await createProduct(api)).id, 8);
  });
});

describe('storage: a corrupt snapshot stops the start, names the file and changes nothing', () => {
  const record = (id: number): string =>
    `{"id":${id},"name":"P","category":"c","price":1,"created_at":"2026-01-01T00:00:00.000Z","updated_at":"2026-01-01T00:00:00.000Z"}`;
  const cases = [
    { name: 'invalid JSON', text: '{"next_id": 2, "records": [' },
    { name: 'an empty file', text: '' },
    { name: 'records not an array', text: '{"next_id": 2, "records": {"1": {}}}\n' },
    { name: 'next_id missing', text: `{"records": [${record(1)}]}\n` },
    { name: 'duplicate ids', text: `{"next_id": 3, "records": [${record(1)}, ${record(1)}]}\n` },
    { name: 'an id equal to next_id', text: `{"next_id": 2, "records": [${record(2)}]}\n` },
    { name: 'an id above next_id', text: `{"next_id": 2, "records": [${record(1)}, ${record(5)}]}\n` },
    { name: 'a record without an id', text: '{"next_id": 2, "records": [{"name":"P"}]}\n' },
  ];
  for (const collection of ['products', 'orders']) {
    for (const c of cases) {
      test(`${collection}.json with ${c.name} → startServer rejects naming the file; bytes unchanged`, async () => {
        const dir = await temporaryDirectory();
        try {
          const path = join(dir.path, `${collection}.json`);
          await writeFile(path, c.text);
          const other = '{"next_id": 1, "records": []}\n';
          await writeFile(join(dir.path, 'users.json'), other);
          const before = await hashDirectory(dir.path);

          await assert.rejects(startServer({ port: 0, dataDir: dir.path, seed: true }), (error: unknown) => {
            assert.ok(error instanceof StartupError, String(error));
            assert.ok(error.message.includes(path), error.message);
            return true;
          });
          assert.equal(await readFile(path, 'utf8'), c.text);
          assert.deepEqual(await hashDirectory(dir.path), before);
        } finally {
          await dir.remove();
        }
      });
    }
  }
});

describe('storage: close()', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await temporaryDirectory();
  });
  afterEach(() => dir.remove());

  test('close() lets an in-flight write finish; its record is in the snapshot when close resolves', { timeout: 15_000 }, async () => {
    const server = await startServer({ port: 0, dataDir: dir.path, seed: false, ...TEST_AUTH_OPTIONS });
    const { token } = await connect(server);
    const { port, hostname } = new URL(server.url);
    const body = JSON.stringify({ name: 'In flight', category: 'c', price: 3 });
    const socket = openSocket(Number(port), hostname);
    let received = '';
    const ended = new Promise<void>((resolve, reject) => {
      socket.on('end', resolve);
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    // Expect: 100-continue makes the server confirm it holds the request before the body is sent
    const continued = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (received.includes('100 Continue')) resolve();
      });
    });
    socket.write(
      `POST /v1/products HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await continued;

    const closed = server.close();
    socket.write(body);
    await ended;
    socket.destroy();
    await closed;

    const final = received.slice(received.indexOf('\r\n\r\n') + 4);
    assert.match(final, /^HTTP\/1\.1 201 /);
    assert.match(final, /\r\nconnection: close\r\n/i);
    const snapshot = await readSnapshot(dir.path, 'products');
    assert.equal(snapshot.next_id, 2);
    assert.deepEqual(
      snapshot.records.map((record: { id: number; name: string }) => [record.id, record.name]),
      [[1, 'In flight']],
    );
  });

  test('close() leaves complete snapshots and a closed server refuses connections', async () => {
    const server = await startServer({ port: 0, dataDir: dir.path, seed: true });
    const response = await fetch(`${server.url}/healthz`);
    assert.equal(response.status, 200);
    await response.text();
    await server.close();
    // started without a tokenSecret, so the generated one is kept beside the snapshots
    assert.deepEqual((await readdir(dir.path)).sort(), DATA_DIR_FILES);
    assert.equal((await readSnapshot(dir.path, 'products')).records.length, 12);
    await assert.rejects(fetch(`${server.url}/healthz`));
  });

  test('close() is safe to call twice', async () => {
    const server = await startServer({ port: 0, dataDir: dir.path, seed: false });
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});

test('data/example/*.json is byte-for-byte unchanged after every test above', async () => {
  assert.deepEqual(Object.keys(exampleHashesBefore).sort(), SNAPSHOT_FILES);
  assert.deepEqual(await hashDirectory(EXAMPLE_DIR), exampleHashesBefore);
});
