// Small pieces the benchmarks share: the bench credentials, the administrator's and an ordinary reader's tokens,
// and a Markdown-style table.

import { signToken } from '../src/auth/jwt.ts';

export const BENCH_ADMIN_PASSWORD = 'bench-admin-password';
export const BENCH_TOKEN_SECRET = 'bench-token-secret-bench-token-secret';

/** The administrator's token: a data directory holding only products gets its admin as user 1. */
export function adminToken(): string {
  const now = Math.floor(Date.now() / 1000);
  return signToken({ sub: '1', iat: now, exp: now + 3600 }, BENCH_TOKEN_SECRET);
}

/**
 * The reader: an ordinary user, the second user of a data directory holding only products (the administrator is the
 * first), made through the API by `createReader`. Reads are measured with its token, as most clients read.
 */
const READER_ID = 2;

/** The reader's token. */
export function readerToken(): string {
  const now = Math.floor(Date.now() / 1000);
  return signToken({ sub: String(READER_ID), iat: now, exp: now + 3600 }, BENCH_TOKEN_SECRET);
}

/** Makes the reader on the plainrest at `baseUrl` through the API (POST /v1/users, as the administrator). */
export async function createReader(baseUrl: string): Promise<void> {
  const answer = await fetch(`${baseUrl}/v1/users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Bench Reader', email: 'reader@bench.example', password: 'bench-reader-password' }),
  });
  const made = (await answer.json()) as { id?: unknown };
  if (answer.status !== 201 || made.id !== READER_ID) {
    throw new Error(`the bench reader was not made as user ${READER_ID}: ${answer.status} ${JSON.stringify(made)}`);
  }
}

export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
