// What an embedding program passes to startServer or createApp (README: Embedding, Configuration): every setting
// optional, with its default named beside it; config.ts resolves them into the Config a server runs with.

import type { LogFormat, Logger } from '../logging/logger.ts';
import type { CorsOrigins } from '../http/cors.ts';
import type { Hooks } from '../declarations/compile-declaration.ts';
import type { ResourcesOption } from '../declarations/resolve-resources.ts';
import type { Store } from '../store/store.ts';

export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 3000. */
  readonly port?: number;
  /** Interface to listen on. Default "127.0.0.1". */
  readonly host?: string;
  /**
   * The path prefix plainrest is served under, such as "/api" (README: Embedding): every link it sends starts with it,
   * and a request's path is read with it or without it (a host may take it off). Default "": the root.
   */
  readonly basePath?: string;
  /** Where snapshots live, created if missing; null keeps everything in memory. Default "data". */
  readonly dataDir?: string | null;
  /** Load the example dataset on a first start with an empty data directory. Default true. */
  readonly seed?: boolean;
  /** Larger request bodies get 413. Default 1048576 (1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * Request-body bytes held at once across all requests; a body that does not fit gets 503. Default 67108864 (64 MiB).
   */
  readonly maxBodyBytesInFlight?: number;
  /** The administrator ensured at every start. Default "admin@example.com". */
  readonly adminEmail?: string;
  /**
   * Its password; when unset as the administrator is created, one is generated, logged once, and handed out once by
   * `App.takeGeneratedAdminPassword()`.
   */
  readonly adminPassword?: string;
  /** HMAC key for tokens; when unset, generated once and kept in dataDir (mode 0600). */
  readonly tokenSecret?: string;
  /** Token lifetime in seconds. Default 3600. */
  readonly tokenTtlSeconds?: number;
  /** Compact the journal into snapshots once its current segment holds this many bytes. Default 8 MiB. */
  readonly compactAfterBytes?: number;
  /** Origins allowed to call the API from a browser, or "*". Default none. */
  readonly corsOrigins?: CorsOrigins;
  /** Requests per client per minute; 0 turns limiting off. Default 1200. */
  readonly rateLimit?: number;
  /** Every `/v1` answer waits this long before it is sent, to try a client on a slow network. Default 0. */
  readonly delayMs?: number;
  /**
   * Keep list pages, representations, compressed forms and event blocks between requests (README: Caches); false
   * builds every answer afresh from the records, for tests and for readers. Default true.
   */
  readonly caches?: boolean;
  /**
   * scrypt's cost N for new password hashes (RFC 7914 §2): a power of two from 1024 to 1048576. Each hash records its
   * own, so hashes made at another cost still verify. A lower cost makes a stolen hash cheaper to guess: tests use
   * 1024. Default 16384 (16 MiB and about 50 ms a hash).
   */
  readonly passwordHashCost?: number;
  /** startServer only (a host sets its own server's): headers must arrive within this time. Default 10000 ms. */
  readonly headersTimeoutMs?: number;
  /**
   * …and its whole request within this time (startServer); under createApp, a body still arriving this long after
   * plainrest began to read it is answered 408. Default 30000 ms.
   */
  readonly requestTimeoutMs?: number;
  /** startServer only (a host sets its own server's): idle keep-alive connections close after this. Default 5000 ms. */
  readonly keepAliveTimeoutMs?: number;
  /** The clock the rate limiter reads, in ms (tests inject one). Default Date.now. */
  readonly clock?: () => number;
  /**
   * One access-log line per request to the logger, as "json" or "text"; "off" (the default when embedding) for none.
   */
  readonly accessLog?: LogFormat;
  /** Where to print; embedding prints nothing without one. */
  readonly logger?: Logger;
  /**
   * Bring your own Store (another database behind the same interface); `dataDir` and
   * `seed` are then not used. Embedding only.
   */
  readonly store?: Store;
  /**
   * `postgres://…`: keep the data in PostgreSQL, shared by any number of processes
   * (README: Several processes); needs the optional package plainrest-postgres and a
   * tokenSecret. `dataDir` and `seed` are then not used.
   */
  readonly database?: string;
  /**
   * The resources to serve: a declaration file's path, or the declaration itself
   * (README: Your own resources). Unset: the example domain.
   */
  readonly resources?: ResourcesOption;
  /** Embedding hooks by collection: compute read-only properties, refuse writes (README: Embedding). */
  readonly hooks?: Hooks;
  /** The change feed's history and streams (README: Events); each setting has its default when absent. */
  readonly events?: Partial<EventSettings>;
  /**
   * An OpenID Connect provider whose tokens are accepted beside plainrest's own (README: Provider tokens): its issuer,
   * `iss` exactly; its keys found through discovery unless `oidcJwksUrl` names them. Unset: none.
   */
  readonly oidcIssuer?: string;
  readonly oidcJwksUrl?: string;
  /** When set, a provider token's `aud` must be it or contain it. */
  readonly oidcAudience?: string;
  /** The claim that says a provider's user is an admin (the value `admin`, or a list holding it). Default "roles". */
  readonly oidcRoleClaim?: string;
  /** Serve json-server 0.17's dialect at the root beside /v1 (docs/json-server.md). */
  readonly jsonServer?: JsonServerOptions;
  /** Webhooks may be delivered to http: URLs, not only https: ones (docs/webhooks.md). Default false. */
  readonly webhooksAllowHttp?: boolean;
  /**
   * Webhooks may be delivered to loopback, link-local, private and other special-purpose addresses (docs/webhooks.md:
   * Safe targets). Default false: a URL whose name resolves to one is refused, and so is a connection to one.
   */
  readonly webhooksAllowPrivate?: boolean;
  /**
   * Internal, for tests (docs/webhooks.md: Testing), not a promise of the package's interface: the clock the webhook
   * delivery worker reads and waits on, how often it looks for subscriptions and requested deliveries, and its leases.
   */
  readonly webhookWorker?: WebhookWorkerOptions;
}

