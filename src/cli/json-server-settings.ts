// json-server 0.17's flags as plainrest's settings (docs/json-server.md: The flags): --port, --host and --delay as the
// server's own, --read-only, --static and --routes for the dialect at the root, the rest the same behaviour or a line
// saying why not (a refusal where going on would mislead); json-server.json (--config) read first, as its yargs does.

import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { JsonServerOptions, ServerOptions } from '../config/server-options.ts';
import { isJsonObject } from '../records/json.ts';
import type { JsonServerValue } from './json-server-flags.ts';
import { JSON_SERVER_FLAGS } from './json-server-flags.ts';

/** A flag or file that stops the command: one line, exit 2. */
export class JsonServerError extends Error {}

/** The longest --delay, as DELAY_MS's. */
const MAX_DELAY_MS = 60_000;
/** json-server's --config default, read when it is there. */
const DEFAULT_CONFIG = 'json-server.json';
/** json-server's static directory when --static is not given: ./public, when there is one. */
const DEFAULT_STATIC = 'public';

/** What json-server's flags set: the server's options, and what the command says about the rest. */
export interface JsonServerSettings {
  readonly options: ServerOptions;
  readonly readOnly: boolean;
  /** --watch: a change of the file is told while serving. */
  readonly watch: boolean;
  /** A line per flag taken otherwise than json-server takes it. */
  readonly warnings: readonly string[];
}

