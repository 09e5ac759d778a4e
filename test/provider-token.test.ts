// Provider tokens (src/auth/provider-token.ts): valid tokens of each algorithm from keys made here, and the forgeries an
// attacker tries: the public key as an HMAC secret, `none`, another key's kid, a tampered payload, expired, early,
// another issuer or audience, critical extensions, an oversized token, and keys that must not be trusted.

import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { constants, createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ExpectedProvider, ProviderAlgorithm, ProviderKey } from '../src/auth/provider-token.ts';
import { MAX_PROVIDER_TOKEN_CHARS, providerKeyOf, verifyProviderToken } from '../src/auth/provider-token.ts';

const ISSUER = 'https://id.example.com/realms/shop';
const NOW = 1_800_000_000;
const EXPECTED = { issuer: ISSUER, audience: 'plainrest' };

interface SigningKey {
  readonly kid: string;
  readonly algorithm: ProviderAlgorithm;
  readonly privateKey: KeyObject;
  readonly publicJwk: Record<string, unknown>;
}

function signingKey(kid: string, algorithm: ProviderAlgorithm, withAlg = true): SigningKey {
  const pair =
    algorithm === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : algorithm === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return {
    kid,
    algorithm,
    privateKey: pair.privateKey,
    publicJwk: { ...jwk, kid, use: 'sig', ...(withAlg ? { alg: algorithm } : {}) },
  };
}

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function signed(input: string, key: SigningKey, algorithm = key.algorithm): string {
  const data = Buffer.from(input);
  const signature =
    algorithm === 'RS256'
      ? sign('sha256', data, key.privateKey)
      : algorithm === 'PS256'
        ? sign('sha256', data, { key: key.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 })
        : algorithm === 'ES256'
          ? sign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
          : sign(null, data, key.privateKey);
  return signature.toString('base64url');
}

function token(
  key: SigningKey,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
  algorithm = key.algorithm,
): string {
  const input = `${part({ alg: algorithm, typ: 'JWT', kid: key.kid, ...header })}.${part({
    iss: ISSUER,
    aud: 'plainrest',
    sub: 'user-7',
    exp: NOW + 300,
    ...claims,
  })}`;
  return `${input}.${signed(input, key, algorithm)}`;
}

const KEYS = {
  rsa: signingKey('rsa-1', 'RS256'),
  pss: signingKey('pss-1', 'PS256'),
  ec: signingKey('ec-1', 'ES256'),
  ed: signingKey('ed-1', 'EdDSA'),
  bare: signingKey('rsa-bare', 'RS256', false),
};

function keySet(...keys: SigningKey[]): Map<string, ProviderKey> {
  return new Map(keys.map((key) => [key.kid, providerKeyOf(key.publicJwk) as ProviderKey]));
}

const ALL = keySet(...Object.values(KEYS));

function refusedBecause(result: ReturnType<typeof verifyProviderToken>, reason: RegExp): void {
  assert.equal(result.ok, false, JSON.stringify(result));
  assert.match((result as { reason: string }).reason, reason);
}

