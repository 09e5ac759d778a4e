// Random declarations and random bodies (README: Your own resources): whatever a valid
// declaration says and whatever a client sends, the answer is never a 5xx, and every refusal
// is a problem body (README: Errors). Each round makes a declaration from a seeded generator
// (declared-fuzz-declaration.ts: types, bounds, enums, nested objects and arrays, filters,
// sort keys, uniqueness, integer, uuid and string ids, singletons, references and arrays of
// references with their x-on-delete, a parent), checks that the checker accepts it, serves
// it, and sends writes, reads, lists and batches (declared-fuzz-requests.ts) naming the ids
// the server made, made-up and bad ones, with bodies that fit, almost fit or do not fit.
// DECLARED_FUZZ_SEED=n runs the rounds from other seeds (round r uses r * n).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import { randomDeclaration, type Random } from './declared-fuzz-declaration.ts';
import { type FuzzRequest, madeIdOf, type MadeRecords, randomBatch, randomRequest } from './declared-fuzz-requests.ts';
import { mulberry32, startTestServer, type TestResponse, type TestServer } from './helpers.ts';

const ROUNDS = 6;
const REQUESTS_PER_ROUND = 120;
const SEED = Number(process.env['DECLARED_FUZZ_SEED'] ?? 7919);

/** The collection a made record's path names: the segment before its id. */
const collectionOf = (path: string): string => path.split('/').at(-2) as string;

/** Keeps what a 201 made (its `Location` and the id its body says) and forgets what a 204 deleted. */
function remember(made: MadeRecords, request: FuzzRequest, status: number, location: string | null, body: unknown) {
  if (status === 201 && location !== null && typeof body === 'object' && body !== null && 'id' in body) {
    const collection = collectionOf(location);
    made.set(collection, [...(made.get(collection) ?? []), { id: body.id, path: location }]);
  } else if (request.method === 'DELETE' && status === 204) {
    const collection = collectionOf(request.path);
    made.set(
      collection,
      (made.get(collection) ?? []).filter((record) => record.path !== request.path),
    );
  }
}

/** Not a 5xx, and a refusal is a problem body of its own status (README: Errors). */
function assertAnswer(response: TestResponse, seed: number, sent: unknown): void {
  const context = `seed ${seed}: ${JSON.stringify(sent)} → ${response.status} ${response.text}`;
  assert.ok(response.status < 500, context);
  if (response.status < 400) return;
  assert.match(response.headers.get('content-type') ?? '', /^application\/(problem\+)?json/, context);
  assert.equal(response.body?.type, 'about:blank', context);
  assert.equal(response.body?.status, response.status, context);
  assert.equal(typeof response.body?.code, 'string', context);
  assert.equal(typeof response.body?.title, 'string', context);
}

async function send(api: TestServer, request: FuzzRequest): Promise<TestResponse> {
  return api.request(request.method, request.path, {
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.headers === undefined ? {} : { headers: request.headers }),
  });
}

/** One request, or a batch of writes (its operations' statuses); what a 201 made is named by later requests. */
async function step(
  api: TestServer,
  random: Random,
  declaration: ResourcesDeclaration,
  made: MadeRecords,
  seed: number,
) {
  const idOf = madeIdOf(random, declaration, made);
  if (random() < 0.12) {
    const operations = randomBatch(random, declaration, made, idOf);
    const response = await api.post('/v1/batches', { operations });
    assertAnswer(response, seed, { batch: operations });
    if (response.status !== 200) return [response.status];
    return operations.map((operation, index) => {
      const result = response.body.results[index];
      remember(made, operation, result.status, result.headers?.Location ?? null, result.body);
      return result.status as number;
    });
  }
  const request = randomRequest(random, declaration, made, idOf, true);
  const response = await send(api, request);
  assertAnswer(response, seed, request);
  remember(made, request, response.status, response.headers.get('location'), response.body);
  return [response.status];
}

describe('random declarations with random bodies never answer 5xx', () => {
  for (let round = 1; round <= ROUNDS; round++) {
    test(`round ${round}`, async () => {
      const seed = round * SEED;
      const random = mulberry32(seed);
      const declaration = randomDeclaration(random);
      assert.deepEqual(checkDeclaration(declaration), [], `seed ${seed}: the generator makes valid declarations`);
      const api = await startTestServer({ resources: declaration });
      try {
        const made: MadeRecords = new Map();
        const statuses = new Set<number>();
        for (let i = 0; i < REQUESTS_PER_ROUND; i++)
          for (const status of await step(api, random, declaration, made, seed)) statuses.add(status);
        assert.ok(statuses.has(201) && statuses.has(422), `writes both succeed and fail: ${[...statuses].join(', ')}`);
      } finally {
        await api.close();
      }
    });
  }
});
