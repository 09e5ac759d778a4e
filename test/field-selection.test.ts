// Sparse field selection (README: Lists; http/field-selection.ts): `fields=` on a record
// and on a list answers only the properties named, in the declared order, with an ETag of
// its own that If-None-Match honours; names and the parameter in either vocabulary;
// links keep the selection; an unknown, write-only, empty or repeated name is a 400.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { createProduct, startTestServer } from './helpers.ts';
import { assertJson, assertProblem, STRONG_ETAG } from './assertions.ts';

let api: TestServer;
let kettle: any;
let cup: any;
before(async () => {
  api = await startTestServer();
  kettle = await createProduct(api, { name: 'Kettle', category: 'tea', price: 20, description: 'a kettle' });
  await createProduct(api, { name: 'Teapot', category: 'tea', price: 30 });
  cup = await createProduct(api, { name: 'Cup', category: 'tea', price: 5 });
});
after(() => api.close());

describe('fields= on a record', () => {
  test('only the named properties, in the declared order whatever the order asked, with their own strong ETag', async () => {
    const whole = await api.get(`/v1/products/${kettle.id}`);
    const selected = await api.get(`/v1/products/${kettle.id}?fields=price,id,name`);
    assertJson(selected, 200);
    assert.equal(selected.text, `{"id":${kettle.id},"name":"Kettle","price":20}`);
    assert.equal(selected.headers.get('content-length'), String(Buffer.byteLength(selected.text)));
    const etag = selected.headers.get('etag') as string;
    assert.match(etag, STRONG_ETAG);
    assert.notEqual(etag, whole.headers.get('etag'), 'another selection, another ETag');
    assert.equal(
      (await api.get(`/v1/products/${kettle.id}?fields=name,price,id`)).headers.get('etag'),
      etag,
      'the same set, the same ETag',
    );
    const notModified = await api.get(`/v1/products/${kettle.id}?fields=id,name,price`, { 'If-None-Match': etag });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.text, '');
    assert.equal(notModified.headers.get('etag'), etag);
    assert.equal(
      (await api.get(`/v1/products/${kettle.id}`, { 'If-None-Match': etag })).status,
      200,
      "the selection's ETag is not the record's",
    );
    const head = await api.request('HEAD', `/v1/products/${kettle.id}?fields=name`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength('{"name":"Kettle"}')));
  });

  test('a property the record does not hold is left out, as in the whole record', async () => {
    const selected = await api.get(`/v1/products/${cup.id}?fields=name,description`);
    assertJson(selected, 200);
    assert.deepEqual(selected.body, { name: 'Cup' });
  });

  test("in Portuguese: the parameter campos, names in either vocabulary, the answer in the path's", async () => {
    const selected = await api.get(`/v1/produtos/${kettle.id}?campos=nome,price`);
    assertJson(selected, 200);
    assert.equal(selected.text, '{"nome":"Kettle","preco":20}');
    const english = await api.get(`/v1/products/${kettle.id}?campos=nome,preco`);
    assert.equal(english.text, '{"name":"Kettle","price":20}');
  });

  test('a user may select their own fields but never the password', async () => {
    const answer = await api.get('/v1/users/1?fields=id,email,role');
    assertJson(answer, 200);
    assert.deepEqual(answer.body, { id: 1, email: 'admin@example.com', role: 'admin' });
    assertProblem(await api.get('/v1/users/1?fields=id,password'), 400, 'invalid_query', '/v1/users/1', [
      { field: 'fields', code: 'invalid_value' },
    ]);
    assertProblem(await api.get('/v1/users/1?fields=password_hash'), 400, 'invalid_query', '/v1/users/1', [
      { field: 'fields', code: 'invalid_value' },
    ]);
  });

  test('an unknown name, an empty item, a name twice, the parameter twice, another parameter: 400 naming it', async () => {
    const path = `/v1/products/${kettle.id}`;
    for (const query of [
      'fields=name,colour',
      'fields=',
      'fields=name,,price',
      'fields=name,name',
      'fields=name,nome',
    ]) {
      const answer = await api.get(`${path}?${query}`);
      assertProblem(answer, 400, 'invalid_query', path, [{ field: 'fields', code: 'invalid_value' }]);
      assert.match(
        answer.body.errors[0].message,
        /^must list distinct readable fields among id, name, category, price, description, created_at, updated_at, separated by commas$/,
      );
    }
    assertProblem(await api.get(`${path}?fields=name&campos=price`), 400, 'invalid_query', path, [
      { field: 'campos', code: 'repeated_parameter' },
    ]);
    assertProblem(await api.get(`${path}?fields=name&page=2`), 400, 'invalid_query', path, [
      { field: 'page', code: 'unknown_parameter' },
    ]);
  });

  test('writes take no selection', async () => {
    const path = `/v1/products/${kettle.id}`;
    assertProblem(await api.patch(`${path}?fields=name`, { price: 21 }), 400, 'invalid_query', path, [
      { field: 'fields', code: 'unknown_parameter' },
    ]);
    assert.equal((await api.get(path)).body.price, 20, 'nothing written');
  });
});

describe('fields= on a list', () => {
  test('each record trimmed, meta unchanged, and every link keeps the selection', async () => {
    const page = await api.get('/v1/products?category=tea&sort=-price&limit=2&fields=name,price');
    assertJson(page, 200);
    assert.deepEqual(page.body.data, [
      { name: 'Teapot', price: 30 },
      { name: 'Kettle', price: 20 },
    ]);
    assert.deepEqual(page.body.meta, { page: 1, limit: 2, total: 3, pages: 2 });
    assert.equal(page.body.links.next, '/v1/products?category=tea&sort=-price&fields=name%2Cprice&page=2&limit=2');
    assert.match(page.headers.get('link') as string, /fields=name%2Cprice&page=2&limit=2>; rel="next"/);
    const next = await api.get(page.body.links.next);
    assert.deepEqual(next.body.data, [{ name: 'Cup', price: 5 }]);
    const whole = await api.get('/v1/products?category=tea&sort=-price&limit=2');
    assert.notEqual(page.headers.get('etag'), whole.headers.get('etag'));
    assert.equal(
      (
        await api.get('/v1/products?category=tea&sort=-price&limit=2&fields=name,price', {
          'If-None-Match': page.headers.get('etag') as string,
        })
      ).status,
      304,
    );
  });

  test('in Portuguese the links use campos and the Portuguese names', async () => {
    const page = await api.get('/v1/produtos?categoria=tea&limite=1&campos=name');
    assertJson(page, 200);
    assert.deepEqual(page.body.data, [{ nome: 'Kettle' }]);
    assert.equal(page.body.links.next, '/v1/produtos?categoria=tea&campos=nome&pagina=2&limite=1');
  });

  test('a bad selection is a 400 naming the parameter as sent', async () => {
    assertProblem(await api.get('/v1/products?fields=weight'), 400, 'invalid_query', '/v1/products', [
      { field: 'fields', code: 'invalid_value' },
    ]);
    assertProblem(await api.get('/v1/produtos?campos=senha'), 400, 'invalid_query', '/v1/produtos', [
      { field: 'campos', code: 'invalid_value' },
    ]);
    assertProblem(await api.get('/v1/products?fields=name&fields=price'), 400, 'invalid_query', '/v1/products', [
      { field: 'fields', code: 'repeated_parameter' },
    ]);
  });
});
