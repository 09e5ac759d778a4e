// Method semantics (README: Methods) on products and users: GET/HEAD are safe and carry a
// strong ETag; PUT and PATCH are idempotent (a write that changes nothing keeps the
// body, the ETag and updated_at); server fields may be echoed but not changed; DELETE
// answers 204 and then 404; If-None-Match answers 304 (RFC 9110 §13.1.2) on a read and 412
// on a write when it matches, and a non-matching If-Match answers 412 without touching the
// record (§13.1.1).

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TestResponse, TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { assertEmpty, assertProblem, clockPast, STRONG_ETAG } from './assertions.ts';

function etagOf(response: TestResponse): string {
  const etag = response.headers.get('etag');
  assert.ok(etag !== null, 'an ETag header is present');
  assert.match(etag, STRONG_ETAG);
  return etag;
}

/** How to exercise one resource: where it lives, how to create it, and bodies for each write. */
interface Resource {
  readonly name: string;
  readonly collection: string;
  /**
   * How many records the collection holds before the test creates any: the server
   * ensures its administrator at start, so users begin with one (id 1).
   */
  readonly existing: number;
  /** The POST body of the record under test (id existing + 1). */
  readonly create: Record<string, unknown>;
  /** A full PUT body that differs from `create` in one client field. */
  readonly replacement: Record<string, unknown>;
  /** A PATCH body that changes one field. */
  readonly change: Record<string, unknown>;
  /** A body that fails validation (for ordering: 412 comes before 422). */
  readonly invalid: Record<string, unknown>;
}

const RESOURCES: readonly Resource[] = [
  {
    name: 'products',
    collection: '/v1/products',
    existing: 0,
    create: { name: 'Espresso beans', category: 'coffee', price: 19.99, description: 'Dark roast' },
    replacement: { name: 'Espresso beans', category: 'coffee', price: 21.5, description: 'Dark roast' },
    change: { price: 17.25 },
    invalid: { name: '', category: 'coffee', price: 1 },
  },
  {
    name: 'users',
    collection: '/v1/users',
    existing: 1,
    create: { name: 'Ana Lima', email: 'ana@example.com', password: 'correct-horse' },
    replacement: { name: 'Ana Souza', email: 'ana@example.com', password: 'correct-horse' },
    change: { name: 'Ana Patched' },
    invalid: { name: 'Ana', email: 'not-an-email' },
  },
];

/** The writes a precondition guards, with the body each sends and its status when it succeeds. */
const WRITES: readonly {
  method: string;
  body: (r: Resource) => Record<string, unknown> | undefined;
  status: number;
}[] = [
  { method: 'PUT', body: (r) => r.replacement, status: 200 },
  { method: 'PATCH', body: (r) => r.change, status: 200 },
  { method: 'DELETE', body: () => undefined, status: 204 },
];

