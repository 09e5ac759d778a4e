// `plainrest import` (README: Moving in from json-server), imported and then served over HTTP: json-server's own
// README example, a 0.17 file (numeric ids, users, relations), a 1.x file (string ids renumbered, references
// rewritten), a file with every inference case, the refusals (each line exact, nothing written), 1,000 records (time
// and memory reported; 10,000 in the long run, test/long-run.ts), the command line (exit statuses, --force, a target
// that holds data, --access) and DELAY_MS.

import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { importFile, ImportError } from '../src/cli/import-command.ts';
import type { ImportAccess } from '../src/importing/import-declaration.ts';
import { snakeCase } from '../src/importing/names.ts';
import { collectionIds } from '../src/importing/record-ids.ts';
import { runToExit } from './child-process.ts';
import type { TestServer } from './helpers.ts';
import {
  cleanUpAfterEach,
  processEnvironment,
  scratchDirectory,
  startTestServerWithAdminBootstrap,
  startTestServer,
} from './helpers.ts';
import { scaled } from './long-run.ts';
import { REPOSITORY_ROOT } from './repository.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');

/** json-server's README example, as its README gives it (1.x: ids as strings). */
const README_EXAMPLE = {
  posts: [
    { id: '1', title: 'a title', views: 100 },
    { id: '2', title: 'another title', views: 200 },
  ],
  comments: [
    { id: '1', text: 'a comment about post 1', postId: '1' },
    { id: '2', text: 'another comment about post 1', postId: '1' },
  ],
  profile: { name: 'typicode' },
};

const READ_ACCESS = '{ "list": "public", "read": "public", "create": "admin", "update": "admin", "delete": "admin" }';

interface Imported {
  readonly lines: string[];
  readonly declaration: string;
  readonly dir: string;
  readonly dataDir: string;
  readonly resources: string;
}

/** Writes `data` as db.json in a fresh directory and imports it into data/ beside it. */
async function imported(
  defer: ReturnType<typeof cleanUpAfterEach>,
  data: unknown,
  access: ImportAccess = 'read',
): Promise<Imported> {
  const dir = await scratchDirectory(defer);
  const file = join(dir, 'db.json');
  await writeFile(file, JSON.stringify(data, null, 2));
  const dataDir = join(dir, 'data');
  const lines = await importFile({ file, resources: undefined, target: dataDir, access, force: false });
  const resources = join(dir, 'resources.json');
  return { lines, declaration: await readFile(resources, 'utf8'), dir, dataDir, resources };
}

async function served(defer: ReturnType<typeof cleanUpAfterEach>, at: Imported): Promise<TestServer> {
  const api = await startTestServerWithAdminBootstrap({ resources: at.resources, dataDir: at.dataDir });
  defer(() => api.close());
  return api;
}

/** The records of a list, without their timestamps (the import's time). */
function withoutTimes(records: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return records.map(({ created_at: _created, updated_at: _updated, ...rest }) => rest);
}

