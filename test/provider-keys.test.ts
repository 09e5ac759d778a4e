// A provider's keys (src/auth/provider-keys.ts) against a test provider on node:http: discovery, then the JWKS; kept
// as Cache-Control says within bounds; a rotation found through an unknown kid, at most one fetch per 10 s however
// many made-up kids come; the stale keys used while the provider is down, slow or serving garbage; 503-worthy errors
// only when no key is at hand; an endless chunked answer cut past 1 MiB as it arrives.

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  MAX_DOCUMENT_BYTES,
  MAX_KEEP_SECONDS,
  MIN_KEEP_SECONDS,
  ProviderKeys,
  ProviderUnreachable,
  REFETCH_AFTER_MS,
  keepSecondsOf,
} from '../src/auth/provider-keys.ts';
import { requireProviderUrl } from '../src/auth/provider-url.ts';

function publicJwk(kid: string): Record<string, unknown> {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid, alg: 'ES256', use: 'sig' };
}

type Mode = 'ok' | 'down' | 'garbage' | 'slow' | 'other-issuer';

/** A provider serving discovery and a JWKS, counting what it is asked. */
class TestProvider {
  mode: Mode = 'ok';
  keys: Record<string, unknown>[] = [publicJwk('key-1')];
  cacheControl = 'public, max-age=600';
  readonly asked = { discovery: 0, keys: 0 };
  #server: Server | undefined;
  issuer = '';

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      const isDiscovery = req.url === '/realms/shop/.well-known/openid-configuration';
      if (isDiscovery) this.asked.discovery++;
      else if (req.url === '/realms/shop/certs') this.asked.keys++;
      else return void res.writeHead(404).end();
      if (this.mode === 'down') return void res.writeHead(500).end('{}');
      if (this.mode === 'slow') return; // no answer: the client's timeout ends the request, however busy the machine
      if (this.mode === 'garbage') return void res.writeHead(200).end('<html>maintenance</html>');
      const body = isDiscovery
        ? {
            issuer: this.mode === 'other-issuer' ? `${this.issuer}/other` : this.issuer,
            jwks_uri: `${this.issuer}/certs`,
          }
        : { keys: this.keys };
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': this.cacheControl });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/realms/shop`;
  }

  stop(): Promise<void> {
    this.#server?.closeAllConnections(); // a request the slow mode never answered
    return new Promise((resolve) => this.#server?.close(() => resolve()));
  }
}

/**
 * A provider whose every answer is a JSON document that never ends, sent chunked (no Content-Length) as fast as the
 * client reads it; it counts the bytes it wrote and notes when the connection closes.
 */
class EndlessProvider {
  issuer = '';
  /** The address last asked for. */
  url = '';
  sent = 0;
  closed: Promise<void> = Promise.resolve();
  #onClose: () => void = () => undefined;
  #server: Server | undefined;

