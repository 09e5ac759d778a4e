// Reading a snapshot as a stream (src/store/snapshot-stream.ts), whatever its layout: the one snapshot-file.ts writes,
// one line as JSON.stringify writes it, indented, or spaced any other way, split into chunks anywhere, reads to the
// records parsing the whole text gives (parse-snapshot.ts); a damaged file, however damaged, gives the error parsing it
// whole gives.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { StoredRecord } from '../src/records/json.ts';
import { parseSnapshot } from '../src/store/parse-snapshot.ts';
import type { Snapshot } from '../src/store/parse-snapshot.ts';
import { writeSnapshot } from '../src/store/snapshot-file.ts';
import { readSnapshotFile } from '../src/store/snapshot-stream.ts';
import { scaled } from './long-run.ts';
import { mulberry32 } from './random.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const directory = await mkdtemp(join(tmpdir(), 'plainrest-snapshot-stream-'));
after(() => rm(directory, { recursive: true, force: true }));

let files = 0;
async function file(text: string): Promise<string> {
  const path = join(directory, `snapshot-${++files}.json`);
  await writeFile(path, text);
  return path;
}

function record(id: number, name: string, extra: Record<string, unknown> = {}): StoredRecord {
  return Object.freeze({
    id,
    name,
    ...extra,
    created_at: '2026-11-27T00:00:00.000Z',
    updated_at: '2026-11-27T00:00:00.000Z',
  }) as StoredRecord;
}

/** Records whose strings hold what a reader that splits text could trip on: quotes, escapes, brackets, commas. */
const TRICKY = [
  record(1, 'Tea'),
  record(2, 'Café "crème", 1 kg', { tags: ['a', 'b]', '{c}'], price: 1.5e2 }),
  record(5, 'line\nbreak 🍵 \\ back\\slash\\', { nested: { deep: [{ x: null }, true, false, -0.25] } }),
  record(9, '{"x":1},', { empty: {}, none: [], quote: '"', slash: '\\', both: '\\"' }),
  record(12, '\u0000\u001f\u2028 end"'),
];

/** The outcome of parsing the whole text: its snapshot, or its error's message. */
function wholeFile(text: string): Snapshot | string {
  try {
    return parseSnapshot(text);
  } catch (error) {
    return (error as Error).message;
  }
}

/** The outcome of reading the file as a stream, `chunkBytes` at a time: its snapshot, or its error's message. */
async function streamed(path: string, chunkBytes?: number): Promise<Snapshot | string | undefined> {
  try {
    return await readSnapshotFile(path, chunkBytes);
  } catch (error) {
    return (error as Error).message;
  }
}

/** The snapshot of TRICKY as a JSON value, with members besides those a snapshot needs. */
const document = { next_id: 13, journal_seq: 7, records: TRICKY };

test('a written snapshot is read to the records and numbers parsing it whole gives', async () => {
  for (const written of [TRICKY, []]) {
    const path = join(directory, `written-${written.length}.json`);
    await writeSnapshot(path, written, 13, 7);
    const read = await readSnapshotFile(path);
    assert.ok(read !== undefined);
    assert.deepEqual(read, parseSnapshot(await readFile(path, 'utf8')));
    assert.deepEqual(
      [...read.state.records.keys()],
      written.map((each) => each.id),
    );
    assert.equal(read.state.nextId, 13);
    assert.equal(read.journalSeq, 7);
    assert.ok(
      [...read.state.records.values()].every((each) => Object.isFrozen(each)),
      'records are frozen',
    );
  }
});

test('one line, indented, spaced otherwise: the records of the written layout, split anywhere', async () => {
  const writtenPath = join(directory, 'written-layout.json');
  await writeSnapshot(writtenPath, TRICKY, 13, 7);
  const expected = await readSnapshotFile(writtenPath);
  const layouts = [
    JSON.stringify(document),
    JSON.stringify(document, null, 2),
    JSON.stringify(document, null, '\t').replaceAll('\n', '\r\n'),
    `\n {"journal_seq" :7 ,"other":{"records":[1]}, "records" : [ ${TRICKY.map((each) => JSON.stringify(each)).join(
      ' ,\n',
    )} ] ,"next_id":13 , "x":[true,null,"]"]}\n\n`,
    JSON.stringify({ records: TRICKY, next_id: 13, journal_seq: 7 }), // next_id after the records
    // A key given twice counts last, as JSON.parse has it: the records checked against the last next_id.
    `{"next_id":1,"records":${JSON.stringify(TRICKY)},"journal_seq":7,"next_id":13}`,
    `{"next_id":13,"records":[{"id":"no"}],"journal_seq":7,"records":${JSON.stringify(TRICKY)}}`,
    JSON.stringify({ next_id: 13, journal_seq: 7, records: [] }).replace(
      '[]',
      `[${TRICKY.map((each) => JSON.stringify(each)).join(',')}]`,
    ),
  ];
  for (const text of layouts) {
    assert.deepEqual(wholeFile(text), expected, 'the layout parses whole to the same snapshot');
    const path = await file(text);
    for (const chunkBytes of [undefined, 1, 2, 3, 5, 16, 61])
      assert.deepEqual(
        await streamed(path, chunkBytes),
        expected,
        `${JSON.stringify(text.slice(0, 40))} by ${chunkBytes}`,
      );
  }
});

