// Declared ids (README: Your own resources; docs/resources.md, Ids): `"x-id"` makes a collection's ids uuids the server
// makes or strings the client chooses (POST's `id`, or a PUT to an absent item, with If-None-Match: * to create only).
// Paths, nested paths, references and arrays of references (checked, embedded, and x-on-delete restrict, set-null and
// cascade), lists in id order and filtered by reference, events, ETags, the OpenAPI document, a restart and plainrest
// copy, stored ids of another kind than declared; the declaration's mistakes. Runs again on PostgreSQL
// (http-suites.postgres.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration, ServerOptions } from '../src/index.ts';
import { StartupError } from '../src/index.ts';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import { copyData } from '../src/cli/copy-data.ts';
import { join } from 'node:path';
import type { TestServer } from './helpers.ts';
import {
  cleanUpAfterEach,
  notAgainOnSharedPostgres,
  scratchDirectory,
  startTestServer,
  startTestServerWithAdminBootstrap,
} from './helpers.ts';
import { assertJson, assertProblem, STRONG_ETAG } from './assertions.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Cards with uuids; boards with chosen ids and their columns; tasks naming a card and some boards. */
const KANBAN: ResourcesDeclaration = {
  resources: {
    cards: {
      singular: 'card',
      'x-id': 'uuid',
      properties: { title: { type: 'string', minLength: 1, maxLength: 80, 'x-search': true } },
      required: ['title'],
    },
    boards: {
      singular: 'board',
      'x-id': 'string',
      properties: { name: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['name'],
    },
    columns: {
      singular: 'column',
      parent: 'boards',
      properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['title'],
    },
    tasks: {
      singular: 'task',
      properties: {
        text: { type: 'string', minLength: 1 },
        card_id: {
          type: ['string', 'null'],
          'x-references': 'cards',
          'x-filter': true,
          'x-on-delete': 'set-null',
        },
        board_ids: {
          type: 'array',
          items: { type: 'string', 'x-references': 'boards' },
          'x-on-delete': 'set-null',
        },
      },
      required: ['text'],
    },
    pins: {
      singular: 'pin',
      properties: {
        board_ids: { type: 'array', items: { type: 'string', 'x-references': 'boards' }, 'x-on-delete': 'cascade' },
      },
    },
    notes: {
      singular: 'note',
      properties: {
        card_ids: { type: 'array', items: { type: 'string', 'x-references': 'cards' } },
      },
    },
  },
};

const defer = cleanUpAfterEach();

describe('uuid ids: made by the server', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ resources: KANBAN });
  });
  after(() => api.close());

  test('POST makes a lower-case uuid (RFC 9562 §5.4): Location, ETag, GET by it; an id in the body is refused', async () => {
    const made = await api.post('/v1/cards', { title: 'First' });
    assertJson(made, 201);
    const id = made.body.id as string;
    assert.match(id, UUID);
    assert.equal(made.headers.get('location'), `/v1/cards/${id}`);
    assert.match(made.headers.get('etag') ?? '', STRONG_ETAG);
    const read = await api.get(`/v1/cards/${id}`);
    assertJson(read, 200);
    assert.equal(read.body.id, id);
    assert.equal(read.headers.get('etag'), made.headers.get('etag'));
    const refused = await api.post('/v1/cards', { id: '0d6f3a52-8c1e-4b7a-9f2d-5e4c3b2a1f00', title: 'Mine' });
    assertProblem(refused, 422, 'validation_failed', '/v1/cards', [{ field: 'id', code: 'server_field' }]);
    assert.deepEqual(refused.body.errors, [{ field: 'id', code: 'server_field', message: 'is set by the server' }]);
  });

  test('a path that is no uuid, an upper-case one or an unknown one is 404; PUT to an absent uuid stays 404', async () => {
    const made = await api.post('/v1/cards', { title: 'Second' });
    const id = made.body.id as string;
    assertProblem(await api.get('/v1/cards/1'), 404, 'route_not_found', '/v1/cards/1');
    assertProblem(await api.get('/v1/cards/abc'), 404, 'route_not_found', '/v1/cards/abc');
    const upper = `/v1/cards/${id.toUpperCase()}`;
    assertProblem(await api.get(upper), 404, 'route_not_found', upper);
    const unknown = '/v1/cards/00000000-0000-4000-8000-000000000000';
    assertProblem(await api.get(unknown), 404, 'record_not_found', unknown);
    assertProblem(await api.put(unknown, { title: 'x' }), 404, 'record_not_found', unknown);
    const patched = await api.patch(`/v1/cards/${id}`, { title: 'Second, patched' });
    assertJson(patched, 200);
    assert.equal(patched.body.id, id);
    assert.equal((await api.delete(`/v1/cards/${id}`)).status, 204);
    assertProblem(await api.get(`/v1/cards/${id}`), 404, 'record_not_found', `/v1/cards/${id}`);
  });

  test('lists are in id order (by code point); q finds uuid records; sort=-id reverses', async () => {
    for (const title of ['alpha one', 'beta one', 'gamma two']) await api.post('/v1/cards', { title });
    const list = await api.get('/v1/cards?limit=100');
    assertJson(list, 200);
    const ids = (list.body.data as { id: string }[]).map((card) => card.id);
    assert.deepEqual(ids, [...ids].sort());
    const reversed = await api.get('/v1/cards?limit=100&sort=-id');
    assert.deepEqual(
      (reversed.body.data as { id: string }[]).map((card) => card.id),
      [...ids].reverse(),
    );
    const found = await api.get('/v1/cards?q=one');
    assertJson(found, 200);
    const foundIds = (found.body.data as { id: string; title: string }[]).map((card) => card.id);
    assert.equal(foundIds.length, 2);
    assert.deepEqual(foundIds, [...foundIds].sort());
  });
});

