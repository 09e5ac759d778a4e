// A repeated PUT changes nothing (README: Methods) when its body holds a null, on either store.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { assertJson } from './assertions.ts';

const THINGS: ResourcesDeclaration = {
  resources: {
    things: {
      singular: 'thing',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 40 },
        note: { type: ['string', 'null'], maxLength: 40 },
      },
      required: ['name'],
    },
  },
};

let api: TestServer;
before(async () => {
  api = await startTestServer({ resources: THINGS });
});
after(() => api.close());

test('a PUT repeated with "note": null keeps updated_at and the ETag', async () => {
  const made = await api.post('/v1/things', { name: 'a', note: null });
  assertJson(made, 201);
  const path = made.headers.get('location') as string;
  const first = await api.put(path, { name: 'b', note: null });
  assertJson(first, 200);
  for (let again = 0; again < 3; again++) {
    await sleep(5);
    const repeated = await api.put(path, { name: 'b', note: null });
    assertJson(repeated, 200);
    assert.equal(repeated.body.updated_at, first.body.updated_at, `PUT ${again + 2}`);
    assert.equal(repeated.headers.get('etag'), first.headers.get('etag'), `PUT ${again + 2}`);
  }
});

test('a PATCH of "note": null on a note that reads null keeps updated_at', async () => {
  const made = await api.post('/v1/things', { name: 'a', note: null });
  assertJson(made, 201);
  await sleep(5);
  const patched = await api.patch(made.headers.get('location') as string, { note: null });
  assertJson(patched, 200);
  assert.equal(patched.body.note, null);
  assert.equal(patched.body.updated_at, made.body.updated_at);
});
