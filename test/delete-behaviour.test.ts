// What deleting a record does to what depends on it (README: Your own resources; handlers/delete-cascade.ts): children
// go with their parent (`on-delete` `cascade`, the default) or hold it (`restrict`, 409); a reference holds its record
// (`x-on-delete` `restrict`, the default, 409), goes with it (`cascade`) or is cleared (`set-null`), all in one commit
// with an event for each record; a cascade reaching a record the caller may not delete is a 403 that deletes nothing.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import type { TestServer } from './helpers.ts';
import { createUserClient, startTestServer } from './helpers.ts';
import { assertJson, assertProblem } from './assertions.ts';

const BOARD: ResourcesDeclaration = {
  resources: {
    boards: {
      singular: 'board',
      owned: true,
      access: { list: 'owner', read: 'owner', create: 'user', update: 'owner', delete: 'owner' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['name'],
    },
    columns: {
      singular: 'column',
      parent: 'boards',
      access: { list: 'owner', read: 'owner', create: 'owner', update: 'owner', delete: 'owner' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['name'],
    },
    notes: {
      singular: 'note',
      parent: 'boards',
      'on-delete': 'restrict',
      access: { list: 'owner', read: 'owner', create: 'owner', update: 'owner', delete: 'owner' },
      properties: { text: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['text'],
    },
    labels: {
      singular: 'label',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['name'],
    },
    people: {
      singular: 'person',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['name'],
    },
    cards: {
      singular: 'card',
      parent: 'columns',
      access: { list: 'owner', read: 'owner', create: 'owner', update: 'owner', delete: 'owner' },
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 40 },
        label_id: { type: 'integer', 'x-references': 'labels', 'x-on-delete': 'cascade' },
        assignee_id: { type: ['integer', 'null'], 'x-references': 'people', 'x-on-delete': 'set-null' },
      },
      required: ['title'],
    },
    comments: {
      singular: 'comment',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 40 },
        person_id: { type: 'integer', 'x-references': 'people' },
      },
      required: ['text'],
    },
  },
};

let admin: TestServer;
let alice: TestServer;
let bob: TestServer;
before(async () => {
  admin = await startTestServer({ resources: BOARD });
  alice = (await createUserClient(admin)).client;
  bob = (await createUserClient(admin)).client;
});
after(() => admin.close());

/** A board of `owner`'s with one column holding cards made of `cards`; its paths. */
async function board(owner: TestServer, cards: readonly Record<string, unknown>[]) {
  const boardPath = (await owner.post('/v1/boards', { name: 'Board' })).headers.get('location') as string;
  const columnPath = (await owner.post(`${boardPath}/columns`, { name: 'To do' })).headers.get('location') as string;
  const cardPaths: string[] = [];
  for (const card of cards) {
    const made = await owner.post(`${columnPath}/cards`, card);
    assertJson(made, 201);
    cardPaths.push(made.headers.get('location') as string);
  }
  return { boardPath, columnPath, cardPaths };
}

async function idOf(api: TestServer, collection: string, body: Record<string, unknown>): Promise<number> {
  const made = await api.post(`/v1/${collection}`, body);
  assertJson(made, 201);
  return made.body.id as number;
}

async function eventsOf(collection: string, after: number) {
  const answer = await admin.get(`/v1/events?collection=${collection}&after=${after}&limit=100`);
  assertJson(answer, 200);
  return answer.body.data as { id: number; type: string; record_id: number }[];
}

async function lastEventId(): Promise<number> {
  const answer = await admin.get('/v1/events?limit=100&after=0');
  const pages = answer.body.meta.pages as number;
  const last = await admin.get(`/v1/events?limit=100&after=0&page=${pages}`);
  return (last.body.data.at(-1)?.id as number | undefined) ?? 0;
}

describe('children', () => {
  test('go with their parent, at every depth, each with a deleted event', async () => {
    const { boardPath, columnPath, cardPaths } = await board(alice, [{ title: 'a' }, { title: 'b' }]);
    const since = await lastEventId();
    assert.equal((await alice.delete(boardPath)).status, 204);
    for (const path of [boardPath, columnPath, ...cardPaths]) assert.equal((await admin.get(path)).status, 404, path);
    const deleted = (await eventsOf('cards', since)).filter((event) => event.type === 'deleted');
    assert.equal(deleted.length, 2);
  });

  test('on-delete restrict: a board with a note is a 409 naming it, and nothing is deleted', async () => {
    const { boardPath, columnPath } = await board(alice, [{ title: 'kept' }]);
    const note = (await alice.post(`${boardPath}/notes`, { text: 'hold' })).headers.get('location') as string;
    const refused = await alice.delete(boardPath);
    assertProblem(refused, 409, 'still_referenced', boardPath);
    assert.match(refused.body.detail, /notes/);
    assert.equal((await alice.get(columnPath)).status, 200, 'the columns stay');
    assert.equal((await alice.delete(note)).status, 204);
    assert.equal((await alice.delete(boardPath)).status, 204);
  });
});

