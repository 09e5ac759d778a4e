// Test support for the kill -9 tests (crash.test.ts, batches-crash.test.ts): the one-file build (dist/plainrest.mjs,
// `npm run build` first; a start costs a fifth of the source's under tsx on Node 20) as a process of its own on the
// given storage, with the suite's credentials, no rate limit and the suite's hash cost, once it listens.

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEST_ADMIN_PASSWORD, TEST_PASSWORD_HASH_COST, TEST_TOKEN_SECRET } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');

export interface CrashServer {
  readonly child: ChildProcess;
  readonly url: string;
}

/** The server on `storage` (its flags: the data directory, or the database), once it listens: its URL. */
export async function startCrashServer(storage: readonly string[]): Promise<CrashServer> {
  const child = spawn(process.execPath, [MAIN, '--port', '0', '--seed', 'false', ...storage], {
    env: {
      ...process.env,
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      TOKEN_SECRET: TEST_TOKEN_SECRET,
      RATE_LIMIT: '0',
      PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening:\n${output}`)));
  });
  return { child, url };
}