describe('string ids: chosen by the client', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ resources: KANBAN });
  });
  after(() => api.close());

  test('POST takes id from the body: 201 at it; absent 422 required; bad 422 invalid_format; taken 409', async () => {
    const made = await api.post('/v1/boards', { id: 'road-map', name: 'Road map' });
    assertJson(made, 201);
    assert.equal(made.headers.get('location'), '/v1/boards/road-map');
    assert.deepEqual(Object.keys(made.body), ['id', 'name', 'created_at', 'updated_at']);
    assert.equal(made.body.id, 'road-map');
    assertJson(await api.get('/v1/boards/road-map'), 200);

    const absent = await api.post('/v1/boards', { name: 'No id' });
    assertProblem(absent, 422, 'validation_failed', '/v1/boards', [{ field: 'id', code: 'required' }]);
    assert.deepEqual(absent.body.errors, [{ field: 'id', code: 'required', message: 'is required: you choose it' }]);
    const both = await api.post('/v1/boards', { id: 'has space', name: '' });
    assertProblem(both, 422, 'validation_failed', '/v1/boards', [
      { field: 'id', code: 'invalid_format' },
      { field: 'name', code: 'too_short' },
    ]);
    assert.equal((both.body.errors as { field: string }[])[0]?.field, 'id');
    for (const id of [7, '', 'x'.repeat(129), 'é']) {
      const bad = await api.post('/v1/boards', { id, name: 'Bad' });
      assertProblem(bad, 422, 'validation_failed', '/v1/boards', [{ field: 'id', code: 'invalid_format' }]);
    }
    const taken = await api.post('/v1/boards', { id: 'road-map', name: 'Again' });
    assertProblem(taken, 409, 'duplicate_value', '/v1/boards');
  });

  test('PUT to an absent item makes it (201, Location, ETag); If-None-Match: * creates only; If-Match replaces only', async () => {
    const made = await api.put('/v1/boards/Q3_plan.v2~x', { name: 'Q3' });
    assertJson(made, 201);
    assert.equal(made.headers.get('location'), '/v1/boards/Q3_plan.v2~x');
    assert.match(made.headers.get('etag') ?? '', STRONG_ETAG);
    assert.equal(made.body.id, 'Q3_plan.v2~x');
    const replaced = await api.put('/v1/boards/Q3_plan.v2~x', { name: 'Q3, again' });
    assertJson(replaced, 200);
    assert.equal(replaced.body.name, 'Q3, again');
    const createOnly = await api.put('/v1/boards/Q3_plan.v2~x', { name: 'no' }, { 'If-None-Match': '*' });
    assertProblem(createOnly, 412, 'precondition_failed', '/v1/boards/Q3_plan.v2~x');
    const createdOnly = await api.put('/v1/boards/fresh', { name: 'Fresh' }, { 'If-None-Match': '*' });
    assertJson(createdOnly, 201);
    const replaceOnly = await api.put('/v1/boards/absent', { name: 'no' }, { 'If-Match': '"abc"' });
    assertProblem(replaceOnly, 412, 'precondition_failed', '/v1/boards/absent');
    assertProblem(await api.get('/v1/boards/absent'), 404, 'record_not_found', '/v1/boards/absent');
    const withId = await api.put('/v1/boards/with-id', { id: 'with-id', name: 'Same id' });
    assertJson(withId, 201);
    const otherId = await api.put('/v1/boards/other', { id: 'elsewhere', name: 'x' });
    assertProblem(otherId, 422, 'validation_failed', '/v1/boards/other', [{ field: 'id', code: 'server_field' }]);
    assertProblem(
      await api.patch('/v1/boards/not-there', { name: 'x' }),
      404,
      'record_not_found',
      '/v1/boards/not-there',
    );
  });

  test('a path outside the pattern is 404; nested columns follow each level: /v1/boards/{id}/columns/{integer}', async () => {
    const long = `/v1/boards/${'x'.repeat(129)}`;
    assertProblem(await api.get(long), 404, 'route_not_found', long);
    assertProblem(await api.get('/v1/boards/a%20b'), 404, 'route_not_found', '/v1/boards/a%20b');
    await api.post('/v1/boards', { id: 'kanban', name: 'Kanban' });
    const column = await api.post('/v1/boards/kanban/columns', { title: 'To do' });
    assertJson(column, 201);
    assert.equal(column.body.board_id, 'kanban');
    const path = column.headers.get('location') as string;
    assert.match(path, /^\/v1\/boards\/kanban\/columns\/[0-9]+$/);
    assertJson(await api.get(path), 200);
    assertProblem(
      await api.get('/v1/boards/kanban/columns/abc'),
      404,
      'route_not_found',
      '/v1/boards/kanban/columns/abc',
    );
    assertProblem(
      await api.post('/v1/boards/nowhere/columns', { title: 'x' }),
      404,
      'record_not_found',
      '/v1/boards/nowhere/columns',
    );
    const list = await api.get('/v1/boards/kanban/columns');
    assertJson(list, 200);
    assert.equal(list.body.meta.total, 1);
    const embedded = await api.get('/v1/boards/kanban?embed=columns');
    assert.equal(embedded.body._embedded.columns.data[0].title, 'To do');
    // Deleting the board takes its columns (cascade, the default for children).
    assert.equal((await api.delete('/v1/boards/kanban')).status, 204);
    assertProblem(await api.get(path), 404, 'record_not_found', path);
  });

  test('lists of string ids are in code-point order', async () => {
    for (const id of ['b', 'B', 'a-2', 'a-10', '_z']) await api.post('/v1/boards', { id, name: id });
    const list = await api.get('/v1/boards?limit=100');
    const ids = (list.body.data as { id: string }[]).map((board) => board.id);
    assert.deepEqual(ids, [...ids].sort());
    assert.ok(ids.indexOf('B') < ids.indexOf('_z') && ids.indexOf('_z') < ids.indexOf('a-10'));
  });
});