/** The problem lines of importing `data`, which must be refused with nothing written. */
async function refused(defer: ReturnType<typeof cleanUpAfterEach>, data: unknown): Promise<readonly string[]> {
  const dir = await scratchDirectory(defer);
  const file = join(dir, 'db.json');
  await writeFile(file, JSON.stringify(data));
  const attempt = importFile({ file, resources: undefined, target: join(dir, 'data'), access: 'read', force: false });
  const error = await attempt.then(
    () => assert.fail('the import went through'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof ImportError, String(error));
  assert.deepEqual(await readdir(dir), ['db.json']);
  return error.lines;
}

describe('plainrest import: round trips', () => {
  const defer = cleanUpAfterEach();

  test("json-server's README example: posts and comments, the relation a reference, the profile a singleton", async () => {
    const at = await imported(defer, README_EXAMPLE);
    assert.equal(
      at.declaration,
      `{
  "resources": {
    "posts": {
      "singular": "post",
      "access": ${READ_ACCESS},
      "properties": {
        "title": { "type": "string", "x-search": true },
        "views": { "type": "integer", "x-sort": true }
      },
      "required": ["title", "views"],
      "x-json-server": { "name": "posts", "ids": "text" }
    },
    "comments": {
      "singular": "comment",
      "access": ${READ_ACCESS},
      "properties": {
        "text": { "type": "string", "x-search": true },
        "post_id": { "type": "integer", "x-references": "posts", "x-filter": true }
      },
      "required": ["text", "post_id"],
      "x-json-server": { "name": "comments", "properties": { "post_id": "postId" }, "ids": "text" }
    },
    "profile": {
      "singular": "profile",
      "x-singleton": true,
      "access": { "read": "public", "update": "admin" },
      "properties": {
        "name": { "type": "string" }
      },
      "required": ["name"]
    }
  }
}
`,
    );
    assert.deepEqual(at.lines, [
      'posts: title (string, x-search, required), views (integer, x-sort, required)',
      'comments: text (string, x-search, required), post_id (integer, x-references posts, x-filter, required)',
      'profile (a singleton): name (string, required)',
      'posts: ids written as text ("1", as json-server 1.x writes them) are served as numbers',
      'comments: ids written as text ("1", as json-server 1.x writes them) are served as numbers',
      "profile: a single object (json-server's singular resource): one record at /v1/profile",
      'comments.postId: served as post_id',
      'comments.postId: its values are ids of posts: a reference (x-references posts)',
      `wrote ${at.resources}: 3 collection(s); access read: anyone may list and read with no token; ` +
        'only admins create, change and delete',
      `loaded 2 posts, 2 comments, 1 profile into the data directory ${at.dataDir}`,
    ]);

    const api = await served(defer, at);
    const anyone = api.as(undefined);
    const posts = await anyone.get('/v1/posts');
    assert.equal(posts.status, 200);
    assert.deepEqual(withoutTimes(posts.body.data), [
      { id: 1, title: 'a title', views: 100 },
      { id: 2, title: 'another title', views: 200 },
    ]);
    const comments = await anyone.get('/v1/comments?post_id=1&sort=id');
    assert.deepEqual(withoutTimes(comments.body.data), [
      { id: 1, text: 'a comment about post 1', post_id: 1 },
      { id: 2, text: 'another comment about post 1', post_id: 1 },
    ]);
    const expanded = await anyone.get('/v1/comments/1?embed=post_id');
    assert.deepEqual(withoutTimes([expanded.body._embedded.post_id]), [{ id: 1, title: 'a title', views: 100 }]);
    assert.equal((await anyone.get('/v1/posts?q=another')).body.meta.total, 1);
    // Writes are the administrator's; a reference must name a post; a post with comments cannot go.
    assert.equal((await anyone.post('/v1/posts', { title: 'x', views: 1 })).status, 401);
    assert.equal((await api.post('/v1/comments', { text: 'orphan', post_id: 9 })).status, 422);
    assert.equal((await api.delete('/v1/posts/1')).status, 409);
    const created = await api.post('/v1/posts', { title: 'third', views: 0 });
    assert.equal(created.status, 201);
    assert.equal(created.body.id, 3);
    assert.ok((await anyone.get('/v1/openapi.json')).body.paths['/v1/comments/{comment_id}'] !== undefined);
    // The profile: read by anyone, changed by the administrator, never listed, created or deleted.
    const profile = await anyone.get('/v1/profile');
    assert.equal(profile.status, 200);
    assert.deepEqual(withoutTimes([profile.body]), [{ name: 'typicode' }]);
    assert.equal((await anyone.patch('/v1/profile', { name: 'someone' })).status, 401);
    const patched = await api.patch('/v1/profile', { name: 'octocat' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.name, 'octocat');
    assert.equal((await api.delete('/v1/profile')).status, 405);
  });

  test('a singleton with a reference, a timestamp and an id: the reference kept without a filter, the id left out', async () => {
    const at = await imported(defer, {
      users: [{ id: 1, name: 'Ann', email: 'ann@example.org' }],
      settings: { id: 'main', theme: 'dark', userId: 1, pageSize: 20, updatedAt: 1704164645000 },
    });
    assert.ok(
      at.lines.includes(
        'settings (a singleton): theme (string, required), user_id (integer, ' +
          'x-references users, required), page_size (integer, required)',
      ),
      at.lines.join('\n'),
    );
    assert.ok(at.lines.includes("settings.id: left out: a singleton's path names it alone"), at.lines.join('\n'));
    const api = await served(defer, at);
    const settings = await api.as(undefined).get('/v1/settings');
    assert.equal(settings.status, 200);
    assert.deepEqual(settings.body, {
      theme: 'dark',
      user_id: 1,
      page_size: 20,
      created_at: '2024-01-02T03:04:05.000Z',
      updated_at: '2024-01-02T03:04:05.000Z',
    });
    assert.equal((await api.patch('/v1/settings', { user_id: 9 })).status, 422);
  });

  test('a json-server 0.17 file: numeric ids kept, users merged with the built-in ones, timestamps kept', async () => {
    const at = await imported(defer, {
      users: [
        {
          id: 1,
          name: 'Leanne Graham',
          username: 'Bret',
          email: 'Sincere@april.biz',
          password: 'plain',
          website: 'hildegard.org',
        },
        { id: 2, name: 'Ervin Howell', username: 'Antonette', email: 'Shanna@melissa.tv', website: 'anastasia.net' },
      ],
      todos: [
        { userId: 1, id: 1, title: 'delectus aut autem', completed: false, createdAt: '2026-01-01T10:00:00Z' },
        { userId: 1, id: 2, title: 'quis ut nam facilis', completed: true, createdAt: '2026-01-02T10:00:00+02:00' },
        { userId: 2, id: 5, title: 'fugiat veniam minus', completed: false, createdAt: '2026-01-03' },
      ],
    });
    assert.equal(
      at.declaration,
      `{
  "resources": {
    "users": {
      "singular": "user",
      "properties": {
        "username": { "type": "string" },
        "website": { "type": "string" }
      }
    },
    "todos": {
      "singular": "todo",
      "access": ${READ_ACCESS},
      "properties": {
        "user_id": { "type": "integer", "x-references": "users", "x-filter": true },
        "title": { "type": "string", "x-search": true },
        "completed": { "type": "boolean", "x-filter": true }
      },
      "required": ["user_id", "title", "completed"],
      "x-json-server": { "name": "todos", "properties": { "user_id": "userId", "created_at": "createdAt" } }
    }
  }
}
`,
    );
    assert.ok(
      at.lines.includes(
        "users.password: left out: plainrest keeps users' password itself (only as a hash, set through the API)",
      ),
    );
    assert.ok(at.lines.includes("todos.createdAt: kept as each record's created_at"));
    const api = await served(defer, at);
    const users = (await api.get('/v1/users?sort=id')).body.data as Record<string, unknown>[];
    assert.deepEqual(withoutTimes(users), [
      {
        id: 1,
        name: 'Leanne Graham',
        email: 'Sincere@april.biz',
        role: 'user',
        username: 'Bret',
        website: 'hildegard.org',
      },
      {
        id: 2,
        name: 'Ervin Howell',
        email: 'Shanna@melissa.tv',
        role: 'user',
        username: 'Antonette',
        website: 'anastasia.net',
      },
      // The start made the administrator after them.
      { id: 3, name: 'Administrator', email: 'admin@example.com', role: 'admin' },
    ]);
    const todos = (await api.as(undefined).get('/v1/todos?sort=id')).body.data as Record<string, unknown>[];
    assert.deepEqual(
      todos.map((todo) => [todo['id'], todo['user_id'], todo['created_at'], todo['updated_at']]),
      [
        [1, 1, '2026-01-01T10:00:00.000Z', '2026-01-01T10:00:00.000Z'],
        [2, 1, '2026-01-02T08:00:00.000Z', '2026-01-02T08:00:00.000Z'],
        [5, 2, '2026-01-03T00:00:00.000Z', '2026-01-03T00:00:00.000Z'],
      ],
    );
    // The next todo takes the id after the largest.
    assert.equal((await api.post('/v1/todos', { user_id: 2, title: 'new one', completed: false })).body.id, 6);
    // An imported user has no password yet: no login until an admin sets one.
    assert.equal(
      (await api.as(undefined).post('/v1/tokens', { email: 'Sincere@april.biz', password: 'plain' })).status,
      401,
    );
  });

  test('a json-server 1.x file: its ids kept as text ("x-id": "string"), references and lists of them follow', async () => {
    const at = await imported(defer, {
      posts: [
        { id: '1f3a', title: 'Hello world', published: true, tagIds: ['t1', 't2'] },
        { id: '9b2c', title: 'Second post', published: false, tagIds: [] },
        { id: '7', title: 'Numbered post', published: true, tagIds: ['t2'] },
        { title: 'No id yet', published: false, tagIds: ['t1'] },
      ],
      comments: [
        { id: 'a1', text: 'nice one', postId: '1f3a' },
        { id: 'a2', text: 'agreed', postId: '9b2c' },
        { id: 'a3', text: 'third', postId: 7 },
      ],
      tags: [
        { id: 't1', label: 'news' },
        { id: 't2', label: 'misc' },
      ],
    });
    assert.equal(
      at.declaration,
      `{
  "resources": {
    "posts": {
      "singular": "post",
      "x-id": "string",
      "access": ${READ_ACCESS},
      "properties": {
        "title": { "type": "string", "x-search": true },
        "published": { "type": "boolean", "x-filter": true },
        "tag_ids": { "type": "array", "items": { "type": "string", "x-references": "tags" } }
      },
      "required": ["title", "published", "tag_ids"],
      "x-json-server": { "name": "posts", "properties": { "tag_ids": "tagIds" } }
    },
    "comments": {
      "singular": "comment",
      "x-id": "string",
      "access": ${READ_ACCESS},
      "properties": {
        "text": { "type": "string" },
        "post_id": { "type": "string", "x-references": "posts", "x-filter": true }
      },
      "required": ["text", "post_id"],
      "x-json-server": { "name": "comments", "properties": { "post_id": "postId" } }
    },
    "tags": {
      "singular": "tag",
      "x-id": "string",
      "access": ${READ_ACCESS},
      "properties": {
        "label": { "type": "string" }
      },
      "required": ["label"]
    }
  }
}
`,
    );
    const mapping = JSON.parse(await readFile(join(at.dir, 'resources.ids.json'), 'utf8'));
    assert.deepEqual(Object.keys(mapping), ['posts']);
    const made = mapping.posts['(record 4)'] as string;
    assert.match(made, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const line of [
      'posts: ids kept as the file has them, as text ("x-id": "string")',
      'posts.tagIds: its values are lists of ids of tags: a list of references to tags',
      'comments.postId: its values are ids of posts: a reference (x-references posts)',
      `posts: 1 record(s) got new ids: (record 4) → ${made} (references to them were rewritten)`,
    ])
      assert.ok(at.lines.includes(line), `${line}\n${at.lines.join('\n')}`);
    const api = (await served(defer, at)).as(undefined);
    // A client of the file's server asks for the same paths, and gets the same ids.
    assert.deepEqual(withoutTimes([(await api.get('/v1/posts/1f3a')).body]), [
      { id: '1f3a', title: 'Hello world', published: true, tag_ids: ['t1', 't2'] },
    ]);
    assert.deepEqual(withoutTimes([(await api.get('/v1/posts/7')).body]), [
      { id: '7', title: 'Numbered post', published: true, tag_ids: ['t2'] },
    ]);
    assert.deepEqual(withoutTimes((await api.get('/v1/comments')).body.data), [
      { id: 'a1', text: 'nice one', post_id: '1f3a' },
      { id: 'a2', text: 'agreed', post_id: '9b2c' },
      { id: 'a3', text: 'third', post_id: '7' },
    ]);
    const embedded = await api.get('/v1/posts/1f3a?embed=tag_ids');
    assert.deepEqual(
      (embedded.body._embedded.tag_ids as { label: string }[]).map((tag) => tag.label),
      ['news', 'misc'],
    );
  });

  test('uuids as ids: "x-id": "uuid", kept as they are; a reference to one that does not exist is a problem', async () => {
    const first = '3f2a6c1e-8b7d-4e2f-9a1b-0c3d5e7f9a2b';
    const second = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
    const at = await imported(defer, {
      cards: [
        { id: first, title: 'one' },
        { id: second, title: 'two' },
      ],
      notes: [{ id: 1, cardId: second, text: 'hi' }],
    });
    assert.match(at.declaration, /"cards": \{\n {6}"singular": "card",\n {6}"x-id": "uuid",/);
    assert.match(at.declaration, /"card_id": \{ "type": "string", "x-references": "cards", "x-filter": true \}/);
    const api = (await served(defer, at)).as(undefined);
    assert.equal((await api.get(`/v1/cards/${first}`)).body.title, 'one');
    assert.deepEqual(withoutTimes((await api.get(`/v1/notes?card_id=${second}`)).body.data), [
      { id: 1, card_id: second, text: 'hi' },
    ]);
    assert.deepEqual(
      await refused(defer, {
        cards: [{ id: first, title: 'one' }],
        notes: [{ id: 1, cardId: second, text: 'hi' }],
        posts: [{ id: 1, title: 'x', cardIds: [first, second] }],
      }),
      [
        `notes, record 1 (id 1), cardId: "${second}" is the id of no record of cards; correct it or remove it`,
        `posts, record 1 (id 1), cardIds: "${second}" is the id of no record of cards; correct it or remove it`,
      ],
    );
  });

  test('every inference: types, formats, required, nested objects and lists, nulls, filters, search, sort', async () => {
    const at = await imported(
      defer,
      {
        authors: [
          {
            id: 1,
            fullName: 'Ada Lovelace',
            email: 'ada@example.com',
            homepage: 'https://example.com/ada',
            born: '1815-12-10',
            active: true,
            rating: 4.5,
            books: 3,
            country: 'UK',
            nickname: null,
          },
          {
            id: 2,
            fullName: 'Alan Turing',
            email: 'alan@example.com',
            homepage: 'https://example.com/alan',
            born: '1912-06-23',
            active: false,
            rating: 5,
            books: 1,
            country: 'UK',
          },
          {
            id: 3,
            fullName: 'Grace Hopper',
            email: 'grace@example.com',
            born: '1906-12-09',
            active: true,
            rating: 4,
            books: 2,
            country: 'US',
          },
          {
            id: 4,
            fullName: 'Edsger Dijkstra',
            email: 'edsger@example.com',
            homepage: 'https://example.com/ew',
            born: '1930-05-11',
            active: false,
            rating: 4.25,
            books: 2,
            country: 'US',
          },
        ],
        articles: [
          {
            id: 10,
            authorId: 1,
            headline: 'Notes on the Analytical Engine',
            publishedAt: '1843-09-01T00:00:00Z',
            tags: ['math', 'engines'],
            meta: { pages: 65, language: 'en' },
          },
          {
            id: 11,
            authorId: 2,
            headline: 'On Computable Numbers',
            publishedAt: '1936-11-12T00:00:00Z',
            tags: ['math'],
            meta: { pages: 36, language: 'en' },
          },
          {
            authorId: 4,
            headline: 'Go To Statement Considered Harmful',
            publishedAt: '1968-03-01T00:00:00Z',
            tags: [],
            meta: { pages: 2 },
          },
        ],
        settings: { theme: 'dark' },
        version: 3,
      },
      'open',
    );
    const open = '{ "list": "public", "read": "public", "create": "public", "update": "public", "delete": "public" }';
    assert.equal(
      at.declaration,
      `{
  "resources": {
    "authors": {
      "singular": "author",
      "access": ${open},
      "properties": {
        "full_name": { "type": "string", "x-search": true },
        "email": { "type": "string", "format": "email" },
        "homepage": { "type": "string", "format": "uri" },
        "born": { "type": "string", "format": "date", "x-sort": true },
        "active": { "type": "boolean", "x-filter": true },
        "rating": { "type": "number", "x-sort": true },
        "books": { "type": "integer", "x-sort": true },
        "country": { "type": "string", "x-filter": true },
        "nickname": { "type": ["string", "null"] }
      },
      "required": ["full_name", "email", "born", "active", "rating", "books", "country"],
      "x-json-server": { "name": "authors", "properties": { "full_name": "fullName" } }
    },
    "articles": {
      "singular": "article",
      "access": ${open},
      "properties": {
        "author_id": { "type": "integer", "x-references": "authors", "x-filter": true },
        "headline": { "type": "string", "x-search": true },
        "published_at": { "type": "string", "format": "date-time", "x-sort": true },
        "tags": { "type": "array", "items": { "type": "string" } },
        "meta": {
          "type": "object",
          "properties": { "pages": { "type": "integer" }, "language": { "type": "string" } },
          "required": ["pages"]
        }
      },
      "required": ["author_id", "headline", "published_at", "tags", "meta"],
      "x-json-server": { "name": "articles", "properties": { "author_id": "authorId", "published_at": "publishedAt" } }
    },
    "settings": {
      "singular": "settings",
      "x-singleton": true,
      "access": { "read": "public", "update": "public" },
      "properties": {
        "theme": { "type": "string" }
      },
      "required": ["theme"]
    }
  }
}
`,
    );
    assert.deepEqual(
      at.lines.filter((line) => !line.startsWith('wrote ') && !line.startsWith('loaded ')),
      [
        'authors: full_name (string, x-search, required), email (string email, required), homepage (string uri), ' +
          'born (string date, x-sort, required), active (boolean, x-filter, required), rating (number, x-sort, required), ' +
          'books (integer, x-sort, required), country (string, x-filter, required), nickname (string or null)',
        'articles: author_id (integer, x-references authors, x-filter, required), headline (string, x-search, required), ' +
          'published_at (string date-time, x-sort, required), tags (array, required), meta (object, required)',
        'settings (a singleton): theme (string, required)',
        "settings: a single object (json-server's singular resource): one record at /v1/settings",
        'version: left out: a single value, not a list of records nor an object',
        'authors.fullName: served as full_name',
        'authors.nickname: 1 null value(s) and no other: a string that may hold null',
        'articles.authorId: served as author_id',
        'articles.authorId: its values are ids of authors: a reference (x-references authors)',
        'articles.publishedAt: served as published_at',
        'articles: 1 record(s) got new ids: (record 3) → 12 (no property of the file refers to them)',
      ],
    );
    const api = (await served(defer, at)).as(undefined);
    assert.deepEqual(withoutTimes([(await api.get('/v1/settings')).body]), [{ theme: 'dark' }]);
    assert.deepEqual(withoutTimes([(await api.get('/v1/articles/12')).body]), [
      {
        id: 12,
        author_id: 4,
        headline: 'Go To Statement Considered Harmful',
        published_at: '1968-03-01T00:00:00Z',
        tags: [],
        meta: { pages: 2 },
      },
    ]);
    assert.deepEqual(
      (await api.get('/v1/authors?country=UK&sort=-rating')).body.data.map((author: { id: number }) => author.id),
      [2, 1],
    );
    assert.equal((await api.get('/v1/authors?q=hopper')).body.data[0].full_name, 'Grace Hopper');
    // Open access: anyone writes, and what the declaration says is checked.
    assert.equal((await api.post('/v1/authors', { full_name: 'No Email' })).status, 422);
    assert.equal(
      (
        await api.post('/v1/articles', {
          author_id: 3,
          headline: 'Nanoseconds',
          published_at: '1980-01-01T00:00:00Z',
          tags: [],
          meta: { pages: 1 },
        })
      ).status,
      201,
    );
  });
});

describe('plainrest import: db.json5', () => {
  const defer = cleanUpAfterEach();

  test('a JSON5 file (json-server 1.x reads db.json5) is read as JSON5: comments, unquoted keys, trailing commas', async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json5');
    await writeFile(
      file,
      `{
  // json-server 1.x
  posts: [
    { id: '1', title: 'a title', views: 100, },
    { id: '2', title: 'another title', views: 200 },
  ],
}`,
    );
    const dataDir = join(dir, 'data');
    await importFile({ file, resources: undefined, target: dataDir, access: 'read', force: false });
    const api = await startTestServerWithAdminBootstrap({ resources: join(dir, 'resources.json'), dataDir });
    defer(() => api.close());
    assert.deepEqual(withoutTimes((await api.as(undefined).get('/v1/posts')).body.data), [
      { id: 1, title: 'a title', views: 100 },
      { id: 2, title: 'another title', views: 200 },
    ]);
    await writeFile(join(dir, 'bad.json5'), '{ posts: [Infinity] }');
    await assert.rejects(
      importFile({
        file: join(dir, 'bad.json5'),
        resources: join(dir, 'other.json'),
        target: join(dir, 'd2'),
        access: 'read',
        force: false,
      }),
      new ImportError([
        `${join(dir, 'bad.json5')}: not JSON5 (Infinity, which no JSON value holds at line 1, column 11)`,
      ]),
    );
  });
});

/** Posts and comments of the large file: 800 and 200, ten times as many in the long run. */
const POSTS = scaled(800, 8000);
const COMMENTS = scaled(200, 2000);

describe(`plainrest import: ${POSTS + COMMENTS} records`, () => {
  const defer = cleanUpAfterEach();

  test(`${POSTS} posts with 1.x string ids and ${COMMENTS} comments on them: imported, served, time and memory reported`, async (t) => {
    const posts = Array.from({ length: POSTS }, (_, index) => ({
      id: `p${index.toString(36)}`,
      title: `Post number ${index} about ${['tea', 'coffee', 'cocoa'][index % 3]}`,
      views: index * 3,
      category: ['tea', 'coffee', 'cocoa'][index % 3],
      publishedAt: new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString(),
    }));
    const comments = Array.from({ length: COMMENTS }, (_, index) => ({
      id: `c${index}`,
      postId: `p${(index * 4).toString(36)}`,
      text: `Comment ${index} on a post`,
    }));
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const at = await imported(defer, { posts, comments });
    const seconds = (performance.now() - started) / 1000;
    const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 1_048_576;
    t.diagnostic(
      `${POSTS + COMMENTS} records imported in ${seconds.toFixed(2)} s; heap grew ${heapGrowth.toFixed(0)} MiB`,
    );
    assert.ok(at.lines.includes(`loaded ${POSTS} posts, ${COMMENTS} comments into the data directory ${at.dataDir}`));
    assert.equal(
      at.declaration,
      `{
  "resources": {
    "posts": {
      "singular": "post",
      "x-id": "string",
      "access": ${READ_ACCESS},
      "properties": {
        "title": { "type": "string", "x-search": true },
        "views": { "type": "integer", "x-sort": true },
        "category": { "type": "string", "x-filter": true },
        "published_at": { "type": "string", "format": "date-time", "x-sort": true }
      },
      "required": ["title", "views", "category", "published_at"],
      "x-json-server": { "name": "posts", "properties": { "published_at": "publishedAt" } }
    },
    "comments": {
      "singular": "comment",
      "x-id": "string",
      "access": ${READ_ACCESS},
      "properties": {
        "post_id": { "type": "string", "x-references": "posts", "x-filter": true },
        "text": { "type": "string" }
      },
      "required": ["post_id", "text"],
      "x-json-server": { "name": "comments", "properties": { "post_id": "postId" } }
    }
  }
}
`,
    );
    const api = (await served(defer, at)).as(undefined);
    assert.equal((await api.get('/v1/posts?limit=1')).body.meta.total, POSTS);
    assert.equal((await api.get('/v1/posts?category=cocoa&limit=1')).body.meta.total, Math.floor(POSTS / 3));
    // Every id as the file has it: comment c25 names post p2s (100 in base 36).
    const comment = (await api.get('/v1/comments/c25')).body;
    assert.deepEqual([comment.id, comment.post_id, comment.text], ['c25', 'p2s', 'Comment 25 on a post']);
    assert.equal((await api.get('/v1/posts/p2s')).body.title, 'Post number 100 about coffee');
    assert.equal((await api.get('/v1/comments?post_id=p2s')).body.meta.total, 1);
  });
});

describe('plainrest import: what cannot come across', () => {
  const defer = cleanUpAfterEach();

  test('each problem is a line naming the collection, the record and the property; nothing is written', async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    await writeFile(
      file,
      JSON.stringify({
        posts: [
          { id: 1, title: 'One', views: 10 },
          { id: 1, title: 'Also one', views: 11 },
          { id: 3, title: 'Three', views: '12' },
        ],
        comments: [
          { id: 1, postId: 1, text: 'fine' },
          { id: 2, postId: 42, text: 'orphan' },
        ],
        'Blog Posts!': [{ id: 1 }],
        tokens: [{ id: 1 }],
        notes: [{ id: 1, text: 'ok' }, 'not a record', { id: 3, text: 'tagged', tags: ['a', null] }],
        people: [{ id: 1, userName: 'ada', user_name: 'lovelace' }],
      }),
    );
    const attempt = importFile({ file, resources: undefined, target: join(dir, 'data'), access: 'read', force: false });
    await assert.rejects(attempt, (error: unknown) => {
      assert.ok(error instanceof ImportError);
      assert.deepEqual(error.lines, [
        'posts, records 1 and 2: both have the id 1; give each its own',
        'Blog Posts!: not a collection name plainrest can serve (lower-case letters, digits and _, starting with a ' +
          'letter); rename it in the file',
        'tokens: "tokens" is reserved: plainrest serves /v1/tokens itself (its token endpoint); rename the collection in ' +
          'the file',
        'notes, record 2: "not a record" is not an object; remove it',
        'posts, record 3 (id 3), views: a string ("12") where 2 other values are a number; give the property one ' +
          'type in every record',
        'comments, record 2 (id 2), postId: 42 is the id of no record of posts; correct it or remove it',
        'notes, record 3 (id 3), tags: a list holding null; remove it, or put a value in its place',
        'people, record 1 (id 1): "userName" and "user_name" would both be user_name; rename one',
      ]);
      return true;
    });
    assert.deepEqual(await readdir(dir), ['db.json']);
  });

  test("a file's problems are told in one pass: what the declaration cannot take beside what a record cannot", async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    await writeFile(
      file,
      JSON.stringify({
        posts: [
          { id: 1, title: 'One', views: 10 },
          { id: 2, title: 'Two', views: '12' },
        ],
        users: [
          { id: 1, name: 'Eve', email: 'eve@example.com', role: 'editor' },
          { id: 2, name: 'Ann', email: 'ann@example.com' },
          { id: 3, name: 'Bob', email: 'ANN@example.com' },
        ],
      }),
    );
    const attempt = importFile({ file, resources: undefined, target: join(dir, 'data'), access: 'read', force: false });
    await assert.rejects(attempt, (error: unknown) => {
      assert.ok(error instanceof ImportError);
      assert.deepEqual(error.lines, [
        'posts, record 2 (id 2), views: a string ("12") where 1 other values are a number; give the property one type ' +
          'in every record',
        'users, record 1 (id 1), role: must be one of: user, admin',
        'users, record 3 (id 3), email: "ANN@example.com" is another record\'s too',
      ]);
      return true;
    });
    assert.deepEqual(await readdir(dir), ['db.json']);
  });
});

