// A review of declared ids, singletons, batches and the json-server import (README: Your own resources, ids and
// singletons; docs/batches.md; docs/json-server.md), attacked over HTTP on in-process servers in memory. Each test
// asserts what the documents say and fails today: it is marked `todo` with the bug it shows, so the suite stays green
// until the code is fixed; then its `todo` comes off.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { importFile } from '../src/cli/import-command.ts';
import type { ResourcesDeclaration } from '../src/index.ts';
import { DeclarationError } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import {
  cleanUpAfterEach,
  createUserClient,
  scratchDirectory,
  startTestServer,
  startTestServerWithAdminBootstrap,
} from './helpers.ts';
import { assertJson } from './assertions.ts';

type Json = Record<string, any>;

/**
 * Boards of chosen string ids, owned by their maker (so a user may make one by POST or PUT but change only their own),
 * lanes nested under them, cards of uuids with checklists nested under them.
 */
const REVIEWED: ResourcesDeclaration = {
  resources: {
    boards: {
      singular: 'board',
      'x-id': 'string',
      owned: true,
      access: { list: 'owner', read: 'owner', create: 'user', update: 'owner', delete: 'owner' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['name'],
    },
    lanes: {
      singular: 'lane',
      parent: 'boards',
      access: { list: 'owner', read: 'owner', create: 'owner', update: 'owner', delete: 'owner' },
      properties: { title: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['title'],
    },
    cards: {
      singular: 'card',
      'x-id': 'uuid',
      properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['title'],
    },
    checklists: {
      singular: 'checklist',
      parent: 'cards',
      properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['title'],
    },
  },
};

const defer = cleanUpAfterEach();

async function started(): Promise<TestServer> {
  const api = await startTestServer({ resources: REVIEWED });
  defer(() => api.close());
  return api;
}

/** The events of the feed after `after` (an event id), as `api`'s caller sees them. */
async function eventsAfter(api: TestServer, after: number): Promise<Json[]> {
  const feed = await api.get(`/v1/events?after=${after}&limit=100`);
  assertJson(feed, 200);
  return feed.body.data as Json[];
}

/** The id of the newest event `api`'s caller sees, 0 for none. */
async function newestEvent(api: TestServer): Promise<number> {
  const feed = await api.get('/v1/events?limit=100');
  assertJson(feed, 200);
  const events = feed.body.data as Json[];
  return events.length === 0 ? 0 : (events[events.length - 1]?.['id'] as number);
}

describe('review of declared ids, singletons, batches and the import', () => {
  test('a DELETE of a record of string id answered 204 stays deleted after a restart of its data directory', async () => {
    const dataDir = await scratchDirectory(defer);
    const first = await startTestServer({ resources: REVIEWED, dataDir });
    assertJson(await first.put('/v1/boards/gone', { name: 'Gone' }), 201);
    assert.equal((await first.delete('/v1/boards/gone')).status, 204);
    await first.close();
    const again = await startTestServer({ resources: REVIEWED, dataDir });
    defer(() => again.close());
    assert.equal((await again.get('/v1/boards/gone')).status, 404);
    assert.deepEqual((await again.get('/v1/boards')).body.data, []);
  });

  test('a data directory in which records of string and uuid ids were deleted, then another written, starts again', async () => {
    const dataDir = await scratchDirectory(defer);
    const first = await startTestServer({ resources: REVIEWED, dataDir });
    assertJson(await first.put('/v1/boards/old', { name: 'Old' }), 201);
    assert.equal((await first.delete('/v1/boards/old')).status, 204);
    const card = await first.post('/v1/cards', { title: 'Gone too' });
    assertJson(card, 201);
    const cardPath = card.headers.get('location') as string;
    assert.equal((await first.delete(cardPath)).status, 204);
    assertJson(await first.put('/v1/boards/new', { name: 'New' }), 201);
    await first.close();
    const again = await startTestServer({ resources: REVIEWED, dataDir });
    defer(() => again.close());
    assert.equal((await again.get(cardPath)).status, 404);
    const list = await again.get('/v1/boards');
    assertJson(list, 200);
    assert.deepEqual(
      (list.body.data as Json[]).map((board) => board['id'] as unknown),
      ['new'],
    );
  });

  test("an event of a record nested under a string or uuid parent carries the record's own path, its Location", async () => {
    const api = await started();
    assertJson(await api.put('/v1/boards/road-map', { name: 'Road map' }), 201);
    const card = await api.post('/v1/cards', { title: 'A card' });
    assertJson(card, 201);
    const since = await newestEvent(api);
    const lane = await api.post('/v1/boards/road-map/lanes', { title: 'Doing' });
    assertJson(lane, 201);
    assert.equal(lane.headers.get('location'), '/v1/boards/road-map/lanes/1');
    const checklist = await api.post(`/v1/cards/${card.body.id as string}/checklists`, { title: 'Steps' });
    assertJson(checklist, 201);
    const batch = await api.post('/v1/batches', {
      operations: [{ method: 'PATCH', path: '/v1/boards/road-map/lanes/1', body: { title: 'Done' } }],
    });
    assertJson(batch, 200);
    const events = (await eventsAfter(api, since)).map(({ type, collection, record_id, path }) => ({
      type,
      collection,
      record_id,
      path,
    }));
    assert.deepEqual(events, [
      { type: 'created', collection: 'lanes', record_id: 1, path: '/v1/boards/road-map/lanes/1' },
      { type: 'created', collection: 'checklists', record_id: 1, path: checklist.headers.get('location') },
      { type: 'updated', collection: 'lanes', record_id: 1, path: '/v1/boards/road-map/lanes/1' },
    ]);
  });

  test('the owner of a board of string id sees the events of the lanes nested under it in the change feed', async () => {
    const admin = await started();
    const { client: alice } = await createUserClient(admin);
    assertJson(await alice.post('/v1/boards', { id: 'alices', name: "Alice's" }), 201);
    const since = await newestEvent(alice);
    assertJson(await alice.post('/v1/boards/alices/lanes', { title: 'Todo' }), 201);
    assertJson(await alice.get('/v1/boards/alices/lanes/1'), 200);
    const events = (await eventsAfter(alice, since)).map(({ type, collection, path }) => ({
      type,
      collection,
      path,
    }));
    assert.deepEqual(events, [{ type: 'created', collection: 'lanes', path: '/v1/boards/alices/lanes/1' }]);
  });

  test('the owner of a board of string id may delete her tag though its set-null reaches a lane under that board', async () => {
    const owners = { list: 'owner', read: 'owner', create: 'user', update: 'owner', delete: 'owner' } as const;
    const api = await startTestServer({
      resources: {
        resources: {
          boards: { singular: 'board', 'x-id': 'string', owned: true, access: owners, properties: {} },
          tags: { singular: 'tag', owned: true, access: owners, properties: { name: { type: 'string' } } },
          lanes: {
            singular: 'lane',
            parent: 'boards',
            access: { ...owners, create: 'owner' },
            properties: {
              tag_id: { type: ['integer', 'null'], 'x-references': 'tags', 'x-on-delete': 'set-null' },
            },
          },
        },
      },
    });
    defer(() => api.close());
    const { client: alice } = await createUserClient(api);
    assertJson(await alice.post('/v1/boards', { id: 'alices' }), 201);
    assertJson(await alice.post('/v1/tags', { name: 'Urgent' }), 201);
    assertJson(await alice.post('/v1/boards/alices/lanes', { tag_id: 1 }), 201);
    const deleted = await alice.delete('/v1/tags/1');
    assert.equal(deleted.status, 204, deleted.text);
    const lane = await alice.get('/v1/boards/alices/lanes/1');
    assertJson(lane, 200);
    assert.equal(lane.body.tag_id ?? null, null);
  });

  test("a PUT that makes a record of string id asks the collection's create access, not its update access", async () => {
    const admin = await started();
    const { client: alice } = await createUserClient(admin);
    // The same board by POST is fine: create is 'user'.
    assertJson(await alice.post('/v1/boards', { id: 'by-post', name: 'By POST' }), 201);
    const made = await alice.put('/v1/boards/by-put', { name: 'By PUT' });
    assertJson(made, 201);
    assert.equal(made.headers.get('location'), '/v1/boards/by-put');
    assert.equal(made.body.id, 'by-put');
    assertJson(await alice.get('/v1/boards/by-put'), 200);
    // A PUT that replaces still asks update access: the administrator's board is not hers to replace.
    assertJson(await admin.put('/v1/boards/admins', { name: "Admin's" }), 201);
    const replaced = await alice.put('/v1/boards/admins', { name: 'Mine now' });
    assert.equal(replaced.status, 403, replaced.text);
    assert.equal((await admin.get('/v1/boards/admins')).body.name, "Admin's");
  });

  test('a string id of only dots ("." or "..") is refused, since no path can hold it (RFC 3986 §5.2.4)', async () => {
    const api = await started();
    for (const id of ['.', '..']) {
      const made = await api.post('/v1/boards', { id, name: 'Dots' });
      assert.equal(made.status, 422, `POST {"id": ${JSON.stringify(id)}}: ${made.text}`);
      assert.deepEqual(
        (made.body.errors as Json[]).map(({ field, code }) => ({ field, code })),
        [{ field: 'id', code: 'invalid_format' }],
      );
    }
    // What such a record's Location does: fetch resolves /v1/boards/. to /v1/boards/, not the record.
    assert.equal(new URL('/v1/boards/.', 'http://127.0.0.1').pathname, '/v1/boards/');
  });

  test('a string id reached with a percent-encoded unreserved character is the same record (RFC 3986 §6.2.2.2)', async () => {
    const api = await started();
    assertJson(await api.put('/v1/boards/a~b', { name: 'Tilde' }), 201);
    const read = await api.get('/v1/boards/a%7Eb');
    assertJson(read, 200);
    assert.equal(read.body.id, 'a~b');
    // Its query read from the target as sent; a reserved character (`/`) stays encoded, another path.
    assert.deepEqual((await api.get('/v1/boards/%61%7E%62?fields=name')).body, { name: 'Tilde' });
    assert.equal((await api.get('/v1/boards/a%2Fb')).status, 404);
    const patched = await api.post('/v1/batches', {
      operations: [{ method: 'PATCH', path: '/v1/boards/a%7Eb', body: { name: 'Tilde, renamed' } }],
    });
    assertJson(patched, 200);
    assert.equal(patched.body.results[0].body.name, 'Tilde, renamed');
  });

  test("a refusal caused by a singleton's reference does not show the singleton's hidden id", async () => {
    const api = await startTestServer({
      resources: {
        resources: {
          boards: {
            singular: 'board',
            'x-id': 'string',
            access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
            properties: { name: { type: 'string' } },
          },
          settings: {
            singular: 'settings',
            'x-singleton': true,
            properties: {
              home: { type: ['string', 'null'], 'x-references': 'boards', 'x-on-delete': 'set-null' },
              pinned: { type: 'string', 'x-references': 'boards' },
            },
          },
        },
      },
    });
    defer(() => api.close());
    const { client: alice } = await createUserClient(api);
    assertJson(await api.put('/v1/boards/home', { name: 'Home' }), 201);
    assertJson(await api.put('/v1/boards/pinned', { name: 'Pinned' }), 201);
    assertJson(await api.patch('/v1/settings', { home: 'home', pinned: 'pinned' }), 200);
    const restricted = await api.delete('/v1/boards/pinned');
    assert.equal(restricted.status, 409, restricted.text);
    const forbidden = await alice.delete('/v1/boards/home');
    assert.equal(forbidden.status, 403, forbidden.text);
    for (const detail of [restricted.body.detail as string, forbidden.body.detail as string]) {
      assert.match(detail, /settings/);
      assert.doesNotMatch(detail, /settings 1\b/);
    }
    assert.equal(
      restricted.body.detail,
      'board pinned is still referenced by settings (pinned); delete or change those first',
    );
    assert.equal(
      forbidden.body.detail,
      'this deletion would change settings, which you may not update; nothing was deleted',
    );
  });

  test('x-on-delete set-null on an array with minItems never leaves a record its own schema refuses', async () => {
    const declaration = (minItems: number): ResourcesDeclaration => ({
      resources: {
        boards: { singular: 'board', 'x-id': 'string', properties: { name: { type: 'string' } } },
        tags: {
          singular: 'tag',
          properties: {
            board_ids: {
              type: 'array',
              minItems,
              items: { type: 'string', 'x-references': 'boards' },
              'x-on-delete': 'set-null',
            },
          },
          required: ['board_ids'],
        },
      },
    });
    // Such a declaration is refused at its JSON pointer.
    await assert.rejects(startTestServer({ resources: declaration(1) }), (error: unknown) => {
      assert.ok(error instanceof DeclarationError, String(error));
      assert.deepEqual(error.lines, [
        'resources: /resources/tags/properties/board_ids/x-on-delete: "set-null" on an array with "minItems" could ' +
          'leave it too short: use "restrict" or "cascade"',
      ]);
      return true;
    });
    // With "minItems": 0 the array may be left empty: the id is taken out, and the tag stays valid.
    const api = await startTestServer({ resources: declaration(0) });
    defer(() => api.close());
    assertJson(await api.put('/v1/boards/only', { name: 'Only' }), 201);
    assertJson(await api.post('/v1/tags', { board_ids: ['only'] }), 201);
    const deleted = await api.delete('/v1/boards/only');
    assert.equal(deleted.status, 204, deleted.text);
    const tag = await api.get('/v1/tags/1');
    assertJson(tag, 200);
    assert.deepEqual(tag.body.board_ids, []);
    assertJson(await api.put('/v1/tags/1', { board_ids: tag.body.board_ids }), 200);
  });

  test("a malformed batch's faults name each $n.id by the operation at that index, whatever came before", async () => {
    const api = await started();
    const refused = await api.post('/v1/batches', {
      operations: [
        { method: 'GET', path: '/v1/boards' },
        { method: 'POST', path: '/v1/boards', body: { id: 'made', name: 'Made' } },
        { method: 'PATCH', path: '/v1/boards/$1.id', body: { name: 'Patched' } },
        { method: 'PUT', path: '/v1/boards/put', body: { name: 'Put' } },
        { method: 'PATCH', path: '/v1/boards/$3.id', body: { name: 'Patched' } },
      ],
    });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.operation, 0);
    assert.deepEqual(
      (refused.body.errors as Json[]).map(({ field, code }) => ({ field, code })),
      [
        { field: 'operations[0].method', code: 'invalid_value' },
        { field: 'operations[4].path', code: 'invalid_reference' },
      ],
    );
  });

  test('plainrest import: ids renumbered and named by a list of references are said to be rewritten', async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    await writeFile(file, JSON.stringify({ tags: [{ id: 1 }, { id: 0 }], posts: [{ id: 1, tagIds: [0, 1] }] }));
    const dataDir = join(dir, 'data');
    const lines = await importFile({ file, resources: undefined, target: dataDir, access: 'read', force: false });
    const api = await startTestServerWithAdminBootstrap({ resources: join(dir, 'resources.json'), dataDir });
    defer(() => api.close());
    // The list was rewritten: tag 0 is tag 2 now.
    assert.deepEqual((await api.get('/v1/posts/1')).body.tag_ids, [2, 1]);
    assert.ok(
      lines.includes('tags: 1 record(s) got new ids: "0" → 2 (references to them were rewritten)'),
      lines.join('\n'),
    );
  });

  test('plainrest import: once an id holds more than digits, every id is kept as text, one no path can hold a uuid', async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    const posts = [
      { id: '1', title: 'One' },
      { id: '2', title: 'Two' },
      { id: 'my post', title: 'Mine' },
    ];
    await writeFile(file, JSON.stringify({ posts }));
    const dataDir = join(dir, 'data');
    await importFile({ file, resources: undefined, target: dataDir, access: 'read', force: false });
    const api = await startTestServerWithAdminBootstrap({ resources: join(dir, 'resources.json'), dataDir });
    defer(() => api.close());
    const list = await api.get('/v1/posts');
    assertJson(list, 200);
    const ids = (list.body.data as Json[]).map((post) => post['id'] as unknown);
    // "1" and "2" kept as their digits, "my post" a new uuid (docs/json-server.md, Ids).
    assert.deepEqual(
      ids.filter((id) => id === '1' || id === '2'),
      ['1', '2'],
    );
    assert.equal(ids.length, 3);
    assert.ok(
      ids.some((id) => typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id)),
      JSON.stringify(ids),
    );
    assertJson(await api.get('/v1/posts/1'), 200);
  });
});
