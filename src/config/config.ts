// Configuration (README: Configuration, Embedding) as one typed, frozen object with documented
// defaults. Embedding passes options in camelCase (server-options.ts); only the command line
// (cli/command-line.ts, via cli/options.ts) reads environment variables and flags.

import type { LogFormat, Logger } from '../logging/logger.ts';
import type { CorsOrigins } from '../http/cors.ts';
import { EMAIL_PATTERN } from '../resources/scalar-checks.ts';
import { requireProviderUrl } from '../auth/provider-url.ts';
import { PASSWORD_HASH_COST } from '../auth/passwords.ts';
import type { ProviderSettings } from '../auth/provider-auth.ts';
import type { EventSettings, JsonServerOptions, ServerOptions, WebhookWorkerOptions } from './server-options.ts';
import { basePathProblem } from '../http/base-path.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** The path prefix served under (http/base-path.ts), such as "/api"; "" for the root. */
  readonly basePath: string;
  readonly dataDir: string | null;
  /** A PostgreSQL URL, or undefined for the data directory (or memory). */
  readonly database: string | undefined;
  readonly seed: boolean;
  readonly maxBodyBytes: number;
  readonly maxBodyBytesInFlight: number;
  readonly adminEmail: string;
  readonly adminPassword: string | undefined;
  readonly tokenSecret: string | undefined;
  readonly tokenTtlSeconds: number;
  readonly compactAfterBytes: number;
  readonly corsOrigins: CorsOrigins;
  readonly accessLog: LogFormat;
  readonly rateLimit: number;
  readonly delayMs: number;
  readonly caches: boolean;
  readonly passwordHashCost: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly events: EventSettings;
  /** Undefined: only plainrest's own tokens are accepted. */
  readonly provider: ProviderSettings | undefined;
  /** json-server 0.17's dialect at the root beside /v1 (docs/json-server.md); undefined: not served. */
  readonly jsonServer: JsonServerOptions | undefined;
  /** Where webhooks may be delivered (docs/webhooks.md), and the delivery worker's clock (tests only). */
  readonly webhooks: {
    readonly allowHttp: boolean;
    readonly allowPrivate: boolean;
    readonly worker: WebhookWorkerOptions;
  };
}

/** A `postgres://` (or `postgresql://`) URL, where a data directory's path is anything else. */
export function isDatabaseUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//.test(text);
}

/** scrypt's cost bounds: below, a hash is too cheap to guess at; above, one takes a gigabyte and seconds. */
const MIN_PASSWORD_HASH_COST = 1024;
const MAX_PASSWORD_HASH_COST = 1_048_576;

/** scrypt's N (RFC 7914 §2) is a power of two; this one within the bounds. */
function isPasswordHashCost(cost: number): boolean {
  return (
    Number.isInteger(cost) &&
    cost >= MIN_PASSWORD_HASH_COST &&
    cost <= MAX_PASSWORD_HASH_COST &&
    (cost & (cost - 1)) === 0
  );
}

/** The longest artificial delay: longer, a client's own timeouts would be what is tried. */
const MAX_DELAY_MS = 60_000;

export const DEFAULTS = Object.freeze({
  port: 3000,
  host: '127.0.0.1',
  basePath: '',
  dataDir: 'data',
  seed: true,
  maxBodyBytes: 1_048_576,
  maxBodyBytesInFlight: 64 * 1_048_576,
  adminEmail: 'admin@example.com',
  tokenTtlSeconds: 3600,
  compactAfterBytes: 8 * 1024 * 1024,
  rateLimit: 1200,
  delayMs: 0,
  caches: true,
  passwordHashCost: PASSWORD_HASH_COST,
  oidcRoleClaim: 'roles',
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  events: Object.freeze({
    kept: 10_000,
    keptForMs: 24 * 60 * 60 * 1000,
    maxStreams: 1000,
    maxStreamsPerUser: 10,
    heartbeatMs: 15_000,
    streamBufferBytes: 1_048_576,
  }),
});

/** Shorter secrets make HS256 keys guessable (RFC 7518 §3.2: a key of at least 256 bits). */
export const MIN_TOKEN_SECRET_LENGTH = 32;

export const SILENT_LOGGER: Logger = Object.freeze({ info() {}, warn() {}, error() {} });

/** A setting with a value plainrest cannot use; `option` names it (the command line shows its flag). */
export class ConfigError extends Error {
  readonly option: keyof ServerOptions;
  /** The member of an option object (`events.maxStreams`), when the message names one. */
  readonly member: keyof EventSettings | undefined;

  constructor(option: keyof ServerOptions, message: string, member?: keyof EventSettings) {
    super(message);
    this.option = option;
    this.member = member;
  }
}

function providerSettings(options: ServerOptions): ProviderSettings | undefined {
  const { oidcIssuer: issuer, oidcJwksUrl: jwksUrl, oidcAudience: audience } = options;
  if (issuer === undefined) {
    for (const name of ['oidcJwksUrl', 'oidcAudience', 'oidcRoleClaim'] as const)
      if (options[name] !== undefined) throw new ConfigError(name, `${name} needs oidcIssuer: the provider's issuer`);
    return undefined;
  }
  for (const [name, url] of [
    ['oidcIssuer', issuer],
    ['oidcJwksUrl', jwksUrl],
  ] as const) {
    try {
      if (url !== undefined) requireProviderUrl(url, name);
    } catch (error) {
      throw new ConfigError(name, (error as Error).message);
    }
  }
  const roleClaim = options.oidcRoleClaim ?? DEFAULTS.oidcRoleClaim;
  if (roleClaim === '') throw new ConfigError('oidcRoleClaim', 'oidcRoleClaim must name a claim');
  return Object.freeze({ issuer, jwksUrl, audience, roleClaim });
}

