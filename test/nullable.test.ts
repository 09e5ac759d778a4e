// Properties that may hold null (README: Your own resources): declared `["type", "null"]` (either order), a null is
// stored and shown; a record without the property shows it as null too; a PATCH's null removes it (RFC 7396), which
// then reads as null; elsewhere null is a 422 as before. Required still means present. `[null]=true` finds both; the
// OpenAPI document lists the type with "null"; a restart keeps what was written. The declaration's own mistakes.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import type { TestServer } from './helpers.ts';
import { scratchDirectory, startTestServerWithAdminBootstrap, cleanUpAfterEach } from './helpers.ts';
import { assertJson, assertProblem } from './assertions.ts';

const CARDS: ResourcesDeclaration = {
  resources: {
    cards: {
      singular: 'card',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 80 },
        label: { type: ['string', 'null'], maxLength: 20 },
        note: { type: ['string', 'null'], maxLength: 50, 'x-filter': true },
        due: { type: ['null', 'string'], format: 'date', 'x-sort': true },
        points: { type: ['integer', 'null'], minimum: 0, maximum: 100, default: null },
        owner_id: { type: ['integer', 'null'], 'x-references': 'users' },
      },
      required: ['title', 'label'],
    },
  },
};

const defer = cleanUpAfterEach();
let api: TestServer;
before(async () => {
  api = await startTestServerWithAdminBootstrap({ resources: CARDS });
});
after(() => api.close());