describe('plainrest import: what a review of messy files found', () => {
  const defer = cleanUpAfterEach();

  /** The lines an import of `data` stops with (nothing may be written). */
  const refusal = (data: unknown): Promise<readonly string[]> => refused(defer, data);

  test("users' passwordHash is left out, never served; a declaration may not name password_hash", async () => {
    const at = await imported(defer, {
      users: [{ id: 1, name: 'Ann', email: 'ann@example.com', passwordHash: 'scrypt$not-a-hash', city: 'Porto' }],
    });
    assert.ok(
      at.lines.includes("users.password_hash: left out: plainrest keeps users' password_hash itself"),
      at.lines.join('\n'),
    );
    const api = await served(defer, at);
    const ann = (await api.get('/v1/users/1')).body;
    assert.deepEqual(Object.keys(ann).sort(), ['city', 'created_at', 'email', 'id', 'name', 'role', 'updated_at']);
    assert.ok(!at.declaration.includes('password'), at.declaration);
  });

  test('nulls are kept: a property holding some may hold null, one holding only nulls is a string that may; served as null', async () => {
    const at = await imported(defer, {
      boards: [{ id: 1, name: 'Home' }],
      cards: [
        { id: 1, title: 'Plan', dueDate: '2026-12-01', boardId: 1, archivedAt: null, points: 3 },
        { id: 2, title: 'Shop', dueDate: null, boardId: null, archivedAt: null, points: null },
        { id: 3, title: 'Cook', dueDate: '2026-12-03', boardId: 1, archivedAt: null },
      ],
    });
    const cards = JSON.parse(await readFile(at.resources, 'utf8')).resources.cards;
    assert.deepEqual(cards.properties.due_date.type, ['string', 'null']);
    assert.deepEqual(cards.properties.board_id.type, ['integer', 'null']);
    assert.equal(cards.properties.board_id['x-references'], 'boards');
    assert.deepEqual(cards.properties.archived_at.type, ['string', 'null']);
    assert.deepEqual(cards.properties.points.type, ['integer', 'null']);
    assert.ok(
      cards.required.includes('due_date') && !cards.required.includes('points'),
      JSON.stringify(cards.required),
    );
    assert.ok(at.lines.includes('cards.dueDate: 1 null value(s) kept: its type may hold null'), at.lines.join('\n'));
    assert.ok(
      at.lines.includes('cards.archivedAt: 3 null value(s) and no other: a string that may hold null'),
      at.lines.join('\n'),
    );
    const api = await served(defer, at);
    const shop = (await api.get('/v1/cards/2')).body;
    assert.deepEqual([shop.due_date, shop.board_id, shop.archived_at, shop.points], [null, null, null, null]);
    const cook = (await api.get('/v1/cards/3')).body;
    assert.deepEqual([cook.due_date, cook.board_id, cook.points], ['2026-12-03', 1, null]);
    const archived = await api.patch('/v1/cards/1', { archived_at: '2026-12-02' });
    assert.equal(archived.status, 200, JSON.stringify(archived.body));
  });

  test('names: movieId names movies, personId people; an id under another name is a problem, not a broken link', async () => {
    const at = await imported(defer, {
      movies: [{ id: 'a1f0', title: 'Alien' }],
      people: [{ id: 'p1', name: 'Ridley' }],
      reviews: [{ id: 'r1', movieId: 'a1f0', personId: 'p1', stars: 5 }],
    });
    assert.match(at.declaration, /"movies": \{\n      "singular": "movie",/);
    assert.match(at.declaration, /"people": \{\n      "singular": "person",/);
    assert.match(at.declaration, /"movie_id": \{ "type": "string", "x-references": "movies", "x-filter": true \}/);
    assert.match(at.declaration, /"person_id": \{ "type": "string", "x-references": "people", "x-filter": true \}/);
    assert.ok(at.lines.includes('reviews: ids kept as the file has them, as text ("x-id": "string")'));
    assert.deepEqual(
      await refusal({
        users: [{ id: 'u1', name: 'Ann', email: 'ann@example.com' }],
        posts: [{ id: 1, authorId: 'u1' }],
      }),
      [
        'posts, record 1 (id 1), authorId: its values are ids of users, which get new numbers; name it user_id (or ' +
          'userId) to make it a reference that follows them, or give users numeric ids',
      ],
    );
  });

  test('ids: Id and ID are ids; an id no record can be named by is renumbered, not a collision; 125,000 ids', async () => {
    const at = await imported(defer, {
      items: [{ Id: 5, name: 'five' }, { ID: 7, name: 'seven' }, { id: { a: 1 } }, { id: { b: 2 } }, { id: [1] }],
    });
    assert.ok(
      at.lines.includes(
        'items: 3 record(s) got new ids: "{\\"a\\":1}" → 8, "{\\"b\\":2}" → 9, "[1]" → 10 (no property of the file refers to them)',
      ) || at.lines.some((line) => line.startsWith('items: 3 record(s) got new ids:')),
      at.lines.join('\n'),
    );
    const api = (await served(defer, at)).as(undefined);
    assert.deepEqual(
      (await api.get('/v1/items?sort=id')).body.data.map((item: { id: number }) => item.id),
      [5, 7, 8, 9, 10],
    );
    const many = Array.from({ length: 125_000 }, (_, index) => ({ id: index + 1 }));
    const ids = collectionIds(
      'many',
      many,
      many.map((_, index) => index + 1),
      { notes: [], problems: [] },
    );
    assert.equal(ids.nextId, 125_001);
  });

  test('timestamps a clock cannot place, and what is not one, are problems naming the record', async () => {
    const rest =
      "keeps a file's only when every value is one (2026-01-20T10:00:00Z, or milliseconds since 1970 as " +
      'Date.now() gives them); correct it, or rename the property';
    assert.deepEqual(
      await refusal({
        posts: [
          { id: 1, createdAt: '2016-12-31T23:59:60Z' },
          { id: 2, createdAt: 1700000000000 },
        ],
        notes: [
          { id: 1, updatedAt: 1700000000 },
          { id: 2, updatedAt: 999_999_999 },
        ],
        drafts: [{ id: 1, updatedAt: 253_402_300_800_000 }],
      }),
      [
        `posts, record 1 (id 1), createdAt: "2016-12-31T23:59:60Z" is no date and time; plainrest sets created_at itself, and ${rest}`,
        `notes, record 2 (id 2), updatedAt: 999999999 is no date and time; plainrest sets updated_at itself, and ${rest}`,
        `drafts, record 1 (id 1), updatedAt: 253402300800000 is no date and time; plainrest sets updated_at itself, and ${rest}`,
      ],
    );
  });

  test("epoch timestamps (JavaScript's milliseconds, Unix seconds) are kept as RFC 3339 times, beside text ones", async () => {
    const at = await imported(defer, {
      posts: [
        { id: 1, title: 'ms', createdAt: 1704164645000, updatedAt: 1704164645123 },
        { id: 2, title: 'seconds', createdAt: 1704164645, updatedAt: 1704164645.5 },
        { id: 3, title: 'text', createdAt: '2024-01-02T03:04:05+01:00', updatedAt: 253_402_300_799_999 },
      ],
    });
    assert.ok(
      at.lines.includes(
        "posts.createdAt: kept as each record's created_at (2 given as a number of seconds or " +
          'milliseconds since 1970)',
      ),
      at.lines.join('\n'),
    );
    assert.ok(
      at.lines.includes(
        "posts.updatedAt: kept as each record's updated_at (3 given as a number of seconds or " +
          'milliseconds since 1970)',
      ),
      at.lines.join('\n'),
    );
    const api = await served(defer, at);
    const posts = (await api.get('/v1/posts?sort=id')).body.data as Record<string, unknown>[];
    assert.deepEqual(
      posts.map(({ id, created_at, updated_at }) => ({ id, created_at, updated_at })),
      [
        { id: 1, created_at: '2024-01-02T03:04:05.000Z', updated_at: '2024-01-02T03:04:05.123Z' },
        { id: 2, created_at: '2024-01-02T03:04:05.000Z', updated_at: '2024-01-02T03:04:05.500Z' },
        { id: 3, created_at: '2024-01-02T02:04:05.000Z', updated_at: '9999-12-31T23:59:59.999Z' },
      ],
    );
  });

  test('nesting deeper than ten levels is a problem, at any depth a file has (2,000 here), not a crash', async () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 2000; level++) deep = { n: deep };
    const lines = await refusal({ items: [{ id: 1, deep }] });
    assert.deepEqual(lines, [
      'items, record 1 (id 1), deep.n.n.n.n.n.n.n.n.n.n.n: nested more than 10 levels deep; flatten it in the file',
    ]);
  });

  test('a property named like a list parameter gets no x-filter; a declaration may not filter by one', async () => {
    const at = await imported(defer, {
      items: [
        { id: 1, page: 1, limit: 10, kind: 'a' },
        { id: 2, page: 1, limit: 10, kind: 'a' },
        { id: 3, page: 2, limit: 10, kind: 'b' },
        { id: 4, page: 2, limit: 10, kind: 'b' },
      ],
    });
    assert.match(
      at.declaration,
      /"page": \{ "type": "integer", "x-sort": true \},\n {8}"limit": \{ "type": "integer", "x-sort": true \},\n {8}"kind": \{ "type": "string", "x-filter": true \}/,
    );
    const api = (await served(defer, at)).as(undefined);
    assert.equal((await api.get('/v1/items?limit=1')).body.data.length, 1);
  });

  test('nulls inside objects are kept and told; an empty file is nothing to import; the admin address is pointed out', async () => {
    const at = await imported(defer, {
      users: [{ id: 1, name: 'Admin-like', email: 'admin@example.com', address: { city: null, street: 'Main' } }],
    });
    assert.ok(
      at.lines.includes('users.address.city: 1 null value(s) kept: its type may hold null'),
      at.lines.join('\n'),
    );
    assert.ok(
      at.lines.includes(
        'users, record 1 (id 1): admin@example.com is the address the administrator is made with by default; serve ' +
          'with ADMIN_EMAIL set to another, or that user (with no password) stands in its place',
      ),
    );
    assert.deepEqual(await refusal({}), [
      'the file holds no list of records ({"posts": [...]}): there is nothing to import',
    ]);
  });

  test('where the declaration goes: a missing directory, a directory, inside the data directory: refused, nothing loaded', async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    await writeFile(file, JSON.stringify(README_EXAMPLE));
    const cases: [string, string, string][] = [
      [
        join(dir, 'nowhere', 'r.json'),
        join(dir, 'data'),
        `${join(dir, 'nowhere', 'r.json')} cannot be written (ENOENT)`,
      ],
      [dir, join(dir, 'data'), `${dir} is a directory; name a file with --resources`],
      [
        join(dir, 'data', 'resources.json'),
        join(dir, 'data'),
        `${join(dir, 'data', 'resources.json')} is inside the data directory ${join(dir, 'data')}; write it beside it`,
      ],
    ];
    for (const [resources, target, line] of cases) {
      await assert.rejects(
        importFile({ file, resources, target, access: 'read', force: true }),
        new ImportError([line]),
      );
      assert.deepEqual(await readdir(dir), ['db.json'], resources);
    }
  });

  test('a long word is no text, read in time linear in it', async () => {
    const at = await imported(defer, {
      items: [
        { id: 1, text: 'a'.repeat(2_000_000) },
        { id: 2, text: 'x' },
        { id: 3, text: 'two words' },
      ],
    });
    assert.match(at.declaration, /"text": \{ "type": "string" \}/);
  });
});

