// Where plainrest's lines go: the logger an embedder passes (or the command line's), and
// the access-log entry it may be handed whole (http/access-log.ts writes the lines).

export const LOG_FORMATS = ['json', 'text', 'off'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface AccessEntry {
  /** Plain characters only (request-id.ts): written into the JSON line as they are. */
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly bytes: number;
  readonly durationMs: number;
  readonly userId: number | undefined;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /**
   * Optional: takes each access-log entry when the format is JSON, to write its line
   * itself (the command line encodes it straight into stdout's buffer). Without it, the
   * line is formatted (src/http/access-log.ts) and passed to `info`.
   */
  accessLine?(entry: AccessEntry): void;
}
