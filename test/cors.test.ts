// Cross-origin requests (Fetch standard): allowed origins, foreign origins, "*",
// preflights without a token, and Vary: Origin.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withTestServer } from './helpers.ts';

const APP = 'https://app.example.com';
const EXPOSED =
  'Location, ETag, Link, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, WWW-Authenticate';

describe('CORS with a list of origins', () => {
  const options = { corsOrigins: [APP, 'http://localhost:5173'] };

  test('an allowed origin gets Allow-Origin (its own value), the exposed headers and Vary: Origin', () =>
    withTestServer(options, async (api) => {
      const response = await api.get('/v1/products', { origin: APP });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), APP);
      assert.equal(response.headers.get('access-control-expose-headers'), EXPOSED);
      assert.equal(response.headers.get('vary'), 'Accept-Encoding, Origin');
    }));

  test('errors carry the CORS headers too, so a browser script can read them', () =>
    withTestServer(options, async (api) => {
      const response = await api.as(undefined).get('/v1/products', { origin: APP });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('access-control-allow-origin'), APP);
    }));

  test('a foreign origin gets no CORS header, only Vary: Origin', () =>
    withTestServer(options, async (api) => {
      const response = await api.get('/v1/products', { origin: 'https://evil.example.net' });
      assert.equal(response.status, 200);
      for (const name of [
        'access-control-allow-origin',
        'access-control-expose-headers',
        'access-control-allow-methods',
      ]) {
        assert.equal(response.headers.get(name), null, name);
      }
      assert.equal(response.headers.get('vary'), 'Accept-Encoding, Origin');
    }));

  test("a preflight needs no token: 204 with the path's methods, the allowed headers and a max age", () =>
    withTestServer(options, async (api) => {
      const response = await api.as(undefined).request('OPTIONS', '/v1/users/1/orders', {
        headers: {
          origin: APP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      assert.equal(response.status, 204);
      assert.equal(response.text, '');
      assert.equal(response.headers.get('access-control-allow-origin'), APP);
      assert.equal(response.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, OPTIONS');
      assert.equal(
        response.headers.get('access-control-allow-headers'),
        'Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-Request-Id',
      );
      assert.equal(response.headers.get('access-control-max-age'), '600');
      assert.equal(response.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
    }));

  test('a preflight from a foreign origin is answered without CORS headers (the browser then refuses)', () =>
    withTestServer(options, async (api) => {
      const response = await api.as(undefined).request('OPTIONS', '/v1/products', {
        headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'DELETE' },
      });
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), null);
      assert.equal(response.headers.get('access-control-allow-methods'), null);
    }));
});

describe('CORS with "*" and without configuration', () => {
  test('"*" allows any origin with Allow-Origin: * and no Vary: Origin', () =>
    withTestServer({ corsOrigins: '*' }, async (api) => {
      const response = await api.get('/v1/products', { origin: 'https://anyone.example.org' });
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.equal(response.headers.get('vary'), 'Accept-Encoding');
    }));

  test('by default no origin is allowed and no CORS header is sent', () =>
    withTestServer({}, async (api) => {
      const response = await api.get('/v1/products', { origin: APP });
      assert.equal(response.headers.get('access-control-allow-origin'), null);
      assert.equal(response.headers.get('vary'), 'Accept-Encoding');
    }));
});
