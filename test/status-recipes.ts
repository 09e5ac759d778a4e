// How to make each operation answer each status (used by status-coverage.test.ts).
// Each operation gets fresh seeded servers, so operations never disturb each other.
// Seed data: alice is user 1 (orders 1 shipped, 2 paid, 3 pending), bob is user 2
// (orders 4 pending, 5 cancelled), the administrator is user 3, products 1–12.

import { connect as connectSocket } from 'node:net';
import { feedWords } from '../src/events/event-query.ts';
import { routeTable } from '../src/routing/route-table.ts';
import type { RouteSpec } from '../src/routing/route-table.ts';
import type { Language } from '../src/resources/vocabulary.ts';
import type { ServerOptions } from '../src/index.ts';
import { EXAMPLE, translate } from './example-definitions.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import { startTestServer, startTestServerWithoutLogin, tokenFor } from './helpers.ts';

export type Json = Record<string, any>;

export interface Operation {
  readonly method: string;
  readonly template: string;
  readonly route: RouteSpec;
  readonly statuses: number[];
}

const ALICE = 1;
const BOB = 2;

export function operationsOf(doc: Json): Operation[] {
  const routes = new Map(routeTable(EXAMPLE).map((route) => [route.pattern.replace(/:([a-z_]+)/g, '{$1}'), route]));
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc['paths'] as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (method === 'parameters') continue;
      const statuses = Object.keys(operation.responses)
        .filter((key) => key !== 'default')
        .map(Number);
      operations.push({ method, template, route: routes.get(template) as RouteSpec, statuses });
    }
  }
  return operations;
}

/** Translates the keys of a body (nested objects and arrays too) into `language`. */
function inLanguage(value: unknown, language: Language): unknown {
  if (Array.isArray(value)) return value.map((element) => inLanguage(element, language));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [translate(key, language), inLanguage(member, language)]),
  );
}

/** A body the operation accepts, in English names. */
function validBody(route: RouteSpec, method: string): unknown {
  if (method === 'get' || method === 'head' || method === 'delete' || method === 'options') return undefined;
  if (route.kind === 'tokens') return { email: 'alice@example.com', password: 'wonderland-42' };
  if (route.kind === 'batches') return batchOf({ method: 'POST', path: '/v1/products', body: PRODUCT });
  if (route.kind !== 'collection' && route.kind !== 'item') return undefined;
  const unique = `someone-${Math.random().toString(36).slice(2, 8)}@example.com`;
  switch (route.definition.collection) {
    case 'users':
      return method === 'patch' ? { name: 'Renamed' } : { name: 'Someone', email: unique };
    case 'products':
      return method === 'patch' ? { price: 3 } : { name: 'Thing', category: 'misc', price: 2 };
    case 'orders':
      return method === 'patch' ? { status: 'cancelled' } : { items: [{ product_id: 2, quantity: 1 }] };
    case 'keys':
      return { name: 'export' };
    case 'webhooks': // RFC 5737's documentation address: public, and reaching nothing; disabled, nothing is sent
      return method === 'patch' ? { enabled: false } : { url: 'https://203.0.113.10/hook', enabled: false };
    case 'deliveries': // a test event
      return {};
  }
}

const PRODUCT = { name: 'Thing', category: 'misc', price: 2 };

/** A batch of one operation (README: Methods, batches). */
function batchOf(operation: Record<string, unknown>): unknown {
  return { operations: [operation] };
}

/** A batch whose one operation is refused with `status` (404, 409, 412): a batch answers with its operation's. */
function refusedBatch(status: number): unknown {
  if (status === 404) return batchOf({ method: 'PATCH', path: '/v1/products/999999', body: { price: 3 } });
  if (status === 409)
    return batchOf({ method: 'POST', path: '/v1/users', body: { name: 'Clash', email: 'bob@example.com' } });
  return batchOf({ method: 'PATCH', path: '/v1/products/1', body: { price: 3 }, headers: { 'If-Match': '"stale"' } });
}

/** A body that conflicts (409): another user's email, or an illegal order transition. */
function conflictingBody(route: RouteSpec, method: string): unknown {
  if (route.kind !== 'collection' && route.kind !== 'item') return undefined;
  if (route.definition.collection === 'users')
    return method === 'patch' ? { email: 'BOB@example.com' } : { name: 'Clash', email: 'bob@example.com' };
  return method === 'patch'
    ? { status: 'pending' }
    : {
        items: [
          { product_id: 1, quantity: 2 },
          { product_id: 10, quantity: 1 },
        ],
        status: 'pending',
      };
}

/** The concrete path: alice's records, or (for 404) ids that do not exist. */
function pathFor(template: string, missing: boolean, owner = ALICE): string {
  let index = 0;
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    index++;
    if (missing && index === (template.match(/\{/g) ?? []).length) return '999';
    if (name === 'user_id') return String(owner);
    return '1';
  });
}

/**
 * Statuses that need a server of their own (a tiny rate limit, a tiny body limit, room
 * for only 4 KiB of bodies in flight, and a shutdown for /readyz). These servers start
 * without the helper's login, so the address's only request this minute is still there
 * for the recipe of 429 to spend.
 */
const OWN_SERVER: Readonly<Record<number, ServerOptions>> = {
  429: { rateLimit: 1 },
  413: { maxBodyBytes: 200 },
  503: { maxBodyBytesInFlight: 4096 },
};

