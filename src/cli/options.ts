// Settings from the environment and the command line (README: Configuration): each setting is
// an environment variable and a flag (`--port 8080` or `--port=8080`); the flag wins.
// Only main.ts calls this; embedding passes options directly.

import type { EventSettings, ServerOptions } from '../config/config.ts';
import { DEFAULTS } from '../config/config.ts';
import { LOG_FORMATS } from '../logging/logger.ts';
import type { CorsOrigins } from '../http/cors.ts';
import { parseCorsOrigins } from '../http/cors.ts';

type Kind = 'integer' | 'string' | 'boolean' | 'origins' | 'log-format';

interface Setting {
  readonly variable: string;
  readonly flag: string;
  readonly option: keyof ServerOptions;
  /** For a setting inside an option object (`events`): its member. */
  readonly member?: keyof EventSettings;
  readonly kind: Kind;
  readonly meaning: string;
  readonly fallback: string;
}

export const SETTINGS: readonly Setting[] = [
  {
    variable: 'PORT',
    flag: 'port',
    option: 'port',
    kind: 'integer',
    fallback: String(DEFAULTS.port),
    meaning: 'TCP port; 0 picks a free one',
  },
  {
    variable: 'HOST',
    flag: 'host',
    option: 'host',
    kind: 'string',
    fallback: DEFAULTS.host,
    meaning: 'interface to listen on',
  },
  {
    variable: 'RESOURCES',
    flag: 'resources',
    option: 'resources',
    kind: 'string',
    fallback: 'the example domain',
    meaning: 'the declaration file of the resources to serve (README: Your own resources)',
  },
  {
    variable: 'DATABASE_URL',
    flag: 'database-url',
    option: 'database',
    kind: 'string',
    fallback: 'none: the data directory',
    meaning: 'keep the data in PostgreSQL instead (README: Several processes)',
  },
  {
    variable: 'DATA_DIR',
    flag: 'data-dir',
    option: 'dataDir',
    kind: 'string',
    fallback: DEFAULTS.dataDir,
    meaning: 'where snapshots and the journal live; created if missing',
  },
  {
    variable: 'MAX_BODY_BYTES',
    flag: 'max-body-bytes',
    option: 'maxBodyBytes',
    kind: 'integer',
    fallback: String(DEFAULTS.maxBodyBytes),
    meaning: 'larger request bodies get 413',
  },
  {
    variable: 'MAX_BODY_BYTES_IN_FLIGHT',
    flag: 'max-body-bytes-in-flight',
    option: 'maxBodyBytesInFlight',
    kind: 'integer',
    fallback: String(DEFAULTS.maxBodyBytesInFlight),
    meaning: 'request-body bytes held at once across all requests; past it, 503 with Retry-After',
  },
  {
    variable: 'SEED',
    flag: 'seed',
    option: 'seed',
    kind: 'boolean',
    fallback: String(DEFAULTS.seed),
    meaning: 'load the example dataset into an empty data directory',
  },
  {
    variable: 'COMPACT_AFTER_BYTES',
    flag: 'compact-after-bytes',
    option: 'compactAfterBytes',
    kind: 'integer',
    fallback: String(DEFAULTS.compactAfterBytes),
    meaning: 'fold the journal into snapshots once it holds this many bytes',
  },
  {
    variable: 'RATE_LIMIT',
    flag: 'rate-limit',
    option: 'rateLimit',
    kind: 'integer',
    fallback: String(DEFAULTS.rateLimit),
    meaning: 'requests per client per minute; 0 turns limiting off',
  },
  {
    variable: 'CORS_ORIGINS',
    flag: 'cors-origins',
    option: 'corsOrigins',
    kind: 'origins',
    fallback: 'none',
    meaning: 'comma-separated origins allowed from browsers, or *',
  },
  {
    variable: 'LOG_FORMAT',
    flag: 'log-format',
    option: 'accessLog',
    kind: 'log-format',
    fallback: 'json (text on a terminal)',
    meaning: 'access log: json, text or off',
  },
  {
    variable: 'ADMIN_EMAIL',
    flag: 'admin-email',
    option: 'adminEmail',
    kind: 'string',
    fallback: DEFAULTS.adminEmail,
    meaning: 'the administrator ensured at start',
  },
  {
    variable: 'ADMIN_PASSWORD',
    flag: 'admin-password',
    option: 'adminPassword',
    kind: 'string',
    fallback: 'generated on the first start and printed once',
    meaning: "the administrator's password",
  },
  {
    variable: 'TOKEN_SECRET',
    flag: 'token-secret',
    option: 'tokenSecret',
    kind: 'string',
    fallback: 'generated once, kept in DATA_DIR/token-secret',
    meaning: 'HMAC key for tokens (32+ characters)',
  },
  {
    variable: 'TOKEN_TTL_SECONDS',
    flag: 'token-ttl-seconds',
    option: 'tokenTtlSeconds',
    kind: 'integer',
    fallback: String(DEFAULTS.tokenTtlSeconds),
    meaning: 'token lifetime',
  },
  {
    variable: 'EVENTS_KEPT',
    flag: 'events-kept',
    option: 'events',
    member: 'kept',
    kind: 'integer',
    fallback: String(DEFAULTS.events.kept),
    meaning: 'the change feed keeps at least this many events (and those of the last 24 h)',
  },
  {
    variable: 'MAX_STREAMS',
    flag: 'max-streams',
    option: 'events',
    member: 'maxStreams',
    kind: 'integer',
    fallback: String(DEFAULTS.events.maxStreams),
    meaning: 'event streams open at once; more get 429',
  },
  {
    variable: 'MAX_STREAMS_PER_USER',
    flag: 'max-streams-per-user',
    option: 'events',
    member: 'maxStreamsPerUser',
    kind: 'integer',
    fallback: String(DEFAULTS.events.maxStreamsPerUser),
    meaning: 'event streams one user may have open at once',
  },
];

