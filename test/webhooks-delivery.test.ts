// Webhook deliveries (docs/webhooks.md), against a receiver in the test: each event a subscription takes is POSTed in
// the feed's order, its body the feed's JSON, signed as Standard Webhooks says (checked by the test's own code and the
// specification's example); retried on the worker's clock, which the test moves: about 5 s first, growing, at most an
// hour apart, for a day, then the subscription disabled; failures of every kind; tests and redeliveries; history_gone.

import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { eventually, recordingLogger, startTestServer } from './helpers.ts';
import { ManualClock, Receiver, standardSignature, verifiesStandardSignature } from './webhook-receiver.ts';
import { signatureOf } from '../src/webhooks/signature.ts';
import { validateJson } from './json-schema.ts';
import { FIRST_RETRY_MS, JITTER, MAX_RETRY_SPACING_MS, RETRY_WINDOW_MS } from '../src/webhooks/retry-schedule.ts';

const LOCAL = { webhooksAllowHttp: true, webhooksAllowPrivate: true } as const;
const PRODUCT = { name: 'Tea', category: 'tea', price: 3 };

interface Delivery {
  readonly id: number;
  readonly kind: string;
  readonly event_id?: number;
  readonly status: string;
  readonly attempts: number;
  readonly response_status?: number;
  readonly error?: string;
  readonly first_attempt_at?: string;
  readonly next_attempt_at?: string;
}

/** A subscription to `receiver` (its path `/hook`); its path and secret. */
async function subscribe(
  api: TestServer,
  receiver: Receiver,
  fields: Record<string, unknown> = {},
): Promise<{ path: string; secret: string }> {
  const made = await api.post('/v1/webhooks', { url: `${receiver.url}/hook`, ...fields });
  assert.equal(made.status, 201, made.text);
  return { path: made.headers.get('location') as string, secret: made.body.secret };
}

async function deliveriesOf(api: TestServer, path: string): Promise<Delivery[]> {
  return (await api.get(`${path}/deliveries?limit=100`)).body.data as Delivery[];
}

/** The product events of the feed after `after`, as GET /v1/events shows them. */
async function productEvents(api: TestServer, after = 0): Promise<Record<string, unknown>[]> {
  return (await api.get(`/v1/events?collection=products&after=${after}&limit=100`)).body.data;
}

