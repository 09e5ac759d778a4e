// What a handler receives: the parsed request line, the ids from the path, the
// request id, and the application's services. Handlers never touch the response.

import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticate.ts';
import type { Actor } from '../auth/permissions.ts';
import type { Config } from '../config/config.ts';
import type { BodyBudget } from '../http/body-budget.ts';
import type { IdempotencyKeys } from '../http/idempotency.ts';
import type { PageCache } from '../http/page-cache.ts';
import type { RequestStore, Store } from '../store/store.ts';
import type { EventStreams } from '../events/event-streams.ts';

export interface Services {
  readonly store: Store;
  readonly config: Config;
  readonly authenticator: Authenticator;
  readonly idempotencyKeys: IdempotencyKeys;
  /** Settles once ADMIN_PASSWORD is applied to the administrator (checked in the background after the start). */
  readonly adminReady: Promise<void>;
  /** Request-body bytes that may be held at once, across all requests. */
  readonly bodyBudget: BodyBudget;
  /** List pages already built, reused until their collection changes. */
  readonly listPages: PageCache;
  /** The change feed's open streams (events/event-streams.ts); undefined when the store keeps no feed. */
  readonly eventStreams: EventStreams | undefined;
  /** True once a graceful shutdown has begun. */
  readonly isShuttingDown: () => boolean;
}

export interface RequestContext {
  readonly req: IncomingMessage;
  /** GET for a HEAD request: HEAD is answered as GET without the body (RFC 9110 §9.3.2). */
  readonly method: string;
  /** The raw path, without the query string. */
  readonly path: string;
  /** The raw query string, without the "?". */
  readonly search: string;
  readonly requestId: string;
  /** Ids captured from the path, outermost first (`/v1/users/3/orders/7` → [3, 7]). */
  readonly ids: readonly number[];
  /** The authenticated caller; undefined only on the open endpoints (README: Authentication and permissions). */
  readonly actor: Actor | undefined;
  /** The store this request reads and writes through (store/store.ts: Store.serve). */
  readonly store: RequestStore;
  readonly services: Services;
  /** Passwords this request carried; an error log line about it must not repeat them (logging/redact.ts). */
  readonly secrets: string[];
}
