// Authorization fuzzing (hardening issue, item 2), after the OWASP API Security Top 10
// (2023): API1 Broken Object Level Authorization (BOLA: another user's ids in the path),
// API3 Broken Object Property Level Authorization (mass assignment: server-owned and
// restricted fields in bodies) and API5 Broken Function Level Authorization (BFLA:
// admin-only functions called by an ordinary user).
//
// test/permissions.test.ts checks each cell of the permission table once. This file
// attacks it: every route of routeTable() in both vocabularies, every method, every
// ordinary user with every OTHER user's ids (and nonexistent ones, and mixtures such as
// /v1/users/<mine>/orders/<theirs>), then a seeded random sequence (AUTHZ_SEED,
// AUTHZ_REQUESTS: 1000 requests, 3000 in the long run) with the same oracle:
//   - the status is exactly what a hand-written model of README "Authentication and
//     permissions" says: 403 `forbidden` for another user's path whether or not the
//     record exists (existence is not leaked), 404 `record_not_found` for an order that
//     is not under the caller's own user or does not exist — never 2xx, never 500;
//   - an error body is exactly a problem document (assertProblem) and holds none of the
//     victim's data (email, name, order totals, order ids the caller did not send);
//   - afterwards every record reads byte for byte as before (GET as admin, ETag and body).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RouteSpec } from '../src/routing/route-table.ts';
import { methodsOf as allowOf } from '../src/server/routes.ts';
import { routeTable } from '../src/routing/route-table.ts';
import type { Language } from '../src/resources/vocabulary.ts';
import { assertProblem } from './assertions.ts';
import { EXAMPLE, translate } from './example-definitions.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import { createProduct, createUser, mulberry32, startTestServer, tokenFor } from './helpers.ts';
import { scaled } from './long-run.ts';

// ---------------------------------------------------------------------------------------
// The world under attack: an admin, two products and three ordinary users, each with a
// pending, a paid and a shipped order. Names, emails and totals are distinctive, so
// finding one of them in an answer is a leak and not a coincidence.

const ADMIN_ID = 1;
const NO_USER = 987_654;
const NO_ORDER = 987_655;
const LARGEST_ID = Number.MAX_SAFE_INTEGER;
/** Prices chosen so that no order total equals a price (quantities are at least 2). */
const KETTLE_PRICE = 1234.57;
const FILTER_PRICE = 77.31;

interface OrderFacts {
  readonly id: number;
  readonly total: number;
  readonly status: 'pending' | 'paid' | 'shipped';
}

interface Person {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly client: TestServer;
  readonly orders: readonly OrderFacts[];
}

interface World {
  readonly admin: TestServer;
  readonly people: readonly Person[];
  readonly productIds: readonly number[];
}

async function buildWorld(admin: TestServer, peopleCount = 3): Promise<World> {
  const kettle = await createProduct(admin, { name: 'Fuzz kettle', category: 'fuzz', price: KETTLE_PRICE });
  const filter = await createProduct(admin, { name: 'Fuzz filter', category: 'fuzz', price: FILTER_PRICE });
  const people: Person[] = [];
  for (let i = 0; i < peopleCount; i++) {
    const unique = Math.random().toString(36).slice(2, 10);
    const name = `Person ${i} ${unique}`;
    const email = `person-${i}-${unique}@example.com`;
    const id = await createUser(admin, { name, email });
    const orders: OrderFacts[] = [];
    const statuses = ['pending', 'paid', 'shipped'] as const;
    for (const [k, status] of statuses.entries()) {
      const items = [
        { product_id: kettle.id, quantity: 2 + i * 3 + k },
        { product_id: filter.id, quantity: 1 },
      ];
      const created = await admin.post(`/v1/users/${id}/orders`, { items });
      assert.equal(created.status, 201, created.text);
      const path = `/v1/users/${id}/orders/${created.body.id}`;
      if (status !== 'pending') assert.equal((await admin.patch(path, { status: 'paid' })).status, 200);
      if (status === 'shipped') assert.equal((await admin.patch(path, { status: 'shipped' })).status, 200);
      orders.push({ id: Number(created.body.id), total: Number(created.body.total), status });
    }
    people.push({ id, name, email, client: admin.as(tokenFor(id)), orders });
  }
  return { admin, people, productIds: [Number(kettle.id), Number(filter.id)] };
}

/** What an answer to `person` may contain but an answer to anyone else must not. */
function markersOf(person: Person): string[] {
  return [person.email, person.name, ...person.orders.map((order) => String(order.total))];
}

// ---------------------------------------------------------------------------------------
// Routes, methods and paths

type Audience = 'owned' | 'admin collection' | 'catalogue' | 'open' | 'tokens' | 'feed' | 'batch';

/** Who a route belongs to. Every kind is named, so a new route must be classified here. */
function audienceOf(route: RouteSpec): Audience {
  switch (route.kind) {
    case 'home':
    case 'health':
    case 'readiness':
    case 'index':
    case 'openapi':
      return 'open';
    case 'tokens':
      return 'tokens';
    case 'events':
      return 'feed';
    case 'batches':
      return 'batch'; // each operation is checked as its own path (below: the refusals sent in batches)
    case 'singleton':
      throw new Error(`classify the new route ${route.pattern} in authorization-fuzz.test.ts`);
    case 'collection':
    case 'item':
      if (route.pattern.includes(':user_id')) return 'owned';
      // The users' list and create; the webhooks and their deliveries, every operation (docs/webhooks.md).
      if (['users', 'webhooks', 'deliveries'].includes(route.definition.collection)) return 'admin collection';
      if (route.definition.collection === 'products') return 'catalogue';
      throw new Error(`classify the new route ${route.pattern} in authorization-fuzz.test.ts`);
  }
}

