// What the delivery worker writes (docs/webhooks.md: Durability), each as one commit through the store like a request's
// write: an attempt's delivery record with the subscription's new position (so a restart, even after kill -9, resumes
// after the last event acknowledged, and retries what was pending), a subscription disabled, and, where processes share
// the data, the lease that lets one process deliver for a subscription at a time. Old deliveries are pruned as it goes.

import type { Fields, StoredRecord } from '../records/json.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import type { Change, Decision, RecordReads } from '../store/store.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import { recordToStore } from '../handlers/write-record.ts';
import type { DisabledReason } from '../declarations/built-in-webhooks.ts';
import { DELIVERY_FIELDS, WEBHOOK_FIELDS } from '../declarations/built-in-webhooks.ts';
import type { Subscription } from './subscription.ts';
import { subscriptionOf } from './subscription.ts';

/** Settled deliveries kept per subscription (pending ones always are); older ones are deleted as new ones settle. */
export const DELIVERIES_KEPT = 100;

/** The store as the worker writes through it (store.ts: RequestStore). */
export interface WriteStore extends Pick<RecordReads, 'get' | 'query'> {
  allocateId(collection: string): number;
}

/** Who writes, and when: a subscription's worker, in a process that holds its lease when `holder` is set. */
export interface Writer {
  readonly webhooks: ResourceDefinition;
  readonly deliveries: ResourceDefinition;
  readonly webhookId: number;
  /** This process's name in leases, where processes share the data; undefined where one process has it alone. */
  readonly holder: string | undefined;
  readonly now: number;
  readonly leaseMs: number;
}

/** A delivery to write: the record it updates (undefined: a new one), and its fields (kind, status, attempts, …). */
export interface DeliveryUpdate {
  readonly id: number | undefined;
  readonly fields: Fields;
  /** Write it only if its record is still there (a requested one an administrator may have deleted meanwhile). */
  readonly onlyIfPresent?: boolean;
}

export interface SubscriptionUpdate {
  /** Events up to this one are done with. */
  readonly position?: number;
  readonly disable?: DisabledReason;
}

/** Written: the delivery's id and the subscription as written. Not: the subscription is gone, or another holds it. */
export type WriteResult =
  | { readonly written: true; readonly deliveryId: number | undefined; readonly subscription: Subscription }
  | { readonly written: false; readonly why: 'gone' | 'lost' };

/** The subscription, when this writer may write for it (it exists; its lease is this process's, where one is kept). */
function heldRecord(store: WriteStore, writer: Writer): StoredRecord | 'gone' | 'lost' {
  const record = store.get(writer.webhooks.collection, writer.webhookId);
  if (record === undefined) return 'gone';
  if (writer.holder === undefined) return record;
  const { leaseHolder, leaseUntil } = subscriptionOf(record);
  return leaseHolder === writer.holder && leaseUntil > writer.now ? record : 'lost';
}

/** A delivery's record and the subscription's change in one commit, the lease renewed and old deliveries pruned. */
export function recordDelivery(
  store: WriteStore,
  writer: Writer,
  delivery: DeliveryUpdate | undefined,
  update: SubscriptionUpdate,
): Decision<WriteResult> {
  const current = heldRecord(store, writer);
  if (typeof current === 'string') return { changes: [], result: { written: false, why: current } };
  const changes: Change[] = [];
  const now = isoTimestamp(writer.now);
  let deliveryId: number | undefined;
  const { deliveries } = writer;
  const before = delivery?.id === undefined ? undefined : store.get(deliveries.collection, delivery.id);
  if (delivery !== undefined && (before !== undefined || delivery.onlyIfPresent !== true)) {
    deliveryId = before?.id === undefined ? store.allocateId(deliveries.collection) : (before.id as number);
    const fields: Fields = { ...delivery.fields, [DELIVERY_FIELDS.webhook]: writer.webhookId };
    const record = recordToStore(deliveries, fields, deliveryId, (before?.created_at as string) ?? now, now);
    changes.push({ kind: 'put', collection: deliveries.collection, record, created: before === undefined });
    if (fields[DELIVERY_FIELDS.status] !== 'pending') changes.push(...pruned(store, writer, deliveryId));
  }
  const subscription = subscriptionWritten(current, writer, update, now);
  changes.push({ kind: 'put', collection: writer.webhooks.collection, record: subscription });
  return { changes, result: { written: true, deliveryId, subscription: subscriptionOf(subscription) } };
}

