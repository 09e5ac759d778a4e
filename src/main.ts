#!/usr/bin/env node
// The command-line entry point (`npm start`, the `plainrest` bin): reads settings from
// the environment and flags, prints the start banner, and shuts down gracefully on
// SIGINT/SIGTERM (stop accepting, drain, final snapshot, exit 0).

import type { Logger } from './config.js';
import { ConfigError } from './config.js';
import { parseCommandLine } from './cli-options.js';
import { BufferedLines } from './buffered-lines.js';
import { mintToken, TokenMintError } from './mint-token.js';
import { describeApi } from './routes.js';
import { startServer } from './server.js';
import { StartupError } from './store/open-store.js';

/** Standard output, written in batches (the access log is a line per request). */
const stdout = new BufferedLines(process.stdout);
// Whatever way the process ends (an uncaught error included), the pending lines go out first.
process.on('exit', () => stdout.flush());

const consoleLogger: Logger = {
  info: (message) => stdout.write(message),
  accessLine: (entry) => stdout.writeAccessLine(entry),
  warn: (message) => console.warn(`warning: ${message}`),
  error: (message) => console.error(`error: ${message}`),
};

async function main(): Promise<number> {
  const commandLine = parseCommandLine(process.argv.slice(2), process.env);
  if (commandLine.kind === 'help') {
    console.log(commandLine.text);
    return 0;
  }
  if (commandLine.kind === 'error') {
    console.error(commandLine.message);
    return 2;
  }
  if (commandLine.kind === 'openapi') {
    console.log(JSON.stringify(describeApi(), null, 2));
    return 0;
  }
  if (commandLine.kind === 'token') {
    const { token, userId, expiresIn } = await mintToken(commandLine.options, commandLine.email);
    console.error(`token for user ${userId}, valid for ${expiresIn} s:`);
    console.log(token);
    return 0;
  }

  // Listen for the stop signals before announcing anything, so a signal sent as soon
  // as the banner appears still gets the graceful path (drain, snapshot, exit 0).
  let stopRequested: (signal: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stopRequested = resolve;
  });
  process.once('SIGINT', () => stopRequested('SIGINT'));
  process.once('SIGTERM', () => stopRequested('SIGTERM'));

  const accessLog = commandLine.options.accessLog ?? (process.stdout.isTTY ? 'text' : 'json');
  const server = await startServer({ ...commandLine.options, accessLog, logger: consoleLogger });
  const { config } = server.app;
  const counts = Object.entries(server.app.recordCounts())
    .map(([collection, count]) => `${count} ${count === 1 ? collection.replace(/s$/, '') : collection}`)
    .join(', ');
  stdout.write(`plainrest listening on ${server.url}`);
  stdout.write(`explorer: ${server.url}/ (open it in a browser to log in, send requests and see what each answer means)`);
  stdout.write(`data: ${config.dataDir === null ? 'memory only' : config.dataDir} (${counts})`);
  stdout.write(
    `token: curl -s -X POST ${server.url}/v1/tokens -H 'Content-Type: application/json' ` +
      `-d '{"email":"${config.adminEmail}","password":"…"}'  (or: plainrest token <email>)`,
  );

  const signal = await stopped;
  stdout.write(`${signal}: finishing in-flight requests, then writing a final snapshot`);
  await server.close();
  stdout.write('stopped');
  return 0;
}

main().then(
  // Exit once stdout is flushed: a pipe is written asynchronously, and exiting at once
  // would cut a long output (such as `plainrest openapi | jq`) short.
  (code) => {
    stdout.flush();
    process.stdout.write('', () => process.exit(code));
  },
  (error: unknown) => {
    stdout.flush();
    const expected = error instanceof StartupError || error instanceof ConfigError || error instanceof TokenMintError;
    const systemError = error as NodeJS.ErrnoException;
    if (expected) console.error(error.message);
    else if (systemError.code === 'EADDRINUSE') console.error(`cannot start: the port is already in use (${systemError.message})`);
    else console.error(error);
    process.exit(1);
  },
);
