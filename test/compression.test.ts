// Compressed answers and request bodies (RFC 9110 §8.4, §12.5.3; README: Compression): the coding chosen from
// Accept-Encoding's q-values, every coding undone byte for byte, Vary, an ETag and a 304 per coding, HEAD alike,
// event streams as they are, gzipped request bodies within the body limit, and other codings refused.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import * as zlib from 'node:zlib';
import { chooseCoding } from '../src/http/negotiation.ts';
import { CODINGS, codedEntityTag, compressed, uncodedEntityTag } from '../src/http/compression.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bytes: Buffer;
}

/** One request on node:http, its answer's bytes as they came (not undone as fetch would). */
function raw(
  api: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${api.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${api.token ?? ''}`, ...headers },
      agent: false,
    });
    outgoing.once('error', reject);
    outgoing.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }),
      );
    });
    outgoing.end(body);
  });
}

/** The bytes of a body sent with `coding`, undone. */
function undo(bytes: Buffer, coding: string): Buffer {
  if (coding === 'gzip') return zlib.gunzipSync(bytes);
  if (coding === 'br') return zlib.brotliDecompressSync(bytes);
  const zstd = (zlib as { zstdDecompressSync?: (data: Buffer) => Buffer }).zstdDecompressSync;
  assert.ok(zstd !== undefined, 'zstd is offered only where node:zlib has it');
  return zstd(bytes);
}

const LIST = '/v1/products?limit=100';

describe('Accept-Encoding, read with its q-values', () => {
  test('the client weighs; between codings it weighs alike, br, then zstd, then gzip; identity above them wins', () => {
    const cases: [string | undefined, string | undefined, boolean][] = [
      [undefined, undefined, true],
      ['', undefined, true],
      ['gzip', 'gzip', true],
      ['gzip, deflate, br', 'br', true],
      ['GZIP;Q=0.5, br;q=0.8', 'br', true],
      ['br;q=0, gzip', 'gzip', true],
      ['x-gzip', 'gzip', true],
      ['gzip;q=0.2, identity', undefined, true],
      ['identity;q=0.1, gzip;q=0.2', 'gzip', true],
      ['*', CODINGS[0], true],
      ['*;q=0, identity', undefined, true],
      ['*;q=0', undefined, false],
      ['identity;q=0', undefined, false],
      ['gzip, identity;q=0', 'gzip', false],
      ['deflate, compress', undefined, true],
      ['gzip;q=0.000, br;q=0.001', 'br', true],
      // Weights outside the grammar (RFC 9110 §12.4.2) are ignored: the coding keeps weight 1.
      ['gzip;q=abc', 'gzip', true],
      ['gzip;q=, br;q=0.5', 'gzip', true],
      ['gzip;q=1.5, br', 'br', true],
      ['gzip ; q=0.5 , br ; q=0.4', 'gzip', true],
    ];
    for (const [header, coding, identity] of cases) {
      assert.deepEqual(chooseCoding(header), { coding, identity }, String(header));
    }
  });

  test('a compressed form is made once for the object it lives with, and entity tags name their coding', () => {
    const owner = {};
    const body = 'x'.repeat(5000);
    const first = compressed(body, 'gzip', owner);
    assert.equal(compressed(body, 'gzip', owner), first, 'the same bytes, not made again');
    assert.notEqual(compressed(body, 'gzip', {}), first, 'another owner, made anew');
    assert.equal(zlib.gunzipSync(first).toString(), body);
    assert.equal(codedEntityTag('"abc"', 'br'), '"abc-br"');
    assert.equal(codedEntityTag('W/"abc"', 'br'), 'W/"abc"', 'a weak tag names the meaning, whatever the coding');
    assert.equal(uncodedEntityTag('"abc-br"'), '"abc"');
    assert.equal(uncodedEntityTag('"abc-zstd"'), '"abc"');
    assert.equal(uncodedEntityTag('"abc"'), '"abc"');
  });
});

describe('compressed answers over HTTP', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ seed: true });
  });
  after(() => api.close());

  test('every coding round-trips byte for byte, with its Content-Length, Vary and an ETag of its own', async () => {
    for (const path of [LIST, '/v1/openapi.json']) {
      const plain = await raw(api, 'GET', path, { 'Accept-Encoding': 'identity' });
      assert.equal(plain.status, 200);
      assert.ok(plain.bytes.length >= 1024, `${path} is large enough to be compressed`);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers['vary'], 'Accept-Encoding');
      const etag = plain.headers['etag'] as string;
      for (const coding of CODINGS) {
        const answer = await raw(api, 'GET', path, { 'Accept-Encoding': coding });
        assert.equal(answer.status, 200, `${path} ${coding}`);
        assert.equal(answer.headers['content-encoding'], coding);
        assert.equal(answer.headers['vary'], 'Accept-Encoding');
        assert.equal(answer.headers['content-length'], String(answer.bytes.length));
        assert.ok(answer.bytes.length < plain.bytes.length / 2, `${path} ${coding}: smaller by half at least`);
        assert.deepEqual(undo(answer.bytes, coding), plain.bytes, `${path} ${coding}: the same bytes once undone`);
        assert.equal(answer.headers['etag'], codedEntityTag(etag, coding));
        const again = await raw(api, 'GET', path, { 'Accept-Encoding': coding });
        assert.deepEqual(again.bytes, answer.bytes, `${path} ${coding}: a hot answer's bytes kept`);
      }
    }
  });

  test('the client q-values decide over HTTP too; identity;q=0 compresses even a small answer', async () => {
    const weighed = await raw(api, 'GET', LIST, { 'Accept-Encoding': 'gzip;q=1, br;q=0.5' });
    assert.equal(weighed.headers['content-encoding'], 'gzip');
    const identityFirst = await raw(api, 'GET', LIST, { 'Accept-Encoding': 'gzip;q=0.5, identity' });
    assert.equal(identityFirst.headers['content-encoding'], undefined);
    const small = await raw(api, 'GET', '/healthz', { 'Accept-Encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined, 'under 1 KiB: as it is');
    assert.equal(small.headers['vary'], 'Accept-Encoding');
    assert.deepEqual(JSON.parse(small.bytes.toString()), { status: 'ok' });
    const forced = await raw(api, 'GET', '/healthz', { 'Accept-Encoding': 'gzip, identity;q=0' });
    assert.equal(forced.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(zlib.gunzipSync(forced.bytes).toString()), { status: 'ok' });
  });

  test('406 when the client refuses the body as it is and every coding the server has', async () => {
    for (const header of ['identity;q=0', '*;q=0', 'compress, identity;q=0']) {
      const answer = await raw(api, 'GET', LIST, { 'Accept-Encoding': header });
      assert.equal(answer.status, 406, header);
      assert.equal(answer.headers['content-type'], 'application/json');
      assert.equal(JSON.parse(answer.bytes.toString()).code, 'not_acceptable');
    }
  });

  test('HEAD sends the headers GET sends, compressed length included, and no body', async () => {
    const get = await raw(api, 'GET', LIST, { 'Accept-Encoding': 'br' });
    const head = await raw(api, 'HEAD', LIST, { 'Accept-Encoding': 'br' });
    assert.equal(head.status, 200);
    assert.equal(head.bytes.length, 0);
    for (const name of ['content-encoding', 'content-length', 'etag', 'vary', 'content-type'])
      assert.equal(head.headers[name], get.headers[name], name);
  });

  test('If-None-Match matches the coding sent: 304 for the same coding, 200 for another', async () => {
    const gzip = await raw(api, 'GET', '/v1/products/1', { 'Accept-Encoding': 'gzip, identity;q=0' });
    const gzipTag = gzip.headers['etag'] as string;
    assert.match(gzipTag, /-gzip"$/);
    const unchanged = await raw(api, 'GET', '/v1/products/1', {
      'Accept-Encoding': 'gzip, identity;q=0',
      'If-None-Match': gzipTag,
    });
    assert.equal(unchanged.status, 304);
    assert.equal(unchanged.bytes.length, 0);
    assert.equal(unchanged.headers['etag'], gzipTag);
    assert.equal(unchanged.headers['vary'], 'Accept-Encoding');
    const other = await raw(api, 'GET', '/v1/products/1', { 'If-None-Match': gzipTag });
    assert.equal(other.status, 200, 'the body as it is is another representation');
    assert.equal(other.headers['etag'], uncodedEntityTag(gzipTag));
    const plainUnchanged = await raw(api, 'GET', '/v1/products/1', {
      'If-None-Match': other.headers['etag'] as string,
    });
    assert.equal(plainUnchanged.status, 304);
  });

  test('If-Match takes the tag of any coding of the current record; a stale one is still 412', async () => {
    const gzip = await raw(api, 'GET', '/v1/products/2', { 'Accept-Encoding': 'gzip, identity;q=0' });
    const patch = (ifMatch: string): Promise<RawAnswer> =>
      raw(
        api,
        'PATCH',
        '/v1/products/2',
        { 'Content-Type': 'application/merge-patch+json', 'If-Match': ifMatch },
        Buffer.from(JSON.stringify({ price: 7 })),
      );
    assert.equal((await patch(gzip.headers['etag'] as string)).status, 200);
    const stale = await patch(gzip.headers['etag'] as string);
    assert.equal(stale.status, 412);
  });

  test('If-None-Match: * and a HEAD with the current tag are 304; a list keeps its weak tag across codings', async () => {
    const any = await raw(api, 'GET', LIST, { 'Accept-Encoding': 'gzip', 'If-None-Match': '*' });
    assert.equal(any.status, 304);
    const get = await raw(api, 'GET', LIST, { 'Accept-Encoding': 'br' });
    const head = await raw(api, 'HEAD', LIST, {
      'Accept-Encoding': 'br',
      'If-None-Match': get.headers['etag'] as string,
    });
    assert.equal(head.status, 304);
    const listTag = get.headers['etag'] as string;
    assert.match(listTag, /^W\//);
    const otherCoding = await raw(api, 'GET', LIST, { 'Accept-Encoding': 'gzip', 'If-None-Match': listTag });
    assert.equal(otherCoding.status, 304, 'a weak tag is shared by the codings of one page');
  });

  test("a 201 carries Vary and its coding's tag; a 412's tag is the record's own; a DELETE needs no coding", async () => {
    const description = 'A long description. '.repeat(60);
    const created = await raw(
      api,
      'POST',
      '/v1/products',
      { 'Content-Type': 'application/json', 'Accept-Encoding': 'gzip' },
      Buffer.from(JSON.stringify({ name: 'Long kettle', category: 'tea', price: 30, description })),
    );
    assert.equal(created.status, 201);
    assert.equal(created.headers['content-encoding'], 'gzip');
    assert.equal(created.headers['vary'], 'Accept-Encoding');
    assert.match(created.headers['etag'] as string, /-gzip"$/);
    const record = JSON.parse(zlib.gunzipSync(created.bytes).toString());
    assert.equal(record.description, description);
    const refused = await raw(
      api,
      'PATCH',
      `/v1/products/${record.id}`,
      { 'Content-Type': 'application/merge-patch+json', 'If-Match': '"stale"', 'Accept-Encoding': 'gzip' },
      Buffer.from(JSON.stringify({ price: 31 })),
    );
    assert.equal(refused.status, 412);
    assert.equal(refused.headers['etag'], uncodedEntityTag(created.headers['etag'] as string));
    const deleted = await raw(api, 'DELETE', `/v1/products/${record.id}`, { 'Accept-Encoding': 'identity;q=0' });
    assert.equal(deleted.status, 204);
  });

  test('an event stream is never compressed', async () => {
    const answer = await new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
      const outgoing = request(`${api.url}/v1/events`, {
        headers: {
          Authorization: `Bearer ${api.token ?? ''}`,
          Accept: 'text/event-stream',
          'Accept-Encoding': 'gzip, br',
        },
        agent: false,
      });
      outgoing.once('error', reject);
      outgoing.once('response', (response) => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers });
        response.destroy();
      });
      outgoing.end();
    });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers['content-type']), /^text\/event-stream/);
    assert.equal(answer.headers['content-encoding'], undefined);
  });
});

