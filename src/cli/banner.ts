// The start banner (README: Configuration): one line per fact — the URL, the explorer, the data directory with its
// record counts, and how to get a token, named as this process was started (tokenCommand); the explorer and the token
// endpoint under the base path, when one is set.

import { basename, relative } from 'node:path';
import { singularOf } from '../resources/singular-nouns.ts';
import type { RunningServer } from '../server/server.ts';

export async function startBanner(server: RunningServer, scriptPath: string | undefined): Promise<string[]> {
  const { config } = server.app;
  const explorer = `${server.url}${config.basePath}/`;
  if (config.database !== undefined) {
    // The database's counts change under every process sharing it: none are shown.
    return [
      `plainrest listening on ${server.url}`,
      `explorer: ${explorer}`,
      `data: PostgreSQL at ${withoutPassword(config.database)}`,
      tokenLine(server),
    ];
  }
  const counts = Object.entries(await server.app.recordCounts())
    .map(([collection, count]) => counted(count, collection))
    .join(', ');
  return [
    `plainrest listening on ${server.url}`,
    `explorer: ${explorer} (open it in a browser to log in, send requests and see what each answer means)`,
    `data: ${config.dataDir === null ? 'memory only' : config.dataDir} (${counts})`,
    `${tokenLine(server)}  (or: ${tokenCommand(scriptPath)} <email>)`,
  ];
}

function tokenLine(server: RunningServer): string {
  const body = `{"email":"${server.app.config.adminEmail}","password":"…"}`;
  const tokens = `${server.url}${server.app.config.basePath}/v1/tokens`;
  return `token: curl -s -X POST ${tokens} -H 'Content-Type: application/json' -d '${body}'`;
}

/** `1 product`, `12 products`, `1 blog_entry`: a count and its plural noun, singular for one. */
export function counted(count: number, plural: string): string {
  return `${count} ${count === 1 ? singularOf(plural) : plural}`;
}

/** A URL as it may be printed: `postgres://user@host:5432/db`. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'the DATABASE_URL given';
  }
}

/**
 * How to run the `token` subcommand the way this process was run: `node plainrest.mjs token …` for a file node ran
 * (or `node dist/main.js`, `node src/main.ts`, with node's own flags, such as `--import tsx`), where `plainrest` may
 * not be on the PATH, and `npx plainrest token …` for the package's `plainrest` command.
 */
export function tokenCommand(scriptPath: string | undefined): string {
  return `${plainrestCommand(scriptPath)} token`;
}

/** `npx plainrest`, or `node plainrest.mjs` for a file node ran: how to run plainrest the way this process was run. */
export function plainrestCommand(scriptPath: string | undefined): string {
  if (scriptPath === undefined || basename(scriptPath) === 'plainrest') return 'npx plainrest';
  const shown = relative(process.cwd(), scriptPath);
  return ['node', ...process.execArgv, shown.startsWith('..') || shown === '' ? scriptPath : shown].join(' ');
}
