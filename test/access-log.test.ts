// The access log: one line per request, JSON by default or text, with the request id,
// method, path, status, bytes, duration and user — and never a token, a password, a
// body or the query string.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AccessEntry } from '../src/logging/logger.ts';
import { formatAccessLine, twoDecimals } from '../src/http/access-log.ts';
import { accessLineBound, writeAccessLine } from '../src/http/access-log-bytes.ts';
import type { Logger } from '../src/index.ts';
import { createUserClient, startTestServer } from './helpers.ts';

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => lines.push(line), warn: () => {}, error: () => {} };
}

describe('access log', () => {
  test('one JSON line per request with the documented fields, the user id once authenticated', async () => {
    const logger = capture();
    const api = await startTestServer({ accessLog: 'json', logger });
    try {
      const created = await api.post('/v1/products', { name: 'Logged', category: 'c', price: 1 });
      logger.lines.length = 0;
      const read = await api.get(`/v1/products/${created.body.id}`, { 'x-request-id': 'trace-123' });
      await api.as(undefined).get('/v1/products');
      assert.equal(logger.lines.length, 2);
      const [ok, refused] = logger.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(Object.keys(ok ?? {}), [
        'time',
        'request_id',
        'method',
        'path',
        'status',
        'bytes',
        'duration_ms',
        'user_id',
      ]);
      assert.match(String(ok?.['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(ok?.['request_id'], 'trace-123');
      assert.equal(ok?.['method'], 'GET');
      assert.equal(ok?.['path'], `/v1/products/${created.body.id}`);
      assert.equal(ok?.['status'], 200);
      assert.equal(ok?.['bytes'], Buffer.byteLength(read.text));
      assert.equal(typeof ok?.['duration_ms'], 'number');
      assert.equal(ok?.['user_id'], 1);
      assert.equal(refused?.['status'], 401);
      assert.equal(refused?.['user_id'], null);
    } finally {
      await api.close();
    }
  });

  test('no token, password, body or query string ever reaches the log', async () => {
    const logger = capture();
    const api = await startTestServer({ accessLog: 'json', logger });
    try {
      const { id, client } = await createUserClient(api, { email: 'secret-person@example.com' });
      await client.patch(`/v1/users/${id}`, { password: 'hunter2-hunter2' });
      await api.post('/v1/tokens', { email: 'secret-person@example.com', password: 'hunter2-hunter2' });
      await api.get('/v1/users?email=secret-person@example.com');
      await api.get('/v1/products', { authorization: 'Bearer not.a.real-token' });
      const everything = logger.lines.join('\n');
      for (const secret of [
        'hunter2',
        'secret-person',
        api.token ?? '-',
        client.token ?? '-',
        'not.a.real-token',
        'Bearer',
      ]) {
        assert.ok(!everything.includes(secret), `the log holds ${secret}`);
      }
      assert.ok(logger.lines.length >= 5);
    } finally {
      await api.close();
    }
  });

  test('"off" (the embedding default) writes nothing', async () => {
    const logger = capture();
    const api = await startTestServer({ logger });
    try {
      await api.get('/v1/products');
      assert.deepEqual(logger.lines, []);
    } finally {
      await api.close();
    }
  });

  test('the JSON form stays valid JSON whatever the path holds', () => {
    const path = '/v1/"quoted"\\back\u0001slash/é';
    const line = formatAccessLine(
      { requestId: 'trace-1', method: 'GET', path, status: 404, bytes: 0, durationMs: 0.5, userId: undefined },
      'json',
      Date.parse('2026-01-02T03:04:05.000Z'),
    );
    assert.deepEqual(JSON.parse(line), {
      time: '2026-01-02T03:04:05.000Z',
      request_id: 'trace-1',
      method: 'GET',
      path,
      status: 404,
      bytes: 0,
      duration_ms: 0.5,
      user_id: null,
    });
  });

  test('the text form reads as one short line', () => {
    const line = formatAccessLine(
      {
        requestId: 'r-1',
        method: 'POST',
        path: '/v1/products',
        status: 201,
        bytes: 120,
        durationMs: 1.23456,
        userId: 3,
      },
      'text',
      Date.parse('2026-01-02T03:04:05.000Z'),
    );
    assert.equal(line, '2026-01-02T03:04:05.000Z 201 POST /v1/products 120B 1.23ms user 3 r-1');
  });

  test('durations print as Math.round(ms * 100) / 100 would, without formatting a fraction', () => {
    const cases = [
      0,
      0.001,
      0.004,
      0.005,
      0.05,
      0.1,
      0.2 + 0.1,
      0.5,
      0.994,
      0.995,
      0.999,
      1,
      1.005,
      1.2,
      1.23456,
      9.99,
      10.1,
      100,
      123_456.78,
    ];
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      cases.push((seed / 2_147_483_648) * 10 ** (i % 6));
    }
    for (const ms of cases) assert.equal(twoDecimals(ms), String(Math.round(ms * 100) / 100), `for ${ms}`);
    assert.deepEqual(
      [twoDecimals(0.5), twoDecimals(1.23456), twoDecimals(2), twoDecimals(0.07)],
      ['0.5', '1.23', '2', '0.07'],
    );
  });

  test('the JSON line written as bytes is byte for byte formatAccessLine in UTF-8, whatever the fields hold, and within its bound', () => {
    const paths = [
      '/v1/products/7',
      '/',
      '/v1/users/1/orders?x',
      '/quote"d/back\\slash',
      '/back\\slash/only',
      '/quote"only',
      '/tab\there/line\nbreak/\u0001/\u007f',
      '/café/☕/𝄞',
      '/lone\ud800surrogate',
      '/\u00e9'.repeat(2000),
      '\u0001'.repeat(8192),
      'x'.repeat(8192),
    ];
    const requestIds = ['a1b2c3d4-1', 'a1b2c3d4-123456789', 'client.id:with-chars_OK', 'x'.repeat(128)];
    const methods = ['GET', 'POST', 'PATCH', 'DELETE', 'PROPFIND', 'M-SEARCH'];
    const numbers = [0, 7, 200, 404, 1_048_576, Number.MAX_SAFE_INTEGER];
    const durations = [0, 0.004, 0.005, 0.05, 0.07, 0.1, 0.26, 0.994, 0.995, 1, 1.005, 1.5, 9.99, 12.345, 99_999.999];
    const users = [undefined, 1, 42, 9_007_199_254_740_991];
    const buffer = Buffer.alloc(64 * 1024);
    let seed = 11;
    const pick = <T>(list: readonly T[]): T => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return list[seed % list.length] as T;
    };
    const now = Date.parse('2026-11-22T04:05:06.789Z');
    const entries: AccessEntry[] = paths.map((path) => ({
      requestId: 'r-1',
      method: 'GET',
      path,
      status: 200,
      bytes: 10,
      durationMs: 0.5,
      userId: 3,
    }));
    for (let n = 0; n < 500; n++) {
      entries.push({
        requestId: pick(requestIds),
        method: pick(methods),
        path: pick(paths),
        status: pick(numbers),
        bytes: pick(numbers),
        durationMs: pick(durations),
        userId: pick(users),
      });
    }
    for (const entry of entries) {
      buffer.fill(0xff);
      const end = writeAccessLine(buffer, 5, entry, now);
      const expected = Buffer.from(`${formatAccessLine(entry, 'json', now)}\n`);
      assert.deepEqual(buffer.subarray(5, end), expected, `for ${JSON.stringify(entry).slice(0, 200)}`);
      assert.ok(end - 5 <= accessLineBound(entry), `within the bound for ${JSON.stringify(entry).slice(0, 200)}`);
      assert.equal(buffer[4], 0xff, 'nothing written before the offset');
      assert.equal(buffer[end], 0xff, 'nothing written after the line');
    }
  });

  test('the bytes follow the time from line to line: the next millisecond, second, minute and year, a longer year and back', () => {
    const start = Date.parse('2026-11-22T23:59:59.998Z');
    const times = [
      start,
      start,
      start + 1,
      start + 2,
      start + 1002,
      start + 60_000,
      start - 86_400_000,
      Date.parse('+010000-01-01T00:00:00.000Z'),
      start + 5,
      0,
      -1,
    ];
    const entry: AccessEntry = {
      requestId: 'r-1',
      method: 'GET',
      path: '/v1/products/7',
      status: 200,
      bytes: 140,
      durationMs: 0.07,
      userId: 1,
    };
    const buffer = Buffer.alloc(1024);
    for (const now of times) {
      const end = writeAccessLine(buffer, 0, entry, now);
      assert.equal(
        buffer.subarray(0, end).toString('utf8'),
        `${formatAccessLine(entry, 'json', now)}\n`,
        `at ${new Date(now).toISOString()}`,
      );
    }
  });
});
