// Settings from the environment and the command line (README: Configuration): each setting is
// an environment variable and a flag (`--port 8080` or `--port=8080`); the flag wins.
// Only the command line (command-line.ts) calls this; embedding passes options directly.

import type { ServerOptions } from '../config/server-options.ts';
import { DEFAULTS } from '../config/config.ts';
import type { ImportAccess } from '../importing/import-declaration.ts';
import type { ImportRequest } from './import-command.ts';
import type { ExportRequest } from './export-command.ts';
import type { JsonServerRequest } from './json-server-command.ts';
import { readJsonServerArguments, sourceArgument } from './json-server-flags.ts';
import { helpText } from './help-text.ts';
import { LOG_FORMATS } from '../logging/logger.ts';
import type { CorsOrigins } from '../http/cors.ts';
import { parseCorsOrigins } from '../http/cors.ts';
import type { Kind, Setting } from './settings.ts';
import { SETTINGS } from './settings.ts';

/** The usage text, for a test of it too. */
export { helpText };

export type CommandLine =
  | { readonly kind: 'run'; readonly options: ServerOptions }
  | { readonly kind: 'token'; readonly email: string; readonly options: ServerOptions }
  | { readonly kind: 'copy'; readonly from: string; readonly to: string; readonly options: ServerOptions }
  | { readonly kind: 'openapi'; readonly options: ServerOptions }
  | { readonly kind: 'check-resources'; readonly file: string }
  | { readonly kind: 'import'; readonly request: ImportRequest }
  | { readonly kind: 'json-server'; readonly request: JsonServerRequest }
  | { readonly kind: 'export'; readonly request: ExportRequest }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'error';
      readonly command: 'run' | 'token' | 'copy' | 'openapi' | 'check-resources' | 'import' | 'export';
      readonly message: string;
    };

const COPY_USAGE =
  'usage: plainrest copy --from <data dir | postgres://…> --to <data dir | postgres://…> [--resources FILE]';
/**
 * The flags of `plainrest copy`: where from, where to, and the declaration deciding the collections (RESOURCES too).
 */
const COPY_FLAGS = ['from', 'to', 'resources'] as const;

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): CommandLine {
  let args = argv;
  const [command] = args;
  if (command === 'copy') return parseCopy(args.slice(1), env);
  if (command === 'import') return parseImport(args.slice(1), env);
  if (command === 'export') return parseExport(args.slice(1), env);
  if (command === 'check-resources') {
    const file = args[1] ?? env['RESOURCES'];
    if (args.length > 2 || file === undefined || file === '' || file.startsWith('-'))
      return { kind: 'error', command, message: 'usage: plainrest check-resources FILE' };
    return { kind: 'check-resources', file };
  }
  const minting = command === 'token';
  const describing = command === 'openapi';
  if (!minting && !describing && sourceArgument(args) !== undefined) return parseJsonServer(args, env);
  const failure = (message: string): CommandLine => ({
    kind: 'error',
    command: minting ? 'token' : describing ? 'openapi' : 'run',
    message,
  });
  if (minting || describing) args = args.slice(1);
  let email: string | undefined;
  const raw = new Map<Setting, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--help' || arg === '-h') return { kind: 'help', text: helpText() };
    if (arg === '--version' || arg === '-v') return { kind: 'version' };
    if (minting && email === undefined && !arg.startsWith('--')) {
      email = arg;
      continue;
    }
    const [flag = '', inline] = arg.startsWith('--') ? splitOnce(arg.slice(2), '=') : [''];
    const setting = SETTINGS.find((candidate) => candidate.flag === flag);
    if (setting === undefined) return failure(`unknown argument ${arg}`);
    const value = inline ?? args[++i];
    if (value === undefined) return failure(`--${flag} needs a value`);
    raw.set(setting, value);
  }
  const options = settingsOf(raw, env);
  if (typeof options === 'string') return failure(options);
  if (describing) return { kind: 'openapi', options };
  if (!minting) return { kind: 'run', options };
  if (email === undefined) return failure('usage: plainrest token <email> [--flag value]...');
  return { kind: 'token', email, options };
}

