// Singletons (README: Your own resources; docs/resources.md, Singletons): `"x-singleton": true` serves one record at
// `/v1/<name>`, without an id in the path or the record: GET, HEAD, PUT, PATCH (RFC 7396) with ETags and conditions;
// POST and DELETE are 405 with Allow. Made at the start from its defaults, or by the first PUT (201) when a required
// property has none (404 until then). Every vocabulary, fields=, embed, permissions, the change feed, the OpenAPI
// document, /v1 and the home page; a restart, `plainrest copy`, stored data that is not one record, and the
// declaration's mistakes. Runs again on PostgreSQL (http-suites.postgres.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import { DeclarationError, startServer, StartupError } from '../src/index.ts';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import { compileObject } from '../src/declarations/load-declaration.ts';
import { copyData } from '../src/cli/copy-data.ts';
import type { TestServer } from './helpers.ts';
import {
  cleanUpAfterEach,
  createUser,
  notAgainOnSharedPostgres,
  scratchDirectory,
  startTestServer,
  startTestServerWithAdminBootstrap,
  TEST_AUTH_OPTIONS,
  tokenFor,
} from './helpers.ts';
import { assertEmpty, assertJson, assertProblem, RFC3339_UTC, STRONG_ETAG } from './assertions.ts';

/** What a singleton's path answers besides OPTIONS (README: Methods): no POST, no DELETE. */
const SINGLETON_ALLOW = 'GET, HEAD, PUT, PATCH, OPTIONS';
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

/** Settings made at the start from their defaults, read by anyone; a profile made by its first PUT. */
const DESK: ResourcesDeclaration = {
  resources: {
    products: {
      singular: 'product',
      access: { list: 'user', read: 'user', create: 'admin', update: 'admin', delete: 'admin' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['name'],
    },
    settings: {
      singular: 'settings',
      'x-singleton': true,
      access: { read: 'public', update: 'admin' },
      properties: {
        theme: { enum: ['light', 'dark'], default: 'light' },
        page_size: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        motto: { type: 'string', maxLength: 40 },
        featured_id: { type: ['integer', 'null'], 'x-references': 'products', 'x-on-delete': 'set-null' },
      },
      names: {
        pt: {
          collection: 'ajustes',
          singular: 'ajuste',
          properties: { theme: 'tema', page_size: 'tamanho_pagina', motto: 'lema', featured_id: 'destaque_id' },
        },
      },
    },
    profile: {
      singular: 'profile',
      'x-singleton': true,
      access: { read: 'user', update: 'user' },
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 80 },
        bio: { type: 'string', maxLength: 200 },
        plan: { enum: ['free', 'pro'], default: 'free', 'x-admin-only': true },
      },
      required: ['name'],
    },
  },
};

/** The members of a record, its timestamps checked and taken out. */
function withoutTimestamps(body: Record<string, unknown>): Record<string, unknown> {
  const { created_at: created, updated_at: updated, ...rest } = body;
  assert.match(String(created), RFC3339_UTC);
  assert.match(String(updated), RFC3339_UTC);
  return rest;
}

const defer = cleanUpAfterEach();