function methodsOf(route: RouteSpec): string[] {
  return allowOf(route).split(', ');
}

function languageOf(route: RouteSpec): Language {
  return route.kind === 'collection' || route.kind === 'item' ? route.language : 'en';
}

function collectionOf(route: RouteSpec): string | undefined {
  return route.kind === 'collection' || route.kind === 'item' ? route.definition.collection : undefined;
}

/** The path parameters of a pattern, in order: `user_id`, `order_id`, `product_id`. */
function parametersOf(route: RouteSpec): string[] {
  return [...route.pattern.matchAll(/:([a-z_]+)/g)].map((match) => match[1] as string);
}

type Ids = Readonly<Record<string, number>>;

function pathFor(route: RouteSpec, ids: Ids): string {
  return route.pattern.replace(/:([a-z_]+)/g, (_, name: string) => String(ids[name]));
}

/** Every assignment of `poolOf(parameter)` values to the route's parameters. */
function idCombinations(route: RouteSpec, poolOf: (parameter: string) => readonly number[]): Ids[] {
  let combinations: Record<string, number>[] = [{}];
  for (const name of parametersOf(route)) {
    combinations = combinations.flatMap((partial) => poolOf(name).map((id) => ({ ...partial, [name]: id })));
  }
  return combinations;
}

/** Renames the keys of a body into the route's vocabulary (values are not translated). */
function inVocabulary(value: unknown, language: Language): unknown {
  if (Array.isArray(value)) return value.map((element) => inVocabulary(element, language));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [translate(key, language), inVocabulary(inner, language)]),
  );
}

/** A body that would succeed if permission let it through, so a broken check shows as a 2xx, not a 422. */
function validBody(
  route: RouteSpec,
  method: string,
  productId: number,
  victimEmail = 'nobody@example.com',
): string | undefined {
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return undefined;
  const unique = Math.random().toString(36).slice(2, 10);
  const collection = collectionOf(route);
  let body: unknown;
  if (route.kind === 'tokens') body = { email: victimEmail, password: 'wrong-password' };
  else if (collection === 'users')
    body = { name: 'Taken over', ...(method === 'PATCH' ? {} : { email: `taken-${unique}@example.com` }) };
  else if (collection === 'orders')
    body = method === 'PATCH' ? { status: 'cancelled' } : { items: [{ product_id: productId, quantity: 1 }] };
  else body = method === 'PATCH' ? { price: 0.01 } : { name: 'Taken over', category: 'fuzz', price: 0.01 };
  return JSON.stringify(inVocabulary(body, languageOf(route)));
}

// ---------------------------------------------------------------------------------------
// The oracle: a hand-written model of README "Authentication and permissions"

interface Caller {
  readonly id: number;
  readonly admin: boolean;
  readonly client: TestServer;
}

interface Expectation {
  readonly status: number;
  /** The problem `code` for 4xx; absent for 2xx. */
  readonly code?: string;
}

const FORBIDDEN: Expectation = { status: 403, code: 'forbidden' };
const NOT_FOUND: Expectation = { status: 404, code: 'record_not_found' };
const OPTIONS_OK: Expectation = { status: 204 };

function ownerOfOrder(world: World, orderId: number | undefined): number | undefined {
  return world.people.find((person) => person.orders.some((order) => order.id === orderId))?.id;
}

function userExists(world: World, id: number | undefined): boolean {
  return id === ADMIN_ID || world.people.some((person) => person.id === id);
}

/**
 * What the API must answer `caller` for `method` on `route` with `ids`, or undefined
 * when the request is legitimate (the caller's own records, or an admin's on existing
 * ones) and may change state — such requests are not part of this attack.
 */
function expectation(
  world: World,
  caller: Caller,
  route: RouteSpec,
  method: string,
  ids: Ids,
): Expectation | undefined {
  if (method === 'OPTIONS') return OPTIONS_OK; // answered for every path, without a token (README: Paths)
  const collection = collectionOf(route);
  const userId = ids['user_id'];
  const isOrderItem = route.kind === 'item' && collection === 'orders';
  switch (audienceOf(route)) {
    case 'owned':
      if (!caller.admin) {
        if (userId !== caller.id) return FORBIDDEN; // another user's path: 403 whether or not it exists
        if (collection === 'orders' && method === 'DELETE') return FORBIDDEN; // deleting orders is admin-only
        if (isOrderItem && ownerOfOrder(world, ids['order_id']) !== caller.id) return NOT_FOUND; // found only under its own user
        return undefined;
      }
      if (!userExists(world, userId)) return NOT_FOUND;
      if (isOrderItem && ownerOfOrder(world, ids['order_id']) !== userId) return NOT_FOUND;
      return undefined;
    case 'admin collection':
      return caller.admin ? undefined : FORBIDDEN;
    case 'catalogue': {
      const reading = method === 'GET' || method === 'HEAD';
      if (caller.admin && !reading) return undefined;
      if (!reading) return FORBIDDEN; // writing products is admin-only, checked before the product is looked up
      if (route.kind === 'collection') return { status: 200 };
      return world.productIds.includes(ids['product_id'] ?? 0) ? { status: 200 } : NOT_FOUND;
    }
    case 'open':
      return { status: 200 };
    case 'tokens':
      return { status: 401, code: 'invalid_credentials' };
    case 'feed':
      return { status: 200 }; // everyone may follow it; each sees only what they may read (checked by the markers)
    case 'batch':
      return undefined; // its operations are: the refusals sent in batches
  }
}