/** A db.json the import is given, and what it must do: load it (then the server serves it) or refuse it so. */
interface ImportCase {
  readonly name: string;
  readonly data: Record<string, unknown>;
  /** The lines of the refusal; absent, the import must go through. */
  readonly refusal?: readonly string[];
}

const LARGEST_ID = Number.MAX_SAFE_INTEGER - 1;

/** The files of the tests above and the edge cases of ids, names and shapes, each imported and then served. */
const IMPORT_CASES: readonly ImportCase[] = [
  { name: "json-server's README example (1.x string ids, a singular object)", data: README_EXAMPLE },
  {
    name: 'a 0.17 file: numeric ids, users merged with the built-in ones, timestamps',
    data: {
      users: [
        { id: 1, name: 'Leanne Graham', email: 'Sincere@april.biz', password: 'plain', website: 'hildegard.org' },
        { id: 2, name: 'Ervin Howell', email: 'Shanna@melissa.tv', passwordHash: 'x', website: 'anastasia.net' },
      ],
      todos: [
        { userId: 1, id: 1, title: 'delectus aut autem', completed: false, createdAt: '2026-01-01T10:00:00Z' },
        { userId: 2, id: 5, title: 'fugiat veniam minus', completed: true, createdAt: '2026-01-03' },
      ],
    },
  },
  {
    name: 'a 1.x file: string ids renumbered after the numeric ones, references rewritten',
    data: {
      posts: [
        { id: '1f3a', title: 'Hello world', published: true },
        { id: '7', title: 'Numbered post', published: true },
      ],
      comments: [
        { id: 'a1', text: 'nice one', postId: '1f3a' },
        { id: 'a2', text: 'third', postId: '7' },
      ],
    },
  },
  {
    name: 'nested objects and lists, nulls, a record without an id, a singular object and a single value',
    data: {
      authors: [
        { id: 1, fullName: 'Ada Lovelace', email: 'ada@example.com', born: '1815-12-10', nickname: null },
        { id: 2, fullName: 'Alan Turing', email: 'alan@example.com', born: '1912-06-23' },
      ],
      articles: [
        { id: 10, authorId: 1, tags: ['math'], meta: { pages: 65, language: 'en', geo: { lat: 51.5, lng: 0 } } },
        { authorId: 2, tags: [], meta: { pages: 36, geo: { lat: 52.2, lng: 0.1 } } },
      ],
      settings: { theme: 'dark' },
      version: 3,
    },
  },
  { name: 'empty collections beside a full one', data: { posts: [], tags: [], notes: [{ id: 1, text: 'one' }] } },
  {
    name: 'the largest id the server accepts, as a number and as a string',
    data: {
      items: [
        { id: 1, name: 'first' },
        { id: LARGEST_ID, name: 'last' },
      ],
      labels: [{ id: String(LARGEST_ID), name: 'only' }],
    },
  },
  {
    name: 'records without an id, or with 0, renumbered up to the largest id the server accepts',
    data: {
      items: [{ id: LARGEST_ID - 2, name: 'kept' }, { name: 'renumbered' }, { id: 0, name: 'renumbered too' }],
    },
  },
  {
    name: 'ids named Id and ID, and ids no record can be named by',
    data: { items: [{ Id: 5, name: 'five' }, { ID: 7, name: 'seven' }, { id: { a: 1 } }, { id: [1] }, { id: 0 }] },
  },
  {
    name: 'camelCase collection and property names, a reference between them',
    data: {
      blogPosts: [{ id: 1, postTitle: 'x' }],
      postComments: [{ id: 1, blogPostId: 1, commentText: 'y' }],
    },
  },
  {
    name: 'an id of 2^53 − 1, which leaves no next id',
    data: { items: [{ id: Number.MAX_SAFE_INTEGER, name: 'past the last' }] },
    refusal: [
      "items: its largest id, 9007199254740991, leaves no next id: a record's id may be at most 9007199254740990, so " +
        'that the next one stays within 9007199254740991 (2^53 − 1); give the records smaller ids',
    ],
  },
  {
    name: 'a record without an id renumbered past 2^53 − 2',
    data: {
      items: [{ id: LARGEST_ID, name: 'last' }, { name: 'renumbered' }],
    },
    refusal: [
      'items: numbering 1 record(s) after its largest kept id, 9007199254740990, up to 9007199254740991 leaves no ' +
        "next id: a record's id may be at most 9007199254740990, so that the next one stays within 9007199254740991 " +
        '(2^53 − 1); give the records smaller ids',
    ],
  },
  {
    name: 'ids past 2^53 − 1, as a number and as a string',
    data: { items: [{ id: 1e20 }], labels: [{ id: '99999999999999999' }] },
    refusal: [
      'items, record 1: the id 100000000000000000000 is past 9007199254740991 (2^53 − 1), the largest whole number ' +
        'JSON readers keep exactly (RFC 8259 §6); give it a smaller one',
      'labels, record 1: the id "99999999999999999" is past 9007199254740991 (2^53 − 1), the largest whole number ' +
        'JSON readers keep exactly (RFC 8259 §6); give it a smaller one',
    ],
  },
];

