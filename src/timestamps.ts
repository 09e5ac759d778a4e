// Timestamps as RFC 3339 date-times in UTC with milliseconds (CONTRACT §3: created_at
// and updated_at; the access log's time), such as `2026-11-22T02:17:55.782Z`.
// Formatting a Date costs more than the rest of a write's bookkeeping, and under load
// many requests share a millisecond, so the text is made once per millisecond.

let lastMs = Number.NaN;
let lastText = '';

/** `ms` since the epoch (by default now) as an RFC 3339 UTC timestamp. */
export function isoTimestamp(ms: number = Date.now()): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = new Date(ms).toISOString();
  }
  return lastText;
}
