// The journal's line format (src/store/journal-format.ts, README: Storage and durability) as a unit:
// segment names, encoding and decoding one entry (one line per commit, all its changes
// together; `at` and, on a declared record's change, the change feed's event facts:
// README: Events), the numbers an entry takes (one per change), which segments compaction
// may delete while the feed keeps events, and splitting a segment, where only the last
// line may be torn (a write that was never acknowledged) and damage anywhere else, or a
// seq out of order, throws naming the line. Then the feed's history through a restart,
// with the embedding API (openStore). The server-level behaviour (replay, cutting the
// tail, compaction, the lock) is in storage.test.ts.

import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  decodeEntry,
  encodeEntry,
  isUndecoded,
  parseSegment,
  readSegment,
  segmentFirstSeq,
  segmentName,
  segmentsBefore,
  seqsTaken,
} from '../src/store/journal-format.ts';
import { EventLog } from '../src/feed/event-log.ts';
import { writeSnapshot } from '../src/store/snapshot-file.ts';
import type { Change } from '../src/index.ts';
import type { StoredRecord } from '../src/records/json.ts';
import type { RecordId } from '../src/records/record-id.ts';
import { compareIds } from '../src/records/record-id.ts';
import type { EventFilter, FeedEvent } from '../src/feed/feed-event.ts';
import type { MemoryStore } from '../src/store/memory-store.ts';
import { openStore } from '../src/store/open-store.ts';
import { EXAMPLE } from './example-definitions.ts';
import { recordingLogger, temporaryDirectory } from './helpers.ts';

const TIMESTAMP = '2026-01-01T00:00:00.000Z';

function productRecord(id: number, name = `P${id}`): StoredRecord {
  return { id, name, category: 'c', price: 1, created_at: TIMESTAMP, updated_at: TIMESTAMP };
}

function product(id: number, name = `P${id}`): Change {
  return { kind: 'put', collection: 'products', record: productRecord(id, name) };
}

function line(seq: number, changes: readonly Change[] = [product(seq)]): string {
  return encodeEntry(seq, changes);
}

describe('journal format: segment names', () => {
  test('segmentName pads the first seq to 12 digits; segmentFirstSeq reads it back', () => {
    assert.equal(segmentName(1), 'journal-000000000001.jsonl');
    assert.equal(segmentName(42), 'journal-000000000042.jsonl');
    assert.equal(segmentName(999_999_999_999), 'journal-999999999999.jsonl');
    for (const seq of [1, 7, 42, 1000, 123_456_789_012]) assert.equal(segmentFirstSeq(segmentName(seq)), seq);
  });

  test('names sort by their first seq', () => {
    const seqs = [10, 9, 100, 1, 11];
    assert.deepEqual(
      seqs
        .map(segmentName)
        .sort()
        .map((name) => segmentFirstSeq(name)),
      [...seqs].sort((a, b) => a - b),
    );
  });

  test('any other file name is not a segment', () => {
    for (const name of [
      'journal-1.jsonl',
      'journal-0000000000001.jsonl',
      'journal-000000000001.json',
      'journal-000000000001.jsonl.tmp',
      '.journal-000000000001.jsonl.123.tmp',
      'products.json',
      'plainrest.lock',
      'token-secret',
      'journal-00000000000a.jsonl',
    ]) {
      assert.equal(segmentFirstSeq(name), undefined, name);
    }
  });
});

describe('journal format: one entry per line', () => {
  test('encodeEntry writes one line of {seq, changes} with puts and deletes', () => {
    const text = encodeEntry(7, [product(3), { kind: 'delete', collection: 'orders', id: 9 }]);
    assert.ok(text.endsWith('\n'));
    assert.equal(text.indexOf('\n'), text.length - 1, 'exactly one newline, at the end');
    const expected = {
      seq: 7,
      changes: [
        {
          put: 'products',
          record: { id: 3, name: 'P3', category: 'c', price: 1, created_at: TIMESTAMP, updated_at: TIMESTAMP },
        },
        { delete: 'orders', id: 9 },
      ],
    };
    assert.deepEqual(JSON.parse(text), expected);
    assert.equal(text, `${JSON.stringify(expected)}\n`, 'byte for byte what JSON.stringify of the entry gives');
  });

  test('encode then decode gives the same entry back, whatever the strings hold', () => {
    const changes: Change[] = [
      product(1, 'line\nbreak, "quotes", back\\slash, tab\t, ☕ ünïcødé, \u2028 separator, 𝄞'),
      {
        kind: 'put',
        collection: 'users',
        record: {
          id: 2,
          name: 'U',
          email: 'u@example.com',
          role: 'user',
          tags: ['a', 'b'],
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        },
      },
      { kind: 'delete', collection: 'users', id: 5 },
      { kind: 'delete', collection: 'orders', id: 11 },
      { kind: 'delete', collection: 'orders', id: 12 },
    ];
    const text = encodeEntry(123, changes);
    assert.equal(
      text.indexOf('\n'),
      text.length - 1,
      'a newline inside a value is escaped, so the entry stays one line',
    );
    assert.deepEqual(decodeEntry(text.slice(0, -1)), { seq: 123, changes });
    assert.deepEqual(decodeEntry(text), { seq: 123, changes }, 'the trailing newline is whitespace to JSON');
  });

  test('decoded records are frozen, as the store keeps them', () => {
    const entry = decodeEntry(line(1).trim());
    const change = entry?.changes[0];
    assert.ok(change?.kind === 'put');
    assert.ok(Object.isFrozen(change.record));
  });

  const notEntries: { name: string; text: string }[] = [
    { name: 'an empty line', text: '' },
    { name: 'half a line', text: line(1).slice(0, 30) },
    { name: 'not JSON', text: 'hello' },
    { name: 'a JSON array', text: '[1, 2]' },
    { name: 'a JSON number', text: '5' },
    { name: 'no seq', text: '{"changes": []}' },
    { name: 'seq 0', text: '{"seq": 0, "changes": []}' },
    { name: 'a negative seq', text: '{"seq": -3, "changes": []}' },
    { name: 'a fractional seq', text: '{"seq": 1.5, "changes": []}' },
    { name: 'a string seq', text: '{"seq": "1", "changes": []}' },
    { name: 'a seq beyond safe integers', text: '{"seq": 9007199254740993, "changes": []}' },
    { name: 'no changes', text: '{"seq": 1}' },
    { name: 'changes not an array', text: '{"seq": 1, "changes": {}}' },
    { name: 'a change that is not an object', text: '{"seq": 1, "changes": [1]}' },
    // Which collections exist is the declaration's business (checked at start); the format refuses what cannot be a collection's name.
    {
      name: 'a collection that cannot be a name',
      text: `{"seq": 1, "changes": [{"put": "../nowhere", "record": {"id": 1, "created_at": "${TIMESTAMP}", "updated_at": "${TIMESTAMP}"}}]}`,
    },
    { name: 'a put without a record', text: '{"seq": 1, "changes": [{"put": "products"}]}' },
    {
      name: 'a record without an id',
      text: `{"seq": 1, "changes": [{"put": "products", "record": {"created_at": "${TIMESTAMP}", "updated_at": "${TIMESTAMP}"}}]}`,
    },
    {
      name: 'a record with id 0',
      text: `{"seq": 1, "changes": [{"put": "products", "record": {"id": 0, "created_at": "${TIMESTAMP}", "updated_at": "${TIMESTAMP}"}}]}`,
    },
    { name: 'a record without timestamps', text: '{"seq": 1, "changes": [{"put": "products", "record": {"id": 1}}]}' },
    { name: 'a delete without an id', text: '{"seq": 1, "changes": [{"delete": "products"}]}' },
    { name: 'a delete of id 0', text: '{"seq": 1, "changes": [{"delete": "products", "id": 0}]}' },
    { name: 'a delete of an empty string id', text: '{"seq": 1, "changes": [{"delete": "products", "id": ""}]}' },
    { name: 'a delete of a string no id holds', text: '{"seq": 1, "changes": [{"delete": "boards", "id": "a b"}]}' },
    { name: 'a delete of a null id', text: '{"seq": 1, "changes": [{"delete": "products", "id": null}]}' },
    {
      name: 'a good change then a bad one',
      text: `{"seq": 1, "changes": [{"delete": "products", "id": 1}, {"delete": "../nowhere", "id": 1}]}`,
    },
  ];
  for (const c of notEntries) {
    test(`decodeEntry: ${c.name} → undefined`, () => {
      assert.equal(decodeEntry(c.text), undefined);
    });
  }
});