/** The people whose data `caller` must never see. */
function victimsOf(world: World, caller: Caller): readonly Person[] {
  return caller.admin ? [] : world.people.filter((person) => person.id !== caller.id);
}

interface Attempt {
  readonly caller: Caller;
  readonly route: RouteSpec;
  readonly method: string;
  readonly ids: Ids;
  readonly expected: Expectation;
  readonly body?: string | undefined;
  readonly headers?: Record<string, string>;
  readonly query?: string;
}

function describeAttempt(attempt: Attempt): string {
  const who = attempt.caller.admin ? 'admin' : `user ${attempt.caller.id}`;
  return `${attempt.method} ${pathFor(attempt.route, attempt.ids)}${attempt.query ?? ''} as ${who} (body ${attempt.body ?? 'none'})`;
}

async function send(attempt: Attempt): Promise<TestResponse> {
  const path = pathFor(attempt.route, attempt.ids) + (attempt.query ?? '');
  const headers: Record<string, string> = { ...attempt.headers };
  const body = attempt.body;
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['content-type'] = attempt.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  }
  const client = attempt.route.kind === 'tokens' ? attempt.caller.client.as(undefined) : attempt.caller.client;
  return client.request(attempt.method, path, { body, headers });
}

/** Sends the attempt and checks the answer against the oracle. */
async function attack(world: World, attempt: Attempt): Promise<void> {
  const response = await send(attempt);
  const where = describeAttempt(attempt);
  const { status, code } = attempt.expected;
  assert.equal(response.status, status, `${where}: expected ${status}, got ${response.status} ${response.text}`);
  if (attempt.method === 'HEAD' || status === 204) {
    assert.equal(response.text, '', `${where}: no body`);
  } else if (code !== undefined) {
    assertProblem(response, status, code, pathFor(attempt.route, attempt.ids));
  }
  if (status === 204 && attempt.method === 'OPTIONS') {
    assert.equal(response.headers.get('allow'), methodsOf(attempt.route).join(', '), `${where}: Allow`);
  }
  assertNoLeak(response, world, attempt, where);
}

/** None of the victims' data; order ids only where the caller wrote them into the path. */
function assertNoLeak(response: TestResponse, world: World, attempt: Attempt, where: string): void {
  const sent = new Set(Object.values(attempt.ids));
  for (const victim of victimsOf(world, attempt.caller)) {
    for (const marker of markersOf(victim)) {
      assert.ok(
        !response.text.includes(marker),
        `${where}: the answer holds ${victim.name}'s "${marker}": ${response.text}`,
      );
    }
    if (attempt.expected.code === undefined) continue;
    const detail = String(response.body?.detail ?? '');
    for (const order of victim.orders) {
      if (sent.has(order.id)) continue;
      assert.ok(
        !new RegExp(`\\b${order.id}\\b`).test(detail),
        `${where}: the detail names order ${order.id}: ${detail}`,
      );
    }
  }
}

