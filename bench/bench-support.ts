// Shared pieces of the benchmarks: a data directory with N products, the server child
// process, and a keep-alive load generator on node:http that reports requests per
// second and latency percentiles.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signToken } from '../src/auth/jwt.js';
import { serializeSnapshot } from '../src/store/collection-state.js';

export const BENCH_ADMIN_PASSWORD = 'bench-admin-password';
export const BENCH_TOKEN_SECRET = 'bench-token-secret-bench-token-secret';
const CATEGORIES = ['coffee', 'tea', 'equipment', 'accessories', 'books', 'snacks', 'cups', 'gifts'];

/** A fresh data directory holding `count` products (and nothing else yet). */
export async function dataDirWithProducts(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plainrest-bench-'));
  const now = new Date().toISOString();
  const records = Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `Product ${index + 1}`,
    category: CATEGORIES[index % CATEGORIES.length] as string,
    price: Math.round(((index * 7919) % 100000) + 99) / 100,
    created_at: now,
    updated_at: now,
  }));
  await writeFile(join(dir, 'products.json'), await serializeSnapshot(records, count + 1, 0));
  return dir;
}

export interface BenchServer {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** plainrest (durable, or memory-only) or the bare reference server, as a child process. */
export async function startBenchServer(mode: 'durable' | 'memory' | 'reference', dataDir: string): Promise<BenchServer> {
  const script = fileURLToPath(new URL(mode === 'reference' ? './reference-server.ts' : './bench-server.ts', import.meta.url));
  const args = mode === 'reference' ? [script, dataDir] : [script, mode, dataDir];
  // stdout goes to a pipe the benchmark drains (the access log), like "stdout to a file".
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim().split('\n')[0] as string));
    child.stdout?.on('data', () => {}); // keep draining
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    url,
    child,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The administrator's token: the bench servers start empty but for products, so the admin is user 1. */
export function adminToken(): string {
  const now = Math.floor(Date.now() / 1000);
  return signToken({ sub: '1', iat: now, exp: now + 3600 }, BENCH_TOKEN_SECRET);
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

export interface LoadRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: (index: number) => string;
  readonly expect: number;
}

/** `connections` keep-alive loops for `seconds`, one request at a time each. */
export async function runLoad(url: string, spec: LoadRequest, connections: number, seconds: number): Promise<LoadResult> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const deadline = performance.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const body = spec.body?.(sent++);
      const started = performance.now();
      const headers = body === undefined ? spec.headers : { ...spec.headers, 'content-length': String(Buffer.byteLength(body)) };
      const req = request({ host: target.hostname, port: target.port, method: spec.method, path: spec.path, headers, agent }, (res) => {
        res.resume();
        res.once('end', () => {
          if (res.statusCode === spec.expect) latencies.push(performance.now() - started);
          else errors++;
          resolve();
        });
      });
      req.once('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) await one();
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (fraction: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))] ?? 0;
  return { requestsPerSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}

export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
