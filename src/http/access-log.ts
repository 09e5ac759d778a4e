// One access-log line per request: time, request id, method, path, status, bytes,
// duration and user id — never the query string, a header or a body, so no token,
// password or personal filter value reaches a log. JSON for machines, or a short text
// form for a terminal.

export type LogFormat = 'json' | 'text' | 'off';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text', 'off'];

export interface AccessEntry {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly bytes: number;
  readonly durationMs: number;
  readonly userId: number | undefined;
}

export function formatAccessLine(entry: AccessEntry, format: 'json' | 'text', now: Date = new Date()): string {
  const duration = Math.round(entry.durationMs * 100) / 100;
  if (format === 'text') {
    const user = entry.userId === undefined ? '-' : `user ${entry.userId}`;
    return `${now.toISOString()} ${entry.status} ${entry.method} ${entry.path} ${entry.bytes}B ${duration}ms ${user} ${entry.requestId}`;
  }
  return JSON.stringify({
    time: now.toISOString(),
    request_id: entry.requestId,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    bytes: entry.bytes,
    duration_ms: duration,
    user_id: entry.userId ?? null,
  });
}