describe('references to uuid and string ids, and arrays of references', () => {
  let api: TestServer;
  let card: string;
  before(async () => {
    api = await startTestServer({ resources: KANBAN });
    card = (await api.post('/v1/cards', { title: 'Referenced' })).body.id as string;
    for (const id of ['one', 'two', 'three']) await api.post('/v1/boards', { id, name: id });
  });
  after(() => api.close());

  test('each reference must name a record: 422 naming the property and the value', async () => {
    const made = await api.post('/v1/tasks', { text: 'Do', card_id: card, board_ids: ['one', 'two'] });
    assertJson(made, 201);
    assert.equal(made.body.card_id, card);
    assert.deepEqual(made.body.board_ids, ['one', 'two']);
    const refused = await api.post('/v1/tasks', {
      text: 'Bad',
      card_id: '00000000-0000-4000-8000-000000000000',
      board_ids: ['one', 'nope'],
    });
    assertProblem(refused, 422, 'validation_failed', '/v1/tasks', [
      { field: 'card_id', code: 'unknown_card' },
      { field: 'board_ids[1]', code: 'unknown_board' },
    ]);
    assert.deepEqual(refused.body.errors, [
      {
        field: 'card_id',
        code: 'unknown_card',
        message: 'no card has id "00000000-0000-4000-8000-000000000000"',
      },
      { field: 'board_ids[1]', code: 'unknown_board', message: 'no board has id "nope"' },
    ]);
    const wrongType = await api.post('/v1/tasks', { text: 'Bad', card_id: 5 });
    assertProblem(wrongType, 422, 'validation_failed', '/v1/tasks', [{ field: 'card_id', code: 'invalid_type' }]);
  });

  test('a filter by a uuid reference; embed follows it and the array (its records, in its order)', async () => {
    const task = await api.post('/v1/tasks', { text: 'Embed', card_id: card, board_ids: ['three', 'one'] });
    const filtered = await api.get(`/v1/tasks?card_id=${card}&limit=100`);
    assertJson(filtered, 200);
    assert.ok(filtered.body.data.length >= 1);
    assert.ok((filtered.body.data as { card_id: string }[]).every((each) => each.card_id === card));
    const embedded = await api.get(`/v1/tasks/${task.body.id as number}?embed=card_id,board_ids`);
    assertJson(embedded, 200);
    assert.equal(embedded.body._embedded.card_id.id, card);
    assert.deepEqual(
      (embedded.body._embedded.board_ids as { id: string }[]).map((board) => board.id),
      ['three', 'one'],
    );
  });

  test('a uuid reference filtered by no uuid as the server writes one: nothing found, eq, in, ne, contains', async () => {
    const made = await api.post('/v1/cards', { title: 'Filtered' });
    const id = made.body.id as string;
    assertJson(await api.post('/v1/tasks', { text: 'Filtered', card_id: id }), 201);
    const total = async (query: string): Promise<unknown> => {
      const listed = await api.get(`/v1/tasks?${query}`);
      assertJson(listed, 200);
      return listed.body.meta.total;
    };
    assert.equal(await total(`card_id=${id}`), 1);
    assert.equal(await total('card_id=abc'), 0);
    assert.equal(await total(`card_id=${id.toUpperCase()}`), 0);
    assert.equal(await total(`card_id[in]=abc,${id}`), 1);
    assert.equal(await total(`card_id[in]=abc,${id.toUpperCase()}`), 0);
    assert.equal(await total(`card_id=${id}&card_id[ne]=abc`), 1);
    assert.equal(await total(`card_id=${id}&card_id[contains]=${id.slice(0, 8)}`), 1);
    assert.equal(await total(`card_id=${id}&card_id[contains]=${id.slice(0, 8).toUpperCase()}x`), 0);
  });

  test('x-on-delete on arrays: set-null takes the id out, cascade deletes the holder, restrict is 409', async () => {
    await api.post('/v1/boards', { id: 'gone', name: 'Gone' });
    await api.post('/v1/boards', { id: 'kept', name: 'Kept' });
    const task = await api.post('/v1/tasks', { text: 'Holds', board_ids: ['gone', 'kept', 'gone'] });
    const pin = await api.post('/v1/pins', { board_ids: ['kept', 'gone'] });
    const restricted = await api.post('/v1/cards', { title: 'Noted' });
    const note = await api.post('/v1/notes', { card_ids: [restricted.body.id] });
    assertJson(note, 201);
    const refused = await api.delete(`/v1/cards/${restricted.body.id as string}`);
    assertProblem(refused, 409, 'still_referenced', `/v1/cards/${restricted.body.id as string}`);
    assert.equal((await api.delete('/v1/boards/gone')).status, 204);
    const after = await api.get(`/v1/tasks/${task.body.id as number}`);
    assert.deepEqual(after.body.board_ids, ['kept']);
    assertProblem(
      await api.get(`/v1/pins/${pin.body.id as number}`),
      404,
      'record_not_found',
      `/v1/pins/${pin.body.id as number}`,
    );
    // set-null on a single reference: the card goes, the task keeps null.
    const held = await api.post('/v1/tasks', { text: 'Card', card_id: card });
    assert.equal((await api.delete(`/v1/cards/${card}`)).status, 204);
    assert.equal((await api.get(`/v1/tasks/${held.body.id as number}`)).body.card_id, null);
  });

  test('events carry string ids as they are', async () => {
    await api.post('/v1/boards', { id: 'evented', name: 'E' });
    const events = await api.get('/v1/events?collection=boards&limit=100');
    assertJson(events, 200);
    const created = (events.body.data as { record_id: unknown; path: string; type: string }[]).find(
      (event) => event.record_id === 'evented',
    );
    assert.ok(created !== undefined, JSON.stringify(events.body.data));
    assert.equal(created.path, '/v1/boards/evented');
    assert.equal(created.type, 'created');
  });
});

