// What a handler receives: the parsed request line, the ids from the path, the request id, and the application's
// services (handlers never touch the response); and the records the path names, found under their own parents at every
// level or a 404 (RFC 9110 §15.5.5): `/v1/users/1/orders/9` is a 404 when order 9 belongs to someone else.

import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticate.ts';
import type { Actor } from '../auth/permissions.ts';
import type { Config } from '../config/config.ts';
import { HttpError } from '../errors/errors.ts';
import type { BodyLimits } from '../http/body.ts';
import type { IdempotencyKeys } from '../http/idempotency.ts';
import type { PageCache } from '../http/page-cache.ts';
import type { Fields, StoredRecord } from '../records/json.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import { SINGLETON_ID } from '../resources/definition.ts';
import type { RequestStore, Store } from '../store/store.ts';
import type { EventStreams } from '../events/event-streams.ts';
import type { RecordId } from '../records/record-id.ts';

export interface Services {
  readonly store: Store;
  readonly config: Config;
  readonly authenticator: Authenticator;
  readonly idempotencyKeys: IdempotencyKeys;
  /** Settles once ADMIN_PASSWORD is applied to the administrator (checked in the background after the start). */
  readonly adminReady: Promise<void>;
  /** What a request body's read is held to: its size, the bytes held at once across all requests, its time. */
  readonly bodyLimits: BodyLimits;
  /** List pages already built, each reused for its caller until a collection it shows changes; none with caches off. */
  readonly pageCache: PageCache | undefined;
  /** The change feed's open streams (events/event-streams.ts); undefined when the store keeps no feed. */
  readonly eventStreams: EventStreams | undefined;
  /** True once a graceful shutdown has begun. */
  readonly isShuttingDown: () => boolean;
  /** By collection: what its writes wait for once their body has passed every check (write-record.ts). */
  readonly preparations?: ReadonlyMap<string, WritePreparation>;
}

/**
 * A built-in collection's last step before its write (docs/webhooks.md: a webhook's URL checked once its name is
 * resolved, and where in the change feed a new subscription starts): given the fields the write would store and the
 * record as it is, the fields to store besides, or an HttpError (422).
 */
export interface WritePreparation {
  prepare(next: Fields, current: StoredRecord | undefined): Promise<Fields>;
}

export interface RequestContext {
  readonly req: IncomingMessage;
  /** GET for a HEAD request: HEAD is answered as GET without the body (RFC 9110 §9.3.2). */
  readonly method: string;
  /**
   * The raw path as the client addressed it, without the query string: under the base path when one is set
   * (http/base-path.ts), so links built on it (Location, a list's links) stay under it.
   */
  readonly path: string;
  /** The raw query string, without the "?". */
  readonly queryString: string;
  readonly requestId: string;
  /** Ids captured from the path, outermost first (`/v1/users/3/orders/7` → [3, 7]). */
  readonly ids: readonly RecordId[];
  /** The authenticated caller; undefined only on the open endpoints (README: Authentication and permissions). */
  readonly actor: Actor | undefined;
  /** The store this request reads and writes through (store/store.ts: Store.serve). */
  readonly store: RequestStore;
  readonly services: Services;
  /** Passwords this request carried; an error log line about it must not repeat them (logging/redact.ts). */
  readonly valuesToRedact: string[];
}

/**
 * The parent's id from the path after checking that every record above this one
 * exists and holds the next (`/v1/a/1/b/2/c`: a 1 exists, b 2 exists under a 1), else 404;
 * undefined for a top-level resource.
 */
export function requireParentId(context: RequestContext, definition: ResourceDefinition): RecordId | undefined {
  const parent = definition.parent;
  if (parent === undefined) return undefined;
  const depth = depthOf(parent.definition);
  requireAt(context, parent.definition, depth);
  return context.ids[depth - 1];
}

/** The record the path names, found under its parents at every level, else 404. */
export function requireRecord(context: RequestContext, definition: ResourceDefinition): StoredRecord {
  return requireAt(context, definition, depthOf(definition));
}

/** The record of `definition` named by the path's id at `depth` (1: the first id), under its parents. */
function requireAt(context: RequestContext, definition: ResourceDefinition, depth: number): StoredRecord {
  const parent = definition.parent;
  const parentId = parent === undefined ? undefined : requireAt(context, parent.definition, depth - 1).id;
  // A singleton's path holds no id: its one record is stored under a fixed one.
  const id = definition.singleton === true ? SINGLETON_ID : (context.ids[depth - 1] as RecordId);
  const record = context.store.get(definition.collection, id);
  // A singleton is made at the start, or by its first PUT when a required property has no default.
  if (record === undefined && definition.singleton === true)
    throw new HttpError('record_not_found', `there is no ${definition.singular} yet: a PUT makes it`);
  if (record === undefined || (parent !== undefined && record[parent.field] !== parentId)) {
    throw new HttpError(
      'record_not_found',
      `no ${definition.singular} has id ${id}${parentId === undefined ? '' : ' here'}`,
    );
  }
  return record;
}

/** How many ids a path to one record of `definition` has: 1 at the top level. */
function depthOf(definition: ResourceDefinition): number {
  return definition.parent === undefined ? 1 : depthOf(definition.parent.definition) + 1;
}
