// plainrest's command line (README: Configuration): settings from the environment and flags, the start banner, and a
// graceful stop on SIGINT/SIGTERM (stop accepting, drain, close the journal, exit 0). A start that fails prints one
// line, `cannot start: <what is wrong>; <what to do>`, and exits 2; so do `plainrest db.json` and the subcommands
// (`token`, `copy`, `openapi`, `check-resources`, `import`, `export`). main.ts and the one-file build run it.

import { DeclarationError, loadDeclarationFile } from '../declarations/load-declaration.ts';
import { resolveResources } from '../declarations/resolve-resources.ts';
import type { ServerOptions } from '../config/server-options.ts';
import type { Logger } from '../logging/logger.ts';
import { ConfigError, DEFAULTS, isDatabaseUrl } from '../config/config.ts';
import { plainrestCommand, startBanner, withoutPassword } from './banner.ts';
import { describeStartupFailure } from './startup-failure.ts';
import { packageVersion } from './version.ts';
import { parseCommandLine } from './options.ts';
import { SETTINGS } from './settings.ts';
import { BufferedLines } from './buffered-lines.ts';
import type { ImportRequest } from './import-command.ts';
import type { ExportRequest } from './export-command.ts';
import type { JsonServerRequest, PreparedServer } from './json-server-command.ts';
import { StartupError } from '../store/data-directory.ts';
import { basePathClash, describeApi } from '../server/routes.ts';
import { basePathProblem } from '../http/base-path.ts';
import type { RunningServer } from '../server/server.ts';
import { startServer } from '../server/server.ts';

/**
 * Exit statuses: 0 after a clean stop, 2 when the command cannot run (settings, data, environment), 1 for a failure
 * while running.
 */
const EXIT_STOPPED = 0;
const EXIT_CANNOT_RUN = 2;
const FAILURE_PREFIX = {
  run: 'cannot start',
  token: 'cannot mint a token',
  copy: 'cannot copy',
  openapi: 'cannot print the OpenAPI document',
  'check-resources': 'cannot check the declaration',
  import: 'cannot import',
  export: 'cannot export',
} as const;

/**
 * Runs the command line on this process's arguments and environment, then exits the process with the command's status.
 * Nothing is done to the process (no handler, no output) before it is called.
 */
export function runCommandLine(): void {
  // Standard output, written in batches (the access log is a line per request).
  const stdout = new BufferedLines(process.stdout);
  // Whatever way the process ends (an uncaught error included), the pending lines go out first.
  process.on('exit', () => stdout.flush());
  main(stdout).then(
    // Exit once stdout is flushed: a pipe is written asynchronously, and exiting at once
    // would cut a long output (such as `plainrest openapi | jq`) short.
    (code) => {
      stdout.flush();
      process.stdout.write('', () => process.exit(code));
    },
    (error: unknown) => {
      stdout.flush();
      console.error(error);
      process.exit(1);
    },
  );
}

/** The server's logger: lines and the access log to standard output in batches, warnings and errors to stderr. */
function consoleLogger(stdout: BufferedLines): Logger {
  return {
    info: (message) => stdout.write(message),
    accessLine: (entry) => stdout.writeAccessLine(entry),
    warn: (message) => console.warn(`warning: ${message}`),
    error: (message) => console.error(`error: ${message}`),
  };
}

async function main(stdout: BufferedLines): Promise<number> {
  const commandLine = parseCommandLine(process.argv.slice(2), process.env);
  switch (commandLine.kind) {
    case 'help':
      console.log(commandLine.text);
      return EXIT_STOPPED;
    case 'version':
      console.log(packageVersion());
      return EXIT_STOPPED;
    case 'error':
      console.error(`${FAILURE_PREFIX[commandLine.command]}: ${commandLine.message}; see --help`);
      return EXIT_CANNOT_RUN;
    case 'openapi':
      return printOpenApi(commandLine.options);
    case 'check-resources':
      return checkResources(commandLine.file);
    case 'token':
      return mint(commandLine.options, commandLine.email);
    case 'copy':
      return copy(commandLine.from, commandLine.to, commandLine.options);
    case 'import':
      return importJsonServer(commandLine.request);
    case 'json-server':
      return serveJsonServerFile(commandLine.request, stdout);
    case 'export':
      return exportJsonServer(commandLine.request);
    case 'run':
      return run(commandLine.options, stdout);
  }
}

