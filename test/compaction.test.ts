// Compactions never overlap (README: Storage and durability): a first start with the seed commits one
// journal entry, which can start a background compaction while the start compacts
// again; with the smallest compactAfterBytes every write starts one. Compactions run
// one after another, and each atomic write has a temporary file of its own, which a
// start still recognises as a leftover to remove.

import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, test } from 'node:test';
import { createApp, startServer } from '../src/index.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';
import { readDataDirectory } from '../src/store/data-directory.ts';
import {
  removeLeftoverTemporaryFiles,
  TEMPORARY_FILE,
  temporaryPathFor,
  writeFileAtomically,
} from '../src/store/atomic-file.ts';
import { cleanUpAfterEach, connect, scratchDirectory, TEST_AUTH_OPTIONS } from './helpers.ts';
import { scaled } from './long-run.ts';

const defer = cleanUpAfterEach();

/** The smallest value config/config.ts accepts: every journal entry starts a compaction. */
const SMALLEST_COMPACT_AFTER_BYTES = 1;
/** First starts in a row, each of which may race its compactions: 3, and 10 in the long run (test/long-run.ts). */
const STARTS = scaled(3, 10);
/** The example dataset, plus the administrator every start ensures. */
const SEEDED = { users: 3, products: 12, orders: 5, keys: 0 };

/** The records of `collection` a start reads from `dir`: its snapshot and the journal lines after it. */
async function storedCount(dir: string, collection: string): Promise<number> {
  return (await readDataDirectory(dir, exampleResources())).collections.get(collection)?.records.size ?? 0;
}

describe('compaction: a first start with the seed and the smallest compactAfterBytes', () => {
  test(`${STARTS} first starts (startServer) in a row all succeed, with every seeded record served and on disk`, async () => {
    for (let start = 1; start <= STARTS; start++) {
      const dir = await scratchDirectory(defer);
      const server = await startServer({
        port: 0,
        dataDir: dir,
        seed: true,
        compactAfterBytes: SMALLEST_COMPACT_AFTER_BYTES,
        ...TEST_AUTH_OPTIONS,
      });
      assert.deepEqual(await server.app.recordCounts(), SEEDED, `start ${start}`);
      const api = await connect(server);
      assert.equal((await api.get('/v1/products?limit=100')).body.meta.total, SEEDED.products, `start ${start}`);
      await server.close();
      for (const [collection, count] of Object.entries(SEEDED))
        assert.equal(await storedCount(dir, collection), count, `start ${start}: ${collection} on disk`);
      assert.deepEqual(
        (await readdir(dir)).filter((name) => TEMPORARY_FILE.test(name)),
        [],
        'no temporary file left',
      );
    }
  });

  test(`${STARTS} first starts (createApp) in a row all succeed, and a restart loads every record`, async () => {
    for (let start = 1; start <= STARTS; start++) {
      const dir = await scratchDirectory(defer);
      const app = await createApp({
        dataDir: dir,
        seed: true,
        compactAfterBytes: SMALLEST_COMPACT_AFTER_BYTES,
        ...TEST_AUTH_OPTIONS,
      });
      assert.deepEqual(await app.recordCounts(), SEEDED, `start ${start}`);
      await app.close();
      const reopened = await createApp({
        dataDir: dir,
        seed: true,
        compactAfterBytes: SMALLEST_COMPACT_AFTER_BYTES,
        ...TEST_AUTH_OPTIONS,
      });
      assert.deepEqual(await reopened.recordCounts(), SEEDED, `start ${start}, reopened`);
      await reopened.close();
    }
  });
});

describe('compaction: writes that each start a compaction', () => {
  test('30 concurrent creates with the smallest compactAfterBytes all succeed and all survive a restart', async () => {
    const dir = await scratchDirectory(defer);
    const options = {
      port: 0,
      dataDir: dir,
      seed: true,
      compactAfterBytes: SMALLEST_COMPACT_AFTER_BYTES,
      ...TEST_AUTH_OPTIONS,
    };
    const server = await startServer(options);
    const api = await connect(server);
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        api.post('/v1/products', { name: `Product ${index}`, category: 'c', price: index }),
      ),
    );
    assert.deepEqual(
      created.map((response) => response.status),
      created.map(() => 201),
    );
    await server.close();

    const restarted = await startServer(options);
    defer(() => restarted.close());
    assert.equal((await restarted.app.recordCounts()).products, SEEDED.products + 30);
    assert.equal(await storedCount(dir, 'products'), SEEDED.products + 30);
  });
});

describe('compaction: atomic writes', () => {
  test('two overlapping writes of one file both succeed, and the file holds one of them whole', async () => {
    const dir = await scratchDirectory(defer);
    const path = join(dir, 'users.json');
    const texts = ['{"first": true}\n', `${'{"second": true}'.padEnd(100_000)}\n`];
    await Promise.all([
      writeFileAtomically(path, texts[0] as string),
      writeFileAtomically(path, [Buffer.from(texts[1] as string)]),
    ]);
    assert.ok(texts.includes(await readFile(path, 'utf8')));
    assert.deepEqual(await readdir(dir), ['users.json']);
  });

  test('each write has its own temporary name, which a start recognises as a leftover and removes', async () => {
    const dir = await scratchDirectory(defer);
    const path = join(dir, 'users.json');
    const names = [temporaryPathFor(path), temporaryPathFor(path)].map((temporary) => basename(temporary));
    assert.notEqual(names[0], names[1]);
    for (const name of names) {
      assert.match(name, TEMPORARY_FILE);
      await writeFile(join(dir, name), 'half written');
    }
    await writeFile(path, '{}\n');
    await removeLeftoverTemporaryFiles(dir);
    assert.deepEqual(await readdir(dir), ['users.json']);
  });
});
