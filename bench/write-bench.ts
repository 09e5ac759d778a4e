// Write benchmark (durable storage issue): creates per second with 1, 16 and 64
// concurrent clients at 1k and 100k stored products, durable (journal + fsync, group
// commit) against the same server with journaling off, and the ratio between them.
// Write cost must not depend on how many records are stored.
// Usage: npm run bench:writes [-- --quick]

import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { adminToken, dataDirWithProducts, formatTable, runLoad, startBenchServer } from './bench-support.js';

const quick = process.argv.includes('--quick');
const SECONDS = quick ? 1 : 4;
const SIZES = quick ? [1000] : [1000, 100_000];
const CONNECTIONS = [1, 16, 64];

const spec = {
  method: 'POST',
  path: '/v1/products',
  headers: { authorization: `Bearer ${adminToken()}`, 'content-type': 'application/json' },
  body: (index: number) => JSON.stringify({ name: `Bench ${index}`, category: 'bench', price: (index % 1000) / 10 }),
  expect: 201,
};

const rows: string[][] = [];
for (const size of SIZES) {
  for (const connections of CONNECTIONS) {
    const results = [];
    for (const mode of ['durable', 'memory'] as const) {
      const dir = await dataDirWithProducts(size);
      const server = await startBenchServer(mode, dir);
      results.push(await runLoad(server.url, spec, connections, SECONDS));
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
    const [durable, memory] = results as [Awaited<ReturnType<typeof runLoad>>, Awaited<ReturnType<typeof runLoad>>];
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
console.log(`POST /v1/products, ${SECONDS} s per cell, ${availableParallelism()} cores, node ${process.version}`);
console.log(
  formatTable(['stored', 'clients', 'durable req/s', 'journal off req/s', 'durable/off', 'durable p50/p99 ms', 'off p50/p99 ms', 'errors'], rows),
);
