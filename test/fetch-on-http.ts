// The test client's requests as Node's fetch() sends them, on node:http. fetch (undici) cost
// the suite more CPU than the server it tested: an HTTP-heavy file such as
// authorization-fuzz.test.ts spent 12.5 s with fetch and 8 s with this. The server sees the
// same bytes: the request line, fetch's headers in fetch's order (Node 20's undici) and the
// body framing; a connection is reused for as long as undici would reuse it.
// Checked against fetch() request by request (every request `npm test` sent through
// helpers.ts, sent by both to a server recording the bytes): identical but for the port.

import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export interface FetchedAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** What fetch adds after the caller's headers, unless the caller gave one of the name. */
const FETCH_ADDS: readonly (readonly [string, string])[] = [
  ['accept', '*/*'],
  ['accept-language', '*'],
  ['sec-fetch-mode', 'cors'],
  ['user-agent', 'node'],
];
/** A conditional request bypasses caches: fetch then adds Pragma and Cache-Control (Fetch standard, HTTP-network-or-cache fetch). */
const CONDITIONS = ['if-modified-since', 'if-none-match', 'if-unmodified-since', 'if-match', 'if-range'];
/** Headers fetch refuses or replaces; a test that needs them writes to a socket itself. */
const NOT_SENT_BY_FETCH = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
]);
/** The methods fetch sends in upper case however they are written. */
const NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
/** Methods that carry no Content-Length when they carry no body. */
const LENGTHLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
/** undici keeps an idle connection this long without a Keep-Alive hint, and for a hint this much less than it says. */
const IDLE_WITHOUT_HINT_MS = 4000;
const HINT_MARGIN_MS = 2000;

const idleAllowance = new WeakMap<Socket, number>();

/** A keep-alive agent that lets an idle connection go when undici would. */
class FetchLikeAgent extends Agent {
  override keepSocketAlive(socket: Socket): boolean {
    const idle = idleAllowance.get(socket) ?? IDLE_WITHOUT_HINT_MS;
    if (idle <= 0) return false;
    super.keepSocketAlive(socket);
    socket.setTimeout(idle);
    return true;
  }

  override reuseSocket(socket: Socket, request: ClientRequest): void {
    socket.setTimeout(0); // busy again: the idle allowance no longer applies
    super.reuseSocket(socket, request);
  }
}

const AGENT = new FetchLikeAgent({ keepAlive: true });

/** Sends what `fetch(url, { method, headers, body })` would send; answers its status, headers and text. */
export function fetchOnHttp(
  url: string,
  method: string,
  given: Readonly<Record<string, string>>,
  body: string | undefined,
): Promise<FetchedAnswer> {
  const upper = method.toUpperCase();
  if (upper === 'CONNECT' || upper === 'TRACE' || upper === 'TRACK')
    throw new TypeError(`'${method}' HTTP method is unsupported.`);
  const sent = NORMALISED_METHODS.has(upper) ? upper : method;
  if (body !== undefined && (sent === 'GET' || sent === 'HEAD'))
    throw new TypeError('Request with GET/HEAD method cannot have body.');

  const values = new Headers(given); // fetch's own check of names and values, its trimming and joining of values
  const headers: string[] = ['host', new URL(url).host, 'connection', sent === 'HEAD' ? 'close' : 'keep-alive'];
  const named = new Set<string>();
  for (const name of Object.keys(given)) {
    const lower = name.toLowerCase();
    if (NOT_SENT_BY_FETCH.has(lower)) throw new TypeError(`fetch does not send a ${name} header of the caller's`);
    if (named.has(lower)) continue;
    named.add(lower);
    headers.push(name, values.get(lower) as string);
  }
  const add = (name: string, value: string): void => {
    if (!named.has(name)) headers.push(name, value);
  };
  for (const [name, value] of FETCH_ADDS) add(name, value);
  if (CONDITIONS.some((name) => named.has(name))) {
    add('pragma', 'no-cache');
    add('cache-control', 'no-cache');
  }
  add('accept-encoding', 'gzip, deflate');
  const bytes = body === undefined ? undefined : Buffer.from(body);
  if (bytes !== undefined) headers.push('content-length', String(bytes.length));
  else if (!LENGTHLESS_METHODS.has(sent)) headers.push('content-length', '0');

  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: sent, headers, agent: AGENT });
    outgoing.once('error', reject);
    outgoing.once('response', (response: IncomingMessage) => {
      const hint = /(?:^|,)\s*timeout=(\d+)/i.exec(String(response.headers['keep-alive'] ?? ''))?.[1];
      idleAllowance.set(
        response.socket,
        hint === undefined ? IDLE_WITHOUT_HINT_MS : Number(hint) * 1000 - HINT_MARGIN_MS,
      );
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        const answerHeaders = new Headers();
        for (let i = 0; i < response.rawHeaders.length; i += 2)
          answerHeaders.append(response.rawHeaders[i] as string, response.rawHeaders[i + 1] as string);
        // Decoded as fetch and Response.text() do: a gzip or deflate coding undone, then UTF-8, a byte order mark
        // dropped.
        const body = Buffer.concat(chunks);
        const decoded = body.length === 0 ? body : decode(body, response.headers['content-encoding']);
        resolve({
          status: response.statusCode ?? 0,
          headers: answerHeaders,
          text: new TextDecoder().decode(decoded),
        });
      });
    });
    outgoing.end(bytes);
  });
}

/** A body as fetch hands it over: gzip, deflate and br undone (a HEAD's or a 304's empty body left as it is). */
function decode(body: Buffer, coding: string | undefined): Buffer {
  if (coding === 'gzip') return gunzipSync(body);
  if (coding === 'deflate') return inflateSync(body);
  if (coding === 'br') return brotliDecompressSync(body);
  return body;
}
