// A batch survives a crash whole or not at all (README: Batches, Storage and durability): the server (the one file,
// dist/plainrest.mjs) runs as a child process, clients send batches of several creates at once, and the process is
// killed with SIGKILL soon after the first 200. After a restart every acknowledged batch's records are all there, and
// every other batch's are all there or none: with a data directory, and with PostgreSQL (skipped, saying why, without).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrashServer } from './crash-server.ts';
import { startCrashServer } from './crash-server.ts';
import { temporaryDirectory, tokenFor } from './helpers.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

const CLIENTS = 6;
/** Creates per batch: each batch's products share a category, by which they are counted after the restart. */
const CREATES = 8;
const TIMEOUT_MS = 120_000;

const children: ChildProcess[] = [];
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** The server on `storage` (its flags), once it listens, killed after the file's tests if still running. */
async function start(storage: readonly string[]): Promise<CrashServer> {
  const running = await startCrashServer(storage);
  children.push(running.child);
  return running;
}

async function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill(signal);
  return ((await exited) as [number | null])[0];
}

/** Batches sent until the SIGKILL soon after the first 200; then, after a restart, all of each batch or none. */
async function crashAfterBatches(storage: readonly string[]): Promise<string> {
  const authorization = `Bearer ${tokenFor(1)}`; // the administrator is user 1 in an empty store
  const headers = { authorization, 'content-type': 'application/json' };
  const running = await start(storage);
  const acknowledged = new Set<string>();
  const sent = new Set<string>();
  let stopping = false;
  const client = async (index: number): Promise<void> => {
    for (let n = 0; !stopping; n++) {
      const category = `c${index}-${n}`;
      sent.add(category);
      const operations = Array.from({ length: CREATES }, (_, item) => ({
        method: 'POST',
        path: '/v1/products',
        body: { name: `${category} #${item}`, category, price: item },
      }));
      try {
        const response = await fetch(`${running.url}/v1/batches`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ operations }),
        });
        if (response.status === 200) acknowledged.add(category);
        else assert.fail(`a batch was refused: ${response.status} ${await response.text()}`);
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
        return; // the server is gone: a batch not acknowledged may or may not have landed, but whole
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
  for (const deadline = Date.now() + 60_000; acknowledged.size === 0; await sleep(5))
    assert.ok(Date.now() < deadline, 'no batch acknowledged within 60 s');
  await sleep(Math.random() * 150);
  await killed(running.child, 'SIGKILL');
  stopping = true;
  await Promise.all(clients);

  const restarted = await start(storage);
  const whole: string[] = [];
  for (const category of sent) {
    const response = await fetch(`${restarted.url}/v1/products?category=${category}&limit=1`, { headers });
    assert.equal(response.status, 200);
    const total = ((await response.json()) as { meta: { total: number } }).meta.total;
    if (acknowledged.has(category)) assert.equal(total, CREATES, `acknowledged batch ${category} lost records`);
    else assert.ok(total === 0 || total === CREATES, `batch ${category} landed in part: ${total} of ${CREATES}`);
    if (total === CREATES) whole.push(category);
  }
  assert.ok(whole.length >= acknowledged.size);
  assert.equal(await killed(restarted.child, 'SIGTERM'), 0);
  return `${acknowledged.size} batches acknowledged, ${whole.length} whole after the restart, ${sent.size} sent`;
}

test(
  'kill -9 after a batch is acknowledged: every acknowledged batch is whole after a restart, the others whole or absent',
  { timeout: TIMEOUT_MS },
  async (t) => {
    const dir = await temporaryDirectory();
    try {
      t.diagnostic(await crashAfterBatches(['--data-dir', dir.path]));
    } finally {
      await dir.remove();
    }
  },
);

test(
  'kill -9 after a batch is acknowledged, with PostgreSQL: the same',
  { skip: POSTGRES_SKIP, timeout: TIMEOUT_MS },
  async (t) => {
    const cluster = await startCluster();
    try {
      t.diagnostic(await crashAfterBatches(['--database-url', cluster.url(await cluster.createDatabase())]));
    } finally {
      await cluster.stop();
    }
  },
);