describe('references', () => {
  test('x-on-delete cascade: deleting a label deletes the cards naming it, each with its event', async () => {
    const label = await idOf(alice, 'labels', { name: 'urgent' });
    const other = await idOf(alice, 'labels', { name: 'later' });
    const { cardPaths } = await board(alice, [
      { title: 'one', label_id: label },
      { title: 'two', label_id: other },
      { title: 'three', label_id: label },
    ]);
    const since = await lastEventId();
    assert.equal((await alice.delete(`/v1/labels/${label}`)).status, 204);
    assert.deepEqual(await Promise.all(cardPaths.map(async (path) => (await alice.get(path)).status)), [404, 200, 404]);
    const events = await eventsOf('cards', since);
    assert.deepEqual(
      events.map((event) => event.type),
      ['deleted', 'deleted'],
    );
  });

  test('x-on-delete set-null: deleting a person clears the cards naming them, which read null and are updated', async () => {
    const person = await idOf(alice, 'people', { name: 'Ana' });
    const { cardPaths } = await board(alice, [{ title: 'assigned', assignee_id: person }, { title: 'free' }]);
    const before = (await alice.get(cardPaths[0] as string)).body;
    const since = await lastEventId();
    assert.equal((await alice.delete(`/v1/people/${person}`)).status, 204);
    const after = await alice.get(cardPaths[0] as string);
    assertJson(after, 200);
    assert.equal(after.body.assignee_id, null);
    assert.equal(after.body.title, 'assigned');
    assert.notEqual(after.headers.get('etag'), null);
    assert.ok(after.body.updated_at >= before.updated_at);
    const events = await eventsOf('cards', since);
    assert.deepEqual(
      events.map((event) => event.type),
      ['updated'],
    );
  });

  test('x-on-delete restrict (the default): a person a comment names is a 409, the comment kept', async () => {
    const person = await idOf(alice, 'people', { name: 'Bea' });
    const comment = await idOf(alice, 'comments', { text: 'hi', person_id: person });
    const refused = await alice.delete(`/v1/people/${person}`);
    assertProblem(refused, 409, 'still_referenced', `/v1/people/${person}`);
    assert.match(refused.body.detail, /comments/);
    assert.match(refused.body.detail, /person_id/);
    assert.equal((await alice.get(`/v1/comments/${comment}`)).status, 200);
  });

  test('a cascade reaching a record the caller may not delete is a 403, and nothing is deleted', async () => {
    const label = await idOf(bob, 'labels', { name: 'shared' });
    const { cardPaths } = await board(alice, [{ title: "alice's", label_id: label }]);
    const refused = await bob.delete(`/v1/labels/${label}`);
    assertProblem(refused, 403, 'forbidden', `/v1/labels/${label}`);
    assert.match(refused.body.detail, /card \d+/);
    assert.equal((await bob.get(`/v1/labels/${label}`)).status, 200, 'the label stays');
    assert.equal((await alice.get(cardPaths[0] as string)).status, 200, 'the card stays');
    assert.equal((await admin.delete(`/v1/labels/${label}`)).status, 204, 'an administrator may');
    assert.equal((await alice.get(cardPaths[0] as string)).status, 404);
  });
});

describe('declaring it', () => {
  const mistakes: [string, (declaration: ResourcesDeclaration) => void, string][] = [
    [
      'x-on-delete without x-references',
      (d) =>
        ((d.resources['labels']?.properties as Record<string, unknown>)['name'] = {
          type: 'string',
          'x-on-delete': 'cascade',
        }),
      '/resources/labels/properties/name/x-on-delete',
    ],
    [
      'an unknown x-on-delete',
      (d) =>
        ((d.resources['comments']?.properties as Record<string, unknown>)['person_id'] = {
          type: 'integer',
          'x-references': 'people',
          'x-on-delete': 'nullify',
        }),
      '/resources/comments/properties/person_id/x-on-delete',
    ],
    [
      'set-null on a reference that may not hold null',
      (d) =>
        ((d.resources['comments']?.properties as Record<string, unknown>)['person_id'] = {
          type: 'integer',
          'x-references': 'people',
          'x-on-delete': 'set-null',
        }),
      '/resources/comments/properties/person_id/x-on-delete',
    ],
    [
      'on-delete without a parent',
      (d) => Object.assign(d.resources['labels'] as object, { 'on-delete': 'restrict' }),
      '/resources/labels/on-delete',
    ],
    [
      'an unknown on-delete',
      (d) => Object.assign(d.resources['notes'] as object, { 'on-delete': 'set-null' }),
      '/resources/notes/on-delete',
    ],
  ];
  for (const [name, change, pointer] of mistakes) {
    test(`${name} is one problem at ${pointer}`, () => {
      const declaration = structuredClone(BOARD) as ResourcesDeclaration;
      change(declaration);
      const problems = checkDeclaration(declaration);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.pointer, pointer);
    });
  }

  test('the declaration above is well formed', () => {
    assert.deepEqual(checkDeclaration(BOARD), []);
  });
});