describe('the OpenAPI document types ids by their kind', () => {
  test('path parameters, records, create bodies and references', async () => {
    const api = await startTestServer({ resources: KANBAN });
    defer(() => api.close());
    const document = (await api.get('/v1/openapi.json')).body;
    const cardParameter = document.paths['/v1/cards/{card_id}'].parameters.find(
      (parameter: { name: string }) => parameter.name === 'card_id',
    );
    // The pattern too: an upper-case uuid is no card's id (a 404), though format: uuid would take it.
    const uuid = {
      type: 'string',
      format: 'uuid',
      pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
    };
    assert.deepEqual(cardParameter.schema, uuid);
    const boardParameter = document.paths['/v1/boards/{board_id}/columns/{column_id}'].parameters.map(
      (parameter: { name: string; schema: unknown }) => [parameter.name, parameter.schema],
    );
    assert.deepEqual(boardParameter.slice(0, 2), [
      ['board_id', { type: 'string', pattern: '^(?!\\.{1,2}$)[A-Za-z0-9._~-]{1,128}$' }],
      ['column_id', { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }],
    ]);
    const schemas = document.components.schemas;
    assert.deepEqual(schemas.Card.properties.id, { ...uuid, readOnly: true });
    assert.equal(schemas.BoardCreate.properties.id.pattern, '^(?!\\.{1,2}$)[A-Za-z0-9._~-]{1,128}$');
    assert.ok(schemas.BoardCreate.required.includes('id'));
    assert.equal(schemas.Column.properties.board_id.type, 'string');
    // A PUT may make a board (201), and a POST's chosen id may be taken (409); a card's PUT makes nothing.
    assert.ok('201' in document.paths['/v1/boards/{board_id}'].put.responses);
    assert.ok('409' in document.paths['/v1/boards'].post.responses);
    assert.equal('201' in document.paths['/v1/cards/{card_id}'].put.responses, false);
    assert.equal(
      schemas.Task.properties.board_ids.description,
      'ids of existing board records (else a 422 unknown_board)',
    );
    assert.equal(schemas.BoardReplace.properties.id.readOnly, true);
    const recordId = schemas.ChangeEvent.properties.record_id.anyOf as unknown[];
    assert.deepEqual(
      [recordId.length, recordId.filter((schema) => JSON.stringify(schema) === JSON.stringify(uuid)).length],
      [3, 1],
    );
  });
});

