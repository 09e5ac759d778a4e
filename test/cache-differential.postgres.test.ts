// Issue 48's differential test on PostgreSQL (test/cache-differential.ts): two servers on one throwaway database, one
// with caches and one with `caches: false`, the same seeded declarations, callers and reads as in memory, fewer rounds;
// every answer must be the same, byte for byte. (The PostgreSQL store gives no collection versions, so no list page is
// reused there; what a setting changes on this store shows here.) Skipped, saying why, without PostgreSQL.
// CACHE_SEED, CACHE_DECLARATIONS and CACHE_ROUNDS as in cache-differential.test.ts.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import { startServer } from '../src/index.ts';
import type { Counts, ServerPair } from './cache-differential.ts';
import { differentialSettings, runDeclaration } from './cache-differential.ts';
import { TEST_AUTH_OPTIONS } from './helpers.ts';
import { scaled } from './long-run.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

/** 30 rounds per declaration meet every kind the last test names; the long run (test/long-run.ts) makes 60. */
const DEFAULTS = { seed: 48, declarations: 2, rounds: scaled(30, 60) };
const settings = differentialSettings(DEFAULTS);
/** What a run meets depends on its seed: the default run is known to meet every kind the last test names. */
const UNCOUNTED =
  settings.seed !== DEFAULTS.seed || settings.rounds < DEFAULTS.rounds ? 'counted for the default run only' : false;

let cluster: Promise<PostgresCluster> | undefined;

after(async () => {
  if (cluster !== undefined) await (await cluster).stop();
});

/** A new database for each declaration: its tables are the declaration's. */
async function startPair(declaration: ResourcesDeclaration): Promise<ServerPair> {
  cluster ??= startCluster();
  const postgres = await cluster;
  const database = await postgres.createDatabase();
  const options = {
    port: 0,
    seed: false,
    rateLimit: 0,
    resources: declaration,
    database: postgres.url(database),
    ...TEST_AUTH_OPTIONS,
  };
  // One after the other: the first creates the tables and the administrator, the second finds them.
  const cached = await startServer({ ...options, caches: true });
  const uncached = await startServer({ ...options, caches: false });
  return {
    cached: cached.url,
    uncached: uncached.url,
    close: async () => {
      await Promise.all([cached.close(), uncached.close()]);
      await postgres.dropDatabase(database);
    },
  };
}

describe(`cached and uncached servers on one PostgreSQL answer alike (CACHE_SEED=${settings.seed})`, () => {
  const total: Counts = new Map();
  let failed = 0;
  const countFailure = (error: unknown): never => {
    failed += 1;
    throw error;
  };
  for (let index = 0; index < settings.declarations; index++) {
    test(
      `declaration ${index + 1} of ${settings.declarations}, ${settings.rounds} rounds`,
      { skip: POSTGRES_SKIP },
      () => runDeclaration(settings, index, 'on PostgreSQL', startPair, total).catch(countFailure),
    );
  }
  test(
    'the run compared every kind of answer and request it is meant to',
    { skip: POSTGRES_SKIP === false ? UNCOUNTED : POSTGRES_SKIP },
    (t) => {
      t.diagnostic(JSON.stringify(Object.fromEntries([...total].sort())));
      if (failed > 0) return t.skip(`${failed} declaration(s) failed: their counts are incomplete`);
      const kinds = [
        ...['200', '304', '401', '403', '404'].map((status) => `status ${status}`),
        ...['GET', 'HEAD', 'If-None-Match', 'asked again', 'read again after a write', 'API key'],
        ...['embed', 'fields', 'q', 'range'],
      ];
      assert.deepEqual(
        kinds.filter((kind) => (total.get(kind) ?? 0) === 0),
        [],
      );
    },
  );
});
