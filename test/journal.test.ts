// The journal's line format (src/store/journal-format.ts, README: Storage and durability) as a unit:
// segment names, encoding and decoding one entry (one line per commit, all its changes
// together), and splitting a segment, where only the last line may be torn (a write
// that was never acknowledged) and damage anywhere else, or a seq out of order, throws
// naming the line. The server-level behaviour (replay, cutting the tail, compaction,
// the lock) is in storage.test.ts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeEntry, encodeEntry, parseSegment, segmentFirstSeq, segmentName } from '../src/store/journal-format.js';
import type { Change } from '../src/index.js';

const TIMESTAMP = '2026-01-01T00:00:00.000Z';

function product(id: number, name = `P${id}`): Change {
  return { kind: 'put', collection: 'products', record: { id, name, category: 'c', price: 1, created_at: TIMESTAMP, updated_at: TIMESTAMP } };
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
      seqs.map(segmentName).sort().map((name) => segmentFirstSeq(name)),
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
        { put: 'products', record: { id: 3, name: 'P3', category: 'c', price: 1, created_at: TIMESTAMP, updated_at: TIMESTAMP } },
        { delete: 'orders', id: 9 },
      ],
    };
    assert.deepEqual(JSON.parse(text), expected);
    assert.equal(text, `${JSON.stringify(expected)}\n`, 'byte for byte what JSON.stringify of the entry gives');
  });

  test('encode then decode gives the same entry back, whatever the strings hold', () => {
    const changes: Change[] = [
      product(1, 'line\nbreak, "quotes", back\\slash, tab\t, ☕ ünïcødé, \u2028 separator, 𝄞'),
      { kind: 'put', collection: 'users', record: { id: 2, name: 'U', email: 'u@example.com', role: 'user', tags: ['a', 'b'], created_at: TIMESTAMP, updated_at: TIMESTAMP } },
      { kind: 'delete', collection: 'users', id: 5 },
      { kind: 'delete', collection: 'orders', id: 11 },
      { kind: 'delete', collection: 'orders', id: 12 },
    ];
    const text = encodeEntry(123, changes);
    assert.equal(text.indexOf('\n'), text.length - 1, 'a newline inside a value is escaped, so the entry stays one line');
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
    { name: 'a collection that cannot be a name', text: `{"seq": 1, "changes": [{"put": "../nowhere", "record": {"id": 1, "created_at": "${TIMESTAMP}", "updated_at": "${TIMESTAMP}"}}]}` },
    { name: 'a put without a record', text: '{"seq": 1, "changes": [{"put": "products"}]}' },
    { name: 'a record without an id', text: `{"seq": 1, "changes": [{"put": "products", "record": {"created_at": "${TIMESTAMP}", "updated_at": "${TIMESTAMP}"}}]}` },
    { name: 'a record with id 0', text: `{"seq": 1, "changes": [{"put": "products", "record": {"id": 0, "created_at": "${TIMESTAMP}", "updated_at": "${TIMESTAMP}"}}]}` },
    { name: 'a record without timestamps', text: '{"seq": 1, "changes": [{"put": "products", "record": {"id": 1}}]}' },
    { name: 'a delete without an id', text: '{"seq": 1, "changes": [{"delete": "products"}]}' },
    { name: 'a delete of id 0', text: '{"seq": 1, "changes": [{"delete": "products", "id": 0}]}' },
    { name: 'a delete with a string id', text: '{"seq": 1, "changes": [{"delete": "products", "id": "1"}]}' },
    { name: 'a good change then a bad one', text: `{"seq": 1, "changes": [{"delete": "products", "id": 1}, {"delete": "../nowhere", "id": 1}]}` },
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
    assert.deepEqual(parsed.entries[1], decodeEntry(line(2, [product(2), { kind: 'delete', collection: 'products', id: 1 }])));
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
    { name: 'a collection that cannot be a name in the middle', text: line(1) + line(2).replace('"products"', '"../nowhere"') + line(3), line: 2 },
    { name: 'a torn line two lines before the end', text: line(1) + line(2) + line(3).slice(0, 9) + '\n' + line(4) + line(5), line: 3 },
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
