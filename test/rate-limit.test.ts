// Rate limiting (README: Configuration RATE_LIMIT, §7 429, §8 RateLimit-* headers): a token
// bucket per client, refilled over time — driven by an injected clock, never by sleeps.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_CLIENTS, RateLimiter } from '../src/http/rate-limit.ts';
import type { TestServer } from './helpers.ts';
import { createUserClient, startTestServer } from './helpers.ts';
import { assertProblem } from './assertions.ts';

function fakeClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

async function withLimitedServer(
  perMinute: number,
  run: (api: TestServer, clock: ReturnType<typeof fakeClock>) => Promise<void>,
): Promise<void> {
  const clock = fakeClock();
  const api = await startTestServer({ rateLimit: perMinute, clock: clock.now });
  try {
    await run(api, clock);
  } finally {
    await api.close();
  }
}

describe('rate limiting over HTTP', () => {
  test('every answer carries RateLimit-Limit, -Remaining and -Reset; the bucket empties into 429 with Retry-After', () =>
    withLimitedServer(3, async (api) => {
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await api.get('/v1/products');
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('ratelimit-limit'), '3');
        remaining.push(response.headers.get('ratelimit-remaining') ?? '');
      }
      assert.deepEqual(remaining, ['2', '1', '0']);
      const refused = await api.get('/v1/products');
      assertProblem(refused, 429, 'rate_limited', '/v1/products');
      assert.equal(refused.headers.get('retry-after'), '20', 'one token comes back every 20 s at 3 per minute');
      assert.equal(refused.headers.get('ratelimit-remaining'), '0');
      assert.equal(refused.headers.get('ratelimit-reset'), '60');
    }));

  test('the bucket refills with time: after Retry-After seconds one request passes again', () =>
    withLimitedServer(3, async (api, clock) => {
      for (let i = 0; i < 3; i++) await api.get('/v1/products');
      assert.equal((await api.get('/v1/products')).status, 429);
      clock.advance(19_999);
      assert.equal((await api.get('/v1/products')).status, 429);
      clock.advance(1);
      assert.equal((await api.get('/v1/products')).status, 200);
      clock.advance(60_000);
      assert.equal(
        (await api.get('/v1/products')).headers.get('ratelimit-remaining'),
        '2',
        'full again (less this request)',
      );
    }));

  test('each user has a bucket of their own', () =>
    withLimitedServer(2, async (api) => {
      const { client } = await createUserClient(api);
      await api.get('/v1/products');
      await api.get('/v1/products');
      assert.equal((await api.get('/v1/products')).status, 429, 'the admin is out');
      assert.equal((await client.get('/v1/products')).status, 200);
    }));

  test('authentication comes first: a missing token is 401 even when the address is out of tokens', () =>
    withLimitedServer(2, async (api) => {
      // The helper's own admin login already took one of this address's two tokens.
      const anonymous = api.as(undefined);
      assert.equal(
        (await anonymous.post('/v1/tokens', { email: 'x@example.com', password: 'wrong-password' })).status,
        401,
      );
      assert.equal(
        (await anonymous.post('/v1/tokens', { email: 'x@example.com', password: 'wrong-password' })).status,
        429,
        'logins are limited per address',
      );
      const response = await anonymous.get('/v1/products');
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('ratelimit-limit'), '2', 'answers before the limit still show it');
      assert.equal(response.headers.get('ratelimit-remaining'), '0');
    }));

  test('RATE_LIMIT 0 turns limiting off: no 429 and no RateLimit headers', () =>
    withLimitedServer(0, async (api) => {
      for (let i = 0; i < 5; i++) assert.equal((await api.get('/v1/products')).status, 200);
      assert.equal((await api.get('/v1/products')).headers.get('ratelimit-limit'), null);
    }));
});

describe('rate limiter: memory stays bounded', () => {
  test(`past ${MAX_CLIENTS} clients the least recently seen is forgotten`, () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(10, clock.now);
    for (let i = 0; i < MAX_CLIENTS + 500; i++) limiter.take(`address 10.0.${i}`);
    assert.equal(limiter.clients, MAX_CLIENTS);
    assert.equal(limiter.take('address 10.0.0').headers['RateLimit-Remaining'], '9', 'a forgotten client starts full');
  });
});