describe('a property declared ["type", "null"]', () => {
  test('a POST with null stores null; one without it shows it as null; the 201 and the GET agree', async () => {
    const created = await api.post('/v1/cards', { title: 'Plan', label: null, note: null, owner_id: null });
    assertJson(created, 201);
    assert.deepEqual(
      { ...created.body, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        title: 'Plan',
        label: null,
        note: null,
        due: null,
        points: null,
        owner_id: null,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    const read = await api.get(`/v1/cards/${created.body.id}`);
    assertJson(read, 200);
    assert.deepEqual(read.body, created.body);
    assert.equal(read.headers.get('etag'), created.headers.get('etag'));
  });

  test('a value of the type is taken as before, and bounds still apply to it', async () => {
    const created = await api.post('/v1/cards', { title: 'Dated', label: 'x', due: '2026-12-01', points: 3 });
    assertJson(created, 201);
    assert.equal(created.body.due, '2026-12-01');
    assert.equal(created.body.points, 3);
    assertProblem(
      await api.post('/v1/cards', { title: 'T', label: 'x', points: 101 }),
      422,
      'validation_failed',
      '/v1/cards',
      [{ field: 'points', code: 'too_large' }],
    );
  });

  test('null where the type has no "null" is a 422 invalid_type, as before', async () => {
    assertProblem(await api.post('/v1/cards', { title: null, label: 'x' }), 422, 'validation_failed', '/v1/cards', [
      { field: 'title', code: 'invalid_type' },
    ]);
  });

  test('required still means present: absent is a 422, null is a value', async () => {
    assertProblem(await api.post('/v1/cards', { title: 'No label' }), 422, 'validation_failed', '/v1/cards', [
      { field: 'label', code: 'required' },
    ]);
    assertJson(await api.post('/v1/cards', { title: 'Null label', label: null }), 201);
  });

  test('PATCH null removes it (RFC 7396) and it reads as null, even when required; PUT null stores null', async () => {
    const id = (await api.post('/v1/cards', { title: 'Edit', label: 'a', note: 'n', due: '2026-01-02' })).body.id;
    const patched = await api.patch(
      `/v1/cards/${id}`,
      { note: null, label: null },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assertJson(patched, 200);
    assert.equal(patched.body.note, null);
    assert.equal(patched.body.label, null);
    assert.equal(patched.body.due, '2026-01-02');
    const put = await api.put(`/v1/cards/${id}`, { title: 'Edit', label: 'b', due: null });
    assertJson(put, 200);
    assert.deepEqual([put.body.label, put.body.note, put.body.due], ['b', null, null]);
    assert.deepEqual((await api.get(`/v1/cards/${id}`)).body, put.body);
  });

  test('a null reference names no record, so nothing is checked; a number still must name one', async () => {
    assertJson(await api.post('/v1/cards', { title: 'Nobody', label: 'x', owner_id: null }), 201);
    assertProblem(
      await api.post('/v1/cards', { title: 'Ghost', label: 'x', owner_id: 999 }),
      422,
      'validation_failed',
      '/v1/cards',
      [{ field: 'owner_id', code: 'unknown_user' }],
    );
  });

  test('[null]=true finds records holding null and those without it; sort puts them last', async () => {
    const all = (await api.get('/v1/cards?limit=100')).body.data as {
      id: number;
      note: string | null;
      due: string | null;
    }[];
    const withNote = all.filter((card) => card.note !== null).map((card) => card.id);
    const none = await api.get('/v1/cards?note[null]=true&limit=100');
    assertJson(none, 200);
    assert.deepEqual(
      none.body.data.map((card: { id: number }) => card.id),
      all.filter((card) => card.note === null).map((card) => card.id),
    );
    const some = await api.get('/v1/cards?note[null]=false&limit=100');
    assert.deepEqual(
      some.body.data.map((card: { id: number }) => card.id),
      withNote,
    );
    const sorted = (await api.get('/v1/cards?sort=due&limit=100')).body.data as { due: string | null }[];
    const firstNull = sorted.findIndex((card) => card.due === null);
    assert.ok(firstNull > 0, 'some cards have a date and some none');
    assert.ok(
      sorted.slice(firstNull).every((card) => card.due === null),
      'the cards without a date come last',
    );
  });

  test('the OpenAPI document lists the type with "null", and a read record always holds the property', async () => {
    const document = (await api.get('/v1/openapi.json')).body;
    const card = document.components.schemas.Card;
    assert.deepEqual(card.properties.note.type, ['string', 'null']);
    assert.deepEqual(card.properties.points.type, ['integer', 'null']);
    assert.ok(card.required.includes('note') && card.required.includes('due'));
  });
});

test('a restart keeps null and absent as they were written, and shows both as null', async () => {
  const dataDir = await scratchDirectory(defer);
  const first = await startTestServerWithAdminBootstrap({ resources: CARDS, dataDir });
  const id = (await first.post('/v1/cards', { title: 'Kept', label: null, note: 'n' })).body.id;
  await first.patch(`/v1/cards/${id}`, { note: null }, { 'Content-Type': 'application/merge-patch+json' });
  const before = (await first.get(`/v1/cards/${id}`)).body;
  await first.close();
  const second = await startTestServerWithAdminBootstrap({ resources: CARDS, dataDir });
  defer(() => second.close());
  const read = await second.get(`/v1/cards/${id}`);
  assertJson(read, 200);
  assert.deepEqual(read.body, before);
  assert.equal(read.body.label, null);
  assert.equal(read.body.note, null);
});

describe('declaring it', () => {
  const declaring = (schema: Record<string, unknown>) =>
    checkDeclaration({
      resources: { cards: { singular: 'card', properties: { title: { type: 'string' }, x: schema } } },
    });

  test('one type and "null", in either order, with a default of null or of the type', () => {
    assert.deepEqual(declaring({ type: ['string', 'null'] }), []);
    assert.deepEqual(declaring({ type: ['null', 'number'], default: null }), []);
    assert.deepEqual(declaring({ type: ['integer', 'null'], default: 3 }), []);
  });

  test('two types, "null" alone, null twice, or "null" beside an enum is a problem at its pointer', () => {
    for (const schema of [
      { type: ['string', 'integer'] },
      { type: ['null'] },
      { type: ['null', 'null'] },
      { type: ['string', 'null', 'integer'] },
      { type: ['string', 'null'], enum: ['a', 'b'] },
    ]) {
      const problems = declaring(schema);
      assert.equal(problems.length, 1, JSON.stringify({ schema, problems }));
      assert.equal(problems[0]?.pointer, '/resources/cards/properties/x/type');
    }
    assert.equal(declaring({ type: 'string', default: null })[0]?.pointer, '/resources/cards/properties/x/default');
  });
});
