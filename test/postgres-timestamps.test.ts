// Timestamps as PostgreSQL writes them, read back as plainrest stores them
// (packages/postgres sql-records.ts isoTimestamp): in a row (`… 19:29:05.01+00`) and in
// JSON (`…T19:29:05.01+00:00`), with 0 to 6 digits of fraction, they give what
// `new Date(text).toISOString()` gives; so do other zones, which go through Date.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTimestamp } from '../packages/postgres/src/sql-records.ts';

/** How PostgreSQL writes `date` in UTC: its fraction without trailing zeros (none when zero), in a row or in JSON. */
function asPostgresWrites(date: Date, microseconds: number, json: boolean): string {
  const iso = date.toISOString();
  const fraction = String(date.getUTCMilliseconds() * 1000 + microseconds)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${iso.slice(0, 10)}${json ? 'T' : ' '}${iso.slice(11, 19)}${fraction === '' ? '' : `.${fraction}`}${json ? '+00:00' : '+00'}`;
}

test('a UTC timestamp in a row or in JSON, any fraction, reads as Date reads it', () => {
  let seed = 42;
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let sample = 0; sample < 2000; sample++) {
    const date = new Date(Date.UTC(1970, 0, 1) + Math.floor(random() * 4_000_000_000_000));
    if (sample % 4 === 0) date.setUTCMilliseconds(0);
    const microseconds = sample % 3 === 0 ? 0 : Math.floor(random() * 1000);
    for (const json of [false, true]) {
      const text = asPostgresWrites(date, microseconds, json);
      assert.equal(isoTimestamp(text), new Date(text).toISOString(), text);
      assert.equal(isoTimestamp(text), date.toISOString(), text);
    }
  }
});

test('another zone, or a form it does not rewrite, goes through Date', () => {
  for (const text of [
    '2026-11-24 20:29:05.123+01',
    '2026-11-24T20:29:05.123+01:00',
    '2026-11-24 19:29:05.123+00:30',
    '12345-01-01 00:00:00+00',
  ]) {
    assert.equal(isoTimestamp(text), new Date(text).toISOString(), text);
  }
});