/**
 * A clock: the time in ms since the epoch, and timers on it. Tests hand the delivery worker one they move by hand, so
 * that retries, their backoff and the day they last for pass without waiting.
 */
export interface WebhookClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** Internal (ServerOptions.webhookWorker). */
export interface WebhookWorkerOptions {
  /** Default: the system's clock and timers. */
  readonly clock?: WebhookClock;
  /** Default 1000 ms. */
  readonly pollMs?: number;
  /**
   * How long a process's lease on a subscription lasts unless renewed, where processes share a database
   * (docs/webhooks.md: Several processes): how long a process that died holding one keeps it from the others. Default
   * 30,000 ms.
   */
  readonly leaseMs?: number;
}

/** json-server 0.17's dialect, served at the root (docs/json-server.md: Serving json-server's dialect). */
export interface JsonServerOptions {
  /** json-server's --read-only: the dialect answers GET and HEAD only (others as json-server answers them). */
  readonly readOnly?: boolean;
  /** json-server's --static: a directory served at the root (json-server's default: ./public when it exists). */
  readonly staticDir?: string;
  /** json-server's --routes: its rewrite rules, such as { "/api/*": "/$1", "/blog/:id": "/posts/:id" }. */
  readonly routes?: Readonly<Record<string, string>>;
  /**
   * CORS as json-server's defaults send it at the root (the Origin reflected, credentials allowed); false sends none
   * there, as json-server's --no-cors means to. Default true. /v1's CORS is `corsOrigins`'s.
   */
  readonly cors?: boolean;
}

/** The change feed (README: Events). */
export interface EventSettings {
  /** At least this many of the newest events are kept. Default 10000. */
  readonly kept: number;
  /** Events younger than this are kept too, up to ten times `kept`; 0 keeps none for its age. Default 24 h. */
  readonly keptForMs: number;
  /** Event streams open at once, in all; more get 429. Default 1000. */
  readonly maxStreams: number;
  /** Event streams one user may have open at once. Default 10. */
  readonly maxStreamsPerUser: number;
  /** A comment line goes to every stream this often. Default 15000 ms. */
  readonly heartbeatMs: number;
  /** A stream whose reader falls this many bytes behind is closed. Default 1 MiB. */
  readonly streamBufferBytes: number;
}
