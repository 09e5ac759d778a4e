// isoTimestamp (src/records/timestamps.ts) builds the text from a cached minute and digits;
// it must give exactly what Date's toISOString gives, at every boundary it caches across.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTimestamp } from '../src/records/timestamps.ts';
import { mulberry32 } from './helpers.ts';

const expected = (ms: number): string => new Date(ms).toISOString();

test('isoTimestamp equals toISOString across minute, hour, day, month, year and leap-day boundaries', () => {
  const boundaries = [
    0,
    Date.UTC(2026, 10, 22, 2, 17, 0),
    Date.UTC(2026, 10, 22, 23, 59, 0),
    Date.UTC(2026, 11, 31, 23, 59, 0),
    Date.UTC(2028, 1, 28, 23, 59, 0),
    Date.UTC(2028, 1, 29, 23, 59, 0),
    Date.UTC(9999, 11, 31, 23, 59, 0),
  ];
  for (const base of boundaries) {
    for (const offset of [-1, 0, 1, 9, 10, 99, 100, 999, 1000, 9_999, 10_000, 59_999, 60_000, 60_001]) {
      const ms = base + offset;
      if (ms < 0) continue;
      assert.equal(isoTimestamp(ms), expected(ms), `at ${ms}`);
    }
  }
});

test('isoTimestamp equals toISOString for 20,000 random instants, in order and shuffled', () => {
  const random = mulberry32(7);
  const instants: number[] = [];
  let ms = Date.UTC(2026, 0, 1);
  for (let index = 0; index < 10_000; index++) {
    ms += Math.floor(random() * 5_000); // many in the same minute, some in the same millisecond
    instants.push(ms);
  }
  for (let index = 0; index < 10_000; index++) instants.push(Math.floor(random() * 253_402_300_800_000));
  for (const instant of instants) assert.equal(isoTimestamp(instant), expected(instant), `at ${instant}`);
});

test('isoTimestamp outside years 0000–9999, with a fraction, or invalid behaves as Date does', () => {
  for (const ms of [-1, -62_167_219_200_001, 253_402_300_800_000, 8.64e15, 1.5, 1_700_000_000_000.7]) {
    assert.equal(isoTimestamp(ms), expected(ms), `at ${ms}`);
  }
  assert.throws(() => isoTimestamp(Number.NaN), RangeError);
  assert.throws(() => isoTimestamp(8.64e15 + 1), RangeError);
});

test('isoTimestamp without an argument is now', () => {
  const before = Date.now();
  const text = isoTimestamp();
  const after = Date.now();
  const at = Date.parse(text);
  assert.ok(at >= before && at <= after, `${text} is not between ${before} and ${after}`);
});