describe('the declaration', () => {
  test('x-id takes integer, uuid or string; references are of their target kind, arrays on their items', () => {
    const problems = checkDeclaration({
      resources: {
        users: { singular: 'user', 'x-id': 'uuid' },
        cards: { singular: 'card', 'x-id': 'guid', properties: { t: { type: 'string' } } },
        tags: { singular: 'tag', 'x-id': 'string', properties: { t: { type: 'string' } } },
        settings: {
          singular: 'settings',
          'x-singleton': true,
          'x-id': 'string',
          properties: { t: { type: 'string' } },
        },
        tasks: {
          singular: 'task',
          properties: {
            tag_id: { type: 'integer', 'x-references': 'tags' },
            user_id: { type: 'string', 'x-references': 'users' },
            tag_ids: { type: 'array', items: { type: 'string' }, 'x-references': 'tags' },
            more_ids: { type: 'array', items: { type: 'integer', 'x-references': 'tags' } },
          },
        },
      },
    });
    assert.deepEqual(problems, [
      { pointer: '/resources/users/x-id', message: "users' ids are integers: tokens and owners name them so" },
      { pointer: '/resources/cards/x-id', message: 'must be "integer" (the default), "uuid" or "string"' },
      { pointer: '/resources/settings/x-id', message: 'a singleton has no id in its path: it takes no x-id' },
      {
        pointer: '/resources/tasks/properties/tag_id/type',
        message: '"tags" has string ids: a reference to it is "type": "string", or ["string", "null"]',
      },
      {
        pointer: '/resources/tasks/properties/user_id/type',
        message: '"users" has integer ids: a reference to it is "type": "integer"',
      },
      {
        pointer: '/resources/tasks/properties/tag_ids/x-references',
        message: 'an array of references puts "x-references" on its "items", each "type": "string"',
      },
      {
        pointer: '/resources/tasks/properties/more_ids/items/type',
        message: '"tags" has string ids: a reference to it is "type": "string", or ["string", "null"]',
      },
    ]);
  });
});