describe('journal format: parseSegment', () => {
  test('an empty segment has no entries, 0 good bytes and no torn tail', () => {
    assert.deepEqual(parseSegment(''), { entries: [], goodBytes: 0, tornTail: false });
  });

  test('complete lines: every entry in order, all bytes good', () => {
    const text = line(1) + line(2, [product(2), { kind: 'delete', collection: 'products', id: 1 }]) + line(5);
    const parsed = parseSegment(text);
    assert.deepEqual(
      parsed.entries.map((entry) => entry.seq),
      [1, 2, 5],
    );
    assert.deepEqual(
      parsed.entries[1],
      decodeEntry(line(2, [product(2), { kind: 'delete', collection: 'products', id: 1 }])),
    );
    assert.equal(parsed.goodBytes, Buffer.byteLength(text));
    assert.equal(parsed.tornTail, false);
  });

  test('a last line without its newline is torn: the entries before it, and the bytes up to its start', () => {
    const good = line(1) + line(2);
    for (const cut of [1, 10, line(3).length - 2, line(3).length - 1]) {
      const parsed = parseSegment(good + line(3).slice(0, cut));
      assert.deepEqual(
        parsed.entries.map((entry) => entry.seq),
        [1, 2],
        `cut at ${cut}`,
      );
      assert.equal(parsed.goodBytes, Buffer.byteLength(good), `cut at ${cut}`);
      assert.equal(parsed.tornTail, true, `cut at ${cut}`);
    }
  });

  test('a last line whose JSON is whole but whose newline is missing is torn: its write never finished, so it was never acknowledged', () => {
    const good = line(1);
    const parsed = parseSegment(good + line(2).trimEnd());
    assert.deepEqual(
      parsed.entries.map((entry) => entry.seq),
      [1],
    );
    assert.equal(parsed.goodBytes, Buffer.byteLength(good));
    assert.equal(parsed.tornTail, true);
  });

  test('a damaged last line that ends with a newline is torn (garbage the crash left)', () => {
    const good = line(1) + line(2);
    const parsed = parseSegment(`${good}{"seq":3,"chan\n`);
    assert.deepEqual(
      parsed.entries.map((entry) => entry.seq),
      [1, 2],
    );
    assert.equal(parsed.goodBytes, Buffer.byteLength(good));
    assert.equal(parsed.tornTail, true);
  });

  test('good bytes are bytes, not characters: multi-byte text before a tear, and a tear inside a character', () => {
    const good = line(1, [product(1, 'Café ☕ 𝄞')]) + line(2, [product(2, 'ünïcødé')]);
    assert.notEqual(Buffer.byteLength(good), good.length);
    const next = Buffer.from(line(3, [product(3, 'torn ☕ here')]));
    const torn = next.subarray(0, next.indexOf(Buffer.from('☕')) + 2); // two of the three bytes of ☕
    // read back as UTF-8, the way a start reads a segment
    const text = Buffer.concat([Buffer.from(good), torn]).toString('utf8');
    const parsed = parseSegment(text);
    assert.deepEqual(
      parsed.entries.map((entry) => entry.seq),
      [1, 2],
    );
    assert.equal(parsed.goodBytes, Buffer.byteLength(good));
    assert.equal(parsed.tornTail, true);
  });

  test('a torn line that is the only one: no entries, 0 good bytes', () => {
    assert.deepEqual(parseSegment(line(1).slice(0, 12)), { entries: [], goodBytes: 0, tornTail: true });
  });

  const corruptMiddles: { name: string; text: string; line: number }[] = [
    { name: 'half a line followed by a good one', text: line(1) + line(2).slice(0, 20) + '\n' + line(3), line: 2 },
    { name: 'garbage as the first line', text: 'garbage\n' + line(2), line: 1 },
    { name: 'an empty line in the middle', text: line(1) + '\n' + line(2), line: 2 },
    {
      name: 'a collection that cannot be a name in the middle',
      text: line(1) + line(2).replace('"products"', '"../nowhere"') + line(3),
      line: 2,
    },
    {
      name: 'a torn line two lines before the end',
      text: line(1) + line(2) + line(3).slice(0, 9) + '\n' + line(4) + line(5),
      line: 3,
    },
  ];
  for (const c of corruptMiddles) {
    test(`a damaged line before the last (${c.name}) throws naming line ${c.line}`, () => {
      assert.throws(
        () => parseSegment(c.text),
        (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.match(error.message, new RegExp(`\\bline ${c.line}\\b`));
          return true;
        },
      );
    });
  }

  const outOfOrder: { name: string; seqs: number[]; line: number }[] = [
    { name: 'a seq lower than the one before', seqs: [1, 3, 2], line: 3 },
    { name: 'a repeated seq', seqs: [4, 4], line: 2 },
    { name: 'a seq going back to the start', seqs: [5, 6, 7, 1], line: 4 },
  ];
  for (const c of outOfOrder) {
    test(`${c.name} (${c.seqs.join(', ')}) throws naming line ${c.line} and its seq`, () => {
      const text = c.seqs.map((seq, index) => line(seq, [product(index + 1)])).join('');
      assert.throws(
        () => parseSegment(text),
        (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.match(error.message, new RegExp(`\\bline ${c.line}\\b`));
          assert.ok(error.message.includes(String(c.seqs[c.line - 1])), error.message);
          return true;
        },
      );
    });
  }

  test('seqs may skip numbers (a later segment, or seqs of writes that failed)', () => {
    assert.deepEqual(
      parseSegment(line(3) + line(10) + line(11)).entries.map((entry) => entry.seq),
      [3, 10, 11],
    );
  });
});

