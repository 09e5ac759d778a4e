// The PostgreSQL package's tables from declarations (docs/deploying.md; packages/postgres/src/
// schema.ts, schema-migration.ts), against a real PostgreSQL started for the test
// (test/postgres-cluster.ts): what a declaration creates, what an additive change adds,
// what stored data that no longer fits refuses (count and first ids, nothing changed),
// and that foreign keys cascade to nested records and hold references.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { compileObject } from '../src/declarations/load-declaration.ts';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import { migrateSchema } from '../packages/postgres/src/schema-migration.ts';
import { schemaOf } from '../packages/postgres/src/schema.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';
import { LIBRARY, WORKSHOP } from './declared-domains.ts';
import { startServer, StartupError } from '../src/index.ts';
import { TEST_AUTH_OPTIONS } from './helpers.ts';

type Declared = {
  resources: Record<string, { singular: string; properties: Record<string, unknown>; required?: string[] }>;
};
const NOTES: Declared = {
  resources: {
    notes: {
      singular: 'note',
      properties: {
        text: { type: 'string', maxLength: 200 },
        mood: { enum: ['calm', 'busy', 'odd'] },
        stars: { type: 'integer' },
      },
      required: ['text'],
    },
  },
};
const copy = (value: Declared): Declared => structuredClone(value);
/** Cards with uuids, boards with chosen ids and lanes under them, tasks naming a card and an array of boards. */
const DECLARED_IDS = {
  resources: {
    cards: { singular: 'card', 'x-id': 'uuid', properties: { title: { type: 'string' } }, required: ['title'] },
    boards: { singular: 'board', 'x-id': 'string', properties: { name: { type: 'string' } }, required: ['name'] },
    lanes: { singular: 'lane', parent: 'boards', properties: { title: { type: 'string' } }, required: ['title'] },
    tasks: {
      singular: 'task',
      properties: {
        card_id: { type: 'string', 'x-references': 'cards', 'x-filter': true },
        board_ids: { type: 'array', items: { type: 'string', 'x-references': 'boards' } },
      },
    },
  },
} as unknown as ResourcesDeclaration;