/** `plainrest openapi`: the document of the resources, its server under BASE_PATH when one is set. */
async function printOpenApi(options: ServerOptions): Promise<number> {
  try {
    const resources = await resolveResources(options.resources, options.hooks);
    const basePath = options.basePath ?? DEFAULTS.basePath;
    const refused = basePathProblem(basePath) ?? basePathClash(basePath, resources);
    if (refused !== undefined) {
      console.error(`${FAILURE_PREFIX.openapi}: ${settingMessage(new ConfigError('basePath', refused))}`);
      return EXIT_CANNOT_RUN;
    }
    console.log(JSON.stringify(await describeApi(resources, basePath), null, 2));
    return EXIT_STOPPED;
  } catch (error) {
    if (!(error instanceof DeclarationError)) throw error;
    for (const line of error.lines) console.error(`${FAILURE_PREFIX.openapi}: ${line}`);
    return EXIT_CANNOT_RUN;
  }
}

/** `plainrest check-resources FILE`: every problem of a declaration, one line each, for editors and CI. */
async function checkResources(file: string): Promise<number> {
  try {
    const resources = await loadDeclarationFile(file);
    const served = resources.resources.map((resource) => resource.collection).join(', ');
    console.log(`${file}: ok; serves ${served}`);
    return EXIT_STOPPED;
  } catch (error) {
    if (!(error instanceof DeclarationError)) throw error;
    for (const line of error.lines) console.error(line);
    return EXIT_CANNOT_RUN;
  }
}

async function mint(options: ServerOptions, email: string): Promise<number> {
  // Loaded when asked for, as copy and import are: a server's start loads none of them.
  const { mintToken, TokenMintError } = await import('./mint-token.ts');
  try {
    const { token, userId, expiresIn } = await mintToken(options, email);
    console.error(`token for user ${userId}, valid for ${expiresIn} s:`);
    console.log(token);
    return EXIT_STOPPED;
  } catch (error) {
    if (error instanceof DeclarationError) {
      for (const line of error.lines) console.error(`cannot mint a token: ${line}`);
      return EXIT_CANNOT_RUN;
    }
    if (!(error instanceof TokenMintError) && !(error instanceof ConfigError) && !(error instanceof StartupError))
      throw error;
    console.error(`cannot mint a token: ${error instanceof ConfigError ? settingMessage(error) : error.message}`);
    return EXIT_CANNOT_RUN;
  }
}

/**
 * `plainrest copy --from A --to B`: one line on stdout saying what was copied, or one on stderr saying why nothing was.
 */
async function copy(from: string, to: string, options: ServerOptions): Promise<number> {
  const { copyData, CopyError } = await import('./copy-data.ts');
  try {
    console.log(await copyData(from, to, options));
    return EXIT_STOPPED;
  } catch (error) {
    if (error instanceof DeclarationError) {
      for (const line of error.lines) console.error(`${FAILURE_PREFIX.copy}: ${line}`);
      return EXIT_CANNOT_RUN;
    }
    // A system error (EACCES, ENOSPC …) names its call and path in its message.
    const isSystemError = typeof (error as Partial<NodeJS.ErrnoException>).syscall === 'string';
    if (!(error instanceof CopyError) && !(error instanceof StartupError) && !isSystemError) throw error;
    console.error(`${FAILURE_PREFIX.copy}: ${(error as Error).message}`);
    return EXIT_CANNOT_RUN;
  }
}

async function importJsonServer(request: ImportRequest): Promise<number> {
  const { declarationPathOf, importFile, ImportError } = await import('./import-command.ts');
  try {
    for (const line of await importFile(request)) console.log(line);
    console.log(`serve it: ${serveCommand(request, declarationPathOf(request))}`);
    return EXIT_STOPPED;
  } catch (error) {
    const isSystemError = typeof (error as Partial<NodeJS.ErrnoException>).syscall === 'string';
    if (error instanceof ImportError)
      for (const line of error.lines) console.error(`${FAILURE_PREFIX.import}: ${line}`);
    else if (error instanceof StartupError || isSystemError)
      console.error(`${FAILURE_PREFIX.import}: ${(error as Error).message}`);
    else throw error;
    return EXIT_CANNOT_RUN;
  }
}