describe('journal format: `at` and the event facts (README: Events)', () => {
  const AT = '2026-03-04T05:06:07.089Z';
  const order = {
    id: 7,
    user_id: 5,
    items: [{ product_id: 3, quantity: 1, unit_price: 1 }],
    total: 1,
    status: 'pending',
    created_at: TIMESTAMP,
    updated_at: TIMESTAMP,
  };
  const key = {
    id: 2,
    scope: 's',
    fingerprint: 'f',
    status: 201,
    body: '{}',
    location: null,
    etag: null,
    created_at: TIMESTAMP,
    updated_at: TIMESTAMP,
  };
  const changes: Change[] = [
    // created: a top-level record without an owner
    { ...product(3), event: { type: 'created', under: [] } },
    // updated: a record under user 5, who owns it
    { kind: 'put', collection: 'orders', record: order, event: { type: 'updated', under: [5], owner: 5 } },
    // deleted, two levels down
    { kind: 'delete', collection: 'notes', id: 11, event: { type: 'deleted', under: [5, 7], owner: 5 } },
    { kind: 'delete', collection: 'users', id: 5, event: { type: 'deleted', under: [], owner: 5 } },
    // an idempotency key's change carries no facts
    { kind: 'put', collection: 'idempotency_keys', record: key },
    { kind: 'delete', collection: 'idempotency_keys', id: 1 },
  ];

  test('encodeEntry writes `at` after seq, and each fact in a fixed order: created (only when created), under, owner (only when there is one)', () => {
    const text = encodeEntry(8, changes, AT);
    const expected = {
      seq: 8,
      at: AT,
      changes: [
        { put: 'products', created: true, under: [], record: productRecord(3) },
        { put: 'orders', under: [5], owner: 5, record: order },
        { delete: 'notes', id: 11, under: [5, 7], owner: 5 },
        { delete: 'users', id: 5, under: [], owner: 5 },
        { put: 'idempotency_keys', record: key },
        { delete: 'idempotency_keys', id: 1 },
      ],
    };
    assert.equal(text, `${JSON.stringify(expected)}\n`, 'byte for byte what JSON.stringify of the entry gives');
  });

  test('encode then decode gives the entry back: `at`, and the facts of created, updated and deleted records', () => {
    const text = encodeEntry(8, changes, AT);
    assert.equal(text.indexOf('\n'), text.length - 1, 'one line');
    assert.deepEqual(decodeEntry(text), { seq: 8, at: AT, changes });
    const decoded = decodeEntry(text)?.changes ?? [];
    assert.deepEqual(
      decoded.map((change) => change.event?.type),
      ['created', 'updated', 'deleted', 'deleted', undefined, undefined],
    );
  });

  test('a line written before the change feed (no `at`, no facts) still decodes: an entry without `at`, changes without facts', () => {
    const old = `{"seq":4,"changes":[{"put":"products","record":${JSON.stringify(productRecord(3))}},{"delete":"orders","id":9}]}`;
    const entry = decodeEntry(old);
    assert.ok(entry !== undefined);
    assert.equal('at' in entry, false);
    assert.deepEqual(entry, { seq: 4, changes: [product(3), { kind: 'delete', collection: 'orders', id: 9 }] });
    for (const change of entry.changes) assert.equal('event' in change, false);
  });

  test('a put without `created` is an update; `owner` is optional', () => {
    const record = JSON.stringify(productRecord(3));
    assert.deepEqual(
      decodeEntry(`{"seq":1,"at":"${AT}","changes":[{"put":"products","under":[],"record":${record}}]}`)?.changes[0]
        ?.event,
      {
        type: 'updated',
        under: [],
      },
    );
    assert.deepEqual(
      decodeEntry(`{"seq":1,"at":"${AT}","changes":[{"put":"products","created":true,"under":[],"record":${record}}]}`)
        ?.changes[0]?.event,
      {
        type: 'created',
        under: [],
      },
    );
  });

  const record = JSON.stringify(productRecord(3));
  const put = (facts: string): string =>
    `{"seq":1,"at":"${AT}","changes":[{"put":"products"${facts},"record":${record}}]}`;
  const remove = (facts: string): string => `{"seq":1,"at":"${AT}","changes":[{"delete":"orders","id":7${facts}}]}`;
  const malformed: { name: string; text: string }[] = [
    { name: 'under a number', text: put(',"under":5') },
    { name: 'under an object', text: put(',"under":{}') },
    { name: 'under a string', text: put(',"under":"1"') },
    { name: 'under null', text: put(',"under":null') },
    { name: 'under holding 0', text: put(',"under":[0]') },
    { name: 'under holding a negative id', text: put(',"under":[-1]') },
    { name: 'under holding a fraction', text: put(',"under":[1.5]') },
    { name: 'under holding an empty string', text: put(',"under":[""]') },
    { name: 'under holding a string no id holds', text: put(',"under":["road map"]') },
    { name: 'under holding null after an id', text: put(',"under":[1,null]') },
    { name: 'under holding an id beyond safe integers', text: put(',"under":[9007199254740993]') },
    { name: 'owner 0', text: put(',"under":[],"owner":0') },
    { name: 'a negative owner', text: put(',"under":[],"owner":-2') },
    { name: 'a fractional owner', text: put(',"under":[],"owner":1.5') },
    { name: 'a string owner', text: put(',"under":[],"owner":"5"') },
    { name: 'a null owner', text: put(',"under":[],"owner":null') },
    { name: 'a deletion with under not an array', text: remove(',"under":5') },
    { name: 'a deletion with under holding 0', text: remove(',"under":[0]') },
    { name: 'a deletion with owner 0', text: remove(',"under":[5],"owner":0') },
    { name: 'at not a date', text: `{"seq":1,"at":"yesterday","changes":[]}` },
    { name: 'at an impossible date', text: `{"seq":1,"at":"2026-13-45T00:00:00.000Z","changes":[]}` },
    { name: 'at empty', text: `{"seq":1,"at":"","changes":[]}` },
    { name: 'at a number', text: `{"seq":1,"at":1767225600000,"changes":[]}` },
    { name: 'at null', text: `{"seq":1,"at":null,"changes":[]}` },
    {
      name: 'good facts, then malformed ones',
      text: `{"seq":1,"at":"${AT}","changes":[{"delete":"orders","id":7,"under":[5],"owner":5},{"delete":"orders","id":8,"under":[5],"owner":0}]}`,
    },
  ];
  for (const c of malformed) {
    test(`decodeEntry: ${c.name} → undefined`, () => {
      assert.equal(decodeEntry(c.text), undefined);
    });
  }

  test('ids of uuids and chosen strings are JSON strings in every kind of change: a put, a deletion, under', () => {
    const uuid = '0d6f3a52-8c1e-4b7a-9f2d-5e4c3b2a1f00';
    const board = { id: 'road-map', name: 'Road map', created_at: TIMESTAMP, updated_at: TIMESTAMP };
    const lane = { id: 1, board_id: 'road-map', title: 'Doing', created_at: TIMESTAMP, updated_at: TIMESTAMP };
    const mixed: Change[] = [
      { kind: 'put', collection: 'boards', record: board, event: { type: 'created', under: [], owner: 5 } },
      { kind: 'put', collection: 'lanes', record: lane, event: { type: 'updated', under: ['road-map'], owner: 5 } },
      { kind: 'delete', collection: 'boards', id: 'a.b_c~d-e', event: { type: 'deleted', under: [] } },
      { kind: 'delete', collection: 'checklists', id: 3, event: { type: 'deleted', under: [uuid] } },
      { kind: 'delete', collection: 'cards', id: uuid, event: { type: 'deleted', under: [], owner: 2 } },
      { kind: 'delete', collection: 'steps', id: 'x', event: { type: 'deleted', under: [7, uuid, 'road-map'] } },
      // A deletion without facts (written before the change feed).
      { kind: 'delete', collection: 'boards', id: 'old' },
    ];
    const text = encodeEntry(4, mixed, AT);
    const expected = {
      seq: 4,
      at: AT,
      changes: [
        { put: 'boards', created: true, under: [], owner: 5, record: board },
        { put: 'lanes', under: ['road-map'], owner: 5, record: lane },
        { delete: 'boards', id: 'a.b_c~d-e', under: [] },
        { delete: 'checklists', id: 3, under: [uuid] },
        { delete: 'cards', id: uuid, under: [], owner: 2 },
        { delete: 'steps', id: 'x', under: [7, uuid, 'road-map'] },
        { delete: 'boards', id: 'old' },
      ],
    };
    assert.equal(text, `${JSON.stringify(expected)}\n`, 'byte for byte what JSON.stringify of the entry gives');
    assert.deepEqual(decodeEntry(text), { seq: 4, at: AT, changes: mixed });
    // An id of digits only in a string collection stays a string, and an integer stays a number.
    const digits: Change[] = [
      { kind: 'delete', collection: 'boards', id: '12', event: { type: 'deleted', under: ['3'] } },
      { kind: 'delete', collection: 'lanes', id: 12, event: { type: 'deleted', under: [3] } },
    ];
    const digitsText = encodeEntry(5, digits, AT);
    assert.equal(
      digitsText,
      `{"seq":5,"at":"${AT}","changes":[{"delete":"boards","id":"12","under":["3"]},` +
        `{"delete":"lanes","id":12,"under":[3]}]}\n`,
    );
    assert.deepEqual(decodeEntry(digitsText)?.changes, digits);
    // Escaped as JSON.stringify escapes, though no id the server takes holds such characters (the decoder refuses it).
    const odd: Change = {
      kind: 'delete',
      collection: 'boards',
      id: 'say "hi"\\\n',
      event: { type: 'deleted', under: ['"'] },
    };
    const oddText = encodeEntry(6, [odd]);
    assert.equal(
      oddText,
      `${JSON.stringify({ seq: 6, changes: [{ delete: 'boards', id: 'say "hi"\\\n', under: ['"'] }] })}\n`,
    );
    assert.equal(oddText.indexOf('\n'), oddText.length - 1, 'one line');
    assert.equal(decodeEntry(oddText), undefined);
    // Followed by another line, a deletion of a string id is an entry like any other, decoded or left undecoded.
    const segment = text + encodeEntry(11, [product(1)], AT);
    assert.deepEqual(
      parseSegment(segment).entries.map((entry) => entry.seq),
      [4, 11],
    );
    const covered = readSegment(segment, 4);
    assert.equal(covered.tornTail, false);
    const first = covered.entries[0];
    assert.ok(first !== undefined && isUndecoded(first));
    assert.deepEqual(decodeEntry(first.text), { seq: 4, at: AT, changes: mixed });
  });

  test('parseSegment names a line with malformed facts before the last', () => {
    const good = encodeEntry(1, [changes[0] as Change], AT);
    assert.throws(
      () =>
        parseSegment(
          good +
            put(',"under":[],"owner":0').replace('"seq":1', '"seq":2') +
            '\n' +
            encodeEntry(3, [changes[0] as Change], AT),
        ),
      /\bline 2\b/,
    );
  });
});

