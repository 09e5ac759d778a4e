// A json-server file's `createdAt`/`updatedAt` as a record's timestamp (README: Moving in from json-server): an RFC
// 3339 date or date and time, or a number of milliseconds (JavaScript's `Date.now()`) or seconds (Unix time) since
// 1970, each read as UTC and kept as RFC 3339 text, as plainrest writes its own.

import type { JsonValue } from '../records/json.ts';
import { hasFormat } from '../resources/scalar-checks.ts';

/** From here up, a number is milliseconds (1973-03-03 on); below it, from 1e9 up, seconds (2001-09-09 on). */
const MILLISECONDS_FROM = 1e11;
const SECONDS_FROM = 1e9;
/** A clock places the years 1000 to 9999 (RFC 3339 §5.6's four digits; before 1000 is a typing slip). */
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(10_000, 0, 1) - 1;

/** `value` as an RFC 3339 timestamp in UTC, or undefined when it is none (a leap second, a count, a word). */
export function timestampOf(value: JsonValue): string | undefined {
  let at: number;
  if (typeof value === 'string') {
    if (!hasFormat('date-time', value) && !hasFormat('date', value)) return undefined;
    at = Date.parse(value);
  } else if (typeof value === 'number' && value >= SECONDS_FROM) {
    at = value >= MILLISECONDS_FROM ? value : value * 1000;
  } else return undefined;
  return Number.isFinite(at) && at >= EARLIEST && at <= LATEST ? new Date(at).toISOString() : undefined;
}
