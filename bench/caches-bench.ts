// `npm run bench -- --caches`: what each cache is worth (README: Caches). The same server twice, as `npm start` runs
// it, with CACHES=true and CACHES=false, on 1,000 products, alternated round by round at 64 connections: a record's
// kept representation (GET item over every product), a kept list page, and a kept compressed page (gzip).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchProducts, writeDataDirectory } from './bench-data.ts';
import { adminToken, BENCH_ADMIN_PASSWORD, BENCH_TOKEN_SECRET, formatTable } from './bench-support.ts';
import { removeAtExit } from './cleanup.ts';
import type { LoadGenerator, LoadRequest } from './load-generators.ts';
import type { BenchModeName } from './postgres-bench.ts';
import { median } from './targets.ts';
import { startPlainrest } from './server-processes.ts';

const PRODUCTS = 1000;
const CONNECTIONS = 64;
const SECONDS: Record<BenchModeName, number> = { full: 2, quick: 1, smoke: 0.3 };
const ROUNDS: Record<BenchModeName, number> = { full: 5, quick: 3, smoke: 1 };
/** A cache is worth keeping when the answers a second it allows exceed those without it by more than this. */
const WORTH = 1.05;
const SETTINGS = { RATE_LIMIT: '0', ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, TOKEN_SECRET: BENCH_TOKEN_SECRET };

interface CacheScenario {
  readonly name: string;
  /** The cache the scenario measures. */
  readonly cache: string;
  readonly request: (authorization: string) => LoadRequest;
}

const SCENARIOS: readonly CacheScenario[] = [
  {
    name: 'GET item, every product in turn',
    cache: 'representations',
    request: (authorization) => ({
      method: 'GET',
      path: '/v1/products/{id}',
      paths: Array.from({ length: PRODUCTS }, (_, index) => `/v1/products/${index + 1}`),
      headers: { Authorization: authorization },
      expect: 200,
    }),
  },
  {
    name: 'GET list (category, sort=-price)',
    cache: 'list pages',
    request: (authorization) => ({
      method: 'GET',
      path: '/v1/products?category=tea&sort=-price',
      headers: { Authorization: authorization },
      expect: 200,
    }),
  },
  {
    name: 'GET list of 100, gzip',
    cache: 'list pages and compressed forms',
    request: (authorization) => ({
      method: 'GET',
      path: '/v1/products?limit=100',
      headers: { Authorization: authorization, 'Accept-Encoding': 'gzip' },
      expect: 200,
    }),
  },
];

export async function runCachesBench(modeName: BenchModeName, load: LoadGenerator): Promise<boolean> {
  const work = await mkdtemp(join(tmpdir(), 'plainrest-caches-'));
  removeAtExit(work);
  const probe = { path: '/healthz', headers: {} };
  const servers = [];
  for (const caches of ['true', 'false']) {
    const dataDir = join(work, `data-${caches}`);
    await writeDataDirectory(dataDir, benchProducts(PRODUCTS));
    servers.push(
      await startPlainrest({ ...SETTINGS, CACHES: caches, DATA_DIR: dataDir }, join(work, `${caches}.log`), probe),
    );
  }
  const [kept, afresh] = servers as [(typeof servers)[number], (typeof servers)[number]];
  const rows: string[][] = [];
  let allWorth = true;
  try {
    for (const scenario of SCENARIOS) {
      const request = scenario.request(`Bearer ${adminToken()}`);
      const ratios: number[] = [];
      const keptRates: number[] = [];
      const afreshRates: number[] = [];
      for (let round = 0; round < ROUNDS[modeName]; round++) {
        // Alternated, each first in turn, so that the machine's drift falls on both alike.
        const order = round % 2 === 0 ? [kept, afresh] : [afresh, kept];
        const rates = new Map<unknown, number>();
        for (const server of order) {
          const result = await load.run(server.url, request, CONNECTIONS, SECONDS[modeName]);
          if (result.errors > 0) throw new Error(`${scenario.name}: ${result.errors} errors`);
          rates.set(server, result.requestsPerSecond);
        }
        keptRates.push(rates.get(kept) as number);
        afreshRates.push(rates.get(afresh) as number);
        ratios.push((rates.get(kept) as number) / (rates.get(afresh) as number));
      }
      const ratio = median(ratios);
      const worth = ratio > WORTH;
      allWorth &&= worth;
      rows.push([
        scenario.name,
        scenario.cache,
        Math.round(median(keptRates)).toLocaleString('en'),
        Math.round(median(afreshRates)).toLocaleString('en'),
        ratio.toFixed(2),
        worth ? 'kept' : `under ${WORTH}`,
      ]);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await rm(work, { recursive: true, force: true });
  }
  console.log(
    `\n## Caches (${PRODUCTS.toLocaleString('en')} products, ${CONNECTIONS} connections, ${ROUNDS[modeName]} rounds ` +
      `of ${SECONDS[modeName]} s, ${load.name}; the ratio is the median of the rounds'\n`,
  );
  console.log(formatTable(['answer', 'cache', 'answers/s, kept', 'answers/s, CACHES=false', 'ratio', 'verdict'], rows));
  return allWorth;
}