export function resolveConfig(options: ServerOptions = {}): Config {
  const config: Config = {
    port: options.port ?? DEFAULTS.port,
    host: options.host ?? DEFAULTS.host,
    basePath: options.basePath ?? DEFAULTS.basePath,
    dataDir:
      options.store !== undefined || options.database !== undefined
        ? null
        : options.dataDir === undefined
          ? DEFAULTS.dataDir
          : options.dataDir,
    database: options.store !== undefined ? undefined : options.database,
    seed: options.seed ?? DEFAULTS.seed,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    maxBodyBytesInFlight: options.maxBodyBytesInFlight ?? DEFAULTS.maxBodyBytesInFlight,
    adminEmail: options.adminEmail ?? DEFAULTS.adminEmail,
    adminPassword: options.adminPassword,
    tokenSecret: options.tokenSecret,
    tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULTS.tokenTtlSeconds,
    compactAfterBytes: options.compactAfterBytes ?? DEFAULTS.compactAfterBytes,
    corsOrigins: options.corsOrigins ?? [],
    accessLog: options.accessLog ?? 'off',
    rateLimit: options.rateLimit ?? DEFAULTS.rateLimit,
    delayMs: options.delayMs ?? DEFAULTS.delayMs,
    caches: options.caches ?? DEFAULTS.caches,
    passwordHashCost: options.passwordHashCost ?? DEFAULTS.passwordHashCost,
    headersTimeoutMs: options.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? DEFAULTS.keepAliveTimeoutMs,
    clock: options.clock ?? Date.now,
    logger: options.logger ?? SILENT_LOGGER,
    events: Object.freeze({ ...DEFAULTS.events, ...options.events }),
    provider: providerSettings(options),
    jsonServer: options.jsonServer === undefined ? undefined : Object.freeze({ ...options.jsonServer }),
    webhooks: Object.freeze({
      allowHttp: options.webhooksAllowHttp ?? false,
      allowPrivate: options.webhooksAllowPrivate ?? false,
      worker: Object.freeze({ ...options.webhookWorker }),
    }),
  };
  for (const [name, value] of Object.entries(config.events) as [keyof EventSettings, number][]) {
    if (name === 'keptForMs') {
      if (!Number.isInteger(value) || value < 0)
        throw new ConfigError('events', `events.keptForMs must be an integer of 0 or more, not ${String(value)}`, name);
    } else if (!Number.isInteger(value) || value < 1)
      throw new ConfigError('events', `events.${name} must be a positive integer, not ${String(value)}`, name);
  }
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
    throw new ConfigError('port', `port must be an integer from 0 to 65535, not ${config.port}`);
  }
  const positive = [
    'maxBodyBytes',
    'maxBodyBytesInFlight',
    'headersTimeoutMs',
    'requestTimeoutMs',
    'keepAliveTimeoutMs',
    'compactAfterBytes',
    'tokenTtlSeconds',
  ] as const;
  for (const name of positive) {
    if (!Number.isInteger(config[name]) || config[name] < 1)
      throw new ConfigError(name, `${name} must be a positive integer, not ${config[name]}`);
  }
  if (!Number.isInteger(config.rateLimit) || config.rateLimit < 0) {
    throw new ConfigError(
      'rateLimit',
      `rateLimit must be a whole number of requests per minute (0: off), not ${config.rateLimit}`,
    );
  }
  if (!Number.isInteger(config.delayMs) || config.delayMs < 0 || config.delayMs > MAX_DELAY_MS) {
    throw new ConfigError(
      'delayMs',
      `delayMs must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS} (a minute), not ${config.delayMs}`,
    );
  }
  if (!isPasswordHashCost(config.passwordHashCost)) {
    const range = `from ${MIN_PASSWORD_HASH_COST} to ${MAX_PASSWORD_HASH_COST}`;
    const message = `passwordHashCost must be a power of two ${range}, not ${config.passwordHashCost}`;
    throw new ConfigError('passwordHashCost', message);
  }
  if (!EMAIL_PATTERN.test(config.adminEmail)) {
    throw new ConfigError('adminEmail', `adminEmail must be an email address, not "${config.adminEmail}"`);
  }
  if (config.adminPassword !== undefined && (config.adminPassword.length < 8 || config.adminPassword.length > 200)) {
    throw new ConfigError('adminPassword', 'adminPassword must be 8 to 200 characters long');
  }
  if (config.tokenSecret !== undefined && config.tokenSecret.length < MIN_TOKEN_SECRET_LENGTH) {
    throw new ConfigError('tokenSecret', `tokenSecret must be at least ${MIN_TOKEN_SECRET_LENGTH} characters long`);
  }
  if (config.host === '') throw new ConfigError('host', 'host must not be empty');
  const basePathRefused =
    typeof config.basePath === 'string'
      ? basePathProblem(config.basePath)
      : 'basePath must be a string, such as "/api"';
  if (basePathRefused !== undefined) throw new ConfigError('basePath', basePathRefused);
  if (config.dataDir === '') throw new ConfigError('dataDir', 'dataDir must not be empty (use null for memory only)');
  if (config.database !== undefined) {
    if (!isDatabaseUrl(config.database))
      throw new ConfigError(
        'database',
        'database must be a PostgreSQL URL: postgres://user:password@host:port/database',
      );
    if (config.tokenSecret === undefined) {
      throw new ConfigError(
        'tokenSecret',
        'a database needs tokenSecret: every process that shares it must sign tokens with the same key',
      );
    }
  }
  return Object.freeze(config);
}