describe('journal format: the numbers an entry takes', () => {
  test('seqsTaken: one per change, and one for an entry without changes', () => {
    assert.equal(seqsTaken([]), 1);
    assert.equal(seqsTaken([product(1)]), 1);
    assert.equal(seqsTaken([product(1), product(2), { kind: 'delete', collection: 'products', id: 3 }]), 3);
    assert.equal(seqsTaken(Array.from({ length: 19 }, (_, index) => product(index + 1))), 19);
  });
});

describe('journal format: readSegment (a start leaves the lines the snapshots cover undecoded)', () => {
  test('lines up to coveredThrough keep their text and seq, later ones are decoded; the undecoded text decodes to the same entry', () => {
    const text = line(1) + line(2, [product(2), { kind: 'delete', collection: 'products', id: 1 }]) + line(4) + line(5);
    const read = readSegment(text, 4);
    assert.deepEqual(
      read.entries.map((entry) => [entry.seq, isUndecoded(entry)]),
      [
        [1, true],
        [2, true],
        [4, true],
        [5, false],
      ],
    );
    const second = read.entries[1];
    assert.ok(second !== undefined && isUndecoded(second));
    assert.equal(second.line, 2);
    assert.deepEqual(decodeEntry(second.text), parseSegment(text).entries[1]);
    assert.equal(read.goodBytes, Buffer.byteLength(text));
    assert.equal(read.tornTail, false);
  });

  test('a covered line not written as plainrest writes it (spaces, seq not first, a leading zero) is decoded, and damage there still throws naming it', () => {
    const spaced = '{"seq": 2, "changes": [{"delete": "products", "id": 1}]}\n';
    const seqLast = '{"changes":[{"delete":"products","id":1}],"seq":3}\n';
    const read = readSegment(line(1) + spaced + seqLast, 10);
    assert.deepEqual(
      read.entries.map((entry) => [entry.seq, isUndecoded(entry)]),
      [
        [1, true],
        [2, false],
        [3, false],
      ],
    );
    assert.throws(() => readSegment(line(1) + '{"seq":02,"changes":[]}\n' + line(3), 10), /\bline 2\b/);
  });

  test('covered lines are still checked for order: a seq that goes back throws naming the line', () => {
    assert.throws(() => readSegment(line(1) + line(3) + line(2) + line(4), 10), /\bline 3\b.*\bseq 2\b/);
  });

  test('a torn last line is found as before, whatever is covered', () => {
    const good = line(1) + line(2);
    const read = readSegment(good + line(3).slice(0, 20), 10);
    assert.deepEqual(
      read.entries.map((entry) => entry.seq),
      [1, 2],
    );
    assert.equal(read.goodBytes, Buffer.byteLength(good));
    assert.equal(read.tornTail, true);
  });
});

