// `npm run bench -- --compression` (also the end of the full run): what compression costs and saves on the two
// largest answers, a 100-product page and the OpenAPI document, each as it is and with `Accept-Encoding: gzip` and
// `br`: the bytes sent and the answers a second at 64 connections. Nothing is judged: the figures are for reading.

import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchProducts, writeDataDirectory } from './bench-data.ts';
import { adminToken, BENCH_ADMIN_PASSWORD, BENCH_TOKEN_SECRET, formatTable } from './bench-support.ts';
import { removeAtExit } from './cleanup.ts';
import type { LoadGenerator } from './load-generators.ts';
import type { BenchModeName } from './postgres-bench.ts';
import { startPlainrest } from './server-processes.ts';

const PRODUCTS = 1000;
const CONNECTIONS = 64;
const SECONDS: Record<BenchModeName, number> = { full: 5, quick: 1, smoke: 1 };
const SETTINGS = { RATE_LIMIT: '0', ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, TOKEN_SECRET: BENCH_TOKEN_SECRET };
const ANSWERS = [
  { name: 'a page of 100 products', path: '/v1/products?limit=100' },
  { name: 'the OpenAPI document', path: '/v1/openapi.json' },
];
const CODINGS = [undefined, 'gzip', 'br'] as const;

/** The bytes of one answer's body as sent, and its Content-Encoding. */
function bodyBytes(url: string, headers: Record<string, string>): Promise<{ bytes: number; coding: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers, agent: false }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.once('end', () => resolve({ bytes, coding: String(response.headers['content-encoding'] ?? 'none') }));
    });
    outgoing.once('error', reject);
    outgoing.end();
  });
}

export async function runCompressionBench(modeName: BenchModeName, load: LoadGenerator): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'plainrest-compression-'));
  removeAtExit(work);
  const dataDir = join(work, 'data');
  await writeDataDirectory(dataDir, benchProducts(PRODUCTS));
  const probe = { path: '/healthz', headers: {} };
  const server = await startPlainrest({ ...SETTINGS, DATA_DIR: dataDir }, join(work, 'plainrest.log'), probe);
  const rows: string[][] = [];
  try {
    for (const { name, path } of ANSWERS) {
      for (const coding of CODINGS) {
        const headers: Record<string, string> = { Authorization: `Bearer ${adminToken()}` };
        if (coding !== undefined) headers['Accept-Encoding'] = coding;
        const { bytes, coding: sent } = await bodyBytes(`${server.url}${path}`, headers);
        const result = await load.run(
          server.url,
          { method: 'GET', path, headers, expect: 200 },
          CONNECTIONS,
          SECONDS[modeName],
        );
        rows.push([
          name,
          coding ?? '(none)',
          sent,
          bytes.toLocaleString('en'),
          Math.round(result.requestsPerSecond).toLocaleString('en'),
          ((bytes * result.requestsPerSecond) / 1024 / 1024).toFixed(1),
          String(result.errors),
        ]);
      }
    }
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
  console.log(
    `\n## Compression (${PRODUCTS.toLocaleString('en')} products, ${CONNECTIONS} connections, ` +
      `${SECONDS[modeName]} s per cell, ${load.name})\n`,
  );
  console.log(
    formatTable(['answer', 'Accept-Encoding', 'sent as', 'body bytes', 'answers/s', 'MB/s of bodies', 'errors'], rows),
  );
}