  reset(): void {
    this.sent = 0;
    this.closed = new Promise((resolve) => (this.#onClose = resolve));
  }

  async start(): Promise<void> {
    const chunk = Buffer.alloc(64 * 1024, ' ');
    this.#server = createServer((req, res) => {
      this.url = `http://${req.headers.host}${req.url}`;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"keys": [');
      let open = true;
      const pump = (): void => {
        while (open && res.write(chunk)) this.sent += chunk.length;
        if (open) this.sent += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => {
        open = false;
        this.#onClose();
      });
      pump();
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/realms/endless`;
  }

  stop(): Promise<void> {
    this.#server?.closeAllConnections();
    return new Promise((resolve) => this.#server?.close(() => resolve()));
  }
}

/** Waits, a few milliseconds at a time, until `done` (failing after 15 s: a hang, however busy the machine). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 15_000; !done();) {
    if (Date.now() > deadline) assert.fail(`not within 15 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("a provider's keys", () => {
  const provider = new TestProvider();
  let clock = 1_000_000;
  const now = (): number => clock;
  before(() => provider.start());
  after(() => provider.stop());
  const reset = (): void => {
    provider.mode = 'ok';
    provider.keys = [publicJwk('key-1')];
    provider.cacheControl = 'public, max-age=600';
    provider.asked.discovery = 0;
    provider.asked.keys = 0;
  };

  test('found through discovery, then kept for max-age: asked again only once it has passed', async () => {
    reset();
    const keys = new ProviderKeys({ issuer: provider.issuer }, { now });
    assert.deepEqual([...(await keys.current()).keys()], ['key-1']);
    assert.deepEqual(provider.asked, { discovery: 1, keys: 1 });
    clock += 599_000;
    await keys.current();
    assert.equal(provider.asked.keys, 1, 'still fresh');
    clock += 2_000;
    assert.deepEqual([...(await keys.current()).keys()], ['key-1'], 'past max-age: the keys held, at once');
    await until(() => provider.asked.keys === 2, 'fetched again in the background');
  });

  test('a JWKS address given directly skips discovery', async () => {
    reset();
    const keys = new ProviderKeys({ issuer: provider.issuer, jwksUrl: `${provider.issuer}/certs` }, { now });
    await keys.current();
    assert.deepEqual(provider.asked, { discovery: 0, keys: 1 });
  });

  test('a rotation is found through an unknown kid, with one fetch per 10 s however many kids are made up', async () => {
    reset();
    const keys = new ProviderKeys({ issuer: provider.issuer }, { now });
    await keys.current();
    provider.keys = [...provider.keys, publicJwk('key-2')];
    assert.equal((await keys.afterUnknownKey()).has('key-2'), false, 'asked less than 10 s ago');
    assert.equal(provider.asked.keys, 1);
    clock += REFETCH_AFTER_MS;
    const answers = await Promise.all(Array.from({ length: 100 }, () => keys.afterUnknownKey()));
    assert.ok(answers.every((held) => held.has('key-2')));
    assert.equal(provider.asked.keys, 2, 'a hundred made-up kids, one fetch');
    await Promise.all(Array.from({ length: 100 }, () => keys.afterUnknownKey()));
    assert.equal(provider.asked.keys, 2);
  });

  test('down, serving garbage, slow, or naming another issuer: the keys held go on; with none, ProviderUnreachable', async () => {
    for (const mode of ['down', 'garbage', 'slow', 'other-issuer'] as const) {
      reset();
      const keys = new ProviderKeys({ issuer: provider.issuer }, { now });
      await keys.current();
      provider.mode = mode;
      clock += 3_600_000;
      assert.deepEqual([...(await keys.current()).keys()], ['key-1'], `${mode}: the stale keys`);
      // Slow: the provider never answers, and the timeout, long beside a request to this process, ends the wait.
      const fresh = new ProviderKeys({ issuer: provider.issuer }, { now, timeoutMs: 2000 });
      await assert.rejects(fresh.current(), ProviderUnreachable, `${mode}: no key at hand`);
      const asked = provider.asked.keys + provider.asked.discovery;
      await assert.rejects(fresh.current(), ProviderUnreachable, `${mode}: again, within 10 s`);
      assert.equal(provider.asked.keys + provider.asked.discovery, asked, `${mode}: not asked again within 10 s`);
    }
  });

  test('an unknown kid while the provider cannot be asked is ProviderUnreachable, even with keys at hand', async () => {
    reset();
    const keys = new ProviderKeys({ issuer: provider.issuer }, { now });
    await keys.current();
    provider.mode = 'down';
    clock += REFETCH_AFTER_MS;
    await assert.rejects(keys.afterUnknownKey(), ProviderUnreachable, 'the keys held cannot decide for that kid');
    await assert.rejects(keys.afterUnknownKey(), ProviderUnreachable, 'within 10 s of the failure: still unreachable');
    assert.deepEqual([...(await keys.current()).keys()], ['key-1'], 'a known kid goes on verifying');
    provider.mode = 'ok';
    clock += REFETCH_AFTER_MS;
    assert.deepEqual([...(await keys.afterUnknownKey()).keys()], ['key-1']);
  });

  test('a JWKS without a key plainrest verifies with is no key at all', async () => {
    reset();
    provider.keys = [{ kty: 'oct', kid: 'hmac', k: 'c2VjcmV0' }];
    await assert.rejects(new ProviderKeys({ issuer: provider.issuer }, { now }).current(), /no key/);
  });

  test('an endless chunked JWKS or discovery answer is cut past 1 MiB as it arrives: ProviderUnreachable, the connection closed', async () => {
    const endless = new EndlessProvider();
    await endless.start();
    try {
      for (const address of [
        { issuer: endless.issuer, jwksUrl: `${endless.issuer}/certs` },
        { issuer: endless.issuer },
      ]) {
        endless.reset();
        // A timeout far beyond the cut (about 50 ms on an idle machine), however busy the machine: the message says the
        // cut ended the fetch, not the timeout.
        await assert.rejects(new ProviderKeys(address, { timeoutMs: 60_000 }).current(), (error: unknown) => {
          assert.ok(error instanceof ProviderUnreachable);
          assert.equal(error.message, `the provider's answer at ${endless.url} is over 1 MiB`);
          return true;
        });
        await endless.closed;
        assert.ok(endless.sent > MAX_DOCUMENT_BYTES, `${endless.sent} bytes sent`);
        // What the client read (1 MiB and a chunk) and what the sockets' buffers held: a few MiB, not the endless rest.
        assert.ok(endless.sent < 16 * MAX_DOCUMENT_BYTES, `${endless.sent} bytes sent`);
      }
    } finally {
      await endless.stop();
    }
  });

  test('Cache-Control within 5 minutes and a day; issuers over https, or http on this machine only', () => {
    assert.equal(keepSecondsOf(null), MIN_KEEP_SECONDS);
    assert.equal(keepSecondsOf('public, max-age=900'), 900);
    assert.equal(keepSecondsOf('max-age="1200"'), 1200);
    assert.equal(keepSecondsOf('max-age=60'), MIN_KEEP_SECONDS);
    assert.equal(keepSecondsOf('max-age=31536000'), MAX_KEEP_SECONDS);
    assert.equal(keepSecondsOf('no-store, max-age=900'), MIN_KEEP_SECONDS);
    assert.ok(requireProviderUrl('https://id.example.com/realms/shop', 'the issuer'));
    assert.ok(requireProviderUrl('http://127.0.0.1:8080/realms/shop', 'the issuer'));
    assert.throws(() => requireProviderUrl('http://id.example.com', 'the issuer'), /https/);
    assert.throws(() => new ProviderKeys({ issuer: 'ftp://id.example.com' }), /https/);
  });
});