describe('journal format: segmentsBefore (which segments compaction may delete)', () => {
  const dir = '/data/dir';
  // three finished segments, numbers 1–4, 5–8 and 9–11; the current one starts at 12
  const paths = [1, 5, 9].map((first) => join(dir, segmentName(first)));
  const [first, second, third] = paths as [string, string, string];

  const cases: { keptFrom: number; deletable: string[]; why: string }[] = [
    { keptFrom: 1, deletable: [], why: 'the feed keeps everything' },
    { keptFrom: 4, deletable: [], why: 'the first segment straddles 4 (it holds 1–4)' },
    { keptFrom: 5, deletable: [first], why: 'the first segment ends at 4; the second starts at 5' },
    { keptFrom: 7, deletable: [first], why: 'the second segment straddles 7' },
    { keptFrom: 8, deletable: [first], why: 'the second segment ends at 8' },
    { keptFrom: 9, deletable: [first, second], why: 'everything before the third segment' },
    { keptFrom: 11, deletable: [first, second], why: 'the third segment (up to the current one) straddles 11' },
    { keptFrom: 12, deletable: [first, second, third], why: 'the third segment ends where the current one begins' },
    { keptFrom: Number.POSITIVE_INFINITY, deletable: [first, second, third], why: 'no history kept (a copy)' },
  ];
  for (const c of cases) {
    test(`keptFrom ${c.keptFrom}: ${c.deletable.length} deletable (${c.why})`, () => {
      assert.deepEqual(segmentsBefore(paths, 12, c.keptFrom), c.deletable);
    });
  }

  test('no segments: nothing to delete; a lone segment ends where the next first seq begins', () => {
    assert.deepEqual(segmentsBefore([], 12, 100), []);
    assert.deepEqual(segmentsBefore([first], 12, 11), []);
    assert.deepEqual(segmentsBefore([first], 12, 12), [first]);
  });
});

