// `plainrest copy` and `plainrest token --database-url` (docs/deploying.md; README: Configuration),
// run as a user runs them (`node dist/plainrest.mjs`, build first: `npm run build`), then checked
// over HTTP against a server started on the target: a data directory (the example data,
// a user of our own, deleted records so that next ids are not max id + 1, an idempotency
// key) copied into PostgreSQL and back into a new data directory keeps every record, id,
// password hash and next id; a non-empty target, a source in use, a source the
// declaration no longer fits and an unreachable database are one line each, exit 2, and
// change nothing. The tests needing PostgreSQL are skipped where it is not installed.

import assert from 'node:assert/strict';
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import { killAll, runToExit } from './child-process.ts';
import type { TestServer } from './helpers.ts';
import {
  hashDirectory,
  login,
  processEnvironment,
  startTestServerWithAdminBootstrap,
  TEST_TOKEN_SECRET,
  temporaryDirectory,
} from './helpers.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { freePort } from './free-port.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
/** Each test's bound on a hang: the processes and databases it starts take seconds apiece on a busy machine. */
const TIMEOUT = { timeout: 180_000 };
const DANA = { name: 'Dana', email: 'dana@example.com', password: 'dana-password-1' };
const KEYED_PRODUCT = { name: 'Keyed tea', category: 'tea', price: 4.5 };
const KEY = { 'Idempotency-Key': 'copy-key-1' };

/** `node dist/plainrest.mjs …` with only processEnvironment's, none of the test's own. */
function plainrest(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToExit(process.execPath, [MAIN, ...args], {
    cwd: REPOSITORY_ROOT,
    env: processEnvironment(env),
  });
}

/** Everything the administrator can see, in id order: users, products, and each user's orders. */
async function everything(api: TestServer): Promise<{ users: unknown[]; products: unknown[]; orders: unknown[] }> {
  const users = (await api.get('/v1/users?limit=100')).body.data as { id: number }[];
  const products = (await api.get('/v1/products?limit=100')).body.data as unknown[];
  const orders: unknown[] = [];
  for (const user of users)
    orders.push(...((await api.get(`/v1/users/${user.id}/orders?limit=100`)).body.data as unknown[]));
  return { users, products, orders };
}