describe('plainrest import: every import it accepts starts and serves', () => {
  const defer = cleanUpAfterEach();

  for (const { name, data, refusal } of IMPORT_CASES) {
    test(`${name}: ${refusal === undefined ? 'imported, then every collection and an item of it served' : 'refused'}`, async () => {
      const dir = await scratchDirectory(defer);
      const file = join(dir, 'db.json');
      await writeFile(file, JSON.stringify(data));
      const dataDir = join(dir, 'data');
      const attempt = importFile({ file, resources: undefined, target: dataDir, access: 'read', force: false });
      if (refusal !== undefined) {
        await assert.rejects(attempt, new ImportError(refusal));
        assert.deepEqual(await readdir(dir), ['db.json']);
        return;
      }
      await attempt;
      const api = await served(defer, {
        lines: [],
        declaration: '',
        dir,
        dataDir,
        resources: join(dir, 'resources.json'),
      });
      // Every list of the file is a collection, with every record of it; the start adds the administrator to users.
      const lists = Object.entries(data).filter(([, value]) => Array.isArray(value)) as [string, unknown[]][];
      assert.ok(lists.length > 0);
      for (const [key, records] of lists) {
        const collection = snakeCase(key);
        const list = await api.get(`/v1/${collection}?limit=1&sort=-id`);
        assert.equal(list.status, 200, `${collection}: ${JSON.stringify(list.body)}`);
        assert.equal(list.body.meta.total, records.length + (collection === 'users' ? 1 : 0), collection);
        const [record] = list.body.data as { id: number }[];
        if (record === undefined) continue;
        const item = await api.get(`/v1/${collection}/${record.id}`);
        assert.equal(item.status, 200, `${collection}/${record.id}`);
        assert.equal(item.body.id, record.id);
      }
    });
  }

  test('the largest id is served at its path, and the renumbered ones below it', async () => {
    const [largest, renumbered] = [IMPORT_CASES[5], IMPORT_CASES[6]] as ImportCase[];
    const at = await imported(defer, {
      ...(largest as ImportCase).data,
      more: (renumbered as ImportCase).data['items'],
    });
    const api = (await served(defer, at)).as(undefined);
    assert.equal((await api.get(`/v1/items/${LARGEST_ID}`)).body.name, 'last');
    assert.equal((await api.get(`/v1/labels/${LARGEST_ID}`)).body.name, 'only');
    assert.deepEqual(
      (await api.get('/v1/more?sort=id')).body.data.map((item: { id: number }) => item.id),
      [LARGEST_ID - 2, LARGEST_ID - 1, LARGEST_ID],
    );
  });
});