/** The flags given, over json-server.json's (or --config's), made settings; a flag that cannot be is an error. */
export async function jsonServerSettings(
  given: ReadonlyMap<string, JsonServerValue>,
  base: ServerOptions,
): Promise<JsonServerSettings> {
  const warnings: string[] = [];
  const flags = new Map([...(await configFile(given.get('config'), warnings)), ...given]);
  const text = (name: string): string | undefined => {
    const value = flags.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  const on = (name: string): boolean => flags.get(name) === true;
  refuseUnsupported(flags);
  const options: Record<string, unknown> = { ...base };
  const port = text('port');
  if (port !== undefined) options['port'] = wholeNumber('--port', port, 65_535);
  const host = text('host');
  if (host !== undefined) options['host'] = host;
  const delay = text('delay');
  if (delay !== undefined) options['delayMs'] = wholeNumber('--delay', delay, MAX_DELAY_MS);
  options['corsOrigins'] = on('no-cors') ? [] : (base.corsOrigins ?? '*');
  if (on('quiet')) options['accessLog'] = 'off';
  const routesFile = text('routes');
  const staticDir = await staticDirectory(text('static'));
  const dialect: JsonServerOptions = {
    ...(on('read-only') ? { readOnly: true } : {}),
    ...(on('no-cors') ? { cors: false } : {}),
    ...(staticDir === undefined ? {} : { staticDir }),
    ...(routesFile === undefined ? {} : { routes: await routesOf(routesFile) }),
  };
  options['jsonServer'] = dialect;
  if (on('watch'))
    warnings.push(
      "--watch: the records served are plainrest's (each write journaled, the file not written): a change of the " +
        'file is told here while serving, and served once plainrest starts again with --reimport',
    );
  if (on('no-gzip'))
    warnings.push(
      '--no-gzip: taken as is; plainrest compresses an answer of 1 KiB or more only for a client that accepts it ' +
        '(Accept-Encoding), as json-server does, and none for one that sends Accept-Encoding: identity',
    );
  if (flags.has('snapshots'))
    warnings.push(
      '--snapshots: plainrest reads no keys from the terminal (s + Enter); GET /db saves the records in the ' +
        "file's shape while it runs (curl -s …/db > snapshot.json), plainrest export once it is stopped",
    );
  return { options: options as ServerOptions, readOnly: on('read-only'), watch: on('watch'), warnings };
}

/** The flags json-server has and plainrest cannot honour without misleading: each stops the command, saying why. */
function refuseUnsupported(flags: ReadonlyMap<string, JsonServerValue>): void {
  if (flags.has('middlewares'))
    throw new JsonServerError(
      '--middlewares: plainrest runs no Express middleware; a declaration hook (docs/resources.md: Hooks) or ' +
        'plainrest embedded in your own server (docs/embedding.md) does that work',
    );
  const id = flags.get('id');
  if (id !== undefined && id !== 'id')
    throw new JsonServerError(
      `--id ${String(id)}: plainrest's import reads a record's id from id (or Id, ID) only; rename ${String(id)} ` +
        'to id in the file to keep those ids',
    );
  const suffix = flags.get('foreignKeySuffix');
  if (suffix !== undefined && suffix !== 'Id' && suffix !== '_id')
    throw new JsonServerError(
      `--foreignKeySuffix ${String(suffix)}: plainrest's import knows references named postId or post_id only; ` +
        'rename them in the file',
    );
}

/** json-server.json's flags (or --config's file): a switch true or false, a value a string or a number. */
async function configFile(
  named: JsonServerValue | undefined,
  warnings: string[],
): Promise<Map<string, JsonServerValue>> {
  if (named !== undefined && typeof named !== 'string') throw new JsonServerError('--config needs a file');
  const path = named ?? DEFAULT_CONFIG;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (named === undefined && code === 'ENOENT') return new Map();
    throw new JsonServerError(`--config ${path}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new JsonServerError(`${path}: not JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(parsed)) throw new JsonServerError(`${path}: json-server's config file is a JSON object of flags`);
  const flags = new Map<string, JsonServerValue>();
  for (const [key, value] of Object.entries(parsed)) {
    const flag = JSON_SERVER_FLAGS.find(
      (candidate) =>
        candidate.name === key ||
        camelCase(candidate.name) === key ||
        candidate.aliases.some((alias) => alias.replace(/^-+/, '') === key),
    );
    if (flag === undefined || flag.name === 'config') {
      warnings.push(`${path}: ${key} is no json-server flag plainrest reads; left out`);
      continue;
    }
    const read = flagValue(flag.takes, value);
    if (read === undefined) throw new JsonServerError(`${path}: ${key} cannot be ${JSON.stringify(value)}`);
    flags.set(flag.name, read);
  }
  return flags;
}

function flagValue(takes: 'switch' | 'value' | 'values', value: unknown): JsonServerValue | undefined {
  if (takes === 'switch') return typeof value === 'boolean' ? value : undefined;
  const scalar = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  if (takes === 'value') return scalar;
  if (scalar !== undefined) return [scalar];
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined;
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function wholeNumber(flag: string, text: string, most: number): number {
  const value = /^[0-9]{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= most)) throw new JsonServerError(`${flag} ${text}: a whole number from 0 to ${most}`);
  return value;
}

/** --static's directory (json-server's is relative to the working directory), else ./public when there is one. */
async function staticDirectory(named: string | undefined): Promise<string | undefined> {
  const path = resolve(named ?? DEFAULT_STATIC);
  const found = await stat(path).catch(() => undefined);
  if (found?.isDirectory() === true) return path;
  if (named === undefined) return undefined;
  throw new JsonServerError(`--static ${named}: ${found === undefined ? 'no such directory' : 'not a directory'}`);
}

/**
 * --routes' file: json-server's rewrite rules, a JSON object whose every member maps a path (`/api/*`,
 * `/blog/:id`) to another (`/$1`, `/posts/:id`).
 */
async function routesOf(file: string): Promise<Readonly<Record<string, string>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new JsonServerError(`--routes ${file}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new JsonServerError(`--routes ${file}: not JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(parsed))
    throw new JsonServerError(`--routes ${file}: a JSON object of rules, such as {"/api/*": "/$1"}`);
  const rules: [string, string][] = [];
  for (const [from, to] of Object.entries(parsed)) {
    if (!from.startsWith('/'))
      throw new JsonServerError(`--routes ${file}: the rule ${JSON.stringify(from)} must start with /`);
    if (typeof to !== 'string' || !to.startsWith('/'))
      throw new JsonServerError(
        `--routes ${file}: the rule ${JSON.stringify(from)} must map to a path starting with /, ` +
          `not ${JSON.stringify(to)}`,
      );
    rules.push([from, to]);
  }
  // Object.fromEntries makes each rule an own member, a "__proto__" rule included.
  return Object.fromEntries(rules);
}