describe('PostgreSQL schema from declarations', { skip: POSTGRES_SKIP }, () => {
  let cluster: PostgresCluster;
  before(async () => {
    cluster = await startCluster();
  });
  after(() => cluster?.stop());

  /** A client on a new database. */
  async function database(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: cluster.url(await cluster.createDatabase()) });
    await client.connect();
    return client;
  }
  const migrate = (client: pg.Client, declaration: Declared | ResourcesDeclaration) =>
    migrateSchema(client, schemaOf(compileObject(declaration as ResourcesDeclaration)));
  const columns = async (client: pg.Client, table: string): Promise<string[]> =>
    (
      await client.query<{ c: string }>(
        `SELECT column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END AS c
         FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
        [table],
      )
    ).rows.map((row) => row.c);
  const indexes = async (client: pg.Client, table: string): Promise<string[]> =>
    (
      await client.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`,
        [table],
      )
    ).rows.map((row) => row.indexdef.replace(/ USING btree/, '').replace(/public\./g, ''));
  /** Every table's columns and indexes: to show that a refused start changed nothing. */
  const schemaDump = async (client: pg.Client): Promise<string> => {
    const tables = (
      await client.query<{ t: string }>(
        `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
      )
    ).rows;
    const parts: string[] = [];
    for (const { t } of tables) parts.push(t, ...(await columns(client, t)), ...(await indexes(client, t)));
    return parts.join('\n');
  };

  test('a declaration creates a table per collection: typed columns, ids from an identity, indexes for unique, filter, sort and parent', async () => {
    const client = await database();
    try {
      const result = await migrate(client, LIBRARY);
      assert.deepEqual(result.problems, []);
      assert.deepEqual(await columns(client, 'books'), [
        'id bigint not null',
        'author_id bigint not null',
        'title text not null',
        'isbn text not null',
        'price double precision not null',
        'status text',
        'created_at timestamp with time zone not null',
        'updated_at timestamp with time zone not null',
      ]);
      assert.deepEqual(await indexes(client, 'books'), [
        'CREATE INDEX books_author_id_parent ON books (author_id, id)',
        'CREATE INDEX books_created_at_list ON books (author_id, created_at, id)',
        'CREATE UNIQUE INDEX books_isbn_unique ON books (isbn)',
        'CREATE UNIQUE INDEX books_pkey ON books (id)',
        'CREATE INDEX books_price_list ON books (author_id, price, id)',
        'CREATE INDEX books_status_list ON books (author_id, status, id)',
        'CREATE INDEX books_title_list ON books (author_id, title, id)',
        'CREATE INDEX books_updated_at_list ON books (author_id, updated_at, id)',
      ]);
      // users: the built-in fields, the password under its stored name, email unique ignoring case
      assert.deepEqual(await columns(client, 'users'), [
        'id bigint not null',
        'name text not null',
        // required of requests, but a provider's user may have none (README: Provider tokens)
        'email text',
        'password_hash text',
        'role text',
        // an identity provider's person (README: Provider tokens), unique
        'provider_identity text',
        'created_at timestamp with time zone not null',
        'updated_at timestamp with time zone not null',
        // the words of the searchable name (x-search), under a GIN index
        '__search jsonb',
      ]);
      assert.ok(
        (await indexes(client, 'users')).includes('CREATE INDEX users_words_search ON users USING gin (__search)'),
      );
      assert.ok(
        (await indexes(client, 'users')).includes('CREATE UNIQUE INDEX users_email_unique ON users (lower(email))'),
      );
      assert.ok((await indexes(client, 'users')).includes('CREATE INDEX users_email_list ON users (lower(email), id)'));
      assert.ok(
        (await indexes(client, 'users')).includes(
          'CREATE UNIQUE INDEX users_provider_identity_unique ON users (provider_identity)',
        ),
      );
      const identity = await client.query(
        `SELECT is_identity FROM information_schema.columns WHERE table_name = 'books' AND column_name = 'id'`,
      );
      assert.equal(identity.rows[0].is_identity, 'YES');
      // a second start with the same declaration changes nothing, and sends no statement to change anything (an index that exists is not asked for again)
      const before = await schemaDump(client);
      const again = await migrate(client, LIBRARY);
      assert.deepEqual(again.problems, []);
      assert.deepEqual(again.applied, []);
      assert.equal(await schemaDump(client), before);
      // A database made when users' email was NOT NULL allows NULL after a start; two users without one coexist.
      await client.query('ALTER TABLE users ALTER COLUMN email SET NOT NULL');
      const loosened = await migrate(client, LIBRARY);
      assert.deepEqual(loosened.problems, []);
      assert.deepEqual(loosened.applied, ['ALTER TABLE "users" ALTER COLUMN "email" DROP NOT NULL']);
      const now = new Date().toISOString();
      for (const email of [null, null, 'a@example.com'])
        await client.query(`INSERT INTO users (name, email, created_at, updated_at) VALUES ('u', $1, $2, $2)`, [
          email,
          now,
        ]);
      await assert.rejects(
        client.query(`INSERT INTO users (name, email, created_at, updated_at) VALUES ('u', 'A@example.com', $1, $1)`, [
          now,
        ]),
        /users_email_unique/,
      );
    } finally {
      await client.end();
    }
  });

  test('foreign keys: deleting a record deletes what is nested under it, at every depth; a referenced record cannot be deleted', async () => {
    const client = await database();
    try {
      assert.deepEqual((await migrate(client, WORKSHOP)).problems, []);
      const now = new Date().toISOString();
      await client.query(`INSERT INTO teams (name, owner_id, created_at, updated_at) VALUES ('t', 1, $1, $1)`, [now]);
      await client.query(`INSERT INTO projects (team_id, title, created_at, updated_at) VALUES (1, 'p', $1, $1)`, [
        now,
      ]);
      await client.query(
        `INSERT INTO tasks (project_id, summary, estimate, tags, created_at, updated_at) VALUES (1, 's', '{"hours": 2}', '["a"]', $1, $1)`,
        [now],
      );
      await client.query('DELETE FROM teams WHERE id = 1');
      assert.equal((await client.query('SELECT count(*)::int AS n FROM tasks')).rows[0].n, 0);

      const library = await database();
      try {
        assert.deepEqual((await migrate(library, LIBRARY)).problems, []);
        await library.query(`INSERT INTO authors (name, created_at, updated_at) VALUES ('a', $1, $1)`, [now]);
        await library.query(
          `INSERT INTO books (author_id, title, isbn, price, created_at, updated_at) VALUES (1, 'b', '1', 1, $1, $1)`,
          [now],
        );
        await library.query(
          `INSERT INTO users (name, email, role, password_hash, created_at, updated_at) VALUES ('u', 'u@x', 'user', 'h', $1, $1)`,
          [now],
        );
        await library.query(
          `INSERT INTO loans (owner_id, book_id, due, created_at, updated_at) VALUES (1, 1, '2026-12-01', $1, $1)`,
          [now],
        );
        await assert.rejects(
          library.query('DELETE FROM books WHERE id = 1'),
          (error: { code?: string }) => error.code === '23503',
        );
        await assert.rejects(
          library.query(
            `INSERT INTO loans (owner_id, book_id, due, created_at, updated_at) VALUES (1, 99, '2026-12-01', $1, $1)`,
            [now],
          ),
          (error: { code?: string }) => error.code === '23503',
        );
      } finally {
        await library.end();
      }
    } finally {
      await client.end();
    }
  });

  test('additive changes start: a new collection, an optional property, a filter, a reference; a required property on an empty table', async () => {
    const client = await database();
    try {
      assert.deepEqual((await migrate(client, NOTES)).problems, []);
      await client.query(`INSERT INTO notes (text, created_at, updated_at) VALUES ('hi', now(), now())`);
      const grown = copy(NOTES);
      grown.resources['notes']!.properties['pinned'] = { type: 'boolean', 'x-filter': true };
      grown.resources['notes']!.properties['label_id'] = { type: 'integer', 'x-references': 'labels' };
      grown.resources['labels'] = { singular: 'label', properties: { name: { type: 'string' } }, required: ['name'] };
      const result = await migrate(client, grown);
      assert.deepEqual(result.problems, []);
      assert.ok(result.applied.includes('ALTER TABLE "notes" ADD COLUMN "pinned" boolean'), result.applied.join('\n'));
      assert.ok(
        result.applied.includes(
          'ALTER TABLE "notes" ADD CONSTRAINT "notes_label_id_fkey" FOREIGN KEY ("label_id") REFERENCES "labels" ("id")',
        ),
        result.applied.join('\n'),
      );
      // Started again on the same declaration, nothing is left to add: the foreign key is found, not added twice.
      assert.deepEqual(await migrate(client, grown), { problems: [], applied: [] });
      assert.ok((await indexes(client, 'notes')).includes('CREATE INDEX notes_pinned_list ON notes (pinned, id)'));
      assert.deepEqual(await columns(client, 'labels'), [
        'id bigint not null',
        'name text not null',
        'created_at timestamp with time zone not null',
        'updated_at timestamp with time zone not null',
      ]);
      assert.equal((await client.query('SELECT text FROM notes')).rows[0].text, 'hi');
    } finally {
      await client.end();
    }
  });

  test('stored data that no longer fits is refused with the count and the first ids, every problem at once, and nothing changes', async () => {
    const client = await database();
    try {
      const old = copy(NOTES);
      old.resources['memos'] = { singular: 'memo', properties: { body: { type: 'string' } } };
      assert.deepEqual((await migrate(client, old)).problems, []);
      for (let i = 1; i <= 7; i++) {
        await client.query(
          `INSERT INTO notes (text, mood, stars, created_at, updated_at) VALUES ($1, $2, $3, now(), now())`,
          [`n${i}`, i % 2 === 0 ? 'odd' : 'calm', i],
        );
      }
      await client.query(`INSERT INTO memos (body, created_at, updated_at) VALUES ('m', now(), now())`);
      const before = await schemaDump(client);

      const changed = copy(NOTES);
      changed.resources['notes']!.properties['title'] = { type: 'string' };
      changed.resources['notes']!.required = ['text', 'title'];
      changed.resources['notes']!.properties['mood'] = { enum: ['calm', 'busy'] };
      changed.resources['notes']!.properties['text'] = { type: 'integer' };
      delete changed.resources['notes']!.properties['stars'];
      const result = await migrate(client, changed);
      assert.deepEqual(result.problems, [
        { kind: 'removed-collection', collection: 'memos', count: 1, firstIds: [1] },
        {
          kind: 'wrong-kind',
          collection: 'notes',
          property: 'text',
          declared: 'bigint',
          count: 7,
          firstIds: [1, 2, 3, 4, 5],
        },
        {
          kind: 'wrong-kind',
          collection: 'notes',
          property: 'mood',
          declared: 'one of calm, busy',
          count: 3,
          firstIds: [2, 4, 6],
        },
        { kind: 'missing-required', collection: 'notes', property: 'title', count: 7, firstIds: [1, 2, 3, 4, 5] },
        { kind: 'undeclared-property', collection: 'notes', property: 'stars', count: 7, firstIds: [1, 2, 3, 4, 5] },
      ]);
      assert.deepEqual(result.applied, []);
      assert.equal(await schemaDump(client), before);
      assert.equal((await client.query('SELECT count(*)::int AS n FROM notes')).rows[0].n, 7);
    } finally {
      await client.end();
    }
  });

  test('a collection declared a singleton while it holds rows under other ids than 1 is refused, and nothing changes; with row 1 alone it starts', async () => {
    const client = await database();
    try {
      assert.deepEqual((await migrate(client, NOTES)).problems, []);
      for (const text of ['a', 'b', 'c'])
        await client.query(`INSERT INTO notes (text, created_at, updated_at) VALUES ($1, now(), now())`, [text]);
      const before = await schemaDump(client);
      const singleton = copy(NOTES);
      (singleton.resources['notes'] as Record<string, unknown>)['x-singleton'] = true;
      const refused = await migrate(client, singleton);
      assert.deepEqual(refused.problems, [
        { kind: 'not-the-singleton', collection: 'notes', count: 2, firstIds: [2, 3] },
      ]);
      assert.deepEqual(refused.applied, []);
      assert.equal(await schemaDump(client), before);
      await client.query(`DELETE FROM notes WHERE "id" <> 1`);
      assert.deepEqual((await migrate(client, singleton)).problems, []);
    } finally {
      await client.end();
    }
  });

  test('an integer property may become a number; a number one an integer one when every value is whole; an optional one loses NOT NULL', async () => {
    const client = await database();
    try {
      assert.deepEqual((await migrate(client, NOTES)).problems, []);
      await client.query(`INSERT INTO notes (text, stars, created_at, updated_at) VALUES ('a', 3, now(), now())`);
      const widened = copy(NOTES);
      widened.resources['notes']!.properties['stars'] = { type: 'number' };
      widened.resources['notes']!.required = [];
      assert.deepEqual((await migrate(client, widened)).problems, []);
      assert.ok((await columns(client, 'notes')).includes('stars double precision'));
      assert.ok((await columns(client, 'notes')).includes('text text'));
      await client.query(`INSERT INTO notes (text, stars, created_at, updated_at) VALUES ('b', 2.5, now(), now())`);
      const narrowed = copy(NOTES);
      const refused = await migrate(client, narrowed);
      assert.deepEqual(refused.problems, [
        { kind: 'wrong-kind', collection: 'notes', property: 'stars', declared: 'bigint', count: 1, firstIds: [2] },
      ]);
      await client.query(`UPDATE notes SET stars = 2 WHERE id = 2`);
      assert.deepEqual((await migrate(client, narrowed)).problems, []);
      assert.ok((await columns(client, 'notes')).includes('stars bigint'));
    } finally {
      await client.end();
    }
  });

  test('declared ids: uuid and text id columns, references of their target kind, arrays of references as jsonb', async () => {
    const client = await database();
    try {
      assert.deepEqual((await migrate(client, DECLARED_IDS)).problems, []);
      assert.deepEqual(await columns(client, 'cards'), [
        'id uuid not null',
        'title text not null',
        'created_at timestamp with time zone not null',
        'updated_at timestamp with time zone not null',
      ]);
      assert.deepEqual((await columns(client, 'boards')).slice(0, 1), ['id text not null']);
      assert.deepEqual((await columns(client, 'lanes')).slice(0, 2), ['id bigint not null', 'board_id text not null']);
      assert.deepEqual((await columns(client, 'tasks')).slice(0, 3), [
        'id bigint not null',
        'card_id uuid',
        'board_ids jsonb',
      ]);
      // A chosen id is compared by code point whatever the database's collation.
      const collation = await client.query(
        `SELECT collation_name FROM information_schema.columns WHERE table_name = 'boards' AND column_name = 'id'`,
      );
      assert.equal(collation.rows[0].collation_name, 'C');
      assert.deepEqual(await migrate(client, DECLARED_IDS), { problems: [], applied: [] });
    } finally {
      await client.end();
    }
  });

  test('a table whose id column is not of the declared x-id is refused, rows or none, and nothing changes', async () => {
    const client = await database();
    try {
      assert.deepEqual((await migrate(client, NOTES)).problems, []);
      for (const text of ['a', 'b'])
        await client.query(`INSERT INTO notes (text, created_at, updated_at) VALUES ($1, now(), now())`, [text]);
      const uuids = copy(NOTES);
      (uuids.resources['notes'] as Record<string, unknown>)['x-id'] = 'uuid';
      const before = await schemaDump(client);
      const refused = await migrate(client, uuids);
      assert.deepEqual(refused.problems, [
        { kind: 'wrong-id-kind', collection: 'notes', declared: 'uuid', stored: 'bigint', count: 2, firstIds: [1, 2] },
      ]);
      assert.deepEqual(refused.applied, []);
      assert.equal(await schemaDump(client), before);
      await client.query('DELETE FROM notes');
      const strings = copy(NOTES);
      (strings.resources['notes'] as Record<string, unknown>)['x-id'] = 'string';
      assert.deepEqual((await migrate(client, strings)).problems, [
        { kind: 'wrong-id-kind', collection: 'notes', declared: 'string', stored: 'bigint', count: 0, firstIds: [] },
      ]);
      assert.equal(await schemaDump(client), before);
    } finally {
      await client.end();
    }
  });

  test('the reverse: a uuid table declared with integer ids; the start says so in one line', async () => {
    const database = cluster.url(await cluster.createDatabase());
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const uuids = copy(NOTES);
      (uuids.resources['notes'] as Record<string, unknown>)['x-id'] = 'uuid';
      assert.deepEqual((await migrate(client, uuids)).problems, []);
      const id = '0d6f3a52-8c1e-4b7a-9f2d-5e4c3b2a1f00';
      await client.query(`INSERT INTO notes (id, text, created_at, updated_at) VALUES ($1, 'a', now(), now())`, [id]);
      assert.deepEqual((await migrate(client, NOTES)).problems, [
        { kind: 'wrong-id-kind', collection: 'notes', declared: 'integer', stored: 'uuid', count: 1, firstIds: [id] },
      ]);
    } finally {
      await client.end();
    }
    const error = await startServer({
      port: 0,
      database,
      resources: NOTES as unknown as ResourcesDeclaration,
      ...TEST_AUTH_OPTIONS,
    }).then(
      async (started) => {
        await started.close();
        return assert.fail('the server started');
      },
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof StartupError, String(error));
    assert.equal(
      error.message,
      "the data in the database no longer fits the declaration: notes: its table's ids are uuids (1 record " +
        '(id 0d6f3a52-8c1e-4b7a-9f2d-5e4c3b2a1f00)) but notes declares "x-id": "integer"; declare the ids it holds, ' +
        'or drop or rename the table; nothing was changed',
    );
  });

  test('a change feed made when ids were all integers has its record_id made JSON, its events kept', async () => {
    const client = await database();
    try {
      assert.deepEqual((await migrate(client, NOTES)).problems, []);
      await client.query(`ALTER TABLE __events ALTER COLUMN record_id TYPE bigint USING (record_id #>> '{}')::bigint`);
      await client.query(
        `INSERT INTO __events (id, type, collection, record_id, under, at) VALUES (1, 'deleted', 'notes', 7, '[]', now())`,
      );
      const migrated = await migrate(client, NOTES);
      assert.deepEqual(migrated, {
        problems: [],
        applied: ['ALTER TABLE "__events" ALTER COLUMN "record_id" TYPE jsonb USING to_jsonb("record_id")'],
      });
      const row = await client.query(`SELECT record_id, pg_typeof(record_id)::text AS type FROM __events`);
      assert.deepEqual(row.rows, [{ record_id: 7, type: 'jsonb' }]);
    } finally {
      await client.end();
    }
  });

  test('several processes starting at once on an empty database: one creates the tables, the others find them', async () => {
    const name = await cluster.createDatabase();
    const clients = await Promise.all(
      [1, 2, 3].map(async () => {
        const client = new pg.Client({ connectionString: cluster.url(name) });
        await client.connect();
        return client;
      }),
    );
    try {
      const results = await Promise.all(clients.map((client) => migrate(client, LIBRARY)));
      for (const result of results) assert.deepEqual(result.problems, []);
      assert.equal(
        results.filter((result) => result.applied.some((statement) => statement.startsWith('CREATE TABLE'))).length,
        1,
      );
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });
});