describe('plainrest import: the command line', () => {
  const defer = cleanUpAfterEach();

  async function plainrest(args: readonly string[], cwd: string) {
    return runToExit(process.execPath, [MAIN, ...args], { cwd, env: processEnvironment() });
  }

  test('exit 0 with the summary and how to serve it; again, the declaration is not overwritten (exit 2) unless --force, and a target that holds data is refused', async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(join(dir, 'db.json'), JSON.stringify(README_EXAMPLE));
    const first = await plainrest(['import', 'db.json', '--access', 'closed'], dir);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.match(first.stdout, /^loaded 2 posts, 2 comments, 1 profile into the data directory data$/m);
    assert.match(
      first.stdout,
      new RegExp(
        `^serve it: node ${MAIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --resources resources.json --data-dir data$`,
        'm',
      ),
    );
    const again = await plainrest(['import', 'db.json'], dir);
    assert.deepEqual(again, {
      code: 2,
      stdout: '',
      stderr: 'cannot import: resources.json exists; name another file with --resources, or pass --force\n',
    });
    const forced = await plainrest(['import', 'db.json', '--force'], dir);
    assert.equal(forced.code, 2);
    assert.match(forced.stderr, /^cannot import: the data directory data already holds data; nothing was changed/);
    // Closed: reads need a token.
    const api = await startTestServerWithAdminBootstrap({
      resources: join(dir, 'resources.json'),
      dataDir: join(dir, 'data'),
    });
    defer(() => api.close());
    assert.equal((await api.as(undefined).get('/v1/posts')).status, 401);
    assert.equal((await api.get('/v1/posts')).body.meta.total, 2);
  });

  test('usage mistakes: no file, an unknown --access, two targets, a file that is not JSON', async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(join(dir, 'broken.json'), '{"posts": [');
    const cases: [string[], string][] = [
      [
        ['import'],
        'cannot import: usage: plainrest import <db.json> [--resources FILE] [--data-dir DIR | --database-url URL] [--access open|read|closed] [--force]; see --help',
      ],
      [
        ['import', 'db.json', '--access', 'public'],
        'cannot import: --access must be open, read or closed, not "public"; see --help',
      ],
      [
        ['import', 'db.json', '--data-dir', 'd', '--database-url', 'postgres://x/y'],
        'cannot import: name one target: --data-dir or --database-url, not both; see --help',
      ],
      [['import', 'missing.json'], 'cannot import: missing.json: no such file'],
    ];
    for (const [args, line] of cases)
      assert.deepEqual(await plainrest(args, dir), { code: 2, stdout: '', stderr: `${line}\n` });
    const broken = await plainrest(['import', 'broken.json'], dir);
    assert.equal(broken.code, 2);
    assert.match(
      broken.stderr,
      /^cannot import: broken\.json: not JSON \(.+\); json-server's db\.json is a JSON object\n$/,
    );
    assert.deepEqual((await readdir(dir)).sort(), ['broken.json']);
  });

  test('a collection named as a path plainrest serves, in any language (eventos, Events, tokens), is refused: exit 2, a line each, nothing written; check-resources refuses the same name', async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(
      join(dir, 'db.json'),
      JSON.stringify({
        posts: [{ id: 1, title: 'a title' }],
        eventos: [{ id: 1, nome: 'festa' }],
        Events: [{ id: 1, name: 'party' }],
        tokens: [],
      }),
    );
    const refused = (name: string, reason: string): string =>
      `cannot import: ${name}: "${name.toLowerCase()}" is reserved: plainrest serves /v1/${name.toLowerCase()} ` +
      `itself (${reason}); rename the collection in the file\n`;
    assert.deepEqual(await plainrest(['import', 'db.json'], dir), {
      code: 2,
      stdout: '',
      stderr:
        refused('eventos', 'its change feed, in Portuguese') +
        refused('Events', 'its change feed') +
        refused('tokens', 'its token endpoint'),
    });
    assert.deepEqual(await readdir(dir), ['db.json']);
    const declaration = { resources: { eventos: { singular: 'evento', properties: { nome: { type: 'string' } } } } };
    await writeFile(join(dir, 'resources.json'), JSON.stringify(declaration));
    assert.deepEqual(await plainrest(['check-resources', 'resources.json'], dir), {
      code: 2,
      stdout: '',
      stderr:
        'resources.json: /resources/eventos: "eventos" is reserved: plainrest serves /v1/eventos itself ' +
        '(its change feed, in Portuguese)\n',
    });
  });

  test('an id the server could not start with is refused: exit 2, one line, nothing written', async () => {
    const dir = await scratchDirectory(defer);
    // Written as json-server writes it: the number's digits, which JSON.stringify gives exactly below 2^53.
    await writeFile(join(dir, 'db.json'), '{"posts": [{"id": 9007199254740991, "title": "the last"}]}');
    assert.deepEqual(await plainrest(['import', 'db.json'], dir), {
      code: 2,
      stdout: '',
      stderr:
        "cannot import: posts: its largest id, 9007199254740991, leaves no next id: a record's id may be at most " +
        '9007199254740990, so that the next one stays within 9007199254740991 (2^53 − 1); give the records smaller ' +
        'ids\n',
    });
    assert.deepEqual(await readdir(dir), ['db.json']);
  });
});

