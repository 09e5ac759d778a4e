// A webhook subscription as the delivery worker reads it (docs/webhooks.md), from its stored record: where to, which
// events, whether it is enabled, its secret, how far it has come in the change feed, and who delivers for it.

import type { StoredRecord } from '../records/json.ts';
import type { EventType, FeedEvent } from '../feed/feed-event.ts';
import { WEBHOOK_FIELDS } from '../declarations/built-in-webhooks.ts';

export interface Subscription {
  readonly id: number;
  readonly url: string;
  /** The collections it takes; undefined: all. */
  readonly collections: ReadonlySet<string> | undefined;
  /** The types of events it takes; undefined: all. */
  readonly types: ReadonlySet<string> | undefined;
  readonly enabled: boolean;
  readonly secret: string;
  /** Every event up to this id is done with. */
  readonly position: number;
  readonly leaseHolder: string | undefined;
  readonly leaseUntil: number;
  readonly record: StoredRecord;
}

export function subscriptionOf(record: StoredRecord): Subscription {
  const text = (name: string): string | undefined =>
    typeof record[name] === 'string' ? (record[name] as string) : undefined;
  const count = (name: string): number => (typeof record[name] === 'number' ? (record[name] as number) : 0);
  const list = (name: string): ReadonlySet<string> | undefined =>
    Array.isArray(record[name]) ? new Set((record[name] as unknown[]).map(String)) : undefined;
  return {
    id: record.id as number, // webhooks' ids are integers
    url: text(WEBHOOK_FIELDS.url) ?? '',
    collections: list(WEBHOOK_FIELDS.collections),
    types: list(WEBHOOK_FIELDS.types),
    enabled: record[WEBHOOK_FIELDS.enabled] !== false,
    secret: text(WEBHOOK_FIELDS.signingSecret) ?? '',
    position: count(WEBHOOK_FIELDS.position),
    leaseHolder: text(WEBHOOK_FIELDS.leaseHolder),
    leaseUntil: count(WEBHOOK_FIELDS.leaseUntil),
    record,
  };
}

/** Whether `subscription` takes events of `type`. */
export function takesType(subscription: Subscription, type: EventType): boolean {
  return subscription.types === undefined || subscription.types.has(type);
}

/** Whether `subscription` takes `event`: one of its collections, of one of its types. */
export function takes(subscription: Subscription, event: FeedEvent): boolean {
  return (
    (subscription.collections === undefined || subscription.collections.has(event.collection)) &&
    takesType(subscription, event.type)
  );
}

/**
 * Why `subscription` does not take `event`, in words (a redelivery asked for is refused it: a receiver gets no event
 * its subscription's collections and types leave out); undefined when it takes it.
 */
export function notTaken(subscription: Subscription, event: FeedEvent): string | undefined {
  if (takes(subscription, event)) return undefined;
  return `event ${event.id} is of ${event.collection}, ${event.type}: the subscription does not take it`;
}

/**
 * The subscription as a poll read it (`read`), over the one this process knew (`known`), which its own writes may have
 * moved on since the read: the settings as read, the furthest position, and the lease as read unless it is the same
 * holder's, renewed since.
 */
export function mergedSubscription(known: Subscription, read: Subscription): Subscription {
  const lease = known.leaseHolder === read.leaseHolder && known.leaseUntil > read.leaseUntil ? known : read;
  return {
    ...read,
    position: Math.max(known.position, read.position),
    leaseHolder: lease.leaseHolder,
    leaseUntil: lease.leaseUntil,
  };
}

/**
 * A subscription as `plainrest copy` writes it into another store: its position belongs to the source's change feed,
 * which the target's does not continue, so it is disabled with `history_gone` (enabled again, it starts from the
 * target's newest event), and no process holds it.
 */
export function copiedSubscription(record: StoredRecord): StoredRecord {
  const {
    [WEBHOOK_FIELDS.position]: _position,
    [WEBHOOK_FIELDS.leaseHolder]: _holder,
    [WEBHOOK_FIELDS.leaseUntil]: _until,
    ...kept
  } = record;
  return { ...kept, [WEBHOOK_FIELDS.enabled]: false, [WEBHOOK_FIELDS.disabledReason]: 'history_gone' } as StoredRecord;
}