describe('a singleton made at the start from its defaults', () => {
  let api: TestServer;
  let user: TestServer;
  before(async () => {
    api = await startTestServer({ resources: DESK });
    user = api.as(tokenFor(await createUser(api, { name: 'Uma' })));
  });
  after(() => api.close());

  test('GET /v1/settings: 200, its defaults and timestamps, no id; public read needs no token', async () => {
    const read = await api.as(undefined).get('/v1/settings');
    assertJson(read, 200);
    assert.deepEqual(Object.keys(read.body), ['theme', 'page_size', 'featured_id', 'created_at', 'updated_at']);
    assert.deepEqual(withoutTimestamps(read.body), { theme: 'light', page_size: 20, featured_id: null });
    assert.equal(read.body.created_at, read.body.updated_at);
    assert.match(read.headers.get('etag') ?? '', STRONG_ETAG);
    const again = await api.get('/v1/settings', { 'If-None-Match': read.headers.get('etag') as string });
    assertEmpty(again, 304);
    const head = await api.request('HEAD', '/v1/settings');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('etag'), read.headers.get('etag'));
  });

  test('POST and DELETE are 405 with Allow; OPTIONS lists what it answers', async () => {
    for (const method of ['POST', 'DELETE']) {
      const refused = await api.request(method, '/v1/settings', method === 'POST' ? { body: {} } : {});
      assertProblem(refused, 405, 'method_not_allowed', '/v1/settings');
      assert.equal(refused.headers.get('allow'), SINGLETON_ALLOW);
    }
    const options = await api.request('OPTIONS', '/v1/settings');
    assert.equal(options.status, 204);
    assert.equal(options.headers.get('allow'), SINGLETON_ALLOW);
    assertProblem(await api.get('/v1/settings/1'), 404, 'route_not_found', '/v1/settings/1');
  });

  test('PATCH merges (RFC 7396: null removes), PUT replaces keeping what has a default; repeating changes nothing', async () => {
    const patched = await api.patch('/v1/settings', { theme: 'dark', motto: 'Less is more' }, MERGE_PATCH);
    assertJson(patched, 200);
    assert.deepEqual(withoutTimestamps(patched.body), {
      theme: 'dark',
      page_size: 20,
      motto: 'Less is more',
      featured_id: null,
    });
    assert.equal(patched.headers.get('etag'), (await api.get('/v1/settings')).headers.get('etag'));
    const removed = await api.patch('/v1/settings', { motto: null }, MERGE_PATCH);
    assertJson(removed, 200);
    assert.equal(removed.body.motto, undefined);
    const replaced = await api.put('/v1/settings', { motto: 'Plain' });
    assertJson(replaced, 200);
    assert.deepEqual(withoutTimestamps(replaced.body), {
      theme: 'dark',
      page_size: 20,
      motto: 'Plain',
      featured_id: null,
    });
    const repeated = await api.put('/v1/settings', { motto: 'Plain' });
    assertJson(repeated, 200);
    assert.equal(repeated.body.updated_at, replaced.body.updated_at, 'an unchanged PUT writes nothing');
    assert.equal(repeated.headers.get('etag'), replaced.headers.get('etag'));
  });

  test('every vocabulary: /v1/ajustes is the same record under its Portuguese names', async () => {
    await api.put('/v1/settings', { theme: 'light', page_size: 30 });
    const read = await api.get('/v1/ajustes');
    assertJson(read, 200);
    assert.deepEqual(Object.keys(read.body), ['tema', 'tamanho_pagina', 'destaque_id', 'criado_em', 'atualizado_em']);
    assert.deepEqual([read.body.tema, read.body.tamanho_pagina], ['light', 30]);
    const patched = await api.patch('/v1/ajustes', { lema: 'Menos é mais' }, MERGE_PATCH);
    assertJson(patched, 200);
    assert.equal(patched.body.lema, 'Menos é mais');
    assert.equal((await api.get('/v1/settings')).body.motto, 'Menos é mais');
    assertProblem(
      await api.patch('/v1/ajustes', { motto: 'x' }, MERGE_PATCH),
      422,
      'validation_failed',
      '/v1/ajustes',
      [{ field: 'motto', code: 'unknown_field' }],
    );
  });

  test('fields= selects, in any vocabulary; the id is no field to select or to write', async () => {
    const selected = await api.get('/v1/settings?fields=page_size,theme');
    assertJson(selected, 200);
    assert.deepEqual(selected.body, { theme: 'light', page_size: 30 });
    assert.deepEqual((await api.get('/v1/ajustes?campos=tema')).body, { tema: 'light' });
    assertProblem(await api.get('/v1/settings?fields=id'), 400, 'invalid_query', '/v1/settings', [
      { field: 'fields', code: 'invalid_value' },
    ]);
    assertProblem(await api.put('/v1/settings', { id: 1, theme: 'dark' }), 422, 'validation_failed', '/v1/settings', [
      { field: 'id', code: 'unknown_field' },
    ]);
    assertProblem(await api.put('/v1/settings?x=1', { theme: 'dark' }), 400, 'invalid_query', '/v1/settings', [
      { field: 'x', code: 'unknown_parameter' },
    ]);
  });

  test('422 for a value its schema refuses, naming every field', async () => {
    assertProblem(
      await api.patch('/v1/settings', { theme: 'blue', page_size: 0, colour: 'red' }, MERGE_PATCH),
      422,
      'validation_failed',
      '/v1/settings',
      [
        { field: 'theme', code: 'invalid_value' },
        { field: 'page_size', code: 'too_small' },
        { field: 'colour', code: 'unknown_field' },
      ],
    );
    assertProblem(
      await api.patch('/v1/settings', { theme: null }, MERGE_PATCH),
      422,
      'validation_failed',
      '/v1/settings',
      [{ field: 'theme', code: 'required' }],
    );
  });

  test('412: If-Match must be the current ETag, If-None-Match: * refuses an existing record', async () => {
    const current = (await api.get('/v1/settings')).headers.get('etag') as string;
    const stale = await api.request('PATCH', '/v1/settings', {
      body: { page_size: 40 },
      headers: { ...MERGE_PATCH, 'If-Match': '"stale"' },
    });
    assertProblem(stale, 412, 'precondition_failed', '/v1/settings');
    assert.equal(stale.headers.get('etag'), current);
    const exists = await api.request('PUT', '/v1/settings', { body: {}, headers: { 'If-None-Match': '*' } });
    assertProblem(exists, 412, 'precondition_failed', '/v1/settings');
    const matching = await api.request('PATCH', '/v1/settings', {
      body: { page_size: 40 },
      headers: { ...MERGE_PATCH, 'If-Match': current },
    });
    assertJson(matching, 200);
    assert.equal(matching.body.page_size, 40);
  });

  test('403: its update rule (admin) refuses a user; a token that is no token is 401 even on a public read', async () => {
    assertProblem(await user.put('/v1/settings', { theme: 'dark' }), 403, 'forbidden', '/v1/settings');
    assertProblem(await user.patch('/v1/settings', { theme: 'dark' }, MERGE_PATCH), 403, 'forbidden', '/v1/settings');
    assertProblem(
      await api.as(undefined).patch('/v1/settings', {}, MERGE_PATCH),
      401,
      'unauthenticated',
      '/v1/settings',
    );
    assertJson(await user.get('/v1/settings'), 200);
  });

  test('a reference: embed= shows the product, and deleting it sets it to null (x-on-delete: set-null)', async () => {
    const product = (await api.post('/v1/products', { name: 'Lamp' })).body;
    assertJson(await api.patch('/v1/settings', { featured_id: product.id }, MERGE_PATCH), 200);
    const embedded = await api.get('/v1/settings?embed=featured_id');
    assertJson(embedded, 200);
    assert.deepEqual(embedded.body._embedded, { featured_id: product });
    assertProblem(
      await api.patch('/v1/settings', { featured_id: 999 }, MERGE_PATCH),
      422,
      'validation_failed',
      '/v1/settings',
      [{ field: 'featured_id', code: 'unknown_product' }],
    );
    assert.equal((await api.delete(`/v1/products/${product.id}`)).status, 204);
    assert.equal((await api.get('/v1/settings')).body.featured_id, null);
  });

  test('the change feed: created at the start, then each change, at /v1/settings, the record without its id', async () => {
    const events = await api.get('/v1/events?collection=settings&limit=100');
    assertJson(events, 200);
    const data = events.body.data as {
      type: string;
      path: string;
      record_id: number;
      record: Record<string, unknown>;
    }[];
    assert.equal(data[0]?.type, 'created');
    assert.deepEqual(withoutTimestamps(data[0]?.record ?? {}), { theme: 'light', page_size: 20, featured_id: null });
    assert.ok(data.length > 1 && data.slice(1).every((event) => event.type === 'updated'), JSON.stringify(data));
    assert.ok(data.every((event) => event.path === '/v1/settings' && event.record_id === 1));
    const last = data.at(-1)?.record;
    assert.deepEqual(last, (await api.get('/v1/settings')).body);
    const inPortuguese = await api.get('/v1/eventos?colecao=ajustes&limite=1');
    assert.equal(inPortuguese.body.data[0].path, '/v1/ajustes');
    assert.equal(inPortuguese.body.data[0].record.tema, 'light');
  });

  test("/v1 links it; the home page shows its path and its record's fields", async () => {
    const index = await api.as(undefined).get('/v1');
    assert.equal(index.body.links.settings, '/v1/settings');
    assert.equal(index.body.links.profile, '/v1/profile');
    assert.equal(index.body.links.ajustes, '/v1/ajustes');
    const home = await api.as(undefined).get('/', { Accept: 'text/html' });
    assert.equal(home.status, 200);
    assert.ok(
      home.text.includes('/v1/settings') && home.text.includes('/v1/ajustes'),
      'the home page shows both paths',
    );
    assert.ok(home.text.includes('<caption>A settings record</caption>'), "the home page shows the record's fields");
  });

  test('the OpenAPI document: its path with get, head, put, patch and options; its schemas, without an id', async () => {
    const document = (await api.as(undefined).get('/v1/openapi.json')).body;
    const path = document.paths['/v1/settings'];
    assert.deepEqual(Object.keys(path), ['get', 'head', 'put', 'patch', 'options']);
    assert.equal(path.parameters, undefined, 'no id parameter');
    assert.deepEqual(path.get.security, [{}, { bearer: [] }], 'a public read');
    assert.ok(path.put.responses['201'] && path.put.responses['200'] && path.put.responses['412']);
    assert.ok(path.patch.responses['403'] && path.get.responses['404']);
    assert.ok(document.paths['/v1/ajustes'] && document.paths['/v1/profile']);
    assert.equal(document.paths['/v1/settings/{settings_id}'], undefined);
    const schemas = document.components.schemas;
    assert.deepEqual(Object.keys(schemas.Settings.properties), [
      'theme',
      'page_size',
      'motto',
      'featured_id',
      'created_at',
      'updated_at',
      '_embedded',
    ]);
    assert.deepEqual(Object.keys(schemas.Settings.properties._embedded.properties), ['featured_id']);
    assert.equal(schemas.SettingsReplace.properties.id, undefined);
    assert.equal(schemas.SettingsList, undefined);
    assert.equal(schemas.SettingsCreate, undefined);
    assert.deepEqual(schemas.ProfileReplace.required, ['name']);
  });
});

