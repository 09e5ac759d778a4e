// The hand-written example values of the OpenAPI document, for the example domain: request bodies, records as they
// are read, path ids and query values, with the English field names (`translateKeys` in examples.ts gives the
// Portuguese ones). They are chosen so that the requests a generated client collection makes, in the order it makes
// them, all succeed against a fresh server loaded with the example dataset (data/example) and an administrator's token.

import type { JsonObject } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import type { Language } from '../resources/definition.ts';

export interface ResourceExamples {
  /** Bodies of POST, PUT and PATCH. */
  readonly create: JsonObject;
  readonly replace: JsonObject;
  readonly patch: JsonObject;
  /** The record as a read shows it once the create has been made (without its id and parent id). */
  readonly record: JsonObject;
  /**
   * The id of the record the create example makes on a fresh server with the example
   * dataset (3 users counting the administrator, 12 products, 5 orders), when the
   * collection runs the English paths before the Portuguese ones; item paths use it. A collection is ordered by path
   * (`/v1/users`, then `/v1/users/{user_id}`, then `/v1/users/{user_id}/orders`, …), so an item path's id is the
   * record its collection's create example has just made there.
   */
  readonly createdId: RecordId;
  /** Equality filter values and a sort for the list. */
  readonly query: Readonly<Record<string, string>>;
}

/** Every example record was made at this time. */
export const EXAMPLE_TIME = '2026-01-20T10:00:00.000Z';

/** The parent of the nested examples: Alice (user 1), who is never deleted by them. */
export const EXAMPLE_PARENT_ID = 1;

/** Alice's credentials in the example dataset (the README lists them). */
export const EXAMPLE_CREDENTIALS: JsonObject = { email: 'alice@example.com', password: 'wonderland-42' };

export const EXAMPLE_TOKEN = {
  access_token:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwiaWF0IjoxNzY4OTAzMjAwLCJleHAiOjE3Njg5MDY4MDB9.' +
    'b3Fjr6xK0D0KZmTK0hWl4bQtZt6VdGxgk1hMfyGlHH0',
  token_type: 'Bearer',
  expires_in: 3600,
  user_id: 1,
} as const;

/** An API key's secret as the 201 that makes it shows it (made up: no server made it). */
export const EXAMPLE_KEY_SECRET = 'prk_Zm9yIGV4YW1wbGVzIG9ubHk6IG5vdCBhIHJlYWwga2V';
/** A webhook's signing secret as the 201 that makes it shows it (made up). */
export const EXAMPLE_WEBHOOK_SECRET = 'whsec_Zm9yIGV4YW1wbGVzIG9ubHk6IG5vdCBhIHJlYWwga2U=';

/** An ETag that matches nothing, for If-None-Match: the answer is the full 200 (RFC 9110 §8.8.3 uses "xyzzy" too). */
export const EXAMPLE_STALE_ETAG = '"xyzzy"';

/** A request id as the server makes them: a per-process prefix and a counter in base 36. */
export const EXAMPLE_REQUEST_ID = 'a4e9e911-1f';