function countByStatus(attempts: readonly Attempt[]): string {
  const counts = new Map<number, number>();
  for (const { expected } of attempts) counts.set(expected.status, (counts.get(expected.status) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(', ');
}

/** Runs attempts a few at a time (they change nothing, so their order does not matter). */
async function attackAll(world: World, attempts: readonly Attempt[], concurrency = 8): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < attempts.length) await attack(world, attempts[next++] as Attempt);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

// ---------------------------------------------------------------------------------------
// Byte-identical records: everything an admin can read, with its ETag

async function snapshotWorld(world: World): Promise<Map<string, string>> {
  const paths = ['/v1/users?limit=100', '/v1/usuarios?limite=100', '/v1/products?limit=100', '/v1/produtos?limite=100'];
  for (const person of [...world.people, { id: ADMIN_ID, orders: [] as OrderFacts[] }]) {
    for (const [users, orders] of [
      ['users', 'orders'],
      ['usuarios', 'pedidos'],
    ] as const) {
      const list = `/v1/${users}/${person.id}/${orders}`;
      paths.push(`/v1/${users}/${person.id}`, list, `${list}?limit=100`);
      for (const order of person.orders) paths.push(`/v1/${users}/${person.id}/${orders}/${order.id}`);
    }
  }
  const snapshot = new Map<string, string>();
  for (const path of paths) {
    const response = await world.admin.get(path);
    assert.equal(response.status, 200, `${path}: ${response.text}`);
    snapshot.set(path, `${response.headers.get('etag')} ${response.text}`);
  }
  return snapshot;
}

function callersOf(world: World): Caller[] {
  return [
    ...world.people.map((person) => ({ id: person.id, admin: false, client: person.client })),
    { id: ADMIN_ID, admin: true, client: world.admin },
  ];
}

/** The sweep's ids for one parameter: every user's (or every order's) and a nonexistent one; any id for a product. */
function sweepPool(world: World, parameter: string): number[] {
  const userIds = [ADMIN_ID, ...world.people.map((person) => person.id)];
  const orderIds = world.people.flatMap((person) => person.orders.map((order) => order.id));
  if (parameter === 'user_id') return [...userIds, NO_USER];
  if (parameter === 'order_id') return [...orderIds, NO_ORDER];
  return idPool(world);
}

/** Every id the world knows, of any kind, and nonexistent ones: the random sequence mixes them freely. */
function idPool(world: World): number[] {
  const orderIds = world.people.flatMap((person) => person.orders.map((order) => order.id));
  return [
    ...new Set([
      ADMIN_ID,
      ...world.people.map((person) => person.id),
      ...orderIds,
      ...world.productIds,
      NO_USER,
      NO_ORDER,
    ]),
  ];
}

// ---------------------------------------------------------------------------------------

describe('API1 BOLA / API5 BFLA: every route × method × caller × foreign id', () => {
  let world: World;
  let recordsBefore: Map<string, string>;
  before(async () => {
    world = await buildWorld(await startTestServer());
    // Reading every list as admin first also fills the list-page cache, so the attacks
    // below hit cached pages of the victims' lists (permission must be checked anyway);
    // nothing writes orders until the last tests, so the pages stay cached.
    recordsBefore = await snapshotWorld(world);
  });
  after(() => world.admin.close());

  for (const route of routeTable(EXAMPLE)) {
    const methods = methodsOf(route);
    test(`${route.pattern} (${methods.join(', ')}): ${audienceOf(route)}`, async (t) => {
      const attempts: Attempt[] = [];
      for (const [index, caller] of callersOf(world).entries()) {
        for (const ids of idCombinations(route, (parameter) => sweepPool(world, parameter))) {
          for (const method of methods) {
            if (method === 'OPTIONS' && index > 0) continue; // the same for every caller
            const expected = expectation(world, caller, route, method, ids);
            if (expected === undefined) continue;
            if (caller.admin && audienceOf(route) !== 'owned') continue; // admins may read everything; nothing to attack
            const victim = victimsOf(world, caller)[0];
            const body = validBody(route, method, world.productIds[0] as number, victim?.email);
            attempts.push({ caller, route, method, ids, expected, body });
          }
        }
      }
      assert.ok(attempts.length > 0, 'something to try');
      await attackAll(world, attempts);
      t.diagnostic(`${attempts.length} requests, by expected status: ${countByStatus(attempts)}`);
    });
  }

  test('another user and a nonexistent user get the same refusal, so existence is not leaked', async () => {
    const [alice, bob] = world.people as [Person, Person];
    for (const path of [`/v1/users/{u}`, `/v1/users/{u}/orders`, `/v1/usuarios/{u}/pedidos/${bob.orders[0]?.id}`]) {
      const existing = await alice.client.get(path.replace('{u}', String(bob.id)));
      const missing = await alice.client.get(path.replace('{u}', String(NO_USER)));
      assertProblem(existing, 403, 'forbidden', path.replace('{u}', String(bob.id)));
      assertProblem(missing, 403, 'forbidden', path.replace('{u}', String(NO_USER)));
      assert.equal(existing.body.detail, missing.body.detail);
    }
  });

  test("conditional requests cannot probe another user's records (403, never 304 or 412)", async () => {
    const [alice, bob] = world.people as [Person, Person];
    const order = `/v1/users/${bob.id}/orders/${bob.orders[0]?.id}`;
    const list = `/v1/users/${bob.id}/orders?limit=100`;
    for (const path of [order, list, `/v1/users/${bob.id}`]) {
      const etag = (await world.admin.get(path)).headers.get('etag') ?? '';
      for (const value of [etag, '*']) {
        assertProblem(
          await alice.client.get(path, { 'if-none-match': value }),
          403,
          'forbidden',
          path.split('?')[0] as string,
        );
      }
    }
    for (const value of [(await world.admin.get(order)).headers.get('etag') ?? '', '"stale"']) {
      const patched = await alice.client.patch(order, { status: 'cancelled' }, { 'if-match': value });
      assertProblem(patched, 403, 'forbidden', order);
      assertProblem(await alice.client.delete(order, { 'if-match': value }), 403, 'forbidden', order);
    }
  });

  test('an own list holds only own records, whatever the filter, sort and vocabulary', async () => {
    for (const person of world.people) {
      const own = person.orders.map((order) => order.id).sort((a, b) => a - b);
      for (const path of [
        `/v1/users/${person.id}/orders?limit=100`,
        `/v1/users/${person.id}/orders?sort=-total&limit=100`,
        `/v1/usuarios/${person.id}/pedidos?ordenar=-total&limite=100`,
        `/v1/users/${person.id}/orders?status=paid`,
        `/v1/usuarios/${person.id}/pedidos?estado=shipped&pagina=1`,
      ]) {
        const response = await person.client.get(path);
        assert.equal(response.status, 200, `${path}: ${response.text}`);
        const records = response.body.data as Record<string, unknown>[];
        for (const record of records) {
          assert.equal(record['user_id'] ?? record['usuario_id'], person.id, `${path}: ${JSON.stringify(record)}`);
          assert.ok(
            own.includes(Number(record['id'])),
            `${path}: order ${String(record['id'])} is not ${person.name}'s`,
          );
        }
        for (const victim of world.people.filter((other) => other.id !== person.id)) {
          for (const marker of markersOf(victim))
            assert.ok(!response.text.includes(marker), `${path} holds "${marker}"`);
        }
      }
    }
  });

  test(`a seeded random sequence with the same oracle (AUTHZ_SEED, AUTHZ_REQUESTS)`, async (t) => {
    const seed = Number(process.env['AUTHZ_SEED'] ?? 20230605);
    const count = Number(process.env['AUTHZ_REQUESTS'] ?? scaled(1000, 3000)); // test/long-run.ts
    const attempts = randomAttempts(world, seed, count);
    assert.equal(attempts.length, count);
    try {
      await attackAll(world, attempts);
    } catch (error) {
      throw new Error(`AUTHZ_SEED=${seed} AUTHZ_REQUESTS=${count}: ${(error as Error).message}`, { cause: error });
    }
    t.diagnostic(`AUTHZ_SEED=${seed}: ${count} requests, by expected status: ${countByStatus(attempts)}`);
  });

  test('the same refusals sent as operations of a batch: the same status and code, naming operation 0', async (t) => {
    const seed = Number(process.env['AUTHZ_SEED'] ?? 20230605) + 1;
    const refusals = randomAttempts(world, seed, 1500).filter(
      (attempt) =>
        attempt.method !== 'GET' &&
        attempt.method !== 'HEAD' &&
        attempt.expected.status >= 400 &&
        (attempt.body === undefined || isJsonObjectText(attempt.body)),
    );
    assert.ok(refusals.length > 100, `only ${refusals.length} refusals drawn`);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < refusals.length) {
        const attempt = refusals[next++] as Attempt;
        const path = pathFor(attempt.route, attempt.ids);
        // An operation carries its preconditions only; the batch as a whole takes an Idempotency-Key.
        const preconditions = Object.entries(attempt.headers ?? {}).filter(([name]) => /^if-/i.test(name));
        const operation = {
          method: attempt.method,
          path,
          ...(attempt.body === undefined ? {} : { body: JSON.parse(attempt.body) as unknown }),
          ...(preconditions.length === 0 ? {} : { headers: Object.fromEntries(preconditions) }),
        };
        const response = await attempt.caller.client.post('/v1/batches', { operations: [operation] });
        const where = `a batch of ${describeAttempt(attempt)}`;
        const { status, code } = attempt.expected;
        assert.equal(response.status, status, `${where}: expected ${status}, got ${response.status} ${response.text}`);
        assert.equal(response.body?.operation, 0, `${where}: ${response.text}`);
        if (code !== undefined) assert.equal(response.body?.code, code, `${where}: ${response.text}`);
        assertNoLeak(response, world, attempt, where);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    t.diagnostic(`AUTHZ_SEED=${seed}: ${refusals.length} refused writes sent in batches`);
  });

  test("an Idempotency-Key never replays another user's answer", async () => {
    const [alice, bob] = world.people as [Person, Person];
    const key = `shared-key-${Math.random().toString(36).slice(2)}`;
    const body = { items: [{ product_id: world.productIds[1], quantity: 3 }] };
    const path = `/v1/users/${alice.id}/orders`;
    const first = await alice.client.post(path, body, { 'idempotency-key': key });
    assert.equal(first.status, 201, first.text);
    // Bob replays Alice's key on Alice's path: refused before the key is even looked at.
    assertProblem(await bob.client.post(path, body, { 'idempotency-key': key }), 403, 'forbidden', path);
    // Bob's own path with the same key and body: a new order of Bob's, not Alice's answer.
    const bobs = await bob.client.post(`/v1/users/${bob.id}/orders`, body, { 'idempotency-key': key });
    assert.equal(bobs.status, 201, bobs.text);
    assert.equal(bobs.headers.get('idempotent-replayed'), null);
    assert.equal(bobs.body.user_id, bob.id);
    assert.notEqual(bobs.body.id, first.body.id);
    // Clean up, so the byte-identical check below sees the world as it was.
    assert.equal((await world.admin.delete(`${path}/${first.body.id}`)).status, 204);
    assert.equal((await world.admin.delete(`/v1/users/${bob.id}/orders/${bobs.body.id}`)).status, 204);
  });

  test('afterwards every record reads byte for byte as before (GET as admin)', async () => {
    const recordsAfter = await snapshotWorld(world);
    for (const [path, before] of recordsBefore) assert.equal(recordsAfter.get(path), before, `${path} changed`);
  });
});

// ---------------------------------------------------------------------------------------
// The seeded sequence: callers, routes, ids, bodies and headers drawn at random; only
// requests the model says must be refused (or are harmless reads) are kept.

/** Extra headers for refused requests: conditions and keys must not turn a 403/404 into a 304, 412 or replay. */
const CONDITIONS: readonly Record<string, string>[] = [
  {},
  {},
  { 'if-none-match': '*' },
  { 'if-match': '"stale"' },
  { 'idempotency-key': 'k-1' },
];

const MASS_FIELDS = [
  'role',
  'id',
  'user_id',
  'total',
  'status',
  'created_at',
  'updated_at',
  'unit_price',
  'password_hash',
];

function randomAttempts(world: World, seed: number, count: number): Attempt[] {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const attackable: readonly Audience[] = ['owned', 'admin collection', 'catalogue'];
  const routes = routeTable(EXAMPLE).filter((route) => attackable.includes(audienceOf(route)));
  const callers = callersOf(world);
  const pool = [...idPool(world), LARGEST_ID];
  const attempts: Attempt[] = [];
  while (attempts.length < count) {
    const caller = pick(callers);
    const route = pick(routes);
    const method = pick(methodsOf(route).filter((name) => name !== 'OPTIONS')); // OPTIONS is the same for everyone: swept above
    const ids: Record<string, number> = {};
    for (const name of parametersOf(route)) ids[name] = pick(pool);
    const expected = expectation(world, caller, route, method, ids);
    if (expected === undefined) continue;
    if (caller.admin && audienceOf(route) !== 'owned') continue;
    const harmlessRead = expected.status === 200;
    attempts.push({
      caller,
      route,
      method,
      ids,
      expected,
      body: randomBody(route, method, languageOf(route), world, pick),
      // Conditional headers only where the answer is a refusal: on a readable product they would rightly give 304.
      headers: harmlessRead ? {} : pick(CONDITIONS),
      query:
        route.kind === 'collection' && method === 'GET'
          ? pick(['', '?limit=100', '?limit=5', '?sort=-id&page=2', '?pagina=1&limite=100'])
          : '',
    });
  }
  return attempts;
}

/** A body a batch operation can carry: JSON text of an object. */
function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Valid, mass-assigning, malformed, polluting or empty: permission and lookups come before the body (README: Errors). */
function randomBody(
  route: RouteSpec,
  method: string,
  language: Language,
  world: World,
  pick: <T>(items: readonly T[]) => T,
): string | undefined {
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return undefined;
  const valid = validBody(route, method, world.productIds[0] as number) as string;
  const field = translate(pick(MASS_FIELDS), language);
  const value = pick(['admin', 'paid', 0, 1, NO_USER, '2000-01-01T00:00:00.000Z']);
  const massAssigned = JSON.stringify({ ...(JSON.parse(valid) as Record<string, unknown>), [field]: value });
  return pick([valid, massAssigned, '{"name":', '{"__proto__":{"polluted":true}}', '[]', '']);
}

// ---------------------------------------------------------------------------------------
// API3 mass assignment: server-owned and restricted fields in POST, PUT and PATCH bodies.
// README/README: Records: a server field on POST is a 422 `server_field`; on PUT/PATCH a value
// different from the current one is a 422 and the current value is accepted and dropped;
// `role` and an order's `status` are restricted (403 for a non-admin, before validation,
// README: Errors); names a resource does not declare (`password_hash`, a user's `total`)
// are 422 `unknown_field`; an order's `unit_price` is set by the server (422 unless it
// equals the price the server would set); a new order is always `pending` (422) and an
// illegal transition is a 409. None of these refusals changes anything stored.

type Resource = 'users' | 'products' | 'orders';
type WriteMethod = 'POST' | 'PUT' | 'PATCH';

const MASS_ASSIGNED = [
  'role',
  'id',
  'user_id',
  'total',
  'status',
  'created_at',
  'updated_at',
  'unit_price',
  'password_hash',
] as const;
type MassField = (typeof MASS_ASSIGNED)[number];

/** The fields each resource declares (src/resources/*.ts), among those attacked. */
const DECLARED: Readonly<Record<Resource, readonly MassField[]>> = {
  users: ['role', 'id', 'created_at', 'updated_at'],
  products: ['id', 'created_at', 'updated_at'],
  orders: ['id', 'user_id', 'total', 'status', 'created_at', 'updated_at', 'unit_price'],
};

interface ResourcePaths {
  readonly collection: (language: Language) => string;
  readonly item: (language: Language) => string;
}

interface MassWorld {
  readonly admin: TestServer;
  readonly user: { readonly id: number; readonly client: TestServer };
  readonly other: { readonly id: number; readonly client: TestServer };
  readonly productId: number;
  /** The stored records attacked by PUT and PATCH, as the admin reads them. */
  readonly current: Readonly<Record<Resource, Record<string, unknown>>>;
  readonly paths: Readonly<Record<Resource, ResourcePaths>>;
}

interface MassExpectation extends Expectation {
  readonly errors?: readonly { readonly field: string; readonly code: string }[];
}

/** The refusal the documentation promises for `field` = a new value, or undefined when the caller may set it. */
function massExpectation(
  resource: Resource,
  method: WriteMethod,
  admin: boolean,
  field: MassField,
  language: Language,
): MassExpectation | undefined {
  if (!admin && (resource === 'products' || (resource === 'users' && method === 'POST'))) return FORBIDDEN; // BFLA, before the body
  const name = translate(field, language);
  if (resource === 'orders' && field === 'unit_price') {
    return {
      status: 422,
      code: 'validation_failed',
      errors: [{ field: `${translate('items', language)}[0].${name}`, code: 'server_field' }],
    };
  }
  if (!DECLARED[resource].includes(field))
    return { status: 422, code: 'validation_failed', errors: [{ field: name, code: 'unknown_field' }] };
  if (field === 'role') return admin ? undefined : FORBIDDEN;
  if (field === 'status') {
    if (!admin) return FORBIDDEN; // an owner may only cancel
    if (method === 'POST')
      return { status: 422, code: 'validation_failed', errors: [{ field: name, code: 'invalid_value' }] };
    return { status: 409, code: 'invalid_transition' }; // pending → shipped skips paid
  }
  return { status: 422, code: 'validation_failed', errors: [{ field: name, code: 'server_field' }] };
}

/** A value that would be a change: a privilege, another owner, a price, a past. */
function foreignValue(field: MassField, world: MassWorld): unknown {
  const values: Record<MassField, unknown> = {
    role: 'admin',
    id: 424_242,
    user_id: world.other.id,
    total: 0.01,
    status: 'shipped',
    created_at: '2000-01-01T00:00:00.000Z',
    updated_at: '2000-01-01T00:00:00.000Z',
    unit_price: 0.01,
    password_hash: 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  };
  return values[field];
}

/** A body that succeeds as it is (PUT: the current values, so it changes nothing). */
function baseBody(resource: Resource, method: WriteMethod, world: MassWorld): Record<string, unknown> {
  const current = world.current[resource];
  const unique = Math.random().toString(36).slice(2, 10);
  if (method === 'PATCH') return {};
  switch (resource) {
    case 'users':
      if (method === 'POST') return { name: 'Newcomer', email: `newcomer-${unique}@example.com` };
      return { name: current['name'], email: current['email'] };
    case 'products':
      return {
        name: current['name'],
        category: current['category'],
        price: current['price'],
        description: current['description'],
      };
    case 'orders':
      return {
        items: (current['items'] as Record<string, unknown>[]).map(({ product_id, quantity }) => ({
          product_id,
          quantity,
        })),
      };
  }
}

/** The stored value of `field` (an order's unit_price: its first item's). */
function currentValue(world: MassWorld, resource: Resource, field: MassField): unknown {
  if (field !== 'unit_price') return world.current[resource][field];
  return (world.current.orders['items'] as Record<string, unknown>[])[0]?.['unit_price'];
}

/** `body` with `field` set to `value`; an order's unit_price goes into its first item. */
function withField(
  resource: Resource,
  body: Record<string, unknown>,
  field: MassField,
  value: unknown,
  world: MassWorld,
): Record<string, unknown> {
  if (resource !== 'orders' || field !== 'unit_price') return { ...body, [field]: value };
  const items = (body['items'] ?? world.current.orders['items']) as Record<string, unknown>[];
  const [first, ...rest] = items.map(({ product_id, quantity }) => ({ product_id, quantity }));
  return { ...body, items: [{ ...first, unit_price: value }, ...rest] };
}

async function buildMassWorld(): Promise<MassWorld> {
  const admin = await startTestServer();
  const product = await createProduct(admin, { name: 'Teapot', category: 'tea', price: 12.34, description: 'round' });
  const userId = await createUser(admin, { name: 'Mallory', password: 'mallory-password-1' });
  const otherId = await createUser(admin, { name: 'Victor' });
  const order = await admin.post(`/v1/users/${userId}/orders`, { items: [{ product_id: product.id, quantity: 2 }] });
  await admin.post(`/v1/users/${otherId}/orders`, { items: [{ product_id: product.id, quantity: 5 }] });
  const paths: MassWorld['paths'] = {
    users: { collection: (l) => `/v1/${translate('users', l)}`, item: (l) => `/v1/${translate('users', l)}/${userId}` },
    products: {
      collection: (l) => `/v1/${translate('products', l)}`,
      item: (l) => `/v1/${translate('products', l)}/${product.id}`,
    },
    orders: {
      collection: (l) => `/v1/${translate('users', l)}/${userId}/${translate('orders', l)}`,
      item: (l) => `/v1/${translate('users', l)}/${userId}/${translate('orders', l)}/${order.body.id}`,
    },
  };
  const current: Record<Resource, Record<string, unknown>> = {
    users: (await admin.get(paths.users.item('en'))).body,
    products: (await admin.get(paths.products.item('en'))).body,
    orders: (await admin.get(paths.orders.item('en'))).body,
  };
  return {
    admin,
    user: { id: userId, client: admin.as(tokenFor(userId)) },
    other: { id: otherId, client: admin.as(tokenFor(otherId)) },
    productId: product.id,
    current,
    paths,
  };
}

/** Every stored record of the mass-assignment world, as the admin reads it. */
async function massSnapshot(world: MassWorld): Promise<string> {
  const paths = [
    '/v1/users?limit=100',
    '/v1/products?limit=100',
    `/v1/users/${world.user.id}/orders?limit=100`,
    `/v1/users/${world.other.id}/orders?limit=100`,
  ];
  const texts: string[] = [];
  for (const path of paths) texts.push((await world.admin.get(path)).text);
  return texts.join('\n');
}

function checkAnswer(response: TestResponse, expected: MassExpectation, path: string, where: string): void {
  if (expected.code === undefined) {
    assert.equal(response.status, expected.status, `${where}: ${response.text}`);
    return;
  }
  try {
    assertProblem(response, expected.status, expected.code, path, expected.errors);
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
  }
}

describe('API3 mass assignment: server-owned and restricted fields never change what is stored', () => {
  let world: MassWorld;
  before(async () => {
    world = await buildMassWorld();
  });
  after(() => world.admin.close());

  for (const resource of ['users', 'products', 'orders'] as const) {
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      for (const admin of [false, true]) {
        const caller = admin ? 'admin' : 'an ordinary user (on their own user and order)';
        test(`${method} ${resource} as ${caller}: each field with a new value is refused`, async () => {
          const client = admin ? world.admin : world.user.client;
          for (const language of ['en', 'pt'] as const) {
            const path =
              method === 'POST' ? world.paths[resource].collection(language) : world.paths[resource].item(language);
            for (const field of MASS_ASSIGNED) {
              const expected = massExpectation(resource, method, admin, field, language);
              if (expected === undefined) continue; // an admin may set role: see the positive control below
              const attack = withField(
                resource,
                baseBody(resource, method, world),
                field,
                foreignValue(field, world),
                world,
              );
              const body = inVocabulary(attack, language);
              const before = await massSnapshot(world);
              const response = await client.request(method, path, { body });
              checkAnswer(response, expected, path, `${method} ${path} ${JSON.stringify(body)}`);
              assert.equal(await massSnapshot(world), before, `${method} ${path} with ${field} changed what is stored`);
            }
          }
        });
      }
    }
    for (const method of ['PUT', 'PATCH'] as const) {
      test(`${method} ${resource}: each field sent back with its current value is accepted and dropped`, async () => {
        for (const admin of [false, true]) {
          const client = admin ? world.admin : world.user.client;
          for (const language of ['en', 'pt'] as const) {
            const path = world.paths[resource].item(language);
            for (const field of DECLARED[resource]) {
              const current = currentValue(world, resource, field);
              const body = inVocabulary(
                withField(resource, baseBody(resource, method, world), field, current, world),
                language,
              );
              const before = await massSnapshot(world);
              const response = await client.request(method, path, { body });
              const expected = !admin && resource === 'products' ? FORBIDDEN : { status: 200 };
              checkAnswer(
                response,
                expected,
                path,
                `${method} ${path} ${JSON.stringify(body)} as ${admin ? 'admin' : 'owner'}`,
              );
              assert.equal(
                await massSnapshot(world),
                before,
                `${method} ${path} with the current ${field} changed what is stored`,
              );
            }
          }
        }
      });
    }
  }

  test('an ordinary user can never make themself admin, whatever the spelling', async () => {
    const { user } = world;
    const before = await massSnapshot(world);
    const path = `/v1/users/${user.id}`;
    const raw = (text: string): Promise<TestResponse> => user.client.request('PATCH', path, { body: text });
    for (const response of [
      await user.client.patch(path, { role: 'admin' }),
      await user.client.patch(path, { name: 'Innocent rename', role: 'admin' }),
      await user.client.put(path, {
        name: world.current.users['name'],
        email: world.current.users['email'],
        role: 'admin',
      }),
      await raw('{"role":"user","role":"admin"}'), // duplicate keys: JSON.parse keeps the last
      await raw('{"role":"Admin"}'),
      await raw('{"role":["admin"]}'),
      await raw('{"role":{"$ne":"user"}}'),
      await raw('{"role":null}'),
    ]) {
      assertProblem(response, 403, 'forbidden', path);
    }
    const portuguese = `/v1/usuarios/${user.id}`;
    assertProblem(await user.client.patch(portuguese, { papel: 'admin' }), 403, 'forbidden', portuguese);
    const inQuery = await user.client.patch(`${path}?role=admin`, { name: 'x' });
    assertProblem(inQuery, 400, 'invalid_query', path, [{ field: 'role', code: 'unknown_parameter' }]);
    assert.equal(await massSnapshot(world), before);
    assert.equal((await world.admin.get(path)).body.role, 'user');
    assertProblem(await user.client.get('/v1/users'), 403, 'forbidden', '/v1/users'); // still no admin function
  });

  test("an order's status moves only along the allowed transitions, and only as far as the caller may take it", async () => {
    const { admin, user, other, productId } = world;
    const orders = `/v1/users/${user.id}/orders`;
    const create = async (): Promise<string> => {
      const created = await admin.post(orders, { items: [{ product_id: productId, quantity: 1 }] });
      return `${orders}/${created.body.id}`;
    };
    const setStatus = (client: TestServer, path: string, status: string): Promise<TestResponse> =>
      client.patch(path, { status });
    const pending = await create();
    const paid = await create();
    assert.equal((await setStatus(admin, paid, 'paid')).status, 200);
    const shipped = await create();
    assert.equal((await setStatus(admin, shipped, 'paid')).status, 200);
    assert.equal((await setStatus(admin, shipped, 'shipped')).status, 200);

    const cases: [TestServer, string, string, number, string][] = [
      [user.client, pending, 'paid', 403, 'forbidden'],
      [user.client, pending, 'shipped', 403, 'forbidden'],
      [user.client, paid, 'shipped', 403, 'forbidden'],
      [user.client, paid, 'pending', 403, 'forbidden'],
      [user.client, shipped, 'pending', 403, 'forbidden'],
      [user.client, shipped, 'cancelled', 409, 'invalid_transition'], // cancelling is the owner's right, but not once shipped
      [other.client, pending, 'cancelled', 403, 'forbidden'], // another user's order: not even cancelling
      [admin, pending, 'shipped', 409, 'invalid_transition'],
      [admin, shipped, 'pending', 409, 'invalid_transition'],
      [admin, shipped, 'cancelled', 409, 'invalid_transition'],
    ];
    for (const [client, path, status, expected, code] of cases) {
      const before = (await admin.get(path)).text;
      assertProblem(await setStatus(client, path, status), expected, code, path);
      assert.equal((await admin.get(path)).text, before, `${path} → ${status} changed the order`);
    }
    // What is allowed: the owner cancels a pending order; then nobody revives it.
    assert.equal((await setStatus(user.client, pending, 'cancelled')).status, 200);
    assertProblem(await setStatus(user.client, pending, 'pending'), 403, 'forbidden', pending);
    assertProblem(await setStatus(admin, pending, 'paid'), 409, 'invalid_transition', pending);
  });

  test('positive control: an admin may set role and status (restricted, not server-owned)', async () => {
    const email = `second-admin-${Date.now()}@example.com`;
    const created = await world.admin.post('/v1/users', { name: 'Second admin', email, role: 'admin' });
    assert.equal(created.status, 201, created.text);
    assert.equal((await world.admin.get(`/v1/users/${created.body.id}`)).body.role, 'admin');
    const order = world.paths.orders.item('en');
    assert.equal((await world.admin.patch(order, { status: 'paid' })).body.status, 'paid');
  });
});
