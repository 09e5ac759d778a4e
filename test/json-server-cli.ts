// Test support for `plainrest db.json` and `plainrest export` (docs/json-server.md), run as a user runs them:
// dist/plainrest.mjs (`npm run build` first) in the test's own directory, with only the environment given (and
// processEnvironment's);
// a serving process's URL once its start lines are out, its graceful stop; and json-server 0.17 itself, in-process.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { RunningProcess } from './child-process.ts';
import { runToExit, startProcess } from './child-process.ts';
import { processEnvironment } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

export const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');

/** The banner's first line, and the last line `plainrest db.json` prints at a start (its dialect's paths come first). */
const LISTENING = /^plainrest listening on (http:\/\/[^\s]+)$/m;
const STARTED = /^the same records under the conventions: /m;

/** `node dist/plainrest.mjs …args` in `cwd`, with only `env` (and processEnvironment's). */
export function plainrest(cwd: string, args: readonly string[], env: Record<string, string> = {}): RunningProcess {
  return startProcess(process.execPath, [MAIN, ...args], { cwd, env: processEnvironment(env) });
}

/** The same, to its end: exit code and output. */
export function plainrestToExit(
  cwd: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToExit(process.execPath, [MAIN, ...args], { cwd, env: processEnvironment(env) });
}

/** Waits until `run` serves (its start lines all out); its URL. */
export async function serving(run: RunningProcess): Promise<string> {
  const [, url] = await run.waitFor(LISTENING);
  await run.waitFor(STARTED);
  return url as string;
}

/** SIGTERM, and the graceful stop's exit status 0. */
export async function stop(run: RunningProcess): Promise<void> {
  run.signal('SIGTERM');
  const { code } = await run.exited;
  assert.equal(code, 0, `stopped with ${code}; stderr: ${run.stderr()}`);
}

/** The lines of a process's output, without the last line's end. */
export function linesOf(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

interface JsonServerModule {
  create(): { use(...handlers: unknown[]): void; listen(port: number, host: string, done: () => void): Server };
  router(source: string): unknown;
  defaults(options: { logger: boolean }): unknown[];
}

/** json-server 0.17 (a dev dependency) serving `file` on a free port, as `json-server file` does, without its log. */
export async function startJsonServer(file: string): Promise<{ url: string; close: () => Promise<void> }> {
  const jsonServer = createRequire(import.meta.url)('json-server') as JsonServerModule;
  const app = jsonServer.create();
  app.use(jsonServer.defaults({ logger: false }));
  app.use(jsonServer.router(file));
  let server: Server | undefined;
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', resolve);
  });
  const listening = server as Server;
  const { port } = listening.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        listening.closeAllConnections();
        listening.close(() => resolve());
      }),
  };
}
