// Reading a snapshot record by record (src/store/snapshot-stream.ts): a file in the layout snapshot-file.ts writes is
// read line by line, to the same records as parsing it whole; any other layout, a damaged line, or ids out of order
// are left to the whole-file parse (parse-snapshot.ts), which reads a hand-written file and words the error of a
// damaged one exactly as before.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { StoredRecord } from '../src/records/json.ts';
import { parseSnapshot } from '../src/store/parse-snapshot.ts';
import { writeSnapshot } from '../src/store/snapshot-file.ts';
import { readLineByLine, readSnapshotFile } from '../src/store/snapshot-stream.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const directory = await mkdtemp(join(tmpdir(), 'plainrest-snapshot-stream-'));
after(() => rm(directory, { recursive: true, force: true }));

let files = 0;
async function file(text: string): Promise<string> {
  const path = join(directory, `snapshot-${++files}.json`);
  await writeFile(path, text);
  return path;
}

function record(id: number, name: string): StoredRecord {
  return Object.freeze({ id, name, created_at: '2026-11-27T00:00:00.000Z', updated_at: '2026-11-27T00:00:00.000Z' });
}

/** The error parsing the whole file gives, or undefined. */
function wholeFileError(text: string): string | undefined {
  try {
    parseSnapshot(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

test('a written snapshot is read line by line, to the records and numbers parsing it whole gives', async () => {
  const records = [
    record(1, 'Tea'),
    record(2, 'Café "crème", 1 kg'),
    record(5, 'line\nbreak 🍵'),
    record(9, '{"x":1},'),
  ];
  for (const written of [records, []]) {
    const path = join(directory, `written-${written.length}.json`);
    await writeSnapshot(path, written, 12, 7);
    const streamed = await readLineByLine(path);
    assert.ok(streamed !== undefined, 'the layout snapshot-file.ts writes is streamed');
    assert.deepEqual(streamed, parseSnapshot(await readFile(path, 'utf8')));
    assert.deepEqual(
      [...streamed.state.records.keys()],
      written.map((each) => each.id),
    );
    assert.equal(streamed.state.nextId, 12);
    assert.equal(streamed.journalSeq, 7);
    assert.ok(
      [...streamed.state.records.values()].every((each) => Object.isFrozen(each)),
      'records are frozen',
    );
  }
});

test('another layout is read whole: a hand-written one-line file, the example data without journal_seq', async () => {
  const oneLine = `{"next_id":8,"records":[${JSON.stringify(record(7, 'Kept'))}]}\n`;
  const example = await readFile(join(REPOSITORY_ROOT, 'data', 'example', 'products.json'), 'utf8');
  for (const text of [oneLine, example]) {
    const path = await file(text);
    assert.equal(await readLineByLine(path), undefined, 'not streamed');
    assert.deepEqual(await readSnapshotFile(path), parseSnapshot(text));
  }
});

test('ids out of order in the written layout: read whole, and sorted as before', async () => {
  const text = `{\n  "next_id": 4,\n  "journal_seq": 0,\n  "records": [\n    ${JSON.stringify(record(3, 'C'))},\n    ${JSON.stringify(record(1, 'A'))}\n  ]\n}\n`;
  const path = await file(text);
  assert.equal(await readLineByLine(path), undefined);
  const snapshot = await readSnapshotFile(path);
  assert.deepEqual([...(snapshot?.state.records.keys() ?? [])], [1, 3]);
});

test('a damaged file in the written layout gives the error parsing it whole gives', async () => {
  const good = `{\n  "next_id": 3,\n  "journal_seq": 2,\n  "records": [\n    ${JSON.stringify(record(1, 'A'))},\n    ${JSON.stringify(record(2, 'B'))}\n  ]\n}\n`;
  const damaged = [
    good.replace('"name":"B"', '"name":"B'), // a torn record
    good.replace(`${JSON.stringify(record(1, 'A'))},`, JSON.stringify(record(1, 'A'))), // a missing comma
    good.replace('"next_id": 3', '"next_id": 2'), // an id not below next_id
    good.replace('"id":2,', ''), // a record without its id
    good.slice(0, -2), // the closing brace cut off
    `${good}{}\n`, // something after the end
    good.replace('"journal_seq": 2', '"journal_seq": -1'),
  ];
  for (const text of damaged) {
    const expected = wholeFileError(text);
    assert.ok(expected !== undefined, `the whole-file parse refuses it: ${JSON.stringify(text.slice(0, 80))}`);
    const path = await file(text);
    await assert.rejects(readSnapshotFile(path), (error: Error) => error.message === expected, text);
  }
});

test('no file: undefined', async () => {
  assert.equal(await readSnapshotFile(join(directory, 'absent.json')), undefined);
});