/** The subscription with its position moved on, disabled if asked, and its lease renewed. */
function subscriptionWritten(
  current: StoredRecord,
  writer: Writer,
  update: SubscriptionUpdate,
  now: string,
): StoredRecord {
  const next: Fields = { ...current };
  const position = subscriptionOf(current).position;
  if (update.position !== undefined && update.position > position) next[WEBHOOK_FIELDS.position] = update.position;
  if (writer.holder !== undefined) {
    next[WEBHOOK_FIELDS.leaseHolder] = writer.holder;
    next[WEBHOOK_FIELDS.leaseUntil] = writer.now + writer.leaseMs;
  }
  // Disabling is a change a reader sees: updated_at moves; the worker's own fields are not shown, and leave it.
  let updatedAt = current.updated_at as string;
  if (update.disable !== undefined) {
    next[WEBHOOK_FIELDS.enabled] = false;
    next[WEBHOOK_FIELDS.disabledReason] = update.disable;
    updatedAt = now;
  }
  return recordToStore(writer.webhooks, next, current.id, current.created_at as string, updatedAt);
}

/** Deletions of the subscription's oldest settled deliveries past DELIVERIES_KEPT (not `keep`, just written). */
function pruned(store: WriteStore, writer: Writer, keep: number): Change[] {
  const { collection } = writer.deliveries;
  const filters = [{ field: DELIVERY_FIELDS.webhook, value: writer.webhookId }];
  const { total } = store.query(collection, { filters, sort: [], offset: 0, limit: 1 });
  // Pruned a few at a time past a margin, so that most settling writes delete nothing.
  const excess = total + 1 - DELIVERIES_KEPT;
  if (excess < 10) return [];
  const oldest = store.query(collection, { filters, sort: [], offset: 0, limit: excess }).records;
  return oldest
    .filter((record) => record.id !== keep && record[DELIVERY_FIELDS.status] !== 'pending')
    .map((record) => ({ kind: 'delete', collection, id: record.id }));
}

/**
 * Takes (or renews) the subscription's lease for this process, unless another holds it still: the subscription as
 * written, or why not. Where one process has the data alone (no holder), the subscription as it is.
 */
export function claimLease(store: WriteStore, writer: Writer): Decision<WriteResult> {
  const record = store.get(writer.webhooks.collection, writer.webhookId);
  if (record === undefined) return { changes: [], result: { written: false, why: 'gone' } };
  const { leaseHolder, leaseUntil } = subscriptionOf(record);
  if (writer.holder === undefined)
    return { changes: [], result: { written: true, deliveryId: undefined, subscription: subscriptionOf(record) } };
  if (leaseHolder !== undefined && leaseHolder !== writer.holder && leaseUntil > writer.now)
    return { changes: [], result: { written: false, why: 'lost' } };
  const written = subscriptionWritten(record, writer, {}, isoTimestamp(writer.now));
  return {
    changes: [{ kind: 'put', collection: writer.webhooks.collection, record: written }],
    result: { written: true, deliveryId: undefined, subscription: subscriptionOf(written) },
  };
}

/** Lets go of the lease this process holds (a server closing), so another process takes the subscription at once. */
export function releaseLease(store: WriteStore, writer: Writer): Decision<undefined> {
  const current = heldRecord(store, writer);
  if (typeof current === 'string' || writer.holder === undefined) return { changes: [], result: undefined };
  const { [WEBHOOK_FIELDS.leaseHolder]: _holder, [WEBHOOK_FIELDS.leaseUntil]: _until, ...next } = current;
  const record = recordToStore(
    writer.webhooks,
    next,
    current.id,
    current.created_at as string,
    current.updated_at as string,
  );
  return { changes: [{ kind: 'put', collection: writer.webhooks.collection, record }], result: undefined };
}
