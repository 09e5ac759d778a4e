// Unit tests for HS256 JSON Web Tokens (src/auth/jwt.ts): what a valid token looks
// like, and every way a token must be refused (RFC 7519, RFC 8725).

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { signToken, verifyToken } from '../src/auth/jwt.ts';
import { withTestServer } from './helpers.ts';

const SECRET = 'unit-test-secret-unit-test-secret-0123';
const NOW = 1_800_000_000;
const CLAIMS = { sub: '7', iat: NOW - 10, exp: NOW + 3600 };

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const hmac = (input: string, secret = SECRET, algorithm = 'sha256'): string =>
  createHmac(algorithm, secret).update(input).digest('base64url');

/** A token with any header and payload, signed as given. */
function forge(header: unknown, payload: unknown, sign: (input: string) => string = (input) => hmac(input)): string {
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${sign(input)}`;
}

describe('jwt: a valid token', () => {
  test('round-trips its claims', () => {
    assert.deepEqual(verifyToken(signToken(CLAIMS, SECRET), SECRET, NOW), { ok: true, claims: CLAIMS });
  });

  test('has the header {"alg":"HS256","typ":"JWT"} and an HMAC-SHA256 signature', () => {
    const [header, payload, signature] = signToken(CLAIMS, SECRET).split('.');
    assert.deepEqual(JSON.parse(Buffer.from(header as string, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' });
    assert.deepEqual(JSON.parse(Buffer.from(payload as string, 'base64url').toString()), CLAIMS);
    assert.equal(signature, hmac(`${header}.${payload}`));
  });

  test('a token forged the standard way with the right secret is accepted (interoperability)', () => {
    assert.equal(verifyToken(forge({ typ: 'JWT', alg: 'HS256' }, CLAIMS), SECRET, NOW).ok, true);
  });
});

describe('jwt: refused tokens', () => {
  const valid = signToken(CLAIMS, SECRET);
  const [header, payload, signature] = valid.split('.') as [string, string, string];
  const cases: { name: string; token: string; secret?: string; now?: number; reason: RegExp }[] = [
    {
      name: 'a tampered payload',
      token: `${header}.${encode({ ...CLAIMS, sub: '1' })}.${signature}`,
      reason: /signature/,
    },
    { name: 'a tampered signature', token: `${header}.${payload}.${signature.slice(0, -2)}AA`, reason: /signature/ },
    {
      name: 'alg none with no signature',
      token: `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      reason: /not a JWT/,
    },
    { name: 'alg none with a signature', token: forge({ alg: 'none' }, CLAIMS), reason: /HS256/ },
    { name: 'alg "None" (case)', token: forge({ alg: 'None' }, CLAIMS), reason: /HS256/ },
    { name: 'alg "hs256" (case)', token: forge({ alg: 'hs256' }, CLAIMS), reason: /HS256/ },
    {
      name: 'alg HS512 signed with HS512',
      token: forge({ alg: 'HS512' }, CLAIMS, (input) => hmac(input, SECRET, 'sha512')),
      reason: /HS256/,
    },
    { name: 'alg RS256', token: forge({ alg: 'RS256' }, CLAIMS), reason: /HS256/ },
    { name: 'no alg', token: forge({ typ: 'JWT' }, CLAIMS), reason: /HS256/ },
    { name: 'a typ other than JWT', token: forge({ alg: 'HS256', typ: 'at+jwt+x' }, CLAIMS), reason: /type/ },
    { name: 'a crit header', token: forge({ alg: 'HS256', crit: ['exp'] }, CLAIMS), reason: /critical/ },
    { name: 'the wrong secret', token: valid, secret: 'another-secret-another-secret-another', reason: /signature/ },
    { name: 'expired a second ago', token: valid, now: CLAIMS.exp + 1, reason: /expired/ },
    { name: 'expiring exactly now (exp must be after now)', token: valid, now: CLAIMS.exp, reason: /expired/ },
    { name: 'no exp', token: forge({ alg: 'HS256' }, { sub: '7', iat: NOW }), reason: /claims/ },
    {
      name: 'exp as a string',
      token: forge({ alg: 'HS256' }, { ...CLAIMS, exp: String(CLAIMS.exp) }),
      reason: /claims/,
    },
    { name: 'sub as a number', token: forge({ alg: 'HS256' }, { ...CLAIMS, sub: 7 }), reason: /claims/ },
    {
      name: 'a payload that is not JSON',
      token: forge({ alg: 'HS256' }, CLAIMS).replace(payload, 'bm90IGpzb24'),
      reason: /signature|claims/,
    },
    { name: 'a header that is not JSON', token: `bm90IGpzb24.${payload}.${signature}`, reason: /header/ },
    { name: 'truncated to two parts', token: `${header}.${payload}`, reason: /not a JWT/ },
    { name: 'four parts', token: `${valid}.x`, reason: /not a JWT/ },
    { name: 'characters outside base64url', token: `${header}.${payload}.${signature}=`, reason: /not a JWT/ },
    { name: 'an empty string', token: '', reason: /not a JWT/ },
    {
      name: 'a signature of the wrong length',
      token: `${header}.${payload}.${signature.slice(0, 20)}`,
      reason: /signature/,
    },
  ];
  for (const c of cases) {
    test(`${c.name} is refused`, () => {
      const result = verifyToken(c.token, c.secret ?? SECRET, c.now ?? NOW);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.reason, c.reason);
    });
  }

  test('one second before exp the token is still valid (clock edge)', () => {
    assert.equal(verifyToken(valid, SECRET, CLAIMS.exp - 1).ok, true);
  });
});