describe('provider tokens', () => {
  test('a token of each algorithm verifies, and names its subject', () => {
    for (const key of [KEYS.rsa, KEYS.pss, KEYS.ec, KEYS.ed]) {
      const result = verifyProviderToken(token(key), ALL, EXPECTED, NOW);
      assert.equal(result.ok, true, `${key.algorithm}: ${JSON.stringify(result)}`);
      assert.equal((result as { subject: string }).subject, 'user-7');
    }
  });

  test('an RSA key without alg takes RS256 and PS256; a key with alg takes only that one', () => {
    assert.deepEqual(providerKeyOf(KEYS.bare.publicJwk)?.algorithms, ['RS256', 'PS256']);
    assert.equal(verifyProviderToken(token(KEYS.bare, {}, {}, 'PS256'), ALL, EXPECTED, NOW).ok, true);
    refusedBecause(verifyProviderToken(token(KEYS.rsa, {}, {}, 'PS256'), ALL, EXPECTED, NOW), /algorithm/);
  });

  test('forgeries: the public key as an HMAC secret, none, another key, a tampered payload, a re-spelled signature', () => {
    const header = part({ alg: 'HS256', typ: 'JWT', kid: KEYS.rsa.kid });
    const body = part({ iss: ISSUER, aud: 'plainrest', sub: 'admin', exp: NOW + 300 });
    for (const secret of [JSON.stringify(KEYS.rsa.publicJwk), String(KEYS.rsa.publicJwk['n'])]) {
      const mac = createHmac('sha256', secret).update(`${header}.${body}`).digest('base64url');
      refusedBecause(verifyProviderToken(`${header}.${body}.${mac}`, ALL, EXPECTED, NOW), /algorithm/);
    }
    const none = `${part({ alg: 'none', kid: KEYS.rsa.kid })}.${body}.`;
    refusedBecause(verifyProviderToken(none, ALL, EXPECTED, NOW), /algorithm/);
    // Signed by the PS256 key with RS256, claiming the RS256 key's kid: the algorithm is that key's, the signature not.
    const borrowed = token({ ...KEYS.pss, kid: KEYS.rsa.kid }, {}, {}, 'RS256');
    refusedBecause(verifyProviderToken(borrowed, ALL, EXPECTED, NOW), /signature/);
    const [h, , s] = token(KEYS.ec).split('.') as [string, string, string];
    const tampered = `${h}.${part({ iss: ISSUER, aud: 'plainrest', sub: 'admin', exp: NOW + 300 })}.${s}`;
    refusedBecause(verifyProviderToken(tampered, ALL, EXPECTED, NOW), /signature/);
    const good = token(KEYS.ed);
    // The last character of a 64-byte signature (86 characters) carries 4 unused bits: flipping one spells the same
    // bytes another way.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = good.slice(0, -1) + alphabet.charAt(alphabet.indexOf(good.at(-1) as string) ^ 1);
    assert.deepEqual(
      Buffer.from(respelled.split('.')[2] as string, 'base64url'),
      Buffer.from(good.split('.')[2] as string, 'base64url'),
    );
    refusedBecause(verifyProviderToken(respelled, ALL, EXPECTED, NOW), /signature/);
  });

  test('an unknown kid is told apart, so the keys can be fetched again', () => {
    const stranger = signingKey('rotated-2', 'RS256');
    assert.deepEqual(verifyProviderToken(token(stranger), ALL, EXPECTED, NOW), { ok: 'unknown-key', kid: 'rotated-2' });
    assert.equal(verifyProviderToken(token(stranger), keySet(stranger), EXPECTED, NOW).ok, true);
  });

  test('exp and nbf with 60 s of leeway; iss exactly; aud when one is expected; a subject required', () => {
    const at = (claims: Record<string, unknown>, expected: ExpectedProvider = EXPECTED) =>
      verifyProviderToken(token(KEYS.ec, claims), ALL, expected, NOW);
    assert.equal(at({ exp: NOW - 59 }).ok, true);
    refusedBecause(at({ exp: NOW - 60 }), /expired/);
    refusedBecause(at({ exp: undefined }), /expiry/);
    assert.equal(at({ nbf: NOW + 60 }).ok, true);
    refusedBecause(at({ nbf: NOW + 61 }), /not valid yet/);
    refusedBecause(at({ iss: `${ISSUER}/` }), /issuer/);
    refusedBecause(at({ aud: 'another-api' }), /audience/);
    assert.equal(at({ aud: ['account', 'plainrest'] }).ok, true);
    assert.equal(at({ aud: 'another-api' }, { issuer: ISSUER }).ok, true, 'no audience expected');
    refusedBecause(at({ sub: '' }), /subject/);
  });

  test('critical extensions, other token types and tokens over 8 KiB are refused', () => {
    refusedBecause(
      verifyProviderToken(token(KEYS.ed, {}, { crit: ['b64'], b64: false }), ALL, EXPECTED, NOW),
      /critical/,
    );
    refusedBecause(verifyProviderToken(token(KEYS.ed, {}, { typ: 'logout+jwt' }), ALL, EXPECTED, NOW), /type/);
    assert.equal(verifyProviderToken(token(KEYS.ed, {}, { typ: 'at+jwt' }), ALL, EXPECTED, NOW).ok, true);
    const big = token(KEYS.ed, { padding: 'x'.repeat(MAX_PROVIDER_TOKEN_CHARS) });
    refusedBecause(verifyProviderToken(big, ALL, EXPECTED, NOW), /longer/);
    refusedBecause(verifyProviderToken('a.b', ALL, EXPECTED, NOW), /not a JWT/);
  });

  test('keys that are not trusted: symmetric, RSA under 2048 bits, for encryption, of another curve, without kid', () => {
    assert.equal(providerKeyOf({ kty: 'oct', kid: 'k', k: 'c2VjcmV0' }), undefined);
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    assert.equal(providerKeyOf({ ...weak, kid: 'weak' }), undefined);
    assert.equal(providerKeyOf({ ...KEYS.rsa.publicJwk, use: 'enc' }), undefined);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
    assert.equal(providerKeyOf({ ...p384, kid: 'p384' }), undefined);
    assert.equal(providerKeyOf({ ...KEYS.ec.publicJwk, alg: 'RS256' }), undefined, 'an alg its type cannot have');
    const { kid: _kid, ...withoutKid } = KEYS.ed.publicJwk;
    assert.equal(providerKeyOf(withoutKid), undefined);
  });
});