export type CommandLine =
  | { readonly kind: 'run'; readonly options: ServerOptions }
  | { readonly kind: 'token'; readonly email: string; readonly options: ServerOptions }
  | { readonly kind: 'copy'; readonly from: string; readonly to: string; readonly options: ServerOptions }
  | { readonly kind: 'openapi'; readonly options: ServerOptions }
  | { readonly kind: 'check-resources'; readonly file: string }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'error';
      readonly command: 'run' | 'token' | 'copy' | 'openapi' | 'check-resources';
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
  if (command === 'check-resources') {
    const file = args[1] ?? env['RESOURCES'];
    if (args.length > 2 || file === undefined || file === '' || file.startsWith('-'))
      return { kind: 'error', command, message: 'usage: plainrest check-resources FILE' };
    return { kind: 'check-resources', file };
  }
  const minting = command === 'token';
  const describing = command === 'openapi';
  const failure = (message: string): CommandLine => ({
    kind: 'error',
    command: minting ? 'token' : describing ? 'openapi' : 'run',
    message,
  });
  if (minting || describing) args = args.slice(1);
  let email: string | undefined;
  const raw = new Map<Setting, string>();
  for (const setting of SETTINGS) {
    const value = env[setting.variable];
    if (value !== undefined && value !== '') raw.set(setting, value);
  }
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

  const options: Record<string, unknown> = {};
  for (const [setting, text] of raw) {
    const value = convert(setting.kind, text);
    if (value === undefined)
      return failure(`--${setting.flag} (${setting.variable}): "${text}" is not a valid ${setting.kind}`);
    if (setting.member === undefined) options[setting.option] = value;
    else options[setting.option] = { ...(options[setting.option] as object | undefined), [setting.member]: value };
  }
  if (describing) return { kind: 'openapi', options: options as ServerOptions };
  if (!minting) return { kind: 'run', options: options as ServerOptions };
  if (email === undefined) return failure('usage: plainrest token <email> [--flag value]...');
  return { kind: 'token', email, options: options as ServerOptions };
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
    const [name = '', inline] = arg.startsWith('--') ? splitOnce(arg.slice(2), '=') : [''];
    const flag = COPY_FLAGS.find((candidate) => candidate === name);
    if (flag === undefined) return failure(`unknown argument ${arg}`);
    const value = inline ?? args[++i];
    if (value === undefined || value === '') return failure(`--${flag} needs a value`);
    given.set(flag, value);
  }
  const from = given.get('from');
  const to = given.get('to');
  const resources = given.get('resources');
  if (from === undefined || to === undefined) return failure(COPY_USAGE);
  return { kind: 'copy', from, to, options: resources === undefined ? {} : { resources } };
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

export function helpText(): string {
  const flagWidth = Math.max(...SETTINGS.map((setting) => setting.flag.length)) + 2;
  const variableWidth = Math.max(...SETTINGS.map((setting) => setting.variable.length));
  const rows = SETTINGS.map(
    (setting) =>
      `  ${`--${setting.flag}`.padEnd(flagWidth)} ${setting.variable.padEnd(variableWidth)} ${setting.meaning} (default: ${setting.fallback})`,
  );
  return [
    'Usage: plainrest [--flag value]...            start the server',
    '       plainrest token <email> [--flag value]  print a token for an existing user (reads DATA_DIR, or DATABASE_URL)',
    '       plainrest copy --from A --to B          copy every record, id and password hash from A into an empty B,',
    '         [--resources FILE]                    each a data directory or postgres://… (README: Configuration)',
    '       plainrest openapi [--resources FILE]    print the OpenAPI 3.1 document',
    '       plainrest check-resources FILE          check a declaration file without starting',
    '       plainrest --version                     print the version',
    '',
    `  ${'flag'.padEnd(flagWidth)} ${'variable'.padEnd(variableWidth)} meaning`,
    ...rows,
    '',
    'A flag wins over its environment variable.',
    'Exit status: 0 after a clean stop (SIGINT, SIGTERM); 2 when the command cannot run (a setting,',
    'the data or the machine prevents it: one line on stderr says why and what to do); 1 for a failure while running.',
  ].join('\n');
}