test('one line and pretty-printed: the same records, as the written layout and the example data', async () => {
  const records = Array.from({ length: 3000 }, (_, index) =>
    record(index + 1, `Product ${index + 1} "${'x'.repeat(index % 50)}"`, { price: index / 100, tags: [index % 7] }),
  );
  const snapshot = { next_id: 3001, journal_seq: 0, records };
  const oneLine = await readSnapshotFile(await file(JSON.stringify(snapshot)));
  const indented = await readSnapshotFile(await file(JSON.stringify(snapshot, null, 2)));
  const writtenPath = join(directory, 'written-3000.json');
  await writeSnapshot(writtenPath, records, 3001, 0);
  assert.equal(oneLine?.state.records.size, 3000);
  assert.deepEqual(oneLine, indented);
  assert.deepEqual(oneLine, await readSnapshotFile(writtenPath));
  const example = join(REPOSITORY_ROOT, 'data', 'example', 'products.json');
  assert.deepEqual(await readSnapshotFile(example), parseSnapshot(await readFile(example, 'utf8')));
});

test('ids out of order: sorted, as parsing whole sorts them; an id twice is refused alike', async () => {
  const text = JSON.stringify({ next_id: 4, records: [record(3, 'C'), record(1, 'A')] }, null, 2);
  const snapshot = await readSnapshotFile(await file(text));
  assert.deepEqual([...(snapshot?.state.records.keys() ?? [])], [1, 3]);
  const twice = JSON.stringify({ next_id: 4, records: [record(3, 'C'), record(1, 'A'), record(3, 'D')] });
  assert.equal(await streamed(await file(twice)), 'id 3 appears twice');
});

test('a damaged file gives the error parsing it whole gives', async () => {
  const good = JSON.stringify(document, null, 2);
  const damaged = [
    `{"next_id":13,"records":${JSON.stringify(TRICKY)},"next_id":10}`, // checked as read, against a next_id given again
    `{"next_id":13,"records":${JSON.stringify(TRICKY)},"journal_seq":-1}`, // checked as read, then a bad journal_seq
    `{"next_id":13,"records":${JSON.stringify(TRICKY)},"records":7}`,
    good.replace('"name": "Tea"', '"name": "Tea'), // a torn record
    good.replace('},\n    {\n      "id": 2', '}\n    {\n      "id": 2'), // a missing comma
    good.replace('"next_id": 13', '"next_id": 2'), // an id not below next_id
    good.replace('"id": 2,', ''), // a record without its id
    good.slice(0, -2), // the closing brace cut off
    `${good}{}\n`, // something after the end
    good.replace('"journal_seq": 7', '"journal_seq": -1'),
    good.replace('"records": [', '"records": {').replace(/\]\n\}$/, '}\n}'), // records not an array
    good.replace('"next_id": 13,', ''),
    '',
    '   ',
    '[]',
    '"text"',
    '\ufeff{"next_id":1,"records":[]}',
    '{"next_id":1,"records":[]',
    '{"next_id":1,"records":[],}',
    '{"next_id":1,"records":[1,]}',
    '{"next_id":1 "records":[]}',
    '{next_id:1,"records":[]}',
  ];
  for (const text of damaged) {
    const expected = wholeFile(text);
    assert.equal(typeof expected, 'string', `parsing whole refuses it: ${JSON.stringify(text.slice(0, 80))}`);
    const path = await file(text);
    for (const chunkBytes of [undefined, 3]) assert.equal(await streamed(path, chunkBytes), expected, text);
  }
});

/** Randomly damaged texts: 150, and 400 in the long run (test/long-run.ts). */
const DAMAGED_ROUNDS = scaled(150, 400);

test(`${DAMAGED_ROUNDS} randomly damaged snapshots: the stream and the whole-text parse agree, on the records or the error`, async () => {
  const random = mulberry32(2026);
  const texts = [JSON.stringify(document), JSON.stringify(document, null, 2)];
  const pieces = ['"', '\\', ',', ':', '[', ']', '{', '}', ' ', '1', 'e', '-', 'null', '"records"', '"next_id"', '\n'];
  for (let round = 0; round < DAMAGED_ROUNDS; round++) {
    let text = texts[round % 2] as string;
    for (let edits = 1 + Math.floor(random() * 2); edits > 0; edits--) {
      const at = Math.floor(random() * text.length);
      const piece = pieces[Math.floor(random() * pieces.length)] as string;
      const kind = random();
      text =
        kind < 0.4
          ? text.slice(0, at) + text.slice(at + 1)
          : kind < 0.8
            ? text.slice(0, at) + piece + text.slice(at)
            : text.slice(0, at) + piece + text.slice(at + piece.length);
    }
    const path = await file(text);
    const expected = wholeFile(text);
    assert.deepEqual(await streamed(path), expected, JSON.stringify(text));
    assert.deepEqual(await streamed(path, 1 + Math.floor(random() * 40)), expected, JSON.stringify(text));
  }
});

test('no file: undefined', async () => {
  assert.equal(await readSnapshotFile(join(directory, 'absent.json')), undefined);
});