/** Every row of every table of the database, and every sequence's state: to show that nothing changed. */
async function databaseState(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (
      await client.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`,
      )
    ).rows;
    const state: Record<string, unknown> = {};
    for (const { name } of tables) state[name] = (await client.query(`SELECT * FROM "${name}" ORDER BY 1`)).rows;
    state['sequences'] = (await client.query(`SELECT sequencename, last_value FROM pg_sequences ORDER BY 1`)).rows;
    return JSON.stringify(state);
  } finally {
    await client.end();
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The example declaration without orders: data holding orders no longer fits it. */
async function declarationWithoutOrders(directory: string): Promise<string> {
  const declaration = JSON.parse(
    await readFile(join(REPOSITORY_ROOT, 'data', 'example', 'resources.json'), 'utf8'),
  ) as { resources: Record<string, unknown> };
  delete declaration.resources['orders'];
  const path = join(directory, 'without-orders.json');
  await writeFile(path, JSON.stringify(declaration));
  return path;
}

const directories: { remove: () => Promise<void> }[] = [];
async function scratch(): Promise<string> {
  const directory = await temporaryDirectory();
  directories.push(directory);
  return directory.path;
}
after(async () => {
  await killAll();
  for (const directory of directories) await directory.remove();
});

describe('copy: a data directory into PostgreSQL and back', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  let url: string;
  let source: string;
  let copyBack: string;
  let original: Awaited<ReturnType<typeof everything>>;
  let danaId: number;

  before(async () => {
    cluster = await startCluster();
    url = cluster.url(await cluster.createDatabase());
    source = join(await scratch(), 'data');
    copyBack = join(await scratch(), 'new', 'data');
    // The example data, Dana, a deleted user, product and order (next ids above max id + 1), and an idempotency key.
    const api = await startTestServerWithAdminBootstrap({ dataDir: source, seed: true });
    try {
      danaId = (await api.post('/v1/users', DANA)).body.id as number;
      assert.equal(danaId, 4);
      const temporary = await api.post('/v1/users', {
        name: 'Temp',
        email: 'temp@example.com',
        password: 'temp-password-1',
      });
      assert.equal((await api.delete(`/v1/users/${temporary.body.id}`)).status, 204);
      assert.equal((await api.post('/v1/products', KEYED_PRODUCT, KEY)).body.id, 13);
      const deletedProduct = await api.post('/v1/products', { name: 'Gone', category: 'gone', price: 1 });
      assert.equal((await api.delete(`/v1/products/${deletedProduct.body.id}`)).status, 204);
      const order = { items: [{ product_id: 1, quantity: 2 }] };
      assert.equal((await api.post(`/v1/users/${danaId}/orders`, order)).body.id, 6);
      const deletedOrder = await api.post(`/v1/users/${danaId}/orders`, order);
      assert.equal((await api.delete(`/v1/users/${danaId}/orders/${deletedOrder.body.id}`)).status, 204);
      original = await everything(api);
    } finally {
      await api.close();
    }
  });
  after(async () => {
    await cluster?.stop();
  });

  /** Same records with the same ids, Dana's old password, and the idempotency key replaying. */
  async function assertSameData(api: TestServer): Promise<void> {
    assert.deepEqual(await everything(api), original);
    assert.ok((await login(api, DANA.email, DANA.password)).length > 0, 'the password hash came along');
    const replayed = await api.post('/v1/products', KEYED_PRODUCT, KEY);
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.equal(replayed.body.id, 13);
  }

  /** The next user, product and order get ids above every id the first data directory gave out (users 5, products 14, orders 7 were deleted). */
  async function assertNextIds(api: TestServer): Promise<void> {
    assert.equal(
      (await api.post('/v1/users', { name: 'Eve', email: 'eve@example.com', password: 'eve-password-1' })).body.id,
      6,
    );
    assert.equal((await api.post('/v1/products', { name: 'New', category: 'new', price: 2 })).body.id, 15);
    assert.equal(
      (await api.post(`/v1/users/${danaId}/orders`, { items: [{ product_id: 2, quantity: 1 }] })).body.id,
      8,
    );
  }

  test(
    'a data directory copied into an empty database: exact counts on stdout, same ids, old passwords, the idempotency key',
    TIMEOUT,
    async () => {
      assert.deepEqual([original.users.length, original.products.length, original.orders.length], [4, 13, 6]);
      const copied = await plainrest(['copy', '--from', source, '--to', url]);
      assert.deepEqual(copied, {
        code: 0,
        stdout: `copied 4 users, 13 products, 6 orders, 0 keys (and 1 idempotency key) from the data directory ${source} to the database ${url}\n`,
        stderr: '',
      });
      const api = await startTestServerWithAdminBootstrap({ database: url });
      try {
        await assertSameData(api);
      } finally {
        await api.close();
      }
    },
  );

  test(
    'token --database-url: a token for the user in the database (email ignoring case) that the server on it accepts',
    TIMEOUT,
    async () => {
      const minted = await plainrest(['token', 'DANA@example.com', '--database-url', url], {
        TOKEN_SECRET: TEST_TOKEN_SECRET,
      });
      assert.equal(minted.code, 0, minted.stderr);
      assert.equal(minted.stderr, `token for user ${danaId}, valid for 3600 s:\n`);
      assert.match(minted.stdout, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/);
      const api = await startTestServerWithAdminBootstrap({ database: url });
      try {
        const dana = await api.as(minted.stdout.trim()).get(`/v1/users/${danaId}`);
        assert.equal(dana.status, 200);
        assert.equal(dana.body.email, DANA.email);
        assert.equal(
          (await api.as(minted.stdout.trim()).get('/v1/users')).status,
          403,
          "Dana's permissions, not an administrator's",
        );
      } finally {
        await api.close();
      }
    },
  );

  test(
    'token --database-url refuses an unknown email and a missing TOKEN_SECRET, one line each, exit 2',
    TIMEOUT,
    async () => {
      assert.deepEqual(
        await plainrest(['token', 'nobody@example.com', '--database-url', url, '--token-secret', TEST_TOKEN_SECRET]),
        {
          code: 2,
          stdout: '',
          stderr: `cannot mint a token: no user has the email nobody@example.com in the database ${url} (--database-url, DATABASE_URL)\n`,
        },
      );
      assert.deepEqual(await plainrest(['token', DANA.email], { DATABASE_URL: url }), {
        code: 2,
        stdout: '',
        stderr:
          'cannot mint a token: a database needs --token-secret (TOKEN_SECRET): every process that shares it must sign tokens with the same key; change that setting (--help lists them all)\n',
      });
    },
  );

  test(
    'the database copied into a new data directory (created) keeps them too; then each gives the next ids above all ids given out',
    TIMEOUT,
    async () => {
      const copied = await plainrest(['copy', '--from', url, '--to', copyBack]);
      assert.deepEqual(copied, {
        code: 0,
        stdout: `copied 4 users, 13 products, 6 orders, 0 keys (and 1 idempotency key) from the database ${url} to the data directory ${copyBack}\n`,
        stderr: '',
      });
      const onDirectory = await startTestServerWithAdminBootstrap({ dataDir: copyBack });
      try {
        await assertSameData(onDirectory);
        await assertNextIds(onDirectory);
      } finally {
        await onDirectory.close();
      }
      const onDatabase = await startTestServerWithAdminBootstrap({ database: url });
      try {
        await assertNextIds(onDatabase);
      } finally {
        await onDatabase.close();
      }
    },
  );

  test('a database holding rows is refused: one line, exit 2, not a row or sequence changed', TIMEOUT, async () => {
    const state = await databaseState(url);
    assert.deepEqual(await plainrest(['copy', '--from', source, '--to', url]), {
      code: 2,
      stdout: '',
      stderr: `cannot copy: the database ${url} already holds data; nothing was changed: name a new data directory or an empty database\n`,
    });
    assert.equal(await databaseState(url), state);
  });

  test('a data directory holding snapshots is refused: one line, exit 2, not a file changed', TIMEOUT, async () => {
    const files = await hashDirectory(copyBack);
    assert.deepEqual(await plainrest(['copy', '--from', url, '--to', copyBack]), {
      code: 2,
      stdout: '',
      stderr: `cannot copy: the data directory ${copyBack} already holds data; nothing was changed: name a new data directory or an empty database\n`,
    });
    assert.deepEqual(await hashDirectory(copyBack), files);
  });

  test(
    'a database the declaration no longer fits is refused in the words a start uses, and nothing is written',
    TIMEOUT,
    async () => {
      const declaration = await declarationWithoutOrders(await scratch());
      const target = join(await scratch(), 'never');
      const start = await plainrest([
        '--database-url',
        url,
        '--resources',
        declaration,
        '--token-secret',
        TEST_TOKEN_SECRET,
        '--port',
        '0',
      ]);
      assert.equal(start.code, 2);
      assert.match(
        start.stderr,
        /^cannot start: the data in the database no longer fits the declaration: orders: .*\n$/,
      );
      assert.deepEqual(await plainrest(['copy', '--from', url, '--to', target, '--resources', declaration]), {
        code: 2,
        stdout: '',
        stderr: start.stderr.replace('cannot start: ', 'cannot copy: '),
      });
      assert.equal(await exists(target), false);
    },
  );
});

describe('copy: refusals without a database', () => {
  test(
    'a source data directory a running server holds is refused, naming the process; the server keeps its lock',
    TIMEOUT,
    async () => {
      const source = await scratch();
      const target = join(await scratch(), 'never');
      const api = await startTestServerWithAdminBootstrap({ dataDir: source, seed: true });
      try {
        assert.deepEqual(await plainrest(['copy', '--from', source, '--to', target]), {
          code: 2,
          stdout: '',
          stderr: `cannot copy: ${source} is in use by process ${process.pid} (lock file ${join(source, 'plainrest.lock')}); stop that process, or delete the lock file if it is not plainrest\n`,
        });
        assert.equal((await readFile(join(source, 'plainrest.lock'), 'utf8')).trim(), String(process.pid));
        assert.equal((await api.post('/v1/products', { name: 'Still writable', category: 'c', price: 1 })).status, 201);
      } finally {
        await api.close();
      }
      assert.equal(await exists(target), false);
    },
  );

  test(
    'a data directory the declaration no longer fits is refused in the words a start uses, and left as it was',
    TIMEOUT,
    async () => {
      const source = await scratch();
      const target = join(await scratch(), 'never');
      await (await startTestServerWithAdminBootstrap({ dataDir: source, seed: true })).close();
      const declaration = await declarationWithoutOrders(await scratch());
      const start = await plainrest(['--data-dir', source, '--resources', declaration, '--port', '0']);
      assert.equal(start.code, 2);
      assert.match(start.stderr, /^cannot start: the data in .* no longer fits the declaration: orders: .*\n$/);
      const files = await hashDirectory(source);
      assert.deepEqual(await plainrest(['copy', '--from', source, '--to', target, '--resources', declaration]), {
        code: 2,
        stdout: '',
        stderr: start.stderr.replace('cannot start: ', 'cannot copy: '),
      });
      assert.deepEqual(await hashDirectory(source), files);
      assert.equal(await exists(target), false);
    },
  );

  test(
    'an unreachable database as --from: one line without the password, exit 2, no stack trace, no target created',
    TIMEOUT,
    async () => {
      const port = await freePort();
      const target = join(await scratch(), 'never');
      assert.deepEqual(
        await plainrest(['copy', '--from', `postgres://plainrest:s3cret@127.0.0.1:${port}/gone`, '--to', target]),
        {
          code: 2,
          stdout: '',
          stderr: `cannot copy: the database postgres://plainrest@127.0.0.1:${port}/gone cannot be reached (ECONNREFUSED)\n`,
        },
      );
      assert.equal(await exists(target), false);
    },
  );

  test('usage: --from and --to are both needed, and name different stores', TIMEOUT, async () => {
    const usage =
      'usage: plainrest copy --from <data dir | postgres://…> --to <data dir | postgres://…> [--resources FILE]';
    assert.deepEqual(await plainrest(['copy', '--from', 'data']), {
      code: 2,
      stdout: '',
      stderr: `cannot copy: ${usage}; see --help\n`,
    });
    assert.deepEqual(await plainrest(['copy', '--from', 'a', '--to', 'b', '--port', '1']), {
      code: 2,
      stdout: '',
      stderr: 'cannot copy: unknown argument --port; see --help\n',
    });
    assert.deepEqual(await plainrest(['copy', '--from', 'same', '--to', './same']), {
      code: 2,
      stdout: '',
      stderr: 'cannot copy: --from and --to both name the data directory same; name another target\n',
    });
  });
});