describe('a singleton with a required property without a default: 404 until its first PUT', () => {
  test('GET and PATCH 404; PUT 422 without it, 412 with If-Match, then 201 with Location; later PUTs 200', async () => {
    const api = await startTestServer({ resources: DESK });
    defer(() => api.close());
    const user = api.as(tokenFor(await createUser(api, { name: 'Uma' })));
    assertProblem(await user.get('/v1/profile'), 404, 'record_not_found', '/v1/profile');
    assertProblem(
      await user.patch('/v1/profile', { name: 'Ann' }, MERGE_PATCH),
      404,
      'record_not_found',
      '/v1/profile',
    );
    assertProblem(await user.put('/v1/profile', { bio: 'no name' }), 422, 'validation_failed', '/v1/profile', [
      { field: 'name', code: 'required' },
    ]);
    const matching = await user.request('PUT', '/v1/profile', { body: { name: 'Ann' }, headers: { 'If-Match': '*' } });
    assertProblem(matching, 412, 'precondition_failed', '/v1/profile');
    assertProblem(await user.put('/v1/profile', { name: 'Ann', plan: 'pro' }), 403, 'forbidden', '/v1/profile');
    assertProblem(await api.as(undefined).get('/v1/profile'), 401, 'unauthenticated', '/v1/profile');

    const made = await user.request('PUT', '/v1/profile', { body: { name: 'Ann' }, headers: { 'If-None-Match': '*' } });
    assertJson(made, 201);
    assert.equal(made.headers.get('location'), '/v1/profile');
    assert.deepEqual(withoutTimestamps(made.body), { name: 'Ann', plan: 'free' });
    const read = await user.get('/v1/profile');
    assertJson(read, 200);
    assert.deepEqual(read.body, made.body);
    assert.equal(read.headers.get('etag'), made.headers.get('etag'));

    const again = await user.request('PUT', '/v1/profile', {
      body: { name: 'Ann' },
      headers: { 'If-None-Match': '*' },
    });
    assertProblem(again, 412, 'precondition_failed', '/v1/profile');
    const replaced = await user.put('/v1/profile', { name: 'Ann', bio: 'Writes things' });
    assertJson(replaced, 200);
    assert.equal(replaced.body.created_at, made.body.created_at);
    const patched = await user.patch('/v1/profile', { bio: null }, MERGE_PATCH);
    assertJson(patched, 200);
    assert.deepEqual(withoutTimestamps(patched.body), { name: 'Ann', plan: 'free' });
    assertProblem(await user.patch('/v1/profile', { plan: 'pro' }, MERGE_PATCH), 403, 'forbidden', '/v1/profile');
    assertJson(await api.patch('/v1/profile', { plan: 'pro' }, MERGE_PATCH), 200);

    const events = (await api.get('/v1/events?collection=profile&limit=100')).body.data as { type: string }[];
    assert.deepEqual(
      events.map((event) => event.type),
      ['created', 'updated', 'updated', 'updated'],
    );
  });
});

