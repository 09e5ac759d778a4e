// Set-null clears a reference only where the caller could have cleared it: a user who may not change an
// x-admin-only reference (403 on PATCH) should not clear it by deleting the record it names.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { createUserClient, startTestServer } from './helpers.ts';
import { assertJson } from './assertions.ts';

const TEAM: ResourcesDeclaration = {
  resources: {
    people: {
      singular: 'person',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['name'],
    },
    tasks: {
      singular: 'task',
      owned: true,
      access: { list: 'owner', read: 'owner', create: 'user', update: 'owner', delete: 'owner' },
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 40 },
        reviewer_id: {
          type: ['integer', 'null'],
          'x-references': 'people',
          'x-on-delete': 'set-null',
          'x-admin-only': true,
        },
      },
      required: ['title'],
    },
  },
};

let admin: TestServer;
let alice: TestServer;
before(async () => {
  admin = await startTestServer({ resources: TEAM });
  alice = (await createUserClient(admin)).client;
});
after(() => admin.close());

test('a user may not clear an admin-only reference, by PATCH or by deleting what it names', async () => {
  const person = await alice.post('/v1/people', { name: 'Rev' });
  assertJson(person, 201);
  const task = await alice.post('/v1/tasks', { title: 't' });
  assertJson(task, 201);
  const path = task.headers.get('location') as string;
  assertJson(await admin.patch(path, { reviewer_id: person.body.id }), 200);
  assert.equal((await alice.patch(path, { reviewer_id: null })).status, 403, 'PATCH refused');
  const deleted = await alice.delete(`/v1/people/${person.body.id}`);
  const after = await admin.get(path);
  assert.deepEqual([deleted.status, after.body.reviewer_id], [403, person.body.id]);
});