/**
 * Makes the operation answer each of its statuses; returns what it answered, in order.
 * Refusals run first on one seeded server and the successes last (a DELETE must not
 * come before the reads); the statuses in OWN_SERVER get a fresh server each.
 */
export async function produceAll(operation: Operation): Promise<{ expected: number; response: TestResponse }[]> {
  const shared = operation.statuses
    .filter((status) => OWN_SERVER[status] === undefined)
    .sort((a, b) => Number(a < 400) - Number(b < 400) || a - b);
  const results: { expected: number; response: TestResponse }[] = [];
  const api = await startTestServer({ seed: true });
  try {
    for (const status of shared) results.push({ expected: status, response: await produce(api, operation, status) });
  } finally {
    await api.close();
  }
  for (const status of operation.statuses.filter((candidate) => OWN_SERVER[candidate] !== undefined)) {
    const own = await startTestServerWithoutLogin({ seed: true, ...OWN_SERVER[status] });
    try {
      results.push({ expected: status, response: await produce(own, operation, status) });
    } finally {
      await own.close();
    }
  }
  return results;
}

/** A request fetch cannot send: two Host headers (RFC 9112 §3.2), which every method, OPTIONS too, answers with 400. */
async function twoHosts(api: TestServer, method: string, path: string): Promise<TestResponse> {
  const { hostname, port } = new URL(api.url);
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connectSocket(Number(port), hostname, () =>
      socket.end(`${method} ${path} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`),
    );
    let text = '';
    socket
      .setEncoding('utf8')
      .on('data', (chunk: string) => (text += chunk))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
  const [head = '', text = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Headers(
    lines.map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: text === '' ? undefined : JSON.parse(text), text };
}

async function produce(api: TestServer, operation: Operation, status: number): Promise<TestResponse> {
  const { method, template, route } = operation;
  if (method === 'options' && status === 400) return twoHosts(api, 'OPTIONS', pathFor(template, false));
  const language: Language =
    route.kind === 'collection' || route.kind === 'item' || route.kind === 'events' ? route.language : 'en';
  if (status === 503) api.server.app.beginShutdown();
  const upper = method.toUpperCase();
  const headers: Record<string, string> = {};
  let path = pathFor(template, status === 404);
  let body = validBody(route, method);
  let caller = api;
  // Orders: PUT and PATCH succeed on alice's pending order 3; 409 on her shipped order 1.
  if (route.kind === 'item' && route.definition.collection === 'orders')
    path = path.replace(/\/1$/, status === 409 ? '/1' : '/3');
  // The seed has no keys: alice's key 1 is made first.
  if (
    route.kind === 'item' &&
    route.definition.collection === 'keys' &&
    (await api.get('/v1/users/1/keys/1')).status === 404
  )
    await api.post('/v1/users/1/keys', { name: 'export' });
  // Nor webhooks: webhook 1 (disabled), and its delivery 1 (a test event), are made first.
  if (template.startsWith('/v1/webhooks/') && (await api.get('/v1/webhooks/1')).status === 404)
    await api.post('/v1/webhooks', { url: 'https://203.0.113.10/hook', enabled: false });
  if (template.includes('{delivery_id}') && (await api.get('/v1/webhooks/1/deliveries/1')).status === 404)
    await api.post('/v1/webhooks/1/deliveries', {});
  switch (status) {
    case 304:
      headers['if-none-match'] = '*';
      break;
    case 400:
      path += '?bogus=1';
      break;
    case 401:
      caller = api.as(undefined);
      break;
    case 403:
      if (template.includes('{user_id}')) path = pathFor(template, false, BOB).replace(/\/1$/, '/4');
      caller = api.as(tokenFor(ALICE));
      break;
    case 406: // neither JSON nor HTML (the home page at / and /v1 answers text/html)
      headers['accept'] = 'text/plain';
      break;
    case 409:
      body = conflictingBody(route, method);
      break;
    case 412:
      headers['if-match'] = '"stale"';
      break;
    case 413:
      body = { padding: 'x'.repeat(500) };
      break;
    case 410: // the change feed: a position beyond its newest event is not in its history
      path += `?${feedWords(language).after}=999999999`;
      break;
    case 503: // /readyz: the shutdown above; the change feed: a stream asked for then; a write: a body bigger than the 4 KiB of room its server has for bodies
      if (route.kind === 'events') headers['accept'] = 'text/event-stream';
      else if (upper !== 'GET' && upper !== 'HEAD') body = { padding: 'x'.repeat(8000) };
      break;
    case 415:
      headers['content-type'] = 'text/plain';
      body = 'plain text';
      break;
    case 422:
      body = method === 'patch' || template.endsWith('/deliveries') ? { bogus: true } : {};
      break;
    case 429:
      await caller.get('/v1/products'); // the administrator's only request this minute
      await api.as(undefined).get('/healthz'); // the address's, which the open paths and the token endpoint count against
      break;
  }
  if (route.kind === 'tokens' && status === 401) body = { email: 'alice@example.com', password: 'not-her-password' };
  if (route.kind === 'batches' && (status === 404 || status === 409 || status === 412)) {
    delete headers['if-match'];
    body = refusedBatch(status);
  }
  return await caller.request(upper, path, {
    headers,
    body: body === undefined ? undefined : inLanguage(body, language),
  });
}
