// The settings table (README: Configuration): each setting's environment variable, flag, option, kind, meaning and
// default, read by the command line's parser (options.ts) and its help.

import type { EventSettings, ServerOptions } from '../config/server-options.ts';
import { DEFAULTS } from '../config/config.ts';

export type Kind = 'integer' | 'string' | 'boolean' | 'origins' | 'log-format';

export interface Setting {
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
    variable: 'BASE_PATH',
    flag: 'base-path',
    option: 'basePath',
    kind: 'string',
    fallback: 'none: the root',
    meaning: 'serve under this path, such as /api, every link starting with it (docs/embedding.md)',
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
    variable: 'DELAY_MS',
    flag: 'delay-ms',
    option: 'delayMs',
    kind: 'integer',
    fallback: String(DEFAULTS.delayMs),
    meaning: 'every /v1 answer waits this long first, to try a client on a slow network',
  },
  {
    variable: 'CACHES',
    flag: 'caches',
    option: 'caches',
    kind: 'boolean',
    fallback: String(DEFAULTS.caches),
    meaning: 'keep list pages, representations, compressed forms and event blocks; false builds each answer afresh',
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
    variable: 'PASSWORD_HASH_COST',
    flag: 'password-hash-cost',
    option: 'passwordHashCost',
    kind: 'integer',
    fallback: String(DEFAULTS.passwordHashCost),
    meaning:
      "scrypt's N for the password hashes made from then on, a power of two from 1024 to 1048576 (docs/embedding.md)",
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
  {
    variable: 'WEBHOOKS_ALLOW_HTTP',
    flag: 'webhooks-allow-http',
    option: 'webhooksAllowHttp',
    kind: 'boolean',
    fallback: 'false',
    meaning: 'webhooks may be delivered to http: URLs, not only https: ones (docs/webhooks.md)',
  },
  {
    variable: 'WEBHOOKS_ALLOW_PRIVATE',
    flag: 'webhooks-allow-private',
    option: 'webhooksAllowPrivate',
    kind: 'boolean',
    fallback: 'false',
    meaning: 'webhooks may be delivered to loopback, link-local and private addresses (docs/webhooks.md)',
  },
  {
    variable: 'OIDC_ISSUER',
    flag: 'oidc-issuer',
    option: 'oidcIssuer',
    kind: 'string',
    fallback: 'none',
    meaning:
      "accept an OpenID Connect provider's tokens too: its issuer, keys found by discovery (README: Provider tokens)",
  },
  {
    variable: 'OIDC_JWKS_URL',
    flag: 'oidc-jwks-url',
    option: 'oidcJwksUrl',
    kind: 'string',
    fallback: 'from discovery',
    meaning: "the provider's keys, for a provider without discovery",
  },
  {
    variable: 'OIDC_AUDIENCE',
    flag: 'oidc-audience',
    option: 'oidcAudience',
    kind: 'string',
    fallback: 'any',
    meaning: "a provider token's aud must be this or contain it",
  },
  {
    variable: 'OIDC_ROLE_CLAIM',
    flag: 'oidc-role-claim',
    option: 'oidcRoleClaim',
    kind: 'string',
    fallback: DEFAULTS.oidcRoleClaim,
    meaning: 'the claim whose value admin (or a list holding it) makes a provider user an admin',
  },
];
