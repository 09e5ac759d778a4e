// One access-log line per request: time, request id, method, path, status, bytes, duration and user id, never the
// query string, a header or a body, so no token, password or personal filter value reaches a log. JSON for machines,
// or a short text form for a terminal. A request that no answer reached is still logged once, with the status that
// went out or would have (CLIENT_CLOSED_REQUEST for a client that left).

import type { AccessEntry, LogFormat, Logger } from '../logging/logger.ts';
import { isoTimestamp } from '../records/timestamps.ts';

/**
 * The status logged for a request whose client closed the connection before its body had
 * arrived, so that no answer could be sent: 499 "client closed request", as nginx logs it.
 * HTTP defines no status for an answer never sent; a 4xx keeps it out of server-error
 * counts (the cause is on the client's side), and log tools that know nginx read it so.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * How each entry reaches `logger`, decided once at start (undefined when the log is off):
 * in JSON to the logger's own accessLine when it has one (the command line writes the
 * bytes itself), else as a formatted line to info.
 */
export function accessLogWriter(format: LogFormat, logger: Logger): ((entry: AccessEntry) => void) | undefined {
  if (format === 'off') return undefined;
  if (format === 'json' && logger.accessLine !== undefined) return (entry) => logger.accessLine?.(entry);
  return (entry) => logger.info(formatAccessLine(entry, format));
}

/** One line, built by hand: it is written for every request (JSON.stringify of an object cost more). */
export function formatAccessLine(entry: AccessEntry, format: 'json' | 'text', nowMs: number = Date.now()): string {
  const time = isoTimestamp(nowMs);
  const duration = twoDecimals(entry.durationMs);
  if (format === 'text') {
    const user = entry.userId === undefined ? '-' : `user ${entry.userId}`;
    return (
      `${time} ${entry.status} ${entry.method} ${entry.path} ${entry.bytes}B ${duration}ms ${user} ` +
      `${entry.requestId}`
    );
  }
  return (
    // The request id (client ids are echoed only when plain, see request-id.ts) and the
    // method (a token, checked by Node's parser) never need escaping; the path may.
    `{"time":"${time}","request_id":"${entry.requestId}","method":"${entry.method}",` +
    `"path":${JSON.stringify(entry.path)},"status":${entry.status},"bytes":${entry.bytes},"duration_ms":${duration},` +
    `"user_id":${entry.userId ?? 'null'}}`
  );
}

/**
 * A non-negative number rounded to two decimals, printed as JavaScript prints
 * `Math.round(n * 100) / 100` ("0.5", "1.23", "2"), from integers: printing a fraction
 * costs more than the rest of the line, and every request logs one.
 */
export function twoDecimals(value: number): string {
  const hundredths = Math.round(value * 100);
  const whole = Math.floor(hundredths / 100);
  const fraction = hundredths - whole * 100;
  if (fraction === 0) return `${whole}`;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
}
