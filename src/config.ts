// Configuration (CONTRACT §1, §10) as one typed, frozen object with documented
// defaults. Embedding passes options in camelCase; only the command-line entry point
// (main.ts, via cli-options.ts) reads environment variables and flags.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 3000. */
  readonly port?: number;
  /** Interface to listen on. Default "127.0.0.1". */
  readonly host?: string;
  /** Where snapshots live, created if missing; null keeps everything in memory. Default "data". */
  readonly dataDir?: string | null;
  /** Load the example dataset on a first start with an empty data directory. Default true. */
  readonly seed?: boolean;
  /** Larger request bodies get 413. Default 1048576 (1 MiB). */
  readonly maxBodyBytes?: number;
  /** Where to print; embedding prints nothing without one. */
  readonly logger?: Logger;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string | null;
  readonly seed: boolean;
  readonly maxBodyBytes: number;
  readonly logger: Logger;
}

export const DEFAULTS = Object.freeze({
  port: 3000,
  host: '127.0.0.1',
  dataDir: 'data',
  seed: true,
  maxBodyBytes: 1_048_576,
});

export const SILENT_LOGGER: Logger = Object.freeze({ info() {}, warn() {}, error() {} });

export class ConfigError extends Error {}

export function resolveConfig(options: ServerOptions = {}): Config {
  const config: Config = {
    port: options.port ?? DEFAULTS.port,
    host: options.host ?? DEFAULTS.host,
    dataDir: options.dataDir === undefined ? DEFAULTS.dataDir : options.dataDir,
    seed: options.seed ?? DEFAULTS.seed,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    logger: options.logger ?? SILENT_LOGGER,
  };
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
    throw new ConfigError(`port must be an integer from 0 to 65535, not ${config.port}`);
  }
  if (!Number.isInteger(config.maxBodyBytes) || config.maxBodyBytes < 1) {
    throw new ConfigError(`maxBodyBytes must be a positive integer, not ${config.maxBodyBytes}`);
  }
  if (config.host === '') throw new ConfigError('host must not be empty');
  if (config.dataDir === '') throw new ConfigError('dataDir must not be empty (use null for memory only)');
  return Object.freeze(config);
}
