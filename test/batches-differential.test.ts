// Batches against their single requests (README: Methods, batches; docs/batches.md): a seeded sequence of writes is
// sent one request at a time to one server and as a single batch, `$n.id` naming what earlier operations made, to a
// second server started alike. The two must end with the same records and the same change feed: a batch is its
// operations, in order, and nothing else.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { mulberry32 } from './random.ts';

type Json = Record<string, unknown>;

interface Operation {
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** With `$n` for the id operation n made. */
  readonly path: string;
  readonly body?: Json;
}

const CATEGORIES = ['tea', 'kitchen', 'books'];

/**
 * Up to 100 writes that all succeed, in the order a client would send them: products made, then changed, replaced,
 * ordered by user 1, and the ones no order names deleted. `$n` in a path or a whole value is operation n's new id.
 */
function operationsFor(seed: number): Operation[] {
  const random = mulberry32(seed);
  const below = (n: number): number => Math.floor(random() * n);
  const operations: Operation[] = [];
  const made: number[] = [];
  const ordered = new Set<number>();
  const deleted = new Set<number>();
  while (operations.length < 100) {
    const roll = random();
    const alive = made.filter((index) => !deleted.has(index));
    const product = (): Json => ({
      name: `Product ${operations.length}`,
      category: CATEGORIES[below(CATEGORIES.length)] as string,
      price: (100 + below(5000)) / 100,
    });
    if (alive.length < 3 || roll < 0.3) {
      made.push(operations.length);
      operations.push({ method: 'POST', path: '/v1/products', body: product() });
      continue;
    }
    const target = alive[below(alive.length)] as number;
    if (roll < 0.5) operations.push({ method: 'PATCH', path: `/v1/products/$${target}`, body: { price: below(900) } });
    else if (roll < 0.65) operations.push({ method: 'PUT', path: `/v1/products/$${target}`, body: product() });
    else if (roll < 0.85) {
      ordered.add(target);
      const items = [{ product_id: `$${target}`, quantity: 1 + below(5) }];
      operations.push({ method: 'POST', path: '/v1/users/1/orders', body: { items } });
    } else if (!ordered.has(target)) {
      deleted.add(target);
      operations.push({ method: 'DELETE', path: `/v1/products/$${target}` });
    }
  }
  return operations;
}

/** `value` with each `$n` (a path segment or a whole string) written as `spell(n)`. */
function withIds(value: unknown, spell: (index: number) => unknown): unknown {
  if (typeof value === 'string') {
    const whole = /^\$(\d+)$/.exec(value);
    if (whole !== null) return spell(Number(whole[1]));
    return value.replace(/\/\$(\d+)(?=\/|$)/g, (_, index: string) => `/${String(spell(Number(index)))}`);
  }
  if (Array.isArray(value)) return value.map((item) => withIds(item, spell));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withIds(item, spell)]));
  return value;
}

/** What both servers must agree on: the records and the events, without the times they were made at. */
async function stateOf(api: TestServer, firstEvent: number): Promise<unknown> {
  const withoutTimes = (record: Json): Json => {
    const { created_at: _created, updated_at: _updated, ...rest } = record;
    return rest;
  };
  const products = await everyRecord(api, '/v1/products');
  const orders = await everyRecord(api, '/v1/users/1/orders');
  const events = (await api.get(`/v1/events?after=${firstEvent}&limit=100`)).body.data as Json[];
  return {
    products: products.map(withoutTimes),
    orders: orders.map(withoutTimes),
    events: events.map(({ at: _at, record, ...event }) => ({
      ...event,
      record: record === undefined ? undefined : withoutTimes(record as Json),
    })),
  };
}

/** Every record of the list at `path`, page by page, in id order. */
async function everyRecord(api: TestServer, path: string): Promise<Json[]> {
  const records: Json[] = [];
  for (let page = 1; ; page++) {
    const data = (await api.get(`${path}?limit=100&sort=id&page=${page}`)).body.data as Json[];
    records.push(...data);
    if (data.length < 100) return records;
  }
}

/** The newest event's id (the feed lists oldest first: its last page of one). */
async function lastEventId(api: TestServer): Promise<number> {
  const total = (await api.get('/v1/events?limit=1')).body.meta.total as number;
  if (total === 0) return 0;
  const events = (await api.get(`/v1/events?limit=1&page=${total}`)).body.data as Json[];
  return Number(events[0]?.['id']);
}

describe('a batch against its operations sent one at a time', () => {
  let single: TestServer;
  let batched: TestServer;
  before(async () => {
    [single, batched] = await Promise.all([startTestServer(), startTestServer()]);
  });
  after(async () => {
    await Promise.all([single.close(), batched.close()]);
  });

  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: the same records and the same change feed`, async () => {
      const operations = operationsFor(seed);
      const [singleFrom, batchedFrom] = await Promise.all([lastEventId(single), lastEventId(batched)]);

      const ids: unknown[] = [];
      for (const [index, operation] of operations.entries()) {
        const spell = (earlier: number): unknown => ids[earlier];
        const path = withIds(operation.path, spell) as string;
        const body = operation.body === undefined ? undefined : withIds(operation.body, spell);
        const answer = await single.request(operation.method, path, { body });
        assert.ok(answer.status < 300, `operation ${index} alone: ${operation.method} ${path}: ${answer.text}`);
        ids.push(operation.method === 'POST' ? answer.body.id : undefined);
      }

      const batch = operations.map((operation) => ({
        ...operation,
        path: withIds(operation.path, (index) => `$${index}.id`),
        ...(operation.body === undefined ? {} : { body: withIds(operation.body, (index) => `$${index}.id`) }),
      }));
      const answer = await batched.post('/v1/batches', { operations: batch });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(
        (answer.body.results as Json[]).map((result) => result['status']),
        operations.map((operation) => (operation.method === 'POST' ? 201 : operation.method === 'DELETE' ? 204 : 200)),
      );

      const expected = (await stateOf(single, singleFrom)) as { events: unknown[]; products: unknown[] };
      assert.equal(expected.events.length, operations.length, 'an event per operation');
      assert.deepEqual(await stateOf(batched, batchedFrom), expected);
    });
  }
});