/** The hand-written examples of the example domain's resources, by language and collection. */
export const EXAMPLES: Readonly<Record<Language, Readonly<Record<string, ResourceExamples>>>> = {
  en: {
    users: {
      create: { name: 'Erin Example', email: 'erin@example.com', password: 'correct-horse-battery' },
      replace: { name: 'Erin Example', email: 'erin@example.com' },
      patch: { name: 'Erin E. Example' },
      record: { name: 'Erin Example', email: 'erin@example.com', role: 'user' },
      createdId: 4,
      query: { email: 'alice@example.com', role: 'user', sort: 'name', q: 'alice' },
    },
    products: {
      create: {
        name: 'Glass teapot 1 l',
        category: 'tea',
        price: 19.99,
        description: 'Borosilicate glass with a steel infuser.',
      },
      replace: { name: 'Glass teapot 1 l', category: 'tea', price: 21.5 },
      patch: { price: 18.99 },
      record: {
        name: 'Glass teapot 1 l',
        category: 'tea',
        price: 19.99,
        description: 'Borosilicate glass with a steel infuser.',
      },
      createdId: 13,
      query: { category: 'coffee', price: '11.5', sort: '-price,name', q: 'coffee' },
    },
    orders: {
      create: {
        items: [
          { product_id: 1, quantity: 2 },
          { product_id: 10, quantity: 1 },
        ],
      },
      replace: { items: [{ product_id: 2, quantity: 1 }] },
      patch: { status: 'cancelled' },
      record: {
        items: [
          { product_id: 1, quantity: 2, unit_price: 24.9 },
          { product_id: 10, quantity: 1, unit_price: 3.99 },
        ],
        total: 53.79,
        status: 'pending',
      },
      createdId: 6,
      query: { status: 'pending', sort: '-created_at' },
    },
    keys: {
      create: { name: 'nightly export', expires_at: '2099-12-31T23:59:59Z', read_only: true },
      replace: {},
      patch: {},
      record: { name: 'nightly export', expires_at: '2099-12-31T23:59:59Z', read_only: true },
      createdId: 1,
      query: { read_only: 'true', sort: '-created_at' },
    },
    webhooks: {
      // An address of RFC 5737's for documentation: the example needs no name resolved.
      create: { url: 'https://203.0.113.10/plainrest-events', collections: ['orders'], types: ['created', 'updated'] },
      replace: { url: 'https://203.0.113.10/plainrest-events', collections: ['orders', 'products'] },
      patch: { enabled: false },
      record: {
        url: 'https://203.0.113.10/plainrest-events',
        collections: ['orders'],
        types: ['created', 'updated'],
        enabled: true,
      },
      createdId: 1,
      query: { enabled: 'true', sort: '-created_at' },
    },
    deliveries: {
      // A test event: its delivery is tried once, whatever the history holds.
      create: {},
      replace: {},
      patch: {},
      record: { kind: 'test', status: 'pending', attempts: 0 },
      createdId: 1,
      query: { kind: 'redelivery', event_id: '1', status: 'failed', sort: '-id' },
    },
  },
  pt: {
    users: {
      create: { name: 'Fernanda Exemplo', email: 'fernanda@example.com', password: 'cavalo-correto-bateria' },
      replace: { name: 'Fernanda Exemplo', email: 'fernanda@example.com' },
      patch: { name: 'Fernanda E. Exemplo' },
      record: { name: 'Fernanda Exemplo', email: 'fernanda@example.com', role: 'user' },
      createdId: 5,
      query: { email: 'alice@example.com', role: 'user', sort: 'name', q: 'alice' },
    },
    products: {
      create: {
        name: 'Bule de vidro 1 l',
        category: 'chá',
        price: 19.99,
        description: 'Vidro borossilicato com infusor de aço.',
      },
      replace: { name: 'Bule de vidro 1 l', category: 'chá', price: 21.5 },
      patch: { price: 18.99 },
      record: {
        name: 'Bule de vidro 1 l',
        category: 'chá',
        price: 19.99,
        description: 'Vidro borossilicato com infusor de aço.',
      },
      createdId: 14,
      query: { category: 'coffee', price: '11.5', sort: '-price,name', q: 'coffee' },
    },
    orders: {
      create: { items: [{ product_id: 2, quantity: 1 }] },
      replace: { items: [{ product_id: 3, quantity: 2 }] },
      patch: { status: 'cancelled' },
      record: { items: [{ product_id: 2, quantity: 1, unit_price: 11.5 }], total: 11.5, status: 'pending' },
      createdId: 7,
      query: { status: 'pending', sort: '-created_at' },
    },
    keys: {
      create: { name: 'exportação noturna', read_only: false },
      replace: {},
      patch: {},
      record: { name: 'exportação noturna', read_only: false },
      createdId: 2,
      query: { read_only: 'false', sort: 'name' },
    },
  },
};