describe('in a batch (README: Batches)', () => {
  test('a batch makes a singleton by its PUT and patches it; a DELETE of it is refused before anything runs', async () => {
    const api = await startTestServer({ resources: DESK });
    defer(() => api.close());
    const batch = await api.post('/v1/batches', {
      operations: [
        { method: 'PATCH', path: '/v1/settings', body: { theme: 'dark' } },
        { method: 'PUT', path: '/v1/profile', body: { name: 'Ann' } },
        { method: 'PATCH', path: '/v1/profile', body: { bio: 'Batched' } },
      ],
    });
    assertJson(batch, 200);
    const results = batch.body.results as { status: number; headers: Record<string, string>; body: any }[];
    assert.deepEqual(
      results.map((result) => result.status),
      [200, 201, 200],
    );
    assert.equal(results[1]?.headers['Location'], '/v1/profile');
    assert.deepEqual(withoutTimestamps(results[2]?.body), { name: 'Ann', bio: 'Batched', plan: 'free' });
    assert.deepEqual((await api.get('/v1/profile')).body, results[2]?.body);
    assert.equal((await api.get('/v1/settings')).body.theme, 'dark');
    const refused = await api.post('/v1/batches', { operations: [{ method: 'DELETE', path: '/v1/settings' }] });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.body.errors, [
      { field: 'operations[0].path', code: 'method_not_allowed', message: 'takes no DELETE; its writes: PUT, PATCH' },
    ]);
  });
});

