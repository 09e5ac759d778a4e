// Stored data is never silently dropped (README: Storage and durability, Troubleshooting): a record in a snapshot or
// a journal entry with a field its resource does not declare, or a value of the wrong
// kind for its declaration, stops the start with one line naming the file, the record
// and the field, and changes no file. Records that fit load as before.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startServer, StartupError } from '../src/index.ts';
import { assertProblem } from './assertions.ts';
import { cleanUpAfterEach, connect, hashDirectory, scratchDirectory, TEST_AUTH_OPTIONS } from './helpers.ts';

const TIMESTAMP = '2026-01-01T00:00:00.000Z';
const defer = cleanUpAfterEach();

function product(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, name: `P${id}`, category: 'c', price: 1, created_at: TIMESTAMP, updated_at: TIMESTAMP, ...extra };
}

function order(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const items = [{ product_id: 1, quantity: 2, unit_price: 1 }];
  return { id, user_id: 1, items, total: 2, status: 'pending', created_at: TIMESTAMP, updated_at: TIMESTAMP, ...extra };
}

function snapshot(records: readonly Record<string, unknown>[]): string {
  const nextId = Math.max(0, ...records.map((record) => record['id'] as number)) + 1;
  return `${JSON.stringify({ next_id: nextId, journal_seq: 0, records }, null, 2)}\n`;
}

/** The error a start on `dir` fails with; a start that succeeds is closed, and fails the test. */
async function startRefused(dir: string): Promise<unknown> {
  try {
    const server = await startServer({ port: 0, dataDir: dir, seed: true, ...TEST_AUTH_OPTIONS });
    await server.close();
  } catch (error) {
    return error;
  }
  return assert.fail('the server started');
}

interface Case {
  readonly name: string;
  /** Files of the data directory. */
  readonly files: Readonly<Record<string, string>>;
  /** The file the message must name, and what else it must say. */
  readonly file: string;
  readonly says: readonly string[];
}

const journal = (...entries: unknown[]): string => entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
const SEGMENT = 'journal-000000000001.jsonl';

const cases: readonly Case[] = [
  {
    name: 'a product in the snapshot with an undeclared field',
    files: { 'products.json': snapshot([product(1), product(7, { colour: 'red' })]) },
    file: 'products.json',
    says: ['record 7', 'the field "colour"', 'products do not declare', 'remove the field or declare it'],
  },
  {
    name: 'a user in the snapshot with the plain "password" field (only its hash is stored)',
    files: {
      'users.json': snapshot([
        {
          id: 2,
          name: 'U',
          email: 'u@example.com',
          role: 'user',
          password: 'hunter22',
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        },
      ]),
    },
    file: 'users.json',
    says: ['record 2', 'the field "password"', 'users do not declare'],
  },
  {
    name: 'an order whose item has an undeclared field',
    files: {
      'orders.json': snapshot([order(3, { items: [{ product_id: 1, quantity: 2, unit_price: 1, gift: true }] })]),
    },
    file: 'orders.json',
    says: ['record 3', 'the field "items[0].gift"', 'orders do not declare'],
  },
  {
    name: 'a journal entry that puts a product with an undeclared field',
    files: {
      'products.json': snapshot([product(1)]),
      [SEGMENT]: journal({ seq: 1, changes: [{ put: 'products', record: product(7, { colour: 'red' }) }] }),
    },
    file: SEGMENT,
    says: ['seq 1', 'products record 7', 'the field "colour"', 'products do not declare'],
  },
  {
    name: 'several journal entries with the same field wrong: counted, with their first ids, each record once',
    files: {
      'products.json': snapshot([product(1)]),
      [SEGMENT]: journal(
        { seq: 1, changes: [{ put: 'products', record: product(7, { colour: 'red' }) }] },
        { seq: 2, changes: [{ put: 'products', record: product(8, { colour: 'blue' }) }] },
        { seq: 3, changes: [{ put: 'products', record: product(7, { colour: 'green' }) }] },
      ),
    },
    file: SEGMENT,
    says: ['seq 1', 'products record 7', 'the field "colour"', '(2 products records have "colour" wrong: ids 7, 8)'],
  },
  {
    name: 'a snapshot in which seven products have a string price: the count and the first five ids',
    files: {
      'products.json': snapshot([product(1), ...[2, 3, 4, 5, 6, 7, 8].map((id) => product(id, { price: String(id) }))]),
    },
    file: 'products.json',
    says: ['record 2', 'the field "price"', '(7 products records have "price" wrong: ids 2, 3, 4, 5, 6, …)'],
  },
  {
    name: 'a product whose price is a string',
    files: { 'products.json': snapshot([product(5, { price: '12' })]) },
    file: 'products.json',
    says: ['record 5', 'the field "price"', 'a number'],
  },
  {
    name: 'an order whose status is not one of its values',
    files: { 'orders.json': snapshot([order(4, { status: 'refunded' })]) },
    file: 'orders.json',
    says: ['record 4', 'the field "status"', 'pending, paid, shipped, cancelled'],
  },
  {
    name: 'an order whose user_id is not an integer',
    files: { 'orders.json': snapshot([order(6, { user_id: 1.5 })]) },
    file: 'orders.json',
    says: ['record 6', 'the field "user_id"', 'an integer'],
  },
  {
    name: 'a field name with a line break (the message stays one line)',
    files: { 'products.json': snapshot([product(8, { 'col\nour': 'red' })]) },
    file: 'products.json',
    says: ['record 8', 'the field "col\\nour"'],
  },
];