describe('jwt: a signature has one spelling (canonical base64url, RFC 4648 §3.5)', () => {
  // 32 bytes are 43 base64url characters; the last one carries 4 bits of the signature
  // and 2 unused bits, which must be zero. Each of the four values of those two bits
  // spells the same bytes; only the one with them zero is the signature.
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const valid = signToken(CLAIMS, SECRET);
  const body = valid.slice(0, -1);
  const last = ALPHABET.indexOf(valid.at(-1) as string);
  const spellings = [0, 1, 2, 3].map((lowBits) => ALPHABET[(last & ~3) | lowBits] as string);

  test('the signature is 43 characters whose last one has its two unused bits zero', () => {
    assert.equal((valid.split('.')[2] as string).length, 43);
    assert.equal(last & 3, 0);
  });

  for (const [lowBits, character] of spellings.entries()) {
    if (lowBits === 0) continue;
    test(`the last character "${character}" (unused bits ${lowBits.toString(2).padStart(2, '0')}, same bytes) is refused`, () => {
      const variant = body + character;
      assert.deepEqual(
        Buffer.from(variant.split('.')[2] as string, 'base64url'),
        Buffer.from(valid.split('.')[2] as string, 'base64url'),
      );
      const result = verifyToken(variant, SECRET, NOW);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.reason, /signature/);
    });
  }

  test('the canonical spelling is accepted', () => {
    assert.equal(verifyToken(body + spellings[0], SECRET, NOW).ok, true);
  });

  test('a padded signature (44 characters) is refused', () => {
    const result = verifyToken(`${valid}A`, SECRET, NOW);
    assert.equal(result.ok, false);
  });
});

describe('jwt over HTTP: a non-canonical signature', () => {
  test('gets 401 with WWW-Authenticate error="invalid_token"', () =>
    withTestServer({}, async (api) => {
      const token = api.token as string;
      const last = token.at(-1) as string;
      // Setting the lowest unused bit gives the next character of the alphabet ('A'→'B', 'w'→'x', '0'→'1').
      const variant = token.slice(0, -1) + String.fromCharCode(last.charCodeAt(0) + 1);
      assert.equal((await api.get('/v1/products')).status, 200);
      const response = await api.get('/v1/products', { authorization: `Bearer ${variant}` });
      assert.equal(response.status, 401);
      assert.equal(response.body.code, 'invalid_token');
      assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }));
});
