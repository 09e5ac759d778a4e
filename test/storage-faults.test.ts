// Storage when things go wrong (README: Storage and durability): a journal write the disk refuses, a
// first start cut short, temporary files a crash left behind, and a Store brought by
// the embedding program that must keep the data directory untouched.

import assert from 'node:assert/strict';
import type { FileHandle } from 'node:fs/promises';
import { copyFile, mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MemoryStore } from '../src/index.ts';
import { segmentName } from '../src/store/journal-format.ts';
import { startTestServer, cleanUpAfterEach, eventually, scratchDirectory } from './helpers.ts';

const defer = cleanUpAfterEach();

/** FileHandle.write as the journal calls it (a buffer, an offset and a length). */
type Write = (buffer: Buffer, offset: number, length: number) => Promise<{ bytesWritten: number; buffer: Buffer }>;

/**
 * Replaces FileHandle.prototype.write for the next call only (the journal's next write,
 * when nothing else writes meanwhile) with `instead`, which may call the real write.
 */
async function interceptNextWrite(
  directory: string,
  instead: (original: Write, handle: FileHandle, args: Parameters<Write>) => ReturnType<Write>,
): Promise<void> {
  const probe = await open(join(directory, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { write: Write };
  await probe.close();
  const original = prototype.write;
  prototype.write = function once(this: FileHandle, ...args: Parameters<Write>): ReturnType<Write> {
    prototype.write = original;
    return instead(original, this, args);
  };
  defer(async () => {
    prototype.write = original;
  });
}

/** Makes the next journal write fail as a full disk would, then behave again. */
async function failNextAppend(directory: string): Promise<void> {
  await interceptNextWrite(directory, () =>
    Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })),
  );
}

