// Issue 48: no cache may give one caller what only another may see. Two servers in this process over one memory
// store, one with caches (kept list pages, representations, compressed forms) and one with `caches: false`; seeded
// random declarations, callers (anonymous, users, admins, a demoted admin, deleted users, API keys, read-only keys) and
// reads (lists, items, embed, fields, q, ranges, HEAD, If-None-Match with another caller's ETag) go to both, and every
// answer must be the same, byte for byte (test/cache-differential.ts). CACHE_SEED, CACHE_DECLARATIONS and CACHE_ROUNDS
// make a run longer or repeat a failure.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import { MemoryStore, startServer } from '../src/index.ts';
import type { Counts, ServerPair } from './cache-differential.ts';
import { differentialSettings, runDeclaration } from './cache-differential.ts';
import { TEST_AUTH_OPTIONS } from './helpers.ts';
import { scaled } from './long-run.ts';

/** 80 rounds per declaration meet every kind the last test names; the long run (test/long-run.ts) makes 200. */
const DEFAULTS = { seed: 48, declarations: 4, rounds: scaled(80, 200) };
const settings = differentialSettings(DEFAULTS);
/** What a run meets depends on its seed: the default run is known to meet every kind the last test names. */
const UNCOUNTED =
  settings.seed !== DEFAULTS.seed || settings.rounds < DEFAULTS.rounds ? 'counted for the default run only' : false;

async function startPair(declaration: ResourcesDeclaration): Promise<ServerPair> {
  const store = new MemoryStore(new Map());
  const options = { port: 0, seed: false, rateLimit: 0, resources: declaration, store, ...TEST_AUTH_OPTIONS };
  // One after the other: the first creates the administrator, the second finds it.
  const cached = await startServer({ ...options, caches: true });
  const uncached = await startServer({ ...options, caches: false });
  return {
    cached: cached.url,
    uncached: uncached.url,
    close: async () => {
      await Promise.all([cached.close(), uncached.close()]);
    },
  };
}

describe(`cached and uncached servers answer alike (CACHE_SEED=${settings.seed})`, () => {
  const total: Counts = new Map();
  let failed = 0;
  const countFailure = (error: unknown): never => {
    failed += 1;
    throw error;
  };
  for (let index = 0; index < settings.declarations; index++) {
    test(`declaration ${index + 1} of ${settings.declarations}, ${settings.rounds} rounds`, async () => {
      await runDeclaration(settings, index, 'in memory', startPair, total).catch(countFailure);
    });
  }
  test('the run compared every kind of answer and request it is meant to', { skip: UNCOUNTED }, (t) => {
    t.diagnostic(JSON.stringify(Object.fromEntries([...total].sort())));
    if (failed > 0) return t.skip(`${failed} declaration(s) failed: their counts are incomplete`);
    const kinds = [
      ...['200', '304', '400', '401', '403', '404'].map((status) => `status ${status}`),
      ...['GET', 'HEAD', 'If-None-Match', 'asked again', 'read again after a write', 'API key'],
      ...['embed', 'fields', 'q', 'range'],
    ];
    assert.deepEqual(
      kinds.filter((kind) => (total.get(kind) ?? 0) === 0),
      [],
      `never met; counted: ${JSON.stringify(Object.fromEntries(total))}`,
    );
  });
});