describe('plainrest import into PostgreSQL', { skip: POSTGRES_SKIP }, () => {
  const defer = cleanUpAfterEach();

  test('the records go into an empty database, all of them, and are served from it; a second import is refused', async () => {
    const cluster = await startCluster();
    defer(() => cluster.stop());
    const url = cluster.url(await cluster.createDatabase());
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    await writeFile(file, JSON.stringify(README_EXAMPLE));
    const lines = await importFile({ file, resources: undefined, target: url, access: 'read', force: false });
    assert.equal(lines.at(-1), `loaded 2 posts, 2 comments, 1 profile into the database ${url}`);
    const api = await startTestServerWithAdminBootstrap({ resources: join(dir, 'resources.json'), database: url });
    defer(() => api.close());
    assert.deepEqual(withoutTimes((await api.as(undefined).get('/v1/comments?sort=-id')).body.data), [
      { id: 2, text: 'another comment about post 1', post_id: 1 },
      { id: 1, text: 'a comment about post 1', post_id: 1 },
    ]);
    assert.deepEqual(withoutTimes([(await api.as(undefined).get('/v1/profile')).body]), [{ name: 'typicode' }]);
    assert.equal((await api.post('/v1/posts', { title: 'third', views: 3 })).body.id, 3);
    await assert.rejects(
      importFile({ file, resources: undefined, target: url, access: 'read', force: true }),
      (error: unknown) =>
        error instanceof ImportError &&
        error.lines.length === 1 &&
        error.lines[0] ===
          `the database ${url} already holds data; nothing was changed: name a new data directory or an empty database`,
    );
  });
});

describe('DELAY_MS', () => {
  test('every /v1 answer waits that long; the probes do not', async (t) => {
    // Long beside anything else a request takes, however busy the machine: the probes are
    // answered while /v1 requests sent before them still wait.
    const delayMs = 3000;
    const api = await startTestServer({ delayMs });
    t.after(() => api.close());
    const started = performance.now();
    let waited = false;
    const delayed = Promise.all(
      ['/v1/products', '/v1/nowhere'].map(async (path) => {
        const answer = await api.get(path);
        return { path, status: answer.status, ms: performance.now() - started };
      }),
    ).finally(() => {
      waited = true;
    });
    for (const path of ['/healthz', '/readyz']) {
      assert.equal((await api.get(path)).status, 200, path);
      assert.equal(waited, false, `${path} was answered while the /v1 requests sent before it waited`);
    }
    const answers = await delayed;
    for (const { path, status, ms } of answers)
      assert.ok(ms >= delayMs - 10, `${path}: ${status} after ${ms.toFixed(0)} ms`);
    assert.deepEqual(
      answers.map(({ path, status }) => [path, status]),
      [
        ['/v1/products', 200],
        ['/v1/nowhere', 404],
      ],
    );
  });
});
