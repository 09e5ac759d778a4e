// Write benchmark (durable storage issue): creates per second with 1, 16 and 64
// concurrent clients at 1k and 100k stored products, durable (journal + fsync, group
// commit) against the same server with journaling off, and the ratio between them.
// Write cost must not depend on how many records are stored.
// Usage: npm run bench:writes [-- --quick] [--node]   (load from wrk, or node:http with --node)

import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataDirWithProducts } from './bench-data.ts';
import { adminToken, formatTable } from './bench-support.ts';
import { removeAtExit } from './cleanup.ts';
import type { LoadRequest, LoadResult } from './load-generators.ts';
import { chooseLoadGenerator } from './load-generators.ts';
import { startBenchServer } from './server-processes.ts';

const quick = process.argv.includes('--quick');
const scriptDir = await mkdtemp(join(tmpdir(), 'plainrest-bench-scripts-'));
removeAtExit(scriptDir);
const load = chooseLoadGenerator(process.argv.includes('--node'), scriptDir);
const SECONDS = quick ? 1 : 4;
const SIZES = quick ? [1000] : [1000, 100_000];
const CONNECTIONS = [1, 16, 64];

const spec: LoadRequest = {
  method: 'POST',
  path: '/v1/products',
  headers: { authorization: `Bearer ${adminToken()}`, 'content-type': 'application/json' },
  bodyTemplate: '{"name":"Bench {n}","category":"bench","price":{price}}',
  expect: 201,
};

const rows: string[][] = [];
for (const size of SIZES) {
  for (const connections of CONNECTIONS) {
    const results: LoadResult[] = [];
    for (const mode of ['durable', 'memory'] as const) {
      const dir = await dataDirWithProducts(size);
      removeAtExit(dir);
      const server = await startBenchServer(mode, dir);
      results.push(await load.run(server.url, spec, connections, SECONDS));
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
    const [durable, memory] = results as [LoadResult, LoadResult];
    rows.push([
      size.toLocaleString('en'),
      String(connections),
      durable.requestsPerSecond.toFixed(0),
      memory.requestsPerSecond.toFixed(0),
      (durable.requestsPerSecond / memory.requestsPerSecond).toFixed(2),
      `${durable.p50.toFixed(2)} / ${durable.p99.toFixed(2)}`,
      `${memory.p50.toFixed(2)} / ${memory.p99.toFixed(2)}`,
      String(durable.errors + memory.errors),
    ]);
  }
}
console.log(
  `POST /v1/products, ${SECONDS} s per cell, ${availableParallelism()} cores, node ${process.version}, load from ${load.name}`,
);
console.log(
  formatTable(
    [
      'stored',
      'clients',
      'durable req/s',
      'journal off req/s',
      'durable/off',
      'durable p50/p99 ms',
      'off p50/p99 ms',
      'errors',
    ],
    rows,
  ),
);