for (const resource of RESOURCES) {
  const firstId = resource.existing + 1;
  const secondId = firstId + 1;
  const item = `${resource.collection}/${firstId}`;

  describe(`method semantics on ${resource.name}`, () => {
    let api: TestServer;
    beforeEach(async () => {
      api = await startTestServer();
      const created = await api.post(resource.collection, resource.create);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('location'), item);
    });
    afterEach(async () => {
      await api.close();
    });

    /** GET the record under test and return it with its ETag. */
    async function current(): Promise<{ body: any; etag: string }> {
      const response = await api.get(item);
      assert.equal(response.status, 200, response.text);
      return { body: response.body, etag: etagOf(response) };
    }

    describe('GET and HEAD', () => {
      test('GET item → 200, JSON body and a strong ETag', async () => {
        const response = await api.get(item);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.headers.get('content-type'), 'application/json');
        etagOf(response);
        assert.equal(response.body.id, firstId);
      });

      test('HEAD item → same status and headers as GET, empty body', async () => {
        const get = await api.get(item);
        const head = await api.request('HEAD', item);
        assert.equal(head.status, 200);
        assert.equal(head.text, '');
        assert.equal(head.headers.get('etag'), get.headers.get('etag'));
        assert.equal(head.headers.get('content-type'), 'application/json');
        assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)));
      });

      test('GET and HEAD never change state: body, ETag and updated_at stay after many reads', async () => {
        const before = await current();
        await clockPast(before.body.updated_at);
        for (let i = 0; i < 10; i++) {
          assert.equal((await api.get(item)).status, 200);
          assert.equal((await api.request('HEAD', item)).status, 200);
          assert.equal((await api.get(item, { 'if-none-match': before.etag })).status, 304);
          assert.equal((await api.get(resource.collection)).status, 200);
        }
        const after = await current();
        assert.deepEqual(after.body, before.body);
        assert.equal(after.etag, before.etag);
      });

      test('the POST ETag equals the ETag of a later GET of the same record', async () => {
        const posted = await api.post(resource.collection, { ...resource.create, ...uniqueFields(resource) });
        assert.equal(posted.status, 201, posted.text);
        const location = posted.headers.get('location');
        assert.equal(location, `${resource.collection}/${secondId}`);
        const read = await api.get(location ?? '');
        assert.equal(read.status, 200);
        assert.equal(etagOf(posted), etagOf(read));
        if (resource.name === 'products') assert.deepEqual(posted.body, read.body);
        else assert.deepEqual(posted.body, { id: read.body.id, name: read.body.name });
      });
    });

    describe('If-None-Match on GET and HEAD', () => {
      const cases: readonly { name: string; header: (etag: string) => string; status: number }[] = [
        { name: 'the current ETag → 304', header: (etag) => etag, status: 304 },
        { name: '* → 304', header: () => '*', status: 304 },
        { name: 'a list containing the current ETag → 304', header: (etag) => `"nope", ${etag}`, status: 304 },
        {
          name: 'the weak form of the current ETag → 304 (weak comparison)',
          header: (etag) => `W/${etag}`,
          status: 304,
        },
        { name: 'another ETag → 200', header: () => '"not-the-etag"', status: 200 },
      ];
      for (const method of ['GET', 'HEAD']) {
        for (const c of cases) {
          test(`${method} with If-None-Match ${c.name}`, async () => {
            const { etag } = await current();
            const response = await api.request(method, item, { headers: { 'if-none-match': c.header(etag) } });
            assert.equal(response.status, c.status, response.text);
            assert.equal(response.headers.get('etag'), etag);
            assert.ok(response.headers.get('x-request-id'));
            if (c.status === 304 || method === 'HEAD') assert.equal(response.text, '');
            if (c.status === 304) assert.equal(response.headers.get('content-type'), null);
            if (c.status === 200 && method === 'GET') assert.deepEqual(response.body, (await current()).body);
          });
        }
      }

      test('GET with If-None-Match of an outdated ETag → 200 with the new ETag', async () => {
        const { etag: old } = await current();
        assert.equal((await api.patch(item, resource.change)).status, 200);
        const response = await api.get(item, { 'if-none-match': old });
        assert.equal(response.status, 200, response.text);
        assert.notEqual(etagOf(response), old);
      });
    });

    describe('PUT', () => {
      test('repeating a PUT changes nothing after the first: same body, same ETag, updated_at kept', async () => {
        const first = await api.put(item, resource.replacement);
        assert.equal(first.status, 200, first.text);
        await clockPast(first.body.updated_at);
        const second = await api.put(item, resource.replacement);
        assert.equal(second.status, 200, second.text);
        assert.deepEqual(second.body, first.body);
        assert.equal(etagOf(second), etagOf(first));
        const read = await current();
        assert.deepEqual(read.body, first.body);
        assert.equal(read.etag, etagOf(first));
      });

      test('a PUT that changes a field bumps updated_at and changes the ETag; created_at kept', async () => {
        const before = await current();
        await clockPast(before.body.updated_at);
        const response = await api.put(item, resource.replacement);
        assert.equal(response.status, 200, response.text);
        assert.notEqual(etagOf(response), before.etag);
        assert.ok(response.body.updated_at > before.body.updated_at, 'updated_at moves forward');
        assert.equal(response.body.created_at, before.body.created_at);
        assert.equal(response.body.id, firstId);
      });

      test('PUT of the GET body back (server fields echoed unchanged) → 200, nothing changes', async () => {
        const before = await current();
        await clockPast(before.body.updated_at);
        const response = await api.put(item, before.body);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, before.body);
        assert.equal(etagOf(response), before.etag);
        const after = await current();
        assert.deepEqual(after.body, before.body);
        assert.equal(after.etag, before.etag);
      });
    });

    describe('PATCH', () => {
      test('a PATCH with the current values changes nothing: same body, ETag and updated_at', async () => {
        const before = await current();
        await clockPast(before.body.updated_at);
        const { id: _id, created_at: _created, updated_at: _updated, ...clientFields } = before.body;
        const response = await api.patch(item, clientFields);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, before.body);
        assert.equal(etagOf(response), before.etag);
        assert.deepEqual((await current()).body, before.body);
      });

      test('an empty PATCH {} changes nothing', async () => {
        const before = await current();
        await clockPast(before.body.updated_at);
        const response = await api.patch(item, {});
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, before.body);
        assert.equal(etagOf(response), before.etag);
      });

      test('PATCH of the whole GET body back → 200, nothing changes', async () => {
        const before = await current();
        await clockPast(before.body.updated_at);
        const response = await api.patch(item, before.body);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, before.body);
        assert.equal(etagOf(response), before.etag);
      });

      test('repeating a changing PATCH changes nothing after the first', async () => {
        const first = await api.patch(item, resource.change);
        assert.equal(first.status, 200, first.text);
        await clockPast(first.body.updated_at);
        const second = await api.patch(item, resource.change);
        assert.equal(second.status, 200, second.text);
        assert.deepEqual(second.body, first.body);
        assert.equal(etagOf(second), etagOf(first));
      });

      test('a changing PATCH bumps updated_at and changes the ETag', async () => {
        const before = await current();
        await clockPast(before.body.updated_at);
        const response = await api.patch(item, resource.change);
        assert.equal(response.status, 200, response.text);
        assert.notEqual(etagOf(response), before.etag);
        assert.ok(response.body.updated_at > before.body.updated_at, 'updated_at moves forward');
        assert.equal(response.body.created_at, before.body.created_at);
      });
    });

    describe('server fields changed on PUT/PATCH → 422 server_field, record unchanged', () => {
      const changes: readonly { field: string; value: unknown }[] = [
        { field: 'id', value: 99 },
        { field: 'id', value: String(firstId) },
        { field: 'created_at', value: '2000-01-01T00:00:00.000Z' },
        { field: 'updated_at', value: '2000-01-01T00:00:00.000Z' },
      ];
      for (const method of ['PUT', 'PATCH']) {
        for (const change of changes) {
          test(`${method} with ${change.field} = ${JSON.stringify(change.value)}`, async () => {
            const before = await current();
            const body =
              method === 'PUT' ? { ...before.body, [change.field]: change.value } : { [change.field]: change.value };
            const response = await api.request(method, item, { body });
            assertProblem(response, 422, 'validation_failed', item, [{ field: change.field, code: 'server_field' }]);
            assert.equal(response.body.detail, '1 field is invalid');
            assert.deepEqual(
              (response.body.errors as { field: string; code: string }[]).map(({ field, code }) => ({ field, code })),
              [{ field: change.field, code: 'server_field' }],
            );
            const after = await current();
            assert.deepEqual(after.body, before.body);
            assert.equal(after.etag, before.etag);
          });
        }
      }
    });

    describe('DELETE', () => {
      test('DELETE → 204 with an empty body; then GET → 404 and a second DELETE → 404', async () => {
        const response = await api.delete(item);
        assertEmpty(response, 204);
        assertProblem(await api.get(item), 404, 'record_not_found', item);
        assertProblem(await api.delete(item), 404, 'record_not_found', item);
        const head = await api.request('HEAD', item);
        assert.equal(head.status, 404);
        assert.equal(head.text, '');
      });

      test('a second DELETE changes nothing else', async () => {
        await api.post(resource.collection, { ...resource.create, ...uniqueFields(resource) });
        assert.equal((await api.delete(item)).status, 204);
        const other = await api.get(`${resource.collection}/${secondId}`);
        assert.equal((await api.delete(item)).status, 404);
        const after = await api.get(`${resource.collection}/${secondId}`);
        assert.equal(after.status, 200);
        assert.deepEqual(after.body, other.body);
        assert.equal((await api.get(resource.collection)).body.meta.total, resource.existing + 1);
      });
    });

    describe('If-Match on PUT, PATCH and DELETE', () => {
      const mismatches: readonly { name: string; header: (etag: string) => string }[] = [
        { name: 'another ETag', header: () => '"not-the-etag"' },
        { name: 'the weak form of the current ETag (strong comparison)', header: (etag) => `W/${etag}` },
      ];
      for (const write of WRITES) {
        for (const mismatch of mismatches) {
          test(`${write.method} with If-Match ${mismatch.name} → 412 precondition_failed, record unchanged`, async () => {
            const before = await current();
            const response = await api.request(write.method, item, {
              body: write.body(resource),
              headers: { 'if-match': mismatch.header(before.etag) },
            });
            assertProblem(response, 412, 'precondition_failed', item);
            const after = await current();
            assert.deepEqual(after.body, before.body);
            assert.equal(after.etag, before.etag);
          });
        }

        test(`${write.method} with If-Match of an outdated ETag → 412, the newer record kept`, async () => {
          const { etag: old } = await current();
          const changed = await api.patch(item, resource.change);
          assert.equal(changed.status, 200);
          const response = await api.request(write.method, item, {
            body: write.body(resource),
            headers: { 'if-match': old },
          });
          assertProblem(response, 412, 'precondition_failed', item);
          const after = await current();
          assert.deepEqual(after.body, changed.body);
        });

        const matches: readonly { name: string; header: (etag: string) => string }[] = [
          { name: 'the current ETag', header: (etag) => etag },
          { name: '*', header: () => '*' },
          { name: 'a list containing the current ETag', header: (etag) => `"nope", ${etag}` },
        ];
        for (const match of matches) {
          test(`${write.method} with If-Match ${match.name} → ${write.status}`, async () => {
            const before = await current();
            const response = await api.request(write.method, item, {
              body: write.body(resource),
              headers: { 'if-match': match.header(before.etag) },
            });
            assert.equal(response.status, write.status, response.text);
            if (write.status === 204) {
              assert.equal(response.text, '');
              assert.equal((await api.get(item)).status, 404);
            } else {
              const after = await current();
              assert.deepEqual(after.body, response.body);
              assert.equal(after.etag, etagOf(response));
              assert.notEqual(after.etag, before.etag);
            }
          });
        }
      }

      test('If-Match: * on a missing record → 404 (the record must exist)', async () => {
        const missing = `${resource.collection}/42`;
        assertProblem(await api.delete(missing, { 'if-match': '*' }), 404, 'record_not_found', missing);
        const put = await api.put(missing, resource.replacement, { 'if-match': '*' });
        assertProblem(put, 404, 'record_not_found', missing);
      });

      test('a non-matching If-Match answers 412 before validation (422)', async () => {
        const before = await current();
        const response = await api.put(item, resource.invalid, { 'if-match': '"not-the-etag"' });
        assertProblem(response, 412, 'precondition_failed', item);
        assert.deepEqual((await current()).body, before.body);
      });
    });

    // RFC 9110 §13.1.2: on a method other than GET and HEAD, a matching If-None-Match (`*`: any current record) is
    // 412; the comparison is weak, so W/ and the tag of a compressed answer name the record too. §13.2.2: If-Match
    // is evaluated first.
    describe('If-None-Match on PUT, PATCH and DELETE', () => {
      const matching: readonly { name: string; header: (etag: string) => string }[] = [
        { name: '*', header: () => '*' },
        { name: 'the current ETag', header: (etag) => etag },
        { name: 'the weak form of the current ETag (weak comparison)', header: (etag) => `W/${etag}` },
        { name: 'a list containing the current ETag', header: (etag) => `"nope", ${etag}` },
        { name: 'the current ETag as a gzip answer carries it', header: (etag) => `${etag.slice(0, -1)}-gzip"` },
      ];
      for (const write of WRITES) {
        for (const match of matching) {
          test(`${write.method} with If-None-Match ${match.name} → 412 precondition_failed with the ETag, record unchanged`, async () => {
            const before = await current();
            const response = await api.request(write.method, item, {
              body: write.body(resource),
              headers: { 'if-none-match': match.header(before.etag) },
            });
            assertProblem(response, 412, 'precondition_failed', item);
            assert.equal(response.body.detail, 'If-None-Match matches the current ETag of this record');
            assert.equal(response.headers.get('etag'), before.etag);
            const after = await current();
            assert.deepEqual(after.body, before.body);
            assert.equal(after.etag, before.etag);
          });
        }

        test(`${write.method} with If-None-Match of an outdated ETag → ${write.status}`, async () => {
          const { etag: old } = await current();
          const changed = await api.patch(item, resource.change);
          assert.equal(changed.status, 200);
          const response = await api.request(write.method, item, {
            body: write.body(resource),
            headers: { 'if-none-match': `${old}, "another"` },
          });
          assert.equal(response.status, write.status, response.text);
          if (write.status === 204) assert.equal((await api.get(item)).status, 404);
          else assert.deepEqual((await current()).body, response.body);
        });

        test(`${write.method} with a failing If-Match and a matching If-None-Match → the If-Match 412`, async () => {
          const before = await current();
          const response = await api.request(write.method, item, {
            body: write.body(resource),
            headers: { 'if-match': '"not-the-etag"', 'if-none-match': '*' },
          });
          assertProblem(response, 412, 'precondition_failed', item);
          assert.equal(response.body.detail, 'If-Match does not match the current ETag of this record');
          assert.equal((await current()).etag, before.etag);
        });
      }

      test('If-None-Match: * on a PUT to a missing record → 404: a PUT creates nothing here (server-made ids)', async () => {
        const missing = `${resource.collection}/42`;
        const put = await api.put(missing, resource.replacement, { 'if-none-match': '*' });
        assertProblem(put, 404, 'record_not_found', missing);
        assert.equal((await api.get(missing)).status, 404);
      });

      test('a matching If-None-Match answers 412 before validation (422)', async () => {
        const before = await current();
        const response = await api.put(item, resource.invalid, { 'if-none-match': '*' });
        assertProblem(response, 412, 'precondition_failed', item);
        assert.deepEqual((await current()).body, before.body);
      });
    });
  });
}

