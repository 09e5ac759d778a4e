// What 1,000 event streams, half of them stalled, leave in plainrest's memory once they close: the server runs in this
// process (the embedding API), so its heap and buffers can be read after a full collection (node --expose-gc), which
// a child process's RSS cannot tell apart from pages the allocator keeps. `npm run bench:stream-memory`.

import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../src/index.ts';

const STREAMS = 1000;
const WRITERS = 16;
const STORM_SECONDS = 20;
const PRODUCTS = 1000;
const ADMIN = { email: 'admin@example.com', password: 'stream-memory-admin-password' };

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) {
  console.error('run with node --expose-gc (npm run bench:stream-memory)');
  process.exit(2);
}

interface Reading {
  readonly when: string;
  readonly heap: number;
  readonly buffers: number;
  readonly rss: number;
}

/** Heap and buffers (external memory) after two full collections, and RSS, in MB. */
function read(when: string): Reading {
  collect?.();
  collect?.();
  const { heapUsed, external, rss } = process.memoryUsage();
  return { when, heap: heapUsed / 1e6, buffers: external / 1e6, rss: rss / 1e6 };
}

const dataDir = mkdtempSync(join(tmpdir(), 'plainrest-stream-memory-'));
// The feed keeps at least 1,000 events (at most 10,000): the first storm fills it, so it grows no more afterwards.
const server = await startServer({
  port: 0,
  dataDir,
  seed: false,
  adminEmail: ADMIN.email,
  adminPassword: ADMIN.password,
  tokenSecret: 'stream-memory-token-secret-of-40-characters',
  accessLog: 'off',
  rateLimit: 0,
  events: { kept: 1000, maxStreams: STREAMS, maxStreamsPerUser: STREAMS },
});
const agent = new http.Agent({ keepAlive: true, maxSockets: WRITERS });

async function send(method: string, path: string, authorization: string, body: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const request = http.request(
      `${server.url}${path}`,
      { method, agent, headers: { authorization, 'content-type': contentType } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(text));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

const { access_token: token } = JSON.parse(await send('POST', '/v1/tokens', '', ADMIN)) as { access_token: string };
const authorization = `Bearer ${token}`;
for (let id = 1; id <= PRODUCTS; id++)
  await send('POST', '/v1/products', authorization, { name: `Product ${id}`, category: 'memory', price: 1 });

/** PATCHes as fast as they are answered, over the stored products; how many were sent. */
async function storm(): Promise<number> {
  const end = performance.now() + STORM_SECONDS * 1000;
  let sent = 0;
  const writer = async (): Promise<void> => {
    while (performance.now() < end) {
      const id = 1 + (sent++ % PRODUCTS);
      await send('PATCH', `/v1/products/${id}`, authorization, { name: `Changed ${sent}` });
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return sent;
}

const readings: Reading[] = [];
const alone = await storm();
readings.push(read(`after ${alone.toLocaleString('en')} changes with no stream`));
let streams: http.ClientRequest[] = Array.from({ length: STREAMS }, (_, index) => {
  const request = http.get(`${server.url}/v1/events`, { headers: { authorization, accept: 'text/event-stream' } });
  // Every other stream reads nothing after its headers: a hung client.
  request.on('response', (response) => (index % 2 === 0 ? response.pause() : response.resume()));
  request.on('error', () => {});
  return request;
});
await sleep(2000);
readings.push(read(`${STREAMS.toLocaleString('en')} streams open, half of them stalled`));
const beside = await storm();
readings.push(read(`after ${beside.toLocaleString('en')} changes beside them`));
for (const request of streams) request.destroy();
streams = [];
await sleep(2000);
readings.push(read('those streams closed'));
await server.close();
rmSync(dataDir, { recursive: true, force: true });

const mb = (value: number): string => `${value.toFixed(1)} MB`;
console.log(`| when | heap | buffers | RSS |\n|---|---|---|---|`);
for (const { when, heap, buffers, rss } of readings)
  console.log(`| ${when} | ${mb(heap)} | ${mb(buffers)} | ${mb(rss)} |`);
const before = readings[0] as Reading;
const after = readings[readings.length - 1] as Reading;
const left = after.heap + after.buffers - (before.heap + before.buffers);
console.log(
  `\nheap and buffers left once the streams closed, over before they opened: ${mb(left)} (this process's clients included)`,
);
process.exit(left <= 10 ? 0 : 1);