describe('storage faults', () => {
  test('a write the disk refuses is a 500, and the record is not visible afterwards', async () => {
    const dataDir = await scratchDirectory(defer);
    const api = await startTestServer({ dataDir });
    defer(() => api.close().catch(() => undefined));
    const kept = await api.post('/v1/products', { name: 'Kept', category: 'c', price: 1 });
    assert.equal(kept.status, 201);

    await failNextAppend(await scratchDirectory(defer));
    const refused = await api.post('/v1/products', { name: 'Refused', category: 'c', price: 2 });
    assert.equal(refused.status, 500);
    assert.equal(refused.body.code, 'internal_error');

    const list = await api.get('/v1/products');
    assert.deepEqual(
      list.body.data.map((product: { name: string }) => product.name),
      ['Kept'],
      'the refused write was rolled back in memory',
    );
    // Fail-stop: later writes are refused too; reads go on.
    assert.equal((await api.post('/v1/products', { name: 'Later', category: 'c', price: 3 })).status, 500);
    assert.equal((await api.get(`/v1/products/${kept.body.id}`)).status, 200);
  });

  test('a short journal write is completed by the next one, and the record survives a restart', async () => {
    const dataDir = await scratchDirectory(defer);
    const api = await startTestServer({ dataDir });
    defer(() => api.close().catch(() => undefined));
    let shortWrites = 0;
    await interceptNextWrite(await scratchDirectory(defer), (original, handle, args) => {
      const [buffer, offset, length] = args;
      shortWrites += 1;
      return original.call(handle, buffer, offset, Math.max(1, Math.floor(length / 2)));
    });
    const created = await api.post('/v1/products', { name: 'Written in two parts', category: 'c', price: 2 });
    assert.equal(created.status, 201);
    assert.equal(shortWrites, 1);
    await api.close();
    const again = await startTestServer({ dataDir });
    defer(() => again.close());
    const read = await again.get(`/v1/products/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.name, 'Written in two parts');
  });

  test('a journal write that makes no progress is a 500 and stops later writes', async () => {
    const dataDir = await scratchDirectory(defer);
    const api = await startTestServer({ dataDir });
    defer(() => api.close().catch(() => undefined));
    await interceptNextWrite(await scratchDirectory(defer), () =>
      Promise.resolve({ bytesWritten: 0, buffer: Buffer.alloc(0) }),
    );
    const refused = await api.post('/v1/products', { name: 'Nowhere', category: 'c', price: 2 });
    assert.equal(refused.status, 500);
    assert.equal(refused.body.code, 'internal_error');
    assert.equal((await api.get('/v1/products')).body.meta.total, 0);
    assert.equal((await api.get('/readyz')).status, 503);
  });

  test('a first start cut short after opening the journal still seeds the example data', async () => {
    const dataDir = await scratchDirectory(defer);
    await writeFile(join(dataDir, segmentName(1)), '');
    const api = await startTestServer({ dataDir, seed: true });
    defer(() => api.close());
    assert.equal((await api.get('/v1/products')).body.meta.total, 12);
  });

  test('temporary files left by a crash during a snapshot are removed at start', async () => {
    const dataDir = await scratchDirectory(defer);
    await writeFile(join(dataDir, '.products.json.4242.tmp'), '{"next_id": 1, "rec');
    const api = await startTestServer({ dataDir });
    defer(() => api.close());
    const names = await readdir(dataDir);
    assert.ok(!names.some((name) => name.endsWith('.tmp')), names.join(', '));
  });

  test('with its own Store, the app leaves the default data directory alone', async () => {
    const cwd = process.cwd();
    const scratch = await scratchDirectory(defer);
    await mkdir(join(scratch, 'data'));
    process.chdir(scratch);
    try {
      const api = await startTestServer({
        store: new MemoryStore(new Map()),
        dataDir: undefined,
        tokenSecret: undefined,
      });
      defer(() => api.close());
      assert.equal(api.server.app.config.dataDir, null);
      assert.equal((await api.post('/v1/products', { name: 'Mine', category: 'c', price: 1 })).status, 201);
      assert.deepEqual(await readdir(join(scratch, 'data')), []);
    } finally {
      process.chdir(cwd);
    }
  });

  test('a start that fails after opening the data directory releases it (the lock is not left behind)', async () => {
    const dataDir = await scratchDirectory(defer);
    await writeFile(join(dataDir, 'token-secret'), '\n'); // an empty secret stops the start
    await assert.rejects(startTestServer({ dataDir, tokenSecret: undefined }), /token-secret/);
    assert.ok(!(await readdir(dataDir)).includes('plainrest.lock'));
    await writeFile(join(dataDir, 'token-secret'), 'a-secret-of-at-least-thirty-two-characters\n');
    const api = await startTestServer({ dataDir, tokenSecret: undefined });
    defer(() => api.close());
    assert.equal((await api.get('/v1/products')).status, 200);
  });

  test('journal segments left by earlier runs count towards compaction', async () => {
    const dataDir = await scratchDirectory(defer);
    const first = await startTestServer({ dataDir });
    for (let i = 0; i < 20; i++) await first.post('/v1/products', { name: `P${i}`, category: 'c', price: i });
    // Simulate a crash: keep the journal, drop the lock (as if its process had died).
    const segmentsBefore = (await readdir(dataDir)).filter((name) => name.startsWith('journal-'));
    await copyDirectory(dataDir, `${dataDir}-copy`);
    defer(() => rm(`${dataDir}-copy`, { recursive: true, force: true }));
    await first.close();
    await rm(join(`${dataDir}-copy`, 'plainrest.lock'));
    assert.equal(segmentsBefore.length, 1);

    // One write is far below 1000 bytes: only the old segment's bytes make it start a compaction.
    // The change feed keeps little history here, so that compaction may delete the segment too
    // (with the default history it would keep it, for the events it holds).
    const second = await startTestServer({
      dataDir: `${dataDir}-copy`,
      compactAfterBytes: 1000,
      events: { kept: 1, keptForMs: 0 },
    });
    defer(() => second.close());
    assert.equal((await second.post('/v1/products', { name: 'Trigger', category: 'c', price: 1 })).status, 201);
    // Compaction runs after the answer.
    await eventually(async () =>
      assert.ok(
        !(await readdir(`${dataDir}-copy`)).includes(segmentsBefore[0] as string),
        `${segmentsBefore[0]} is deleted`,
      ),
    );
    const snapshot = JSON.parse(await readFile(join(`${dataDir}-copy`, 'products.json'), 'utf8')) as {
      journal_seq: number;
      records: unknown[];
    };
    assert.equal(snapshot.journal_seq, 22, 'the snapshots cover the administrator, the 20 products and the trigger');
    assert.equal(snapshot.records.length, 21);
    assert.equal((await second.get('/v1/products')).body.meta.total, 21);
  });
});

async function copyDirectory(from: string, to: string): Promise<void> {
  await mkdir(to);
  for (const name of await readdir(from)) await copyFile(join(from, name), join(to, name));
}