describe('stored data: a record that does not fit its declaration stops the start, and no file changes', () => {
  for (const c of cases) {
    test(`${c.name} → StartupError naming ${c.file}, the record and the field, on one line`, async () => {
      const dir = await scratchDirectory(defer);
      for (const [name, text] of Object.entries(c.files)) await writeFile(join(dir, name), text);
      const before = await hashDirectory(dir);

      const error = await startRefused(dir);
      assert.ok(error instanceof StartupError, String(error));
      assert.ok(error.message.startsWith(`${join(dir, c.file)}: `), error.message);
      for (const words of c.says) assert.ok(error.message.includes(words), `"${words}" in: ${error.message}`);
      assert.doesNotMatch(error.message, /\n/, 'one line');
      assert.doesNotMatch(error.message, /^cannot start/, 'the command line adds "cannot start:" itself');
      assert.deepEqual(
        await hashDirectory(dir),
        before,
        'no file written, cut, added or left behind (not even the lock)',
      );
    });
  }

  test('the same record without the extra field starts, and every declared field is served', async () => {
    const dir = await scratchDirectory(defer);
    const stored = product(7, { description: 'kept' });
    await writeFile(join(dir, 'products.json'), snapshot([stored]));
    await writeFile(join(dir, 'orders.json'), snapshot([order(3)]));
    const server = await startServer({ port: 0, dataDir: dir, seed: true, ...TEST_AUTH_OPTIONS });
    defer(() => server.close());
    const api = await connect(server);
    assert.deepEqual((await api.get('/v1/products/7')).body, stored);
  });

  test('a journal entry already covered by a snapshot is not loaded, so it is not checked', async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(
      join(dir, 'products.json'),
      `${JSON.stringify({ next_id: 8, journal_seq: 1, records: [product(7)] })}\n`,
    );
    await writeFile(
      join(dir, SEGMENT),
      journal({ seq: 1, changes: [{ put: 'products', record: product(7, { colour: 'red' }) }] }),
    );
    const server = await startServer({ port: 0, dataDir: dir, seed: false, ...TEST_AUTH_OPTIONS });
    defer(() => server.close());
    const api = await connect(server);
    assert.deepEqual((await api.get('/v1/products/7')).body, product(7));
  });
});

describe('the last id', () => {
  test('a collection gives ids up to 2^53 − 2, keeping its next id one a start accepts; then a create is a 503', async () => {
    const dataDir = await scratchDirectory(defer);
    const last = Number.MAX_SAFE_INTEGER - 1;
    await writeFile(join(dataDir, 'products.json'), JSON.stringify({ next_id: last, journal_seq: 0, records: [] }));
    const server = await startServer({ ...TEST_AUTH_OPTIONS, port: 0, dataDir, seed: false });
    defer(() => server.close());
    const api = await connect(server);
    const created = await api.post('/v1/products', { name: 'Last', category: 'c', price: 1 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.id, last);
    const refused = await api.post('/v1/products', { name: 'Past', category: 'c', price: 1 });
    assertProblem(refused, 503, 'not_ready', '/v1/products');
    assert.equal((await api.get('/v1/products')).body.meta.total, 1);
    await server.close();
    const again = await startServer({ ...TEST_AUTH_OPTIONS, port: 0, dataDir, seed: false });
    defer(() => again.close());
    assert.equal((await (await connect(again)).get(`/v1/products/${last}`)).status, 200);
  });
});