describe('journal: the change feed keeps its history and numbering through a restart (openStore)', () => {
  const EVERYTHING: EventFilter = {
    after: 0,
    readable: { all: new Set(['users', 'products', 'orders']), own: new Set(), owner: 0 },
  };
  const user = (id: number): StoredRecord => ({
    id,
    name: `U${id}`,
    email: `u${id}@example.com`,
    role: 'user',
    created_at: TIMESTAMP,
    updated_at: TIMESTAMP,
  });
  const orderOf = (id: number, userId: number): StoredRecord => ({
    id,
    user_id: userId,
    items: [{ product_id: 1, quantity: 1, unit_price: 1 }],
    total: 1,
    status: 'pending',
    created_at: TIMESTAMP,
    updated_at: TIMESTAMP,
  });
  const key = {
    id: 1,
    scope: 's',
    fingerprint: 'f',
    status: 201,
    body: '{}',
    location: null,
    etag: null,
    created_at: TIMESTAMP,
    updated_at: TIMESTAMP,
  };

  function open(dataDir: string): Promise<MemoryStore> {
    return openStore({ dataDir, seed: false, compactAfterBytes: 1_000_000_000, logger: recordingLogger() }, EXAMPLE);
  }

  async function segmentLines(dataDir: string): Promise<{ seq: number; at?: string }[]> {
    const lines: { seq: number; at?: string }[] = [];
    for (const name of (await readdir(dataDir)).filter((file) => segmentFirstSeq(file) !== undefined).sort()) {
      for (const text of (await readFile(join(dataDir, name), 'utf8')).split('\n'))
        if (text !== '') lines.push(JSON.parse(text) as { seq: number; at?: string });
    }
    return lines;
  }

  /** The feed's events; after a restart the history may still be decoding (store/journal-history.ts), and the page waits for it. */
  async function events(store: MemoryStore, filter: EventFilter = EVERYTHING): Promise<readonly FeedEvent[]> {
    return (await store.feed.page(filter, 0, 100_000)).events;
  }

  test('events keep their ids, times, facts and records across a clean stop; the numbering continues after it', async () => {
    const dir = await temporaryDirectory();
    try {
      const store = await open(dir.path);
      const u1 = user(1);
      const p1 = productRecord(1);
      const p1v2 = { ...p1, price: 2 };
      const p2 = productRecord(2);
      const o1 = orderOf(1, 1);
      await store.commit([{ kind: 'put', collection: 'users', record: u1 }]); // seq 1
      await store.commit([{ kind: 'put', collection: 'products', record: p1 }]); // seq 2
      await store.commit([
        { kind: 'put', collection: 'orders', record: o1 },
        { kind: 'put', collection: 'products', record: p1v2 },
      ]); // seq 3: numbers 3 and 4
      await store.commit([
        { kind: 'put', collection: 'idempotency_keys', record: key },
        { kind: 'put', collection: 'products', record: p2 },
      ]); // seq 5: numbers 5 (no event: an idempotency key) and 6
      await store.commit([
        { kind: 'delete', collection: 'orders', id: 1 },
        { kind: 'delete', collection: 'users', id: 1 },
      ]); // seq 7: numbers 7 and 8, facts from the records as they were
      await store.commit([{ kind: 'delete', collection: 'products', id: 1 }]); // seq 9

      const lines = await segmentLines(dir.path);
      assert.deepEqual(
        lines.map((line) => line.seq),
        [1, 2, 3, 5, 7, 9],
        'each line takes one number per change',
      );
      const at = (seq: number): string => lines.find((line) => line.seq === seq)?.at as string;
      const expected: FeedEvent[] = [
        { id: 1, type: 'created', collection: 'users', recordId: 1, under: [], owner: 1, at: at(1), record: u1 },
        {
          id: 2,
          type: 'created',
          collection: 'products',
          recordId: 1,
          under: [],
          owner: undefined,
          at: at(2),
          record: p1,
        },
        { id: 3, type: 'created', collection: 'orders', recordId: 1, under: [1], owner: 1, at: at(3), record: o1 },
        {
          id: 4,
          type: 'updated',
          collection: 'products',
          recordId: 1,
          under: [],
          owner: undefined,
          at: at(3),
          record: p1v2,
        },
        {
          id: 6,
          type: 'created',
          collection: 'products',
          recordId: 2,
          under: [],
          owner: undefined,
          at: at(5),
          record: p2,
        },
        {
          id: 7,
          type: 'deleted',
          collection: 'orders',
          recordId: 1,
          under: [1],
          owner: 1,
          at: at(7),
          record: undefined,
        },
        { id: 8, type: 'deleted', collection: 'users', recordId: 1, under: [], owner: 1, at: at(7), record: undefined },
        {
          id: 9,
          type: 'deleted',
          collection: 'products',
          recordId: 1,
          under: [],
          owner: undefined,
          at: at(9),
          record: undefined,
        },
      ];
      for (const line of lines)
        assert.ok(
          typeof line.at === 'string' && new Date(line.at).toISOString() === line.at,
          `line ${line.seq} has its time`,
        );
      assert.deepEqual(await events(store), expected);
      assert.deepEqual(await store.feed.window(), { lostThrough: 0, latest: 9 });
      await store.close();

      // Nothing is rewritten at a stop: the segment stays, holding every change since the first start's snapshots.
      const files = await readdir(dir.path);
      assert.ok(files.includes(segmentName(1)), files.join(', '));
      const snapshot = JSON.parse(await readFile(join(dir.path, 'products.json'), 'utf8')) as {
        journal_seq: number;
        records: unknown[];
      };
      assert.equal(snapshot.journal_seq, 0);
      assert.deepEqual(snapshot.records, []);

      const reopened = await open(dir.path);
      try {
        assert.deepEqual(await events(reopened), expected, 'the same events, ids and times after the restart');
        assert.deepEqual(await reopened.feed.window(), { lostThrough: 0, latest: 9 });
        // the state is the journal's, replayed over the snapshots
        assert.deepEqual(reopened.get('products', 2), p2);
        assert.equal(reopened.get('products', 1), undefined);
        assert.equal(reopened.get('users', 1), undefined);
        // what a caller may see: an owner their own, the shared collections anyone
        const asUser2: EventFilter = {
          after: 0,
          readable: { all: new Set(['products']), own: new Set(['users', 'orders']), owner: 2 },
        };
        assert.deepEqual(
          (await events(reopened, asUser2)).map((event) => event.id),
          [2, 4, 6, 9],
        );
        const asUser1: EventFilter = { ...asUser2, readable: { ...asUser2.readable, owner: 1 } };
        assert.deepEqual(
          (await events(reopened, asUser1)).map((event) => event.id),
          [1, 2, 3, 4, 6, 7, 8, 9],
        );
        assert.deepEqual(
          (await events(reopened, { ...EVERYTHING, after: 6 })).map((event) => event.id),
          [7, 8, 9],
        );

        // the next commit continues the numbering, in the journal and in the feed
        const p3 = productRecord(3);
        const published: FeedEvent[] = [];
        const unsubscribe = reopened.feed.subscribe((batch) => published.push(...batch));
        await reopened.commit([{ kind: 'put', collection: 'products', record: p3 }]);
        unsubscribe();
        const next = await events(reopened, { ...EVERYTHING, after: 9 });
        assert.deepEqual(
          next.map((event) => [event.id, event.type, event.collection, event.recordId]),
          [[10, 'created', 'products', 3]],
        );
        assert.deepEqual(published, next);
        assert.deepEqual(await reopened.feed.window(), { lostThrough: 0, latest: 10 });
        assert.deepEqual(
          (await segmentLines(dir.path)).map((line) => line.seq),
          [1, 2, 3, 5, 7, 9, 10],
        );
      } finally {
        await reopened.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test('a line with `at` whose seq is a number the entry before it took stops the start, naming the file, and changes nothing', async () => {
    const dir = await temporaryDirectory();
    try {
      const at = '2026-11-24T10:00:00.000Z';
      const created = { type: 'created', under: [] } as const;
      await writeFile(
        join(dir.path, segmentName(1)),
        encodeEntry(
          1,
          [
            { kind: 'put', collection: 'products', record: productRecord(1), event: created },
            { kind: 'put', collection: 'products', record: productRecord(2), event: created },
          ],
          at,
        ) + encodeEntry(2, [{ kind: 'put', collection: 'products', record: productRecord(3), event: created }], at),
      );
      const before = await readFile(join(dir.path, segmentName(1)), 'utf8');
      await assert.rejects(open(dir.path), (error: Error) => {
        assert.equal(
          error.message,
          `journal ${join(dir.path, segmentName(1))} has seq 2, a number the entry before it took (up to 2); nothing was changed: restore the data directory from a backup`,
        );
        return true;
      });
      assert.equal(await readFile(join(dir.path, segmentName(1)), 'utf8'), before);
    } finally {
      await dir.remove();
    }
  });

  test('a journal written before the change feed (no `at`, no facts) is replayed; it has no events, and the numbering continues after its numbers', async () => {
    const dir = await temporaryDirectory();
    try {
      const p1 = productRecord(1);
      const p2 = productRecord(2);
      // Old lines took one number each, whatever their changes.
      await writeFile(
        join(dir.path, segmentName(1)),
        encodeEntry(1, [{ kind: 'put', collection: 'products', record: p1 }]) +
          encodeEntry(2, [
            { kind: 'put', collection: 'products', record: p2 },
            { kind: 'delete', collection: 'products', id: 1 },
          ]) +
          encodeEntry(3, [{ kind: 'put', collection: 'users', record: user(1) }]),
      );
      const store = await open(dir.path);
      try {
        assert.equal(store.get('products', 1), undefined);
        assert.deepEqual(store.get('products', 2), p2);
        assert.deepEqual(await events(store), []);
        assert.equal((await store.feed.window()).latest, 3);
        await store.commit([{ kind: 'put', collection: 'products', record: productRecord(3) }]);
        assert.deepEqual(
          (await events(store)).map((event) => [event.id, event.type, event.recordId]),
          [[4, 'created', 3]],
        );
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });

  /**
   * What a clean stop leaves: segments of `count` product updates (one event each, 1,000 a
   * segment) and snapshots of every collection covering them, products 1..10 as the last updates left them.
   */
  async function cleanlyStoppedDirectory(
    dataDir: string,
    count: number,
    damage?: (text: string, seq: number) => string,
  ): Promise<StoredRecord[]> {
    const at = '2026-11-24T10:00:00.000Z';
    const latest = new Map<RecordId, StoredRecord>();
    for (let first = 1; first <= count; first += 1000) {
      let text = '';
      for (let seq = first; seq < Math.min(first + 1000, count + 1); seq++) {
        const record = { ...productRecord((seq % 10) + 1), price: seq };
        latest.set(record.id, record);
        const entry = encodeEntry(
          seq,
          [
            {
              kind: 'put',
              collection: 'products',
              record,
              event: { type: seq <= 10 ? 'created' : 'updated', under: [] },
            },
          ],
          at,
        );
        text += damage === undefined ? entry : damage(entry, seq);
      }
      await writeFile(join(dataDir, segmentName(first)), text);
    }
    const products = [...latest.values()].sort((a, b) => compareIds(a.id, b.id));
    await writeSnapshot(join(dataDir, 'products.json'), products, 12, count);
    for (const collection of ['users', 'orders', 'keys', 'webhooks', 'deliveries', 'idempotency_keys'])
      await writeSnapshot(join(dataDir, `${collection}.json`), [], 1, count);
    return products;
  }

  test("a history of 2,500 events the snapshots cover is decoded after the start: every event, in order, the records the snapshots' and the numbering after it", async () => {
    const dir = await temporaryDirectory();
    try {
      const products = await cleanlyStoppedDirectory(dir.path, 2500);
      const logger = recordingLogger();
      const store = await openStore(
        { dataDir: dir.path, seed: false, compactAfterBytes: 1_000_000_000, logger },
        EXAMPLE,
      );
      try {
        const all = await events(store);
        assert.deepEqual(
          all.map((event) => event.id),
          Array.from({ length: 2500 }, (_, index) => index + 1),
        );
        assert.deepEqual(all[2499], {
          id: 2500,
          type: 'updated',
          collection: 'products',
          recordId: 1,
          under: [],
          owner: undefined,
          at: '2026-11-24T10:00:00.000Z',
          record: { ...productRecord(1), price: 2500 },
        });
        assert.deepEqual(await store.feed.window(), { lostThrough: 0, latest: 2500 });
        assert.deepEqual(
          Array.from({ length: 10 }, (_, index) => store.get('products', index + 1)),
          products,
        );
        await store.commit([{ kind: 'put', collection: 'products', record: productRecord(11) }]);
        assert.deepEqual(
          (await events(store, { ...EVERYTHING, after: 2499 })).map((event) => [event.id, event.type, event.recordId]),
          [
            [2500, 'updated', 1],
            [2501, 'created', 11],
          ],
        );
        assert.deepEqual(logger.lines, []);
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });

  const damagedHistories: {
    name: string;
    damage: (text: string, seq: number) => string;
    lostThrough: number;
    line: string;
  }[] = [
    {
      name: 'a line whose JSON is damaged after its seq',
      damage: (text, seq) => (seq === 1500 ? `${text.slice(0, 40)}#${text.slice(41)}` : text),
      lostThrough: 1500,
      line: 'journal-000000001001.jsonl line 500 is not a journal entry',
    },
    {
      name: 'a line whose seq is a number the entry before took',
      damage: (text, seq) =>
        seq === 700
          ? text.replace('"changes":[', `"changes":[${JSON.stringify({ delete: 'products', id: 99, under: [] })},`)
          : text,
      lostThrough: 701,
      line: 'journal-000000000001.jsonl line 701 has seq 701, a number the entry before it took (up to 701)',
    },
  ];
  for (const c of damagedHistories) {
    test(`${c.name}, covered by the snapshots, no longer stops the start: the feed's history up to it is given up, with an error naming the file and line`, async () => {
      const dir = await temporaryDirectory();
      try {
        const products = await cleanlyStoppedDirectory(dir.path, 2500, c.damage);
        const logger = recordingLogger();
        const store = await openStore(
          { dataDir: dir.path, seed: false, compactAfterBytes: 1_000_000_000, logger },
          EXAMPLE,
        );
        try {
          assert.deepEqual(await store.feed.window(), { lostThrough: c.lostThrough, latest: 2500 });
          assert.deepEqual(
            (await events(store)).map((event) => event.id),
            Array.from({ length: 2500 - c.lostThrough }, (_, index) => c.lostThrough + index + 1),
          );
          assert.deepEqual(
            Array.from({ length: 10 }, (_, index) => store.get('products', index + 1)),
            products,
            "the records are the snapshots'",
          );
          assert.equal(logger.lines.length, 1, JSON.stringify(logger.lines));
          assert.equal(logger.lines[0]?.level, 'error');
          assert.ok(
            logger.lines[0]?.message.includes(
              `${join(dir.path, c.line.split(' ')[0] as string)}${c.line.slice(c.line.indexOf(' '))}`,
            ),
            logger.lines[0]?.message,
          );
        } finally {
          await store.close();
        }
      } finally {
        await dir.remove();
      }
    });
  }
});

describe("journal: the feed's history decoded after the start (EventLog.loadEarlier)", () => {
  const at = '2026-11-24T10:00:00.000Z';
  const event = (id: number): FeedEvent => ({
    id,
    type: 'created',
    collection: 'products',
    recordId: id,
    under: [],
    owner: undefined,
    at,
    record: productRecord(id),
  });
  const EVERYONE: EventFilter = { after: 0, readable: { all: new Set(['products']), own: new Set(), owner: 0 } };

  test('until the earlier history is in, the window and pages wait; events published meanwhile come after it', async () => {
    const log = new EventLog([], 0, 3);
    let resolve: (history: { events: FeedEvent[]; lostThrough: number }) => void = () => undefined;
    log.loadEarlier(new Promise((done) => (resolve = done)));
    const window = log.window();
    const page = log.page(EVERYONE, 0, 10);
    assert.ok(window instanceof Promise && page instanceof Promise);
    assert.equal(log.latest, 3);
    log.publish([event(4)], 4);
    resolve({ events: [event(1), event(2), event(3)], lostThrough: 0 });
    assert.deepEqual(await window, { lostThrough: 0, latest: 4 });
    assert.deepEqual(
      (await page).events.map((each) => each.id),
      [1, 2, 3, 4],
    );
    assert.deepEqual(log.window(), { lostThrough: 0, latest: 4 }, 'answered at once again');
  });

  test('beyond `kept`, an event stays while it is younger than keptForMs: one exactly that old goes, and keptForMs 0 keeps none for its age', () => {
    const written = Date.parse(at);
    const young = new EventLog([], 0, 0, { kept: 1, keptForMs: 1000 }, () => written + 999);
    young.publish([event(1), event(2)], 2);
    assert.deepEqual(young.window(), { lostThrough: 0, latest: 2 }, '999 ms old: kept');
    const old = new EventLog([], 0, 0, { kept: 1, keptForMs: 1000 }, () => written + 1000);
    old.publish([event(1), event(2)], 2);
    assert.deepEqual(old.window(), { lostThrough: 1, latest: 2 }, '1000 ms old: gone');
    const countOnly = new EventLog([], 0, 0, { kept: 1, keptForMs: 0 }, () => written);
    countOnly.publish([event(1), event(2)], 2);
    assert.deepEqual(
      countOnly.window(),
      { lostThrough: 1, latest: 2 },
      'written this very millisecond, yet beyond kept: gone',
    );
  });

  test('the retention applies to the whole history once it is in; a failed decoding leaves the history lost up to the newest event', async () => {
    const kept = new EventLog([], 0, 3, { kept: 2, keptForMs: 0 });
    kept.loadEarlier(Promise.resolve({ events: [event(1), event(2), event(3)], lostThrough: 0 }));
    assert.deepEqual(await kept.window(), { lostThrough: 1, latest: 3 });
    const failed = new EventLog([], 0, 3);
    failed.loadEarlier(Promise.reject(new Error('unreadable')));
    assert.deepEqual(await failed.window(), { lostThrough: 3, latest: 3 });
    assert.deepEqual((await failed.page(EVERYONE, 0, 10)).events, []);
  });
});