describe('kept on disk', { skip: notAgainOnSharedPostgres() }, () => {
  test('a restart keeps both singletons and makes neither again; plainrest copy carries them', async () => {
    const dataDir = await scratchDirectory(defer);
    const first = await startTestServerWithAdminBootstrap({ resources: DESK, dataDir });
    await first.patch('/v1/settings', { motto: 'Kept' }, MERGE_PATCH);
    await first.put('/v1/profile', { name: 'Ann' });
    const before = { settings: (await first.get('/v1/settings')).body, profile: (await first.get('/v1/profile')).body };
    const events = (await first.get('/v1/events?limit=100')).body.data.length as number;
    await first.close();

    const second = await startTestServerWithAdminBootstrap({ resources: DESK, dataDir });
    assert.deepEqual((await second.get('/v1/settings')).body, before.settings);
    assert.deepEqual((await second.get('/v1/profile')).body, before.profile);
    assert.equal((await second.get('/v1/events?limit=100')).body.data.length, events, 'nothing made again');
    await second.close();

    const copied = await scratchDirectory(defer);
    await copyData(dataDir, copied, { resources: DESK });
    const third = await startTestServerWithAdminBootstrap({ resources: DESK, dataDir: copied });
    defer(() => third.close());
    assert.deepEqual((await third.get('/v1/settings')).body, before.settings);
    assert.deepEqual((await third.get('/v1/profile')).body, before.profile);
  });

  test('a collection holding records under other ids than 1, then declared a singleton, stops the start', async () => {
    const dataDir = await scratchDirectory(defer);
    const notes = (singleton: boolean): ResourcesDeclaration => ({
      resources: {
        notes: {
          singular: 'note',
          ...(singleton ? { 'x-singleton': true } : {}),
          properties: { text: { type: 'string' } },
        },
      },
    });
    const first = await startTestServerWithAdminBootstrap({ resources: notes(false), dataDir });
    for (const text of ['a', 'b', 'c']) assert.equal((await first.post('/v1/notes', { text })).status, 201);
    await first.close();
    const refused = await startServer({
      port: 0,
      dataDir,
      seed: false,
      ...TEST_AUTH_OPTIONS,
      resources: notes(true),
    }).then(
      (server) => server.close().then(() => undefined),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof StartupError, String(refused));
    assert.match(refused.message, /notes: 2 records \(ids 2, 3\) but notes is a singleton/);
  });
});