describe('webhooks: the signature', () => {
  test("the test's own check, from the specification's text, passes the specification's example, as the server's signer does", () => {
    // libraries/javascript/src/webhook.test.ts of github.com/standard-webhooks/standard-webhooks: "sign function works".
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const body = '{"test": 2432232314}';
    const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    assert.equal(`v1,${standardSignature(secret, id, '1614265330', body)}`, expected);
    assert.equal(signatureOf(secret, id, 1614265330, body), expected);
    const headers = { 'webhook-id': id, 'webhook-timestamp': '1614265330', 'webhook-signature': `v1a,x ${expected}` };
    assert.ok(verifiesStandardSignature(secret, headers, body));
    assert.ok(!verifiesStandardSignature(secret, headers, `${body} `));
    assert.ok(!verifiesStandardSignature('whsec_AAAA9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, body));
  });
});

describe('webhooks: delivery', () => {
  let api: TestServer;
  let receiver: Receiver;
  const logger = recordingLogger();
  const clock = new ManualClock();
  before(async () => {
    api = await startTestServer({ ...LOCAL, logger, accessLog: 'json', webhookWorker: { clock, pollMs: 25 } });
  });
  // Each test has a receiver of its own; its subscriptions go with it.
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    for (const { id } of (await api.get('/v1/webhooks?limit=100')).body.data) await api.delete(`/v1/webhooks/${id}`);
    await receiver.close();
  });
  after(() => api.close());

  test('each event is POSTed in the feed order, its body the feed JSON, signed, with webhook-id and webhook-timestamp', async () => {
    const { path, secret } = await subscribe(api, receiver);
    const etag = (await api.get(path)).headers.get('etag') as string;
    const made: number[] = [];
    for (let index = 0; index < 5; index++)
      made.push((await api.post('/v1/products', { ...PRODUCT, name: `Tea ${index}` })).body.id);
    const received = await receiver.waitFor(5);
    const expected = (await productEvents(api)).filter((event) => made.includes(event['record_id'] as number));
    assert.deepEqual(
      received.map(({ body }) => JSON.parse(body)),
      expected,
      'the feed events, in order',
    );
    // As the OpenAPI document's `webhooks` describe them: the body, and the three headers.
    const doc = (await api.get('/v1/openapi.json')).body;
    const described = doc.webhooks.changeEvent.post;
    const parameters = described.parameters as { name: string; schema: Record<string, unknown> }[];
    assert.deepEqual(
      parameters.map(({ name }) => name),
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    );
    for (const { headers, body, path: target } of received) {
      assert.deepEqual(
        validateJson(doc, described.requestBody.content['application/json'].schema, JSON.parse(body)),
        [],
      );
      for (const { name, schema } of parameters) assert.deepEqual(validateJson(doc, schema, headers[name]), [], name);
      assert.equal(target, '/hook');
      assert.equal(headers['content-type'], 'application/json');
      assert.match(headers['user-agent'] ?? '', /^plainrest/);
      assert.equal(headers['webhook-id'], String(JSON.parse(body).id));
      assert.equal(headers['webhook-timestamp'], String(Math.floor(clock.now() / 1000)));
      assert.match(headers['webhook-signature'] as string, /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.ok(verifiesStandardSignature(secret, headers, body), 'verified as the specification says');
    }
    const deliveries = await eventually(async () => {
      const listed = await deliveriesOf(api, path);
      assert.equal(listed.length, 5);
      return listed;
    });
    assert.deepEqual(
      deliveries.map(({ kind, event_id, status, attempts, response_status }) => ({
        kind,
        event_id,
        status,
        attempts,
        response_status,
      })),
      expected.reverse().map((event) => ({
        kind: 'event',
        event_id: event['id'],
        status: 'succeeded',
        attempts: 1,
        response_status: 204,
      })),
      'newest first',
    );
    // The worker's own writes (the position) change nothing a reader sees: the same ETag, which If-Match still takes.
    assert.equal((await api.get(path)).headers.get('etag'), etag);
    assert.equal((await api.patch(path, { types: ['created'] }, { 'if-match': etag })).status, 200);
    // Its secret is in no log line (the access log's neither).
    assert.ok(logger.lines.length > 0);
    assert.ok(logger.lines.every(({ message }) => !message.includes(secret) && !message.includes(secret.slice(6))));
  });

  test('a subscription takes only its collections and types', async () => {
    await subscribe(api, receiver, { collections: ['products'], types: ['updated'] });
    const product = (await api.post('/v1/products', PRODUCT)).body;
    await api.post('/v1/users', { name: 'Someone', email: 'someone@example.com' });
    await api.patch(`/v1/products/${product.id}`, { price: 4 });
    await api.delete(`/v1/products/${product.id}`);
    const [only] = await receiver.waitFor(1);
    const body = JSON.parse(only?.body ?? '{}');
    assert.deepEqual(
      [body.type, body.collection, body.record_id, body.record.price],
      ['updated', 'products', product.id, 4],
    );
    await api.post('/v1/products', PRODUCT);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(receiver.received.length, 1);
  });

  test('a failed attempt is retried about 5 s later, then ever further apart, with jitter; later events wait in order', async () => {
    receiver.answers.push('fail', 'fail', 'fail');
    const { path } = await subscribe(api, receiver);
    const first = (await api.post('/v1/products', { ...PRODUCT, name: 'First' })).body.id;
    const second = (await api.post('/v1/products', { ...PRODUCT, name: 'Second' })).body.id;
    const bases = [FIRST_RETRY_MS, FIRST_RETRY_MS * 3, FIRST_RETRY_MS * 9];
    let seen = 1;
    for (const base of bases) {
      await receiver.waitFor(seen);
      const pending = await eventually(async () => {
        const [delivery] = await deliveriesOf(api, path);
        assert.equal(delivery?.attempts, seen);
        return delivery as Delivery;
      });
      assert.equal(pending.status, 'pending');
      assert.equal(pending.response_status, 500);
      assert.equal(pending.error, 'the receiver answered 500: the receiver is down');
      const delay = Date.parse(pending.next_attempt_at as string) - clock.now();
      assert.ok(delay >= base * (1 - JITTER) && delay <= base * (1 + JITTER), `${delay} ms after ${seen} attempts`);
      // Nothing is sent early, and the second event waits for the first.
      clock.advance(delay - 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(receiver.received.length, seen);
      clock.advance(1);
      seen++;
    }
    const received = await receiver.waitFor(5);
    assert.deepEqual(
      received.map(({ body }) => JSON.parse(body).record_id),
      [first, first, first, first, second],
    );
    const settled = await eventually(async () => {
      const listed = await deliveriesOf(api, path);
      assert.equal(listed.length, 2);
      return listed;
    });
    assert.deepEqual(
      settled.map(({ status, attempts }) => [status, attempts]),
      [
        ['succeeded', 1],
        ['succeeded', 4],
      ],
    );
  });

  test('retried for a day, never more than an hour apart, then the subscription is disabled; enabled again, the event is sent afresh', async () => {
    receiver.otherwise = 'fail';
    const { path } = await subscribe(api, receiver);
    await api.post('/v1/products', PRODUCT);
    const start = clock.now();
    let attempts = 0;
    let previous = start;
    for (;;) {
      attempts++;
      await receiver.waitFor(attempts);
      const delivery = await eventually(async () => {
        const [latest] = await deliveriesOf(api, path);
        assert.equal(latest?.attempts, attempts);
        return latest as Delivery;
      });
      if (delivery.status === 'failed') break;
      const next = Date.parse(delivery.next_attempt_at as string);
      assert.ok(next - clock.now() <= MAX_RETRY_SPACING_MS, `attempt ${attempts}: at most an hour`);
      assert.ok(clock.now() - previous <= MAX_RETRY_SPACING_MS);
      previous = clock.now();
      clock.advance(next - clock.now());
    }
    assert.ok(clock.now() - start >= RETRY_WINDOW_MS, 'a day of retries');
    assert.ok(clock.now() - start < RETRY_WINDOW_MS + MAX_RETRY_SPACING_MS);
    assert.ok(attempts > 20 && attempts < 40, `${attempts} attempts`);
    const webhook = await eventually(async () => {
      const read = (await api.get(path)).body;
      assert.equal(read.enabled, false);
      return read;
    });
    assert.equal(webhook.disabled_reason, 'retries_exhausted');
    assert.ok(logger.lines.some(({ message }) => message.includes('disabled: retries_exhausted')));
    // Enabled again, the same event is tried afresh (a new delivery); the reason is gone.
    receiver.otherwise = 'ok';
    const enabled = await api.patch(path, { enabled: true });
    assert.equal(enabled.body.disabled_reason, undefined);
    const resent = await receiver.waitFor(attempts + 1);
    assert.equal(resent.at(-1)?.headers['webhook-id'], resent[0]?.headers['webhook-id']);
    const [fresh] = await eventually(async () => {
      const listed = await deliveriesOf(api, path);
      assert.equal(listed[0]?.status, 'succeeded');
      return listed;
    });
    assert.equal(fresh?.attempts, 1);
  });

  test('no answer within 10 s (none, or a 200 too late), a reset, a refused connection and a redirect (not followed) each fail the attempt', async () => {
    const late = { status: 200, body: 'too late', delayMs: 300 };
    receiver.answers.push('hang', late, 'reset', 'redirect', { status: 503, body: `${'x'.repeat(5000)}` });
    const { path } = await subscribe(api, receiver);
    await api.post('/v1/products', PRODUCT);
    const errors: string[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      await receiver.waitFor(attempt);
      // The first two get no answer within 10 s of the worker's clock (the second's 200 comes after).
      if (attempt <= 2) clock.advance(10_000);
      const pending = await eventually(async () => {
        const [delivery] = await deliveriesOf(api, path);
        assert.equal(delivery?.attempts, attempt);
        return delivery as Delivery;
      });
      assert.equal(pending.status, 'pending');
      errors.push(pending.error as string);
      clock.advance(Date.parse(pending.next_attempt_at as string) - clock.now());
    }
    await receiver.waitFor(6);
    assert.equal(errors[0], 'no answer within 10 s');
    assert.equal(errors[1], 'no answer within 10 s');
    assert.match(errors[2] as string, /^the connection failed: (ECONNRESET|socket hang up)/);
    assert.equal(errors[3], `the receiver answered 302 (a redirect to ${receiver.url}/elsewhere, not followed)`);
    assert.match(errors[4] as string, /^the receiver answered 503: x{300}$/);
    assert.ok(
      receiver.received.every(({ path: target }) => target === '/hook'),
      'the redirect was not followed',
    );
    // A refused connection: a subscription to a port nothing listens on.
    const closed = await Receiver.start();
    const refusedUrl = closed.url;
    await closed.close();
    const refused = await api.post('/v1/webhooks', { url: `${refusedUrl}/hook` });
    await api.post('/v1/products', PRODUCT);
    const [failure] = await eventually(async () => {
      const listed = await deliveriesOf(api, refused.headers.get('location') as string);
      assert.equal(listed.length, 1);
      return listed;
    });
    assert.match(failure?.error as string, /^the connection failed: ECONNREFUSED/);
  });

  test('a test event and a redelivery are sent once each, signed, and their outcome listed', async () => {
    const { path, secret } = await subscribe(api, receiver, { types: ['created'] });
    const product = (await api.post('/v1/products', PRODUCT)).body;
    const [original] = await receiver.waitFor(1);
    const eventId = JSON.parse(original?.body ?? '{}').id as number;
    await eventually(async () => assert.equal((await deliveriesOf(api, path)).length, 1));
    const test = (await api.post(`${path}/deliveries`, {})).body;
    const [, sent] = await receiver.waitFor(2);
    assert.equal(sent?.headers['webhook-id'], `test-${test.id}`);
    assert.deepEqual(Object.keys(JSON.parse(sent?.body ?? '{}')), ['type', 'webhook_id', 'delivery_id', 'at']);
    const doc = (await api.get('/v1/openapi.json')).body;
    const described = doc.webhooks.testEvent.post;
    assert.deepEqual(
      validateJson(doc, described.requestBody.content['application/json'].schema, JSON.parse(sent?.body ?? '{}')),
      [],
    );
    for (const { name, schema } of described.parameters as { name: string; schema: Record<string, unknown> }[])
      assert.deepEqual(validateJson(doc, schema, sent?.headers[name]), [], name);
    assert.equal(JSON.parse(sent?.body ?? '{}').type, 'test');
    assert.ok(verifiesStandardSignature(secret, sent?.headers ?? {}, sent?.body ?? ''));
    receiver.answers.push('fail');
    const redelivery = (await api.post(`${path}/deliveries`, { event_id: eventId })).body;
    assert.equal(redelivery.kind, 'redelivery');
    const [, , again] = await receiver.waitFor(3);
    assert.equal(again?.body, original?.body);
    assert.equal(again?.headers['webhook-id'], String(eventId));
    const listed = await eventually(async () => {
      const deliveries = await deliveriesOf(api, path);
      assert.ok(deliveries.every(({ status }) => status !== 'pending'));
      return deliveries;
    });
    assert.deepEqual(
      listed.map(({ kind, status, attempts, event_id }) => [kind, status, attempts, event_id]),
      [
        ['redelivery', 'failed', 1, eventId],
        ['test', 'succeeded', 1, undefined],
        ['event', 'succeeded', 1, eventId],
      ],
    );
    // Tried once: no retry comes.
    clock.advance(60_000);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(receiver.received.length, 3);
    assert.ok(product.id > 0);
  });

  test('a subscription stuck on a receiver that never answers does not slow writes', async () => {
    const time = async (count: number): Promise<number[]> => {
      const took: number[] = [];
      for (let index = 0; index < count; index++) {
        const started = performance.now();
        assert.equal((await api.post('/v1/products', PRODUCT)).status, 201);
        took.push(performance.now() - started);
      }
      return took.sort((a, b) => a - b);
    };
    const alone = await time(40);
    receiver.otherwise = 'hang';
    for (let index = 0; index < 5; index++) await subscribe(api, receiver);
    await api.post('/v1/products', PRODUCT);
    await receiver.waitFor(5);
    const stuck = await time(40);
    // Every write was answered while five attempts hung (a write that waited on one would take 10 s), and the writes'
    // median is of the same order as without them (with room for a busy machine running other tests beside).
    const median = (times: number[]): number => times[Math.floor(times.length / 2)] as number;
    assert.ok(median(stuck) < median(alone) * 3 + 25, `median ${median(stuck)} ms, ${median(alone)} ms without`);
    assert.ok((stuck.at(-1) as number) < 2000, `the slowest write took ${stuck.at(-1)} ms`);
    assert.equal(receiver.received.length, 5, 'each subscription has one attempt in flight, and waits');
  });
});

describe('webhooks: the history', () => {
  test('a subscription behind the kept history is disabled with history_gone; enabled again, it starts from the newest event', async () => {
    const receiver = await Receiver.start();
    const api = await startTestServer({ ...LOCAL, events: { kept: 5, keptForMs: 0 }, webhookWorker: { pollMs: 25 } });
    try {
      const { path } = await subscribe(api, receiver);
      await api.patch(path, { enabled: false });
      for (let index = 0; index < 12; index++) await api.post('/v1/products', PRODUCT);
      await api.patch(path, { enabled: true });
      const gone = await eventually(async () => {
        const read = (await api.get(path)).body;
        assert.equal(read.disabled_reason, 'history_gone');
        return read;
      });
      assert.equal(gone.enabled, false);
      assert.equal(receiver.received.length, 0, 'nothing was sent past the gap');
      await api.patch(path, { enabled: true });
      const after = (await api.post('/v1/products', { ...PRODUCT, name: 'After' })).body.id;
      const [first] = await receiver.waitFor(1);
      assert.equal(JSON.parse(first?.body ?? '{}').record_id, after);
      assert.equal((await api.get(path)).body.enabled, true);
    } finally {
      await api.close();
      await receiver.close();
    }
  });
});