/** `plainrest db.json`: the file imported on its first run (or its import reused), then served in both dialects. */
async function serveJsonServerFile(request: JsonServerRequest, stdout: BufferedLines): Promise<number> {
  const { prepareJsonServer, failureLines } = await import('./json-server-command.ts');
  const { afterStart } = await import('./json-server-after-start.ts');
  let prepared: PreparedServer;
  try {
    prepared = await prepareJsonServer(request, plainrestCommand(process.argv[1]));
  } catch (error) {
    const lines = failureLines(error);
    if (lines === undefined) throw error;
    for (const line of lines) console.error(line);
    return EXIT_CANNOT_RUN;
  }
  for (const warning of prepared.warnings) console.warn(`warning: ${warning}`);
  for (const line of prepared.lines) stdout.write(line);
  return run(prepared.options, stdout, (url) => afterStart(url, prepared, (line) => console.warn(`warning: ${line}`)));
}

/** `plainrest export db.json`: every record written back in json-server's shape, with the file's names. */
async function exportJsonServer(request: ExportRequest): Promise<number> {
  const { exportFile, failureLines } = await import('./export-command.ts');
  try {
    for (const line of await exportFile(request)) console.log(line);
    return EXIT_STOPPED;
  } catch (error) {
    const lines = failureLines(error);
    if (lines === undefined) throw error;
    for (const line of lines) console.error(line);
    return EXIT_CANNOT_RUN;
  }
}

/** `data`, or `'my data'`: a word a POSIX shell reads back as it is. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** How to start a server on what an import wrote (`resources`, its declaration), named as this process was started. */
function serveCommand(request: ImportRequest, resources: string): string {
  const where = isDatabaseUrl(request.target) ? '--database-url' : '--data-dir';
  const target = where === '--data-dir' ? request.target : withoutPassword(request.target);
  return `${plainrestCommand(process.argv[1])} --resources ${shellWord(resources)} ${where} ${shellWord(target)}`;
}

/** Starts a server and prints its banner, then `more` of it (by its URL), then waits for a stop signal. */
async function run(
  options: ServerOptions,
  stdout: BufferedLines,
  more: (url: string) => Promise<readonly string[]> = async () => [],
): Promise<number> {
  // Listen for the stop signals before announcing anything, so a signal sent as soon
  // as the banner appears still gets the graceful path (drain, snapshot, exit 0).
  let stopRequested: (signal: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stopRequested = resolve;
  });
  process.once('SIGINT', () => stopRequested('SIGINT'));
  process.once('SIGTERM', () => stopRequested('SIGTERM'));

  const accessLog = options.accessLog ?? (process.stdout.isTTY ? 'text' : 'json');
  let server: RunningServer;
  try {
    server = await startServer({ ...options, accessLog, logger: consoleLogger(stdout) });
  } catch (error) {
    const attempt = {
      port: options.port ?? DEFAULTS.port,
      host: options.host ?? DEFAULTS.host,
      dataDir: options.dataDir ?? DEFAULTS.dataDir,
    };
    stdout.flush();
    if (error instanceof DeclarationError) for (const line of error.lines) console.error(`cannot start: ${line}`);
    else
      console.error(
        error instanceof ConfigError
          ? `cannot start: ${settingMessage(error)}`
          : describeStartupFailure(error, attempt),
      );
    return EXIT_CANNOT_RUN;
  }
  for (const line of await startBanner(server, process.argv[1])) stdout.write(line);
  for (const line of await more(server.url)) stdout.write(line);

  const signal = await stopped;
  stdout.write(`${signal}: finishing in-flight requests, then stopping`);
  await server.close();
  stdout.write('stopped');
  return EXIT_STOPPED;
}

/** A bad setting's message in the command line's words: `--port (PORT) must be …; change it`. */
function settingMessage(error: ConfigError): string {
  const setting = SETTINGS.find((candidate) => candidate.option === error.option && candidate.member === error.member);
  const named =
    setting === undefined
      ? error.message
      : error.message.replace(
          error.member === undefined ? error.option : `${error.option}.${error.member}`,
          `--${setting.flag} (${setting.variable})`,
        );
  return `${named}; change that setting (--help lists them all)`;
}