/** Fields that make a second record of `resource` valid next to the first (emails are unique). */
function uniqueFields(resource: Resource): Record<string, unknown> {
  return resource.name === 'users' ? { name: 'Bia Costa', email: 'bia@example.com' } : { name: 'Filter papers' };
}

// Content-Length is the body's length in bytes, whether it is measured for the answer or
// was measured once with a cached representation or list page (src/http/respond.ts).
describe('Content-Length counts bytes, not characters', () => {
  test('GET, HEAD, PATCH and PUT of an item, the list page and its repeat, in English and Portuguese, with multi-byte text', async () => {
    const api = await startTestServer();
    try {
      const name = 'Chá verde ☕ 𝄞';
      const created = await api.post('/v1/products', { name, category: 'tea', price: 3.5, description: 'ação' });
      assert.equal(created.status, 201, created.text);
      const answers: [string, TestResponse][] = [
        ['POST', created],
        ['GET item', await api.get('/v1/products/1')],
        ['GET item again (cached)', await api.get('/v1/products/1')],
        ['GET item in Portuguese', await api.get('/v1/produtos/1')],
        ['GET list', await api.get('/v1/products?category=tea')],
        ['GET list again (cached page)', await api.get('/v1/products?category=tea')],
        ['PATCH', await api.patch('/v1/products/1', { description: 'ação 2 ☕' })],
        ['PATCH changing nothing', await api.patch('/v1/products/1', { description: 'ação 2 ☕' })],
        ['PUT', await api.put('/v1/products/1', { name: `${name}!`, category: 'tea', price: 4 })],
      ];
      for (const [what, response] of answers) {
        assert.ok(response.status === 200 || response.status === 201, `${what}: ${response.status} ${response.text}`);
        assert.ok(
          Buffer.byteLength(response.text) > response.text.length,
          `${what}: the body has multi-byte characters`,
        );
        assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(response.text)), what);
      }
      const head = await api.request('HEAD', '/v1/products/1');
      const get = await api.get('/v1/products/1');
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)));
    } finally {
      await api.close();
    }
  });
});
