// JSON Merge Patch: src/records/merge-patch.ts against the examples of RFC 7396 Appendix A, plus the
// prototype-pollution guard; then PATCH over HTTP, which merges nested objects at every depth and validates the
// result (RFC 7396 §2, §3's example), checked against that function on random patches.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import type { JsonObject, JsonValue } from '../src/records/json.ts';
import { applyMergePatch } from '../src/records/merge-patch.ts';
import { assertProblem } from './assertions.ts';
import type { TestServer } from './helpers.ts';
import { mulberry32, startTestServer } from './helpers.ts';

describe('merge patch: RFC 7396 Appendix A', () => {
  const examples: [JsonValue, JsonValue, JsonValue][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  examples.forEach(([target, patch, expected], index) => {
    test(`example ${index + 1}: ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(applyMergePatch(target, patch), expected);
    });
  });

  test('the target is not modified', () => {
    const target = { a: { b: 'c' } };
    applyMergePatch(target, { a: { b: 'd' } });
    assert.deepEqual(target, { a: { b: 'c' } });
  });

  test('a "__proto__" key becomes an own property, never the prototype', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as JsonValue;
    const result = applyMergePatch({}, patch) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.deepEqual(Object.keys(result), ['__proto__']);
  });
});

// ---------------------------------------------------------------------------------------
// Over HTTP (README: Methods): a PATCH merges at every depth, and the result is what the declaration must accept.

const ARTICLES: ResourcesDeclaration = {
  resources: {
    articles: {
      singular: 'article',
      access: { list: 'public', read: 'public', create: 'admin', update: 'admin', delete: 'admin' },
      properties: {
        title: { type: 'string' },
        author: {
          type: 'object',
          properties: { given_name: { type: 'string' }, family_name: { type: 'string' } },
          required: ['given_name'],
        },
        tags: { type: 'array', items: { type: 'string' } },
        content: { type: 'string' },
        phone_number: { type: 'string' },
        address: {
          type: 'object',
          properties: {
            city: { type: 'string' },
            zip: { type: 'string', pattern: '^[0-9]{4}$' },
            note: { type: 'string' },
            geo: {
              type: 'object',
              properties: { lat: { type: 'number' }, lng: { type: 'number' }, label: { type: 'string' } },
              required: ['lat', 'lng'],
            },
          },
          required: ['city', 'zip'],
        },
      },
      required: ['title'],
      names: {
        pt: {
          collection: 'artigos',
          singular: 'artigo',
          properties: { title: 'titulo', address: 'endereco', city: 'cidade', zip: 'cep', note: 'nota' },
        },
      },
    },
  },
};

/** The record's own fields, as a PATCH may name them: without the id and the timestamps. */
function ownFields(body: Record<string, unknown>): Record<string, unknown> {
  const {
    id: _id,
    created_at: _created,
    updated_at: _updated,
    criado_em: _criado,
    atualizado_em: _atualizado,
    ...rest
  } = body;
  return rest;
}

describe('merge patch over HTTP (RFC 7396 §2, §3)', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer({ resources: ARTICLES });
  });
  after(() => api.close());

  async function created(fields: Record<string, unknown>): Promise<string> {
    const response = await api.post('/v1/articles', fields);
    assert.equal(response.status, 201, response.text);
    return response.headers.get('location') as string;
  }

  test("RFC 7396 §3's example: the patch merges into the author, removes family_name, replaces the tags", async () => {
    const path = await created({
      title: 'Goodbye!',
      author: { given_name: 'John', family_name: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    });
    const patch = {
      title: 'Hello!',
      phone_number: '+01-123-456-7890',
      author: { family_name: null },
      tags: ['example'],
    };
    const response = await api.patch(path, patch);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(ownFields(response.body), {
      title: 'Hello!',
      author: { given_name: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phone_number: '+01-123-456-7890',
    });
    assert.deepEqual((await api.get(path)).body, response.body);
  });

  test('a partial nested object merges: the members it leaves out stay, null removes one at any depth', async () => {
    const path = await created({
      title: 'Depth',
      address: { city: 'Lisboa', zip: '1000', note: 'ring twice', geo: { lat: 38.7, lng: -9.1, label: 'centre' } },
    });
    const cases: readonly [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { address: { zip: '2000' } },
        { city: 'Lisboa', zip: '2000', note: 'ring twice', geo: { lat: 38.7, lng: -9.1, label: 'centre' } },
      ],
      [{ address: { note: null } }, { city: 'Lisboa', zip: '2000', geo: { lat: 38.7, lng: -9.1, label: 'centre' } }],
      [
        { address: { geo: { label: null, lat: 41.1 } } },
        { city: 'Lisboa', zip: '2000', geo: { lat: 41.1, lng: -9.1 } },
      ],
      [{ address: { geo: null } }, { city: 'Lisboa', zip: '2000' }],
      [{ address: { note: null, city: 'Porto' } }, { city: 'Porto', zip: '2000' }],
    ];
    for (const [patch, address] of cases) {
      const response = await api.patch(path, patch);
      assert.equal(response.status, 200, `${JSON.stringify(patch)}: ${response.text}`);
      assert.deepEqual(response.body.address, address, JSON.stringify(patch));
    }
  });

  test('the merged result is validated: 422 names the fields of the result that fail, and nothing changes', async () => {
    const path = await created({
      title: 'Checked',
      address: { city: 'Faro', zip: '8000', geo: { lat: 37, lng: -7.9 } },
    });
    const before = await api.get(path);
    const cases: readonly [Record<string, unknown>, { field: string; code: string }[]][] = [
      [{ address: { city: null } }, [{ field: 'address.city', code: 'required' }]],
      [{ address: { zip: 'abc' } }, [{ field: 'address.zip', code: 'pattern_mismatch' }]],
      [{ address: { geo: { lat: null } } }, [{ field: 'address.geo.lat', code: 'required' }]],
      [{ address: { nope: 1 } }, [{ field: 'address.nope', code: 'unknown_field' }]],
      [{ author: { family_name: 'Doe' } }, [{ field: 'author.given_name', code: 'required' }]],
    ];
    for (const [patch, errors] of cases) {
      const response = await api.patch(path, patch);
      assertProblem(response, 422, 'validation_failed', path, errors);
    }
    const after = await api.get(path);
    assert.equal(after.text, before.text);
    assert.equal(after.headers.get('etag'), before.headers.get('etag'));
  });

  test("in another language, the patch merges in the client's names", async () => {
    const path = await created({ title: 'Língua', address: { city: 'Braga', zip: '4700', note: 'sé' } });
    const localized = path.replace('/v1/articles/', '/v1/artigos/');
    const response = await api.patch(localized, { endereco: { cep: '4710', nota: null } });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.endereco, { cidade: 'Braga', cep: '4710' });
    assert.deepEqual((await api.get(path)).body.address, { city: 'Braga', zip: '4710' });
  });

  // A property check against the reference implementation (tested above against the RFC's appendix): for random
  // patches of the nested value, the server's result is applyMergePatch(stored, patch) whenever that is valid.
  test('random nested patches: the server agrees with applyMergePatch on the representation', async () => {
    const random = mulberry32(7396);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const path = await created({ title: 'Random', address: { city: 'Évora', zip: '7000' } });
    for (let round = 0; round < 60; round++) {
      const stored = (await api.get(path)).body as JsonObject;
      const address: Record<string, JsonValue> = {};
      if (random() < 0.5) address['city'] = pick(['Beja', 'Tomar', null]);
      if (random() < 0.5) address['zip'] = pick(['1111', '2222']);
      if (random() < 0.5) address['note'] = pick(['a', 'b', null]);
      if (random() < 0.5) {
        const geo: Record<string, JsonValue> = {};
        if (random() < 0.6) geo['lat'] = pick([1, 2, null]);
        if (random() < 0.6) geo['lng'] = pick([3, 4]);
        if (random() < 0.5) geo['label'] = pick(['x', null]);
        address['geo'] = random() < 0.1 ? null : geo;
      }
      const patch: JsonObject = random() < 0.1 ? { address: null } : { address };
      const expected = applyMergePatch(stored, patch) as JsonObject;
      const result = expected['address'] as JsonObject | undefined;
      const geo = result?.['geo'] as JsonObject | undefined;
      const valid =
        result === undefined ||
        (typeof result['city'] === 'string' &&
          typeof result['zip'] === 'string' &&
          (geo === undefined || (typeof geo['lat'] === 'number' && typeof geo['lng'] === 'number')));
      const response = await api.patch(path, patch);
      if (!valid) {
        assert.equal(response.status, 422, `${JSON.stringify(patch)} on ${JSON.stringify(stored)}: ${response.text}`);
        continue;
      }
      assert.equal(response.status, 200, `${JSON.stringify(patch)} on ${JSON.stringify(stored)}: ${response.text}`);
      assert.deepEqual(ownFields(response.body), ownFields(expected), JSON.stringify(patch));
    }
  });
});
