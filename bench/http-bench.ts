// Read and write benchmark against a bare node:http reference in the same run
// (performance issue): GET item, GET list (page of 20, category filter, sort=-price),
// POST create (durable) and PATCH, at 1k and 100k products and 1, 16, 64 connections,
// printed as requests/s, p50/p99 latency and the ratio plainrest/reference.
// Usage: npm run bench [-- --quick]   (the load generator is node:http keep-alive)

import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { LoadRequest } from './bench-support.js';
import { adminToken, dataDirWithProducts, formatTable, runLoad, startBenchServer } from './bench-support.js';

const quick = process.argv.includes('--quick');
const SECONDS = quick ? 1 : 3;
const SIZES = quick ? [1000] : [1000, 100_000];
const CONNECTIONS = quick ? [16] : [1, 16, 64];
const authorization = `Bearer ${adminToken()}`;

const SCENARIOS: { name: string; request: LoadRequest }[] = [
  { name: 'GET item', request: { method: 'GET', path: '/v1/products/7', headers: { authorization }, expect: 200 } },
  { name: 'GET list', request: { method: 'GET', path: '/v1/products?category=tea&sort=-price&limit=20', headers: { authorization }, expect: 200 } },
  {
    name: 'POST create',
    request: {
      method: 'POST',
      path: '/v1/products',
      headers: { authorization, 'content-type': 'application/json' },
      body: (index) => JSON.stringify({ name: `Bench ${index}`, category: 'bench', price: (index % 1000) / 10 }),
      expect: 201,
    },
  },
  {
    name: 'PATCH',
    request: {
      method: 'PATCH',
      path: '/v1/products/9',
      headers: { authorization, 'content-type': 'application/merge-patch+json' },
      body: (index) => JSON.stringify({ price: (index % 1000) / 10 }),
      expect: 200,
    },
  },
];

const rows: string[][] = [];
for (const size of SIZES) {
  for (const scenario of SCENARIOS) {
    for (const connections of CONNECTIONS) {
      const results = [];
      for (const mode of ['durable', 'reference'] as const) {
        const dir = await dataDirWithProducts(size);
        const server = await startBenchServer(mode, dir);
        results.push(await runLoad(server.url, scenario.request, connections, SECONDS));
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      }
      const [plain, reference] = results as [Awaited<ReturnType<typeof runLoad>>, Awaited<ReturnType<typeof runLoad>>];
      rows.push([
        scenario.name,
        size.toLocaleString('en'),
        String(connections),
        (plain.requestsPerSecond / reference.requestsPerSecond).toFixed(2),
        plain.requestsPerSecond.toFixed(0),
        reference.requestsPerSecond.toFixed(0),
        `${plain.p50.toFixed(2)} / ${plain.p99.toFixed(2)}`,
        `${reference.p50.toFixed(2)} / ${reference.p99.toFixed(2)}`,
        String(plain.errors + reference.errors),
      ]);
    }
  }
}
console.log(`${SECONDS} s per cell, ${availableParallelism()} cores, node ${process.version}, load from node:http keep-alive`);
console.log(
  formatTable(['scenario', 'stored', 'conns', 'ratio', 'plainrest req/s', 'reference req/s', 'plainrest p50/p99 ms', 'reference p50/p99 ms', 'errors'], rows),
);
