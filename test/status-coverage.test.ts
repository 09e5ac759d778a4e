// Every status code the OpenAPI document promises for an operation is produced here,
// over HTTP, for every operation in both vocabularies — so the document cannot list a
// status the server never answers, and a status the server answers is documented
// (each answer is checked against the operation's documented responses).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Json } from './status-recipes.ts';
import { operationsOf, produceAll } from './status-recipes.ts';
import { startTestServer } from './helpers.ts';

const api = await startTestServer({ seed: true });
const doc = (await api.as(undefined).get('/v1/openapi.json')).body as Json;
await api.close();

describe('every documented status of every operation is produced', () => {
  for (const operation of operationsOf(doc)) {
    test(`${operation.method.toUpperCase()} ${operation.template}: ${operation.statuses.join(' ')}`, async () => {
      const results = await produceAll(operation);
      assert.equal(results.length, operation.statuses.length);
      for (const { expected, response } of results) {
        assert.equal(
          response.status,
          expected,
          `${operation.method.toUpperCase()} ${operation.template} → expected ${expected}: ${response.text}`,
        );
      }
    });
  }
});