describe('kept on disk', { skip: notAgainOnSharedPostgres() }, () => {
  const cardsWith = (kind: 'integer' | 'uuid' | 'string'): ResourcesDeclaration => ({
    resources: {
      cards: {
        singular: 'card',
        ...(kind === 'integer' ? {} : { 'x-id': kind }),
        properties: { title: { type: 'string' } },
      },
    },
  });

  test('stored ids of another kind than the declared x-id stop the start: a journal and a snapshot, both ways', async () => {
    const cases = [
      { stored: 'integer', declared: 'uuid', wants: 'a uuid' },
      { stored: 'uuid', declared: 'integer', wants: 'a positive integer' },
      { stored: 'string', declared: 'uuid', wants: 'a uuid' },
      { stored: 'integer', declared: 'string', wants: 'a string id' },
    ] as const;
    for (const { stored, declared, wants } of cases) {
      const dataDir = await scratchDirectory(defer);
      const first = await startTestServerWithAdminBootstrap({ resources: cardsWith(stored), dataDir });
      const made = await first.post('/v1/cards', stored === 'string' ? { id: 'one', title: 'x' } : { title: 'x' });
      assertJson(made, 201);
      await first.close();
      const id = made.body.id as number | string;
      const snapshots = await scratchDirectory(defer);
      await copyData(dataDir, snapshots, { resources: cardsWith(stored) });
      const holding = `the field "id" holding ${JSON.stringify(id)} where cards declare ${wants}`;
      const remedy = 'correct the value or the declaration';
      await refusedStart(
        { resources: cardsWith(declared), dataDir },
        `${join(dataDir, 'journal-000000000001.jsonl')}: the entry with seq 2 puts cards record ${id} with ` +
          `${holding}; ${remedy}`,
      );
      await refusedStart(
        { resources: cardsWith(declared), dataDir: snapshots },
        `${join(snapshots, 'cards.json')}: record ${id} has ${holding}; ${remedy}`,
      );
    }
  });

  /** The start with `options` fails with a StartupError saying `message`. */
  async function refusedStart(options: ServerOptions, message: string): Promise<void> {
    await assert.rejects(startTestServerWithAdminBootstrap(options), (error: unknown) => {
      assert.ok(error instanceof StartupError, String(error));
      assert.equal(error.message, message);
      return true;
    });
  }

  test('a restart keeps uuid and string ids; plainrest copy carries them', async () => {
    const dataDir = await scratchDirectory(defer);
    const first = await startTestServerWithAdminBootstrap({ resources: KANBAN, dataDir });
    const card = (await first.post('/v1/cards', { title: 'Kept' })).body.id as string;
    await first.put('/v1/boards/kept', { name: 'Kept' });
    await first.post('/v1/boards', { id: 'also', name: 'Also' });
    const column = (await first.post('/v1/boards/kept/columns', { title: 'Col' })).headers.get('location') as string;
    await first.post('/v1/tasks', { text: 'T', card_id: card, board_ids: ['kept', 'also'] });
    const before = {
      cards: (await first.get('/v1/cards')).body.data,
      boards: (await first.get('/v1/boards')).body.data,
      tasks: (await first.get('/v1/tasks')).body.data,
      column: (await first.get(column)).body,
    };
    await first.close();

    const second = await startTestServerWithAdminBootstrap({ resources: KANBAN, dataDir });
    assert.deepEqual((await second.get('/v1/cards')).body.data, before.cards);
    assert.deepEqual((await second.get('/v1/boards')).body.data, before.boards);
    assert.deepEqual((await second.get('/v1/tasks')).body.data, before.tasks);
    assert.deepEqual((await second.get(column)).body, before.column);
    assertProblem(await second.post('/v1/boards', { id: 'kept', name: 'x' }), 409, 'duplicate_value', '/v1/boards');
    await second.close();

    const copied = await scratchDirectory(defer);
    await copyData(dataDir, copied, { resources: KANBAN });
    const third = await startTestServerWithAdminBootstrap({ resources: KANBAN, dataDir: copied });
    defer(() => third.close());
    assert.deepEqual((await third.get('/v1/cards')).body.data, before.cards);
    assert.deepEqual((await third.get('/v1/boards')).body.data, before.boards);
    assert.deepEqual((await third.get('/v1/tasks')).body.data, before.tasks);
  });
});