describe('gzipped request bodies', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ seed: true, maxBodyBytes: 64 * 1024 });
  });
  after(() => api.close());

  const product = { name: 'Gzipped grinder', price: 12.5, category: 'equipment' };
  const post = (body: Buffer, encoding: string): Promise<RawAnswer> =>
    raw(api, 'POST', '/v1/products', { 'Content-Type': 'application/json', 'Content-Encoding': encoding }, body);

  test('Content-Encoding: gzip is undone; identity is the body as it is', async () => {
    const created = await post(zlib.gzipSync(JSON.stringify(product)), 'gzip');
    assert.equal(created.status, 201, created.bytes.toString());
    assert.equal(JSON.parse(created.bytes.toString()).name, 'Gzipped grinder');
    const plain = await post(Buffer.from(JSON.stringify({ ...product, name: 'Plain grinder' })), 'identity');
    assert.equal(plain.status, 201);
  });

  test('x-gzip is gzip; the limit counts the bytes once ungzipped: at it, read; one past it, 413', async () => {
    const named = await post(zlib.gzipSync(JSON.stringify({ ...product, name: 'X-gzipped grinder' })), 'x-gzip');
    assert.equal(named.status, 201);
    const atLimit = (extra: number): Buffer => {
      const text = JSON.stringify({ ...product, description: '' });
      const padding = 64 * 1024 - Buffer.byteLength(text) + extra;
      return zlib.gzipSync(text.slice(0, -1) + ' '.repeat(padding) + '}');
    };
    const at = await post(atLimit(0), 'gzip');
    assert.equal(at.status, 201, 'exactly the limit is read');
    const past = await post(atLimit(1), 'gzip');
    assert.equal(past.status, 413);
    const cut = zlib.gzipSync(JSON.stringify(product));
    const truncated = await post(cut.subarray(0, cut.length - 6), 'gzip');
    assert.equal(truncated.status, 400);
    assert.equal(JSON.parse(truncated.bytes.toString()).code, 'malformed_request');
  });

  test('another coding is 415 naming gzip; bytes that are not gzip are 400', async () => {
    for (const encoding of ['br', 'deflate', 'gzip, gzip', 'zstd']) {
      const refused = await post(Buffer.from(JSON.stringify(product)), encoding);
      assert.equal(refused.status, 415, encoding);
      assert.equal(refused.headers['accept-encoding'], 'gzip');
      assert.equal(JSON.parse(refused.bytes.toString()).code, 'unsupported_media_type');
    }
    const notGzip = await post(Buffer.from(JSON.stringify(product)), 'gzip');
    assert.equal(notGzip.status, 400);
    assert.equal(JSON.parse(notGzip.bytes.toString()).code, 'malformed_request');
  });

  test('a bomb of zeros is a 413 on the bytes it would hold, and nothing is created', async () => {
    const before = (await api.get('/v1/products?limit=1')).body.meta.total;
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024));
    assert.ok(bomb.length < 64 * 1024, 'small as it is sent');
    const answer = await post(bomb, 'gzip');
    assert.equal(answer.status, 413);
    assert.equal(JSON.parse(answer.bytes.toString()).code, 'payload_too_large');
    assert.equal((await api.get('/v1/products?limit=1')).body.meta.total, before);
    assert.equal((await api.get('/healthz')).status, 200);
  });
});
