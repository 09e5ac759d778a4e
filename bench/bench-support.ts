// Small pieces both benchmarks share: the bench credentials, the administrator's token,
// and a Markdown-style table.

import { signToken } from '../src/auth/jwt.ts';

export const BENCH_ADMIN_PASSWORD = 'bench-admin-password';
export const BENCH_TOKEN_SECRET = 'bench-token-secret-bench-token-secret';

/** The administrator's token: a data directory holding only products gets its admin as user 1. */
export function adminToken(): string {
  const now = Math.floor(Date.now() / 1000);
  return signToken({ sub: '1', iat: now, exp: now + 3600 }, BENCH_TOKEN_SECRET);
}

export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
