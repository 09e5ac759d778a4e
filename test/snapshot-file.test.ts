// Snapshot files (src/store/snapshot-file.ts): a snapshot written with the previous one
// to copy from must be byte for byte the snapshot written from scratch, over random
// histories of creates, updates and deletes (seeded), with text of several UTF-8 byte
// lengths; only changed records are serialised; a previous file that is not the size
// this process wrote is not copied from.

import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { StoredRecord } from '../src/records/json.ts';
import { compareIds } from '../src/records/record-id.ts';
import { parseSnapshot } from '../src/store/parse-snapshot.ts';
import type { WrittenSnapshot } from '../src/store/snapshot-file.ts';
import { writeSnapshot } from '../src/store/snapshot-file.ts';
import { mulberry32 } from './helpers.ts';

const directory = await mkdtemp(join(tmpdir(), 'plainrest-snapshot-'));
after(() => rm(directory, { recursive: true, force: true }));

const NAMES = ['Tea', 'Café "crème"', 'line\nbreak', 'Ωmega', '茶', '🍵 cup', 'back\\slash'];

function product(id: number, version: number, random: () => number): StoredRecord {
  const name = `${NAMES[Math.floor(random() * NAMES.length)] as string} ${id}.${version}`;
  return Object.freeze({
    id,
    name,
    price: Math.round(random() * 10_000) / 100,
    created_at: '2026-11-22T06:00:00.000Z',
    updated_at: '2026-11-22T06:00:00.000Z',
  });
}

/** Counts JSON.stringify calls while `run` runs. */
async function countingSerialisations<T>(run: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const original = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    calls++;
    return original(...args);
  }) as typeof JSON.stringify;
  try {
    return { result: await run(), calls };
  } finally {
    JSON.stringify = original;
  }
}

test('40 compactions over random histories: each copied snapshot equals one written from scratch, and only changed records are serialised', async () => {
  for (const seed of [1, 2, 3]) {
    const random = mulberry32(seed);
    const records = new Map<number, StoredRecord>();
    let nextId = 1;
    const path = join(directory, `products-${seed}.json`);
    let previous: WrittenSnapshot | undefined;
    for (let round = 0; round < 40; round++) {
      let changed = 0;
      const writes = Math.floor(random() * 30);
      for (let n = 0; n < writes; n++) {
        const choice = random();
        const ids = [...records.keys()];
        if (choice < 0.5 || ids.length === 0) {
          records.set(nextId, product(nextId, 0, random));
          nextId++;
          changed++;
        } else {
          const id = ids[Math.floor(random() * ids.length)] as number;
          if (choice < 0.8) {
            records.set(id, product(id, round + 1, random));
            changed++;
          } else {
            records.delete(id);
          }
        }
      }
      const state = [...records.values()].sort((a, b) => compareIds(a.id, b.id));
      const { result, calls } = await countingSerialisations(() => writeSnapshot(path, state, nextId, round, previous));
      previous = result;
      const fromScratch = join(directory, `scratch-${seed}.json`);
      await writeSnapshot(fromScratch, state, nextId, round);
      const text = await readFile(path, 'utf8');
      assert.equal(text, await readFile(fromScratch, 'utf8'), `seed ${seed}, round ${round}`);
      assert.equal(result.bytes, Buffer.byteLength(text));
      assert.deepEqual([...parseSnapshot(text).state.records.values()], state);
      // A record updated twice between snapshots counts twice in `changed`; anything else is copied.
      assert.ok(
        calls <= (round === 0 ? state.length : changed),
        `seed ${seed}, round ${round}: ${calls} serialisations for ${changed} changes`,
      );
    }
  }
});

test('unchanged records are copied as bytes: 1,000 records with 3 updates serialise 3', async () => {
  const random = mulberry32(7);
  const path = join(directory, 'copy.json');
  const records = Array.from({ length: 1000 }, (_, index) => product(index + 1, 0, random));
  const first = await writeSnapshot(path, records, 1001, 5);
  const next = records.map((record) =>
    [10, 500, 1000].includes(record.id as number) ? product(record.id as number, 1, random) : record,
  );
  const { result, calls } = await countingSerialisations(() => writeSnapshot(path, next, 1001, 6, first));
  assert.equal(calls, 3);
  assert.deepEqual([...parseSnapshot(await readFile(path, 'utf8')).state.records.values()], next);
  assert.equal(result.bytes, (await readFile(path)).length);
});

test('a previous file of another size (changed behind the process) is not copied from: every record is serialised', async () => {
  const random = mulberry32(9);
  const path = join(directory, 'changed.json');
  const records = Array.from({ length: 50 }, (_, index) => product(index + 1, 0, random));
  const first = await writeSnapshot(path, records, 51, 1);
  await appendFile(path, ' ');
  const { calls } = await countingSerialisations(() => writeSnapshot(path, records, 51, 2, first));
  assert.equal(calls, 50);
  assert.deepEqual([...parseSnapshot(await readFile(path, 'utf8')).state.records.values()], records);
});

test('an empty collection is "records": [] and the next snapshot after it serialises everything new', async () => {
  const path = join(directory, 'empty.json');
  const empty = await writeSnapshot(path, [], 1, 0);
  assert.equal(await readFile(path, 'utf8'), '{\n  "next_id": 1,\n  "journal_seq": 0,\n  "records": []\n}\n');
  const record = product(1, 0, mulberry32(3));
  await writeSnapshot(path, [record], 2, 1, empty);
  assert.equal(
    await readFile(path, 'utf8'),
    `{\n  "next_id": 2,\n  "journal_seq": 1,\n  "records": [\n    ${JSON.stringify(record)}\n  ]\n}\n`,
  );
});
