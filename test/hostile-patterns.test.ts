// Declared patterns that freeze a backtracking engine, over HTTP (README: Security): a
// value built against them gets its 422 at once while /healthz keeps answering, and a
// request whose values would need too much matching work gets pattern_too_costly.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

const PATTERNS = {
  alternation: '(a|aa)+$',
  optional: '(a|a?)+x$',
  pairs: '(a?a?)+b',
  stars: 'a*a*a*a*a*a*a*a*a*a*b',
  counted: '(.*){20}x',
  nested: '^(a+)+$',
  email: '^([a-zA-Z0-9_\\-\\.]+)@([a-zA-Z0-9_\\-\\.]+)\\.([a-zA-Z]{2,5})$',
  costly: '(.*){200}x',
};

const DECLARATION: ResourcesDeclaration = {
  resources: {
    notes: {
      singular: 'note',
      properties: Object.fromEntries(
        Object.entries(PATTERNS).map(([name, pattern]) => [name, { type: 'string', pattern }]),
      ),
    },
  },
};

describe('declared patterns that backtrack catastrophically elsewhere', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ resources: DECLARATION });
  });
  after(() => api.close());

  // A backtracking engine would take hours on any of these; a minute is a busy machine's slack.
  const WITHIN = { timeout: 60_000 };

  test('a value built against each pattern gets its 422 while /healthz answers', WITHIN, async () => {
    const attack = `${'a'.repeat(64)}!`;
    const [refused, health] = await Promise.all([
      api.post('/v1/notes', Object.fromEntries(Object.keys(PATTERNS).map((name) => [name, attack]))),
      api.get('/healthz'),
    ]);
    assert.equal(health.status, 200);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'validation_failed');
    assert.deepEqual(
      refused.body.errors,
      Object.entries(PATTERNS).map(([field, pattern]) => ({
        field,
        code: 'pattern_mismatch',
        message: `must match the pattern ${pattern}`,
      })),
    );
  });

  test('values that match are stored', WITHIN, async () => {
    const note = {
      alternation: 'aaa',
      optional: 'aax',
      pairs: 'aab',
      stars: 'aab',
      counted: 'ax',
      nested: 'aaaa',
      email: 'ana.lima@example.org',
      costly: 'x',
    };
    const created = await api.post('/v1/notes', note);
    assert.equal(created.status, 201);
    assert.deepEqual((await api.get(created.headers.get('location') as string)).body, created.body);
    assert.deepEqual(Object.fromEntries(Object.keys(note).map((name) => [name, created.body[name]])), note);
  });

  test(
    'a request whose values need more matching work than one request may spend gets pattern_too_costly, and nothing is stored',
    WITHIN,
    async () => {
      const before = (await api.get('/v1/notes')).body.data.length;
      const refused = await api.post('/v1/notes', { costly: `${'a'.repeat(100_000)}x`, email: 'ana@example.org' });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.errors, [
        {
          field: 'costly',
          code: 'pattern_too_costly',
          message: 'is too long to check against its pattern in one request; send shorter values',
        },
      ]);
      assert.equal((await api.get('/v1/notes')).body.data.length, before);
      assert.equal(
        (await api.post('/v1/notes', { costly: `${'a'.repeat(100)}x` })).status,
        201,
        'the next request has a budget of its own',
      );
    },
  );
});