/** The settings from the environment, then the flags given (the flag wins); or what is wrong with one. */
function settingsOf(flags: ReadonlyMap<Setting, string>, env: NodeJS.ProcessEnv): ServerOptions | string {
  const raw = new Map<Setting, string>();
  for (const setting of SETTINGS) {
    const value = env[setting.variable];
    if (value !== undefined && value !== '') raw.set(setting, value);
  }
  for (const [setting, value] of flags) raw.set(setting, value);
  const options: Record<string, unknown> = {};
  for (const [setting, text] of raw) {
    const value = convert(setting.kind, text);
    if (value === undefined) return `--${setting.flag} (${setting.variable}): "${text}" is not a valid ${setting.kind}`;
    if (setting.member === undefined) options[setting.option] = value;
    else options[setting.option] = { ...(options[setting.option] as object | undefined), [setting.member]: value };
  }
  return options as ServerOptions;
}

/**
 * `plainrest db.json [flags]`: json-server's flags (json-server-flags.ts), plainrest's settings, `--access` for the
 * import (`open` unless given) and `--reimport`.
 */
function parseJsonServer(args: readonly string[], env: NodeJS.ProcessEnv): CommandLine {
  const failure = (message: string): CommandLine => ({ kind: 'error', command: 'run', message });
  const read = readJsonServerArguments(args);
  if ('help' in read) return { kind: 'help', text: helpText() };
  if ('version' in read) return { kind: 'version' };
  if ('problem' in read) return failure(read.problem);
  const options = settingsOf(read.settings, env);
  if (typeof options === 'string') return failure(options);
  if (read.access !== undefined && !IMPORT_ACCESS.includes(read.access))
    return failure(`--access must be open, read or closed, not "${read.access}"`);
  const { source, flags, reimport } = read;
  return { kind: 'json-server', request: { source, flags, options, access: read.access as ImportAccess, reimport } };
}

/**
 * `plainrest copy --from A --to B [--resources FILE]`: only these flags; the other settings concern a running server.
 */
function parseCopy(args: readonly string[], env: NodeJS.ProcessEnv): CommandLine {
  const failure = (message: string): CommandLine => ({ kind: 'error', command: 'copy', message });
  const given = new Map<(typeof COPY_FLAGS)[number], string>();
  const fromEnvironment = env['RESOURCES'];
  if (fromEnvironment !== undefined && fromEnvironment !== '') given.set('resources', fromEnvironment);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--help' || arg === '-h') return { kind: 'help', text: helpText() };
    const read = valueFlag(args, i, COPY_FLAGS);
    if ('problem' in read) return failure(read.problem);
    given.set(read.flag, read.value);
    i = read.last;
  }
  const from = given.get('from');
  const to = given.get('to');
  const resources = given.get('resources');
  if (from === undefined || to === undefined) return failure(COPY_USAGE);
  return { kind: 'copy', from, to, options: resources === undefined ? {} : { resources } };
}

const IMPORT_USAGE =
  'usage: plainrest import <db.json> [--resources FILE] [--data-dir DIR | --database-url URL] ' +
  '[--access open|read|closed] [--force]';
/** The flags of `plainrest import` that take a value. */
const IMPORT_FLAGS = ['resources', 'data-dir', 'database-url', 'access'] as const;
const IMPORT_ACCESS: readonly string[] = ['open', 'read', 'closed'] satisfies readonly ImportAccess[];

/**
 * `plainrest import <db.json> …`: where the records go (DATA_DIR and DATABASE_URL from the environment too, as a
 * server would read them), where the declaration goes, who may do what, and whether to write over a declaration.
 */
