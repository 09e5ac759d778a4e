// Timestamps as RFC 3339 date-times in UTC with milliseconds (README: Records: created_at and updated_at; the access
// log's time), such as `2026-11-22T02:17:55.782Z`.

const MS_PER_MINUTE = 60_000;
/**
 * 10000-01-01T00:00:00.000Z: from here on toISOString writes a six-digit year with a sign (as it does before year 0).
 */
const YEAR_10000_MS = 253_402_300_800_000;

let lastMs = Number.NaN;
let lastText = '';
let lastMinute = Number.NaN;
let minuteText = '';

/**
 * `ms` since the epoch (by default now) as an RFC 3339 UTC timestamp: what `new Date(ms).toISOString()` gives.
 * toISOString costs more than the rest of a write's bookkeeping, and under load many requests share a millisecond, so
 * the text is made once per millisecond, and only its minute's part (`2026-11-22T02:17:`) comes from toISOString.
 */
export function isoTimestamp(ms: number = Date.now()): string {
  if (ms === lastMs) return lastText;
  // throws for NaN, like Date does
  if (!(ms >= 0 && ms < YEAR_10000_MS && Number.isInteger(ms))) return new Date(ms).toISOString();
  const minute = Math.floor(ms / MS_PER_MINUTE);
  if (minute !== lastMinute) {
    lastMinute = minute;
    minuteText = new Date(minute * MS_PER_MINUTE).toISOString().slice(0, 17);
  }
  const inMinute = ms - minute * MS_PER_MINUTE;
  const seconds = Math.floor(inMinute / 1000);
  const millis = inMinute - seconds * 1000;
  lastMs = ms;
  lastText = `${minuteText}${String(seconds).padStart(2, '0')}.${String(millis).padStart(3, '0')}Z`;
  return lastText;
}
