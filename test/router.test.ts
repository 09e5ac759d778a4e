// Unit tests for the path router (src/routing/router.ts): literal segments, positive-integer
// id segments, and everything that must not match.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseId, Router } from '../src/routing/router.ts';

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
