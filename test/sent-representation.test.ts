// The representation an answer goes out as (src/http/respond.ts, negotiatedReply): a client that asks for no
// coding and sends no If-None-Match is answered with the handler's reply itself, nothing copied (a copy per answer
// cost GET item a quarter of its speed, bench/README.md); one that asks pays only for what it gets.

import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import type { Reply } from '../src/http/respond.ts';
import { negotiatedReply } from '../src/http/respond.ts';

function request(method: string, headers: Record<string, string>): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage;
}

const SMALL: Reply = { status: 200, headers: { ETag: '"abc"' }, body: '{"id":1}', bodyLength: 8 };
const LARGE: Reply = { status: 200, headers: { ETag: '"big"' }, body: `{"text":"${'x'.repeat(2000)}"}` };

test('no Accept-Encoding and no If-None-Match: the reply itself', () => {
  assert.equal(negotiatedReply(request('GET', {}), SMALL, true), SMALL);
  assert.equal(negotiatedReply(request('GET', {}), LARGE, true), LARGE);
});

test('a coding asked for but a body too small to gain from it: the reply itself', () => {
  assert.equal(negotiatedReply(request('GET', { 'accept-encoding': 'gzip, br' }), SMALL, true), SMALL);
});

test('an If-None-Match that names another tag: the reply itself', () => {
  assert.equal(negotiatedReply(request('GET', { 'if-none-match': '"other"' }), SMALL, true), SMALL);
});

test('an If-None-Match that names the tag: 304 with the tag and Vary, the reply untouched', () => {
  const sent = negotiatedReply(request('GET', { 'if-none-match': '"abc"' }), SMALL, true);
  assert.deepEqual(sent, { status: 304, headers: { ETag: '"abc"', Vary: 'Accept-Encoding' } });
  assert.deepEqual(SMALL.headers, { ETag: '"abc"' });
});

test('a large body asked for with gzip: compressed, its own tag, the reply untouched', () => {
  const sent = negotiatedReply(request('GET', { 'accept-encoding': 'gzip' }), LARGE, true);
  assert.equal(sent.headers?.['Content-Encoding'], 'gzip');
  assert.equal(sent.headers?.['ETag'], '"big-gzip"');
  assert.ok(Buffer.isBuffer(sent.body));
  assert.equal(sent.bodyLength, (sent.body as Buffer).length);
  assert.deepEqual(LARGE.headers, { ETag: '"big"' });
});
