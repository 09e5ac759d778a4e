// Filter operators at their edges, on either store (TEST_STORE=postgres): an enum of mixed values, a property
// named `or`, and a text the document allows for [contains].

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { assertJson } from './assertions.ts';

const JOBS: ResourcesDeclaration = {
  resources: {
    jobs: {
      singular: 'job',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'user' },
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 400, 'x-filter': true },
        priority: { enum: [1, 2, 'high'], 'x-filter': true },
      },
      required: ['title', 'priority'],
    },
  },
};

let api: TestServer;
before(async () => {
  api = await startTestServer({ resources: JOBS });
  for (const [title, priority] of [
    ['a', 1],
    ['b', 2],
    ['c', 'high'],
    ['😀'.repeat(150), 'high'],
  ] as const)
    assertJson(await api.post('/v1/jobs', { title, priority }), 201);
});
after(() => api.close());

const titles = (answer: { body: { data: { title: string }[] } }): string[] =>
  answer.body.data.map((job) => job.title.slice(0, 2));

test('an enum of numbers and text: equality on its text value', async () => {
  const answer = await api.get('/v1/jobs?priority=high');
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(titles(answer), ['c', '😀']);
});

test('an enum of numbers and text: [in] and [ne]', async () => {
  const oneOf = await api.get('/v1/jobs?priority[in]=1,high');
  assert.equal(oneOf.status, 200, oneOf.text);
  assert.deepEqual(titles(oneOf), ['a', 'c', '😀']);
  const not = await api.get('/v1/jobs?priority[ne]=high');
  assert.equal(not.status, 200, not.text);
  assert.deepEqual(titles(not), ['a', 'b']);
});

test('[contains] with 150 emoji (150 characters, within the document maxLength 200)', async () => {
  const document = await api.get('/v1/openapi.json');
  const parameter = (document.body.paths['/v1/jobs'].get.parameters as { name: string; schema: unknown }[]).find(
    (candidate) => candidate.name === 'title[contains]',
  );
  assert.deepEqual(parameter?.schema, { type: 'string', minLength: 1, maxLength: 200 });
  const answer = await api.get(`/v1/jobs?title[contains]=${encodeURIComponent('😀'.repeat(150))}`);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.length, 1);
});

test('a filtered property named "or" is refused by the declaration check, or filters by equality', async () => {
  const declaration: ResourcesDeclaration = {
    resources: {
      gates: {
        singular: 'gate',
        properties: { or: { type: 'string', 'x-filter': true } },
      },
    },
  };
  if (checkDeclaration(declaration).length > 0) return;
  const gates = await startTestServer({ resources: declaration });
  try {
    assertJson(await gates.post('/v1/gates', { or: 'x' }), 201);
    const answer = await gates.get('/v1/gates?or=x');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.length, 1);
  } finally {
    await gates.close();
  }
});

test('an enum of numbers only: [in] and [ne]', async () => {
  const ranks = await startTestServer({
    resources: {
      resources: {
        ranks: { singular: 'rank', properties: { level: { enum: [1, 2, 3], 'x-filter': true } }, required: ['level'] },
      },
    },
  });
  try {
    for (const level of [1, 2, 3]) assertJson(await ranks.post('/v1/ranks', { level }), 201);
    const oneOf = await ranks.get('/v1/ranks?level[in]=1,3');
    assert.equal(oneOf.status, 200, oneOf.text);
    assert.deepEqual(
      oneOf.body.data.map((rank: { level: number }) => rank.level),
      [1, 3],
    );
    const not = await ranks.get('/v1/ranks?level[ne]=2&or=(level.eq.1,level.in.(2,3))');
    assert.equal(not.status, 200, not.text);
    assert.equal(not.body.data.length, 2);
  } finally {
    await ranks.close();
  }
});
