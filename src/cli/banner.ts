// The start banner (README: Configuration): one line per fact — the URL, the explorer, the data
// directory with its record counts, and how to get a token. The token hint names the
// command as this process was started: `node dist/main.js token …` in a checkout,
// where `plainrest` is not on the PATH, and `npx plainrest token …` for an installed package.

import { basename, relative } from 'node:path';
import type { RunningServer } from '../server.js';

export function startBanner(server: RunningServer, scriptPath: string | undefined): string[] {
  const { config } = server.app;
  const counts = Object.entries(server.app.recordCounts())
    .map(([collection, count]) => `${count} ${count === 1 ? collection.replace(/s$/, '') : collection}`)
    .join(', ');
  return [
    `plainrest listening on ${server.url}`,
    `explorer: ${server.url}/ (open it in a browser to log in, send requests and see what each answer means)`,
    `data: ${config.dataDir === null ? 'memory only' : config.dataDir} (${counts})`,
    `token: curl -s -X POST ${server.url}/v1/tokens -H 'Content-Type: application/json' ` +
      `-d '{"email":"${config.adminEmail}","password":"…"}'  (or: ${tokenCommand(scriptPath)} <email>)`,
  ];
}

/** How to run the `token` subcommand the way this process was run. */
export function tokenCommand(scriptPath: string | undefined): string {
  if (scriptPath === undefined || basename(scriptPath) !== 'main.js') return 'npx plainrest token';
  const shown = relative(process.cwd(), scriptPath);
  return `node ${shown.startsWith('..') || shown === '' ? scriptPath : shown} token`;
}