/** Cards with uuids, boards with chosen ids and columns under them, tasks naming a card and an array of boards. */
const DECLARED_IDS: ResourcesDeclaration = {
  resources: {
    cards: { singular: 'card', 'x-id': 'uuid', properties: { title: { type: 'string' } }, required: ['title'] },
    boards: { singular: 'board', 'x-id': 'string', properties: { name: { type: 'string' } }, required: ['name'] },
    columns: { singular: 'column', parent: 'boards', properties: { title: { type: 'string' } }, required: ['title'] },
    tasks: {
      singular: 'task',
      properties: {
        text: { type: 'string' },
        card_id: { type: 'string', 'x-references': 'cards', 'x-filter': true },
        board_ids: { type: 'array', items: { type: 'string', 'x-references': 'boards' } },
      },
      required: ['text'],
    },
  },
};

describe('copy: uuid and string ids, a data directory into PostgreSQL and back', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  let declaration: string;

  before(async () => {
    cluster = await startCluster();
    declaration = join(await scratch(), 'resources.json');
    await writeFile(declaration, JSON.stringify(DECLARED_IDS));
  });
  after(async () => {
    await cluster?.stop();
  });

  /** Every card, board, column and task, in id order (string ids by code point). */
  async function declared(api: TestServer): Promise<Record<string, unknown[]>> {
    const boards = (await api.get('/v1/boards?limit=100')).body.data as { id: string }[];
    const columns: unknown[] = [];
    for (const board of boards)
      columns.push(...((await api.get(`/v1/boards/${board.id}/columns?limit=100`)).body.data as unknown[]));
    return {
      cards: (await api.get('/v1/cards?limit=100')).body.data as unknown[],
      boards,
      columns,
      tasks: (await api.get('/v1/tasks?limit=100')).body.data as unknown[],
    };
  }

  test(
    'their records, ids and references survive both ways; a taken id is still 409, new ids follow',
    TIMEOUT,
    async () => {
      const source = join(await scratch(), 'data');
      const first = await startTestServerWithAdminBootstrap({ resources: DECLARED_IDS, dataDir: source });
      let original: Record<string, unknown[]>;
      let card: string;
      try {
        card = (await first.post('/v1/cards', { title: 'Kept' })).body.id as string;
        for (const id of ['b', 'B', 'a-10', '~z'])
          assert.equal((await first.post('/v1/boards', { id, name: id })).status, 201);
        assert.equal((await first.put('/v1/boards/made-by-put', { name: 'Put' })).status, 201);
        assert.equal((await first.post('/v1/boards/B/columns', { title: 'Todo' })).body.id, 1);
        assert.equal((await first.post('/v1/tasks', { text: 'T', card_id: card, board_ids: ['~z', 'B'] })).status, 201);
        original = await declared(first);
      } finally {
        await first.close();
      }
      assert.deepEqual(
        (original['boards'] as { id: string }[]).map((board) => board.id),
        ['B', 'a-10', 'b', 'made-by-put', '~z'],
      );

      const url = cluster.url(await cluster.createDatabase());
      const toDatabase = await plainrest(['copy', '--from', source, '--to', url, '--resources', declaration]);
      assert.deepEqual(toDatabase, {
        code: 0,
        stdout: `copied 1 user, 1 card, 5 boards, 1 column, 1 task, 0 keys (and 0 idempotency keys) from the data directory ${source} to the database ${url}\n`,
        stderr: '',
      });
      const onDatabase = await startTestServerWithAdminBootstrap({ resources: DECLARED_IDS, database: url });
      try {
        assert.deepEqual(await declared(onDatabase), original);
        const taken = await onDatabase.post('/v1/boards', { id: 'b', name: 'Again' });
        assert.equal(taken.status, 409);
        assert.equal(taken.body.code, 'duplicate_value');
        assert.equal((await onDatabase.post('/v1/boards', { id: 'c', name: 'New' })).status, 201);
        assert.equal((await onDatabase.post('/v1/boards/c/columns', { title: 'Next' })).body.id, 2);
        const embedded = await onDatabase.get(`/v1/tasks/1?embed=card_id,board_ids`);
        assert.equal(embedded.body._embedded.card_id.id, card);
        assert.deepEqual(
          (embedded.body._embedded.board_ids as { id: string }[]).map((board) => board.id),
          ['~z', 'B'],
        );
        original = await declared(onDatabase);
      } finally {
        await onDatabase.close();
      }

      const back = join(await scratch(), 'back', 'data');
      const fromDatabase = await plainrest(['copy', '--from', url, '--to', back, '--resources', declaration]);
      assert.deepEqual(fromDatabase, {
        code: 0,
        stdout: `copied 1 user, 1 card, 6 boards, 2 columns, 1 task, 0 keys (and 0 idempotency keys) from the database ${url} to the data directory ${back}\n`,
        stderr: '',
      });
      const again = await startTestServerWithAdminBootstrap({ resources: DECLARED_IDS, dataDir: back });
      try {
        assert.deepEqual(await declared(again), original);
        assert.equal((await again.post('/v1/boards', { id: 'c', name: 'Again' })).status, 409);
        assert.equal((await again.post('/v1/boards/b/columns', { title: 'Third' })).body.id, 3);
      } finally {
        await again.close();
      }
    },
  );
});
