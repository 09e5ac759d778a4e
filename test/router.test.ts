// Unit tests for the path router (src/routing/router.ts): literal segments, positive-integer
// id segments, and everything that must not match; and the route table (src/routing/route-table.ts),
// where no collection may take a path plainrest serves itself.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileDeclaration } from '../src/declarations/compile-declaration.ts';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import { RESERVED_NAMES, servedPaths } from '../src/declarations/reserved-names.ts';
import { routeTable } from '../src/routing/route-table.ts';
import { parseId, Router } from '../src/routing/router.ts';
import { WORDED_LANGUAGES } from '../src/resources/vocabulary.ts';

/** Every segment plainrest serves under /v1 itself, in every language it has words in. */
const servedSegments = new Set(
  WORDED_LANGUAGES.flatMap((language) => servedPaths(language).map((path) => path.segment)),
);

function sampleRouter(): Router<string> {
  const router = new Router<string>();
  router.add('/healthz', 'health');
  router.add('/v1', 'index');
  router.add('/v1/users', 'users');
  router.add('/v1/users/:user_id', 'user');
  router.add('/v1/users/:user_id/orders', 'orders');
  router.add('/v1/users/:user_id/orders/:order_id', 'order');
  router.add('/v1/users/me', 'literal wins over id');
  return router;
}

describe('router: match', () => {
  const router = sampleRouter();
  const cases: { path: string; value: string; ids: number[] }[] = [
    { path: '/healthz', value: 'health', ids: [] },
    { path: '/v1', value: 'index', ids: [] },
    { path: '/v1/users', value: 'users', ids: [] },
    { path: '/v1/users/1', value: 'user', ids: [1] },
    { path: '/v1/users/42/orders', value: 'orders', ids: [42] },
    { path: '/v1/users/42/orders/7', value: 'order', ids: [42, 7] },
    { path: '/v1/users/9007199254740991', value: 'user', ids: [9007199254740991] },
    { path: '/v1/users/me', value: 'literal wins over id', ids: [] },
  ];
  for (const { path, value, ids } of cases) {
    test(`${path} matches ${value}`, () => {
      assert.deepEqual(router.match(path), { value, ids });
    });
  }

  const misses = [
    '',
    '/',
    'v1/users',
    '/v1/',
    '/v1/users/',
    '/v1//users',
    '/v1/users/0',
    '/v1/users/01',
    '/v1/users/-1',
    '/v1/users/1.5',
    '/v1/users/1e3',
    '/v1/users/0x10',
    '/v1/users/abc',
    '/v1/users/9007199254740992',
    '/v1/users/9999999999999999',
    '/v1/users/99999999999999999999',
    '/v1/users/1/orders/',
    '/v1/users/1/orders/2/items',
    '/v1/Users',
    '/V1/users',
    '/v1/users%2F1',
    '/users',
    '/v2/users',
  ];
  for (const path of misses) {
    test(`${JSON.stringify(path)} matches nothing`, () => {
      assert.equal(router.match(path), undefined);
    });
  }
});

describe('router: add', () => {
  test('a pattern registered twice is refused', () => {
    const router = new Router<string>();
    router.add('/v1/users', 'a');
    assert.throws(() => router.add('/v1/users', 'b'), /registered twice/);
  });

  test('a pattern must start with a slash', () => {
    assert.throws(() => new Router<string>().add('v1/users', 'a'), /must start with/);
  });
});

describe('router: parseId', () => {
  test('accepts positive decimal integers without leading zeros', () => {
    assert.equal(parseId('1'), 1);
    assert.equal(parseId('10'), 10);
    assert.equal(parseId('9007199254740991'), Number.MAX_SAFE_INTEGER);
  });

  test('refuses everything else', () => {
    for (const segment of [
      '',
      '0',
      '00',
      '01',
      '-1',
      '+1',
      '1.0',
      '1e2',
      ' 1',
      '1 ',
      'abc',
      '９',
      '9007199254740992',
    ]) {
      assert.equal(parseId(segment), undefined, segment);
    }
  });
});

describe('route table: no route shadows another (src/routing/route-table.ts)', () => {
  /** A table compiled without the declaration checker, which would have refused these names first. */
  const unchecked = (resources: ResourcesDeclaration['resources']) => compileDeclaration({ resources });
  const notes = { singular: 'note', properties: { text: { type: 'string' } } } as const;

  test('a collection on a path plainrest serves itself, in any language, is an Error naming both', () => {
    assert.throws(
      () => routeTable(unchecked({ eventos: notes })),
      new Error("/v1/eventos would serve both plainrest's change feed and the collection eventos"),
    );
    assert.throws(
      () => routeTable(unchecked({ notes: { ...notes, names: { pt: { collection: 'tokens' } } } })),
      new Error("/v1/tokens would serve both plainrest's token endpoint and the collection notes"),
    );
    for (const [name] of [...RESERVED_NAMES].filter(([name]) => servedSegments.has(name)))
      assert.throws(() => routeTable(unchecked({ [name]: notes })), /would serve both/, name);
  });

  test('a path the same in two languages is served once; every served path of every language is there', () => {
    const table = unchecked({ notes: { ...notes, names: { pt: { collection: 'notas' } } } });
    const patterns = routeTable(table).map((route) => route.pattern);
    assert.equal(new Set(patterns).size, patterns.length);
    for (const language of table.languages)
      for (const { segment } of servedPaths(language)) assert.ok(patterns.includes(`/v1/${segment}`), segment);
    assert.ok(patterns.includes('/v1/eventos') && patterns.includes('/v1/notas') && patterns.includes('/v1/notes'));
  });
});