describe("the declaration's mistakes", () => {
  /** A declaration with `settings` a singleton as `change` makes it, beside a plain collection `notes`. */
  const declaring = (change: (resources: Record<string, any>) => void) => {
    const resources: Record<string, any> = {
      notes: { singular: 'note', properties: { text: { type: 'string', 'x-sort': true } } },
      settings: { singular: 'settings', 'x-singleton': true, properties: { theme: { type: 'string' } } },
    };
    change(resources);
    return checkDeclaration({ resources });
  };
  const MISTAKES: readonly { name: string; change: (r: Record<string, any>) => void; pointer: string; says: RegExp }[] =
    [
      {
        name: 'x-singleton not true or false',
        change: (r) => (r.settings['x-singleton'] = 'yes'),
        pointer: '/resources/settings/x-singleton',
        says: /must be true or false/,
      },
      {
        name: 'users as a singleton',
        change: (r) => (r.users = { singular: 'user', 'x-singleton': true }),
        pointer: '/resources/users/x-singleton',
        says: /users are a collection/,
      },
      {
        name: 'a parent',
        change: (r) => (r.settings.parent = 'notes'),
        pointer: '/resources/settings/parent',
        says: /it has no parent/,
      },
      {
        name: 'nesting a collection under it',
        change: (r) => (r.notes.parent = 'settings'),
        pointer: '/resources/notes/parent',
        says: /"settings" is a singleton, which has no records to nest under/,
      },
      {
        name: 'a reference to it',
        change: (r) => (r.notes.properties.settings_id = { type: 'integer', 'x-references': 'settings' }),
        pointer: '/resources/notes/properties/settings_id/x-references',
        says: /"settings" is a singleton: its one record has no id to name/,
      },
      {
        name: "a reference to it in an array's items",
        change: (r) =>
          (r.notes.properties.all = { type: 'array', items: { type: 'integer', 'x-references': 'settings' } }),
        pointer: '/resources/notes/properties/all/items/x-references',
        says: /is a singleton/,
      },
      {
        name: 'owned',
        change: (r) => (r.settings.owned = true),
        pointer: '/resources/settings/owned',
        says: /belongs to nobody/,
      },
      {
        name: 'list, create or delete access',
        change: (r) => (r.settings.access = { read: 'user', delete: 'admin' }),
        pointer: '/resources/settings/access/delete',
        says: /only read and updated/,
      },
      {
        name: 'x-filter on its property',
        change: (r) => (r.settings.properties.theme['x-filter'] = true),
        pointer: '/resources/settings/properties/theme/x-filter',
        says: /no list to filter, sort or search/,
      },
      {
        name: 'x-sort on its property',
        change: (r) => (r.settings.properties.theme['x-sort'] = true),
        pointer: '/resources/settings/properties/theme/x-sort',
        says: /no list/,
      },
      {
        name: 'x-search on its property',
        change: (r) => (r.settings.properties.theme['x-search'] = true),
        pointer: '/resources/settings/properties/theme/x-search',
        says: /no list/,
      },
      {
        name: 'a reference of its own that cascades',
        change: (r) =>
          (r.settings.properties.note_id = { type: 'integer', 'x-references': 'notes', 'x-on-delete': 'cascade' }),
        pointer: '/resources/settings/properties/note_id/x-on-delete',
        says: /would delete the singleton/,
      },
    ];

  test('the two-collection declaration itself is well formed', () => {
    assert.deepEqual(
      declaring(() => {}),
      [],
    );
  });

  for (const mistake of MISTAKES) {
    test(`${mistake.name}: one problem at ${mistake.pointer}`, () => {
      const problems = declaring(mistake.change);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.pointer, mistake.pointer);
      assert.match(problems[0]?.message ?? '', mistake.says);
    });
  }

  test('a start with such a declaration is refused before anything listens, every problem at once', async () => {
    const resources = {
      notes: { singular: 'note', parent: 'settings', properties: { text: { type: 'string' } } },
      settings: {
        singular: 'settings',
        'x-singleton': true,
        properties: { theme: { type: 'string', 'x-sort': true } },
      },
    };
    assert.throws(
      () => compileObject({ resources } as ResourcesDeclaration),
      (error: unknown) =>
        error instanceof DeclarationError &&
        error.lines.length === 2 &&
        error.lines[0] ===
          'resources: /resources/settings/properties/theme/x-sort: a singleton has no list to filter, sort or search' &&
        error.lines[1] ===
          'resources: /resources/notes/parent: "settings" is a singleton, which has no records to nest under',
    );
    await assert.rejects(
      startServer({ port: 0, dataDir: null, ...TEST_AUTH_OPTIONS, resources: { resources } as ResourcesDeclaration }),
      DeclarationError,
    );
  });
});