function parseImport(args: readonly string[], env: NodeJS.ProcessEnv): CommandLine {
  const failure = (message: string): CommandLine => ({ kind: 'error', command: 'import', message });
  const given = new Map<(typeof IMPORT_FLAGS)[number], string>();
  let file: string | undefined;
  let force = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--help' || arg === '-h') return { kind: 'help', text: helpText() };
    if (arg === '--force') {
      force = true;
      continue;
    }
    if (!arg.startsWith('--') && file === undefined) {
      file = arg;
      continue;
    }
    const read = valueFlag(args, i, IMPORT_FLAGS);
    if ('problem' in read) return failure(read.problem);
    given.set(read.flag, read.value);
    i = read.last;
  }
  if (file === undefined) return failure(IMPORT_USAGE);
  const access = given.get('access') ?? 'read';
  if (!IMPORT_ACCESS.includes(access)) return failure(`--access must be open, read or closed, not "${access}"`);
  if (given.has('data-dir') && given.has('database-url'))
    return failure('name one target: --data-dir or --database-url, not both');
  const fromEnvironment = (name: string): string | undefined =>
    env[name] === undefined || env[name] === '' ? undefined : env[name];
  const target =
    given.get('database-url') ??
    given.get('data-dir') ??
    fromEnvironment('DATABASE_URL') ??
    fromEnvironment('DATA_DIR') ??
    DEFAULTS.dataDir;
  return {
    kind: 'import',
    request: { file, resources: given.get('resources'), target, access: access as ImportAccess, force },
  };
}

const EXPORT_USAGE =
  'usage: plainrest export <db.json> [--data-dir DIR | --database-url URL] [--resources FILE] [--force]';
/** The flags of `plainrest export` that take a value. */
const EXPORT_FLAGS = ['data-dir', 'database-url', 'resources'] as const;

/**
 * `plainrest export <db.json> …`: the file to write, where the records are (DATA_DIR and DATABASE_URL from the
 * environment too; else the folder `plainrest db.json` made beside it), their declaration, and whether to write over.
 */
function parseExport(args: readonly string[], env: NodeJS.ProcessEnv): CommandLine {
  const failure = (message: string): CommandLine => ({ kind: 'error', command: 'export', message });
  const given = new Map<(typeof EXPORT_FLAGS)[number], string>();
  let file: string | undefined;
  let force = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--help' || arg === '-h') return { kind: 'help', text: helpText() };
    if (arg === '--force') force = true;
    else if (!arg.startsWith('--') && file === undefined) file = arg;
    else {
      const read = valueFlag(args, i, EXPORT_FLAGS);
      if ('problem' in read) return failure(read.problem);
      given.set(read.flag, read.value);
      i = read.last;
    }
  }
  if (file === undefined) return failure(EXPORT_USAGE);
  if (given.has('data-dir') && given.has('database-url'))
    return failure('name one source: --data-dir or --database-url, not both');
  const fromEnvironment = (name: string): string | undefined =>
    env[name] === undefined || env[name] === '' ? undefined : env[name];
  const from =
    given.get('database-url') ??
    given.get('data-dir') ??
    fromEnvironment('DATABASE_URL') ??
    fromEnvironment('DATA_DIR');
  const administrator = (fromEnvironment('ADMIN_EMAIL') ?? DEFAULTS.adminEmail).toLowerCase();
  return { kind: 'export', request: { file, from, resources: given.get('resources'), force, administrator } };
}

/**
 * The flag at `args[index]`, one of `flags`, and its value (`--name value` or `--name=value`), with the index of the
 * last argument it took; or why it is none.
 */
function valueFlag<Flag extends string>(
  args: readonly string[],
  index: number,
  flags: readonly Flag[],
): { readonly flag: Flag; readonly value: string; readonly last: number } | { readonly problem: string } {
  const arg = args[index] as string;
  const [name = '', inline] = arg.startsWith('--') ? splitOnce(arg.slice(2), '=') : [''];
  const flag = flags.find((candidate) => candidate === name);
  if (flag === undefined) return { problem: `unknown argument ${arg}` };
  const value = inline ?? args[index + 1];
  if (value === undefined || value === '') return { problem: `--${flag} needs a value` };
  return { flag, value, last: inline === undefined ? index + 1 : index };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function convert(kind: Kind, text: string): string | number | boolean | CorsOrigins | undefined {
  if (kind === 'string') return text;
  if (kind === 'origins') return parseCorsOrigins(text);
  if (kind === 'log-format') return (LOG_FORMATS as readonly string[]).includes(text) ? text : undefined;
  if (kind === 'integer') return /^[0-9]{1,15}$/.test(text) ? Number(text) : undefined;
  const lower = text.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  return undefined;
}
