// A delivery's record (docs/webhooks.md: Deliveries) as the runner writes it after an attempt: the feed's event in
// hand (its attempts, first attempt and next one, read back from a pending record after a restart), a redelivery or a
// test once tried, and the body of a test event.

import type { Fields, StoredRecord } from '../records/json.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import { DELIVERY_FIELDS } from '../declarations/built-in-webhooks.ts';
import type { AttemptOutcome } from './send-attempt.ts';

/** The feed's next event for a subscription, while it is being delivered (its event, when the feed still keeps it). */
export interface InOrder<E extends FeedEvent | undefined = FeedEvent> {
  readonly event: E;
  /** Its delivery record, once an attempt failed. */
  readonly deliveryId: number | undefined;
  readonly attempts: number;
  readonly firstAttemptAt: number | undefined;
  readonly nextAttemptAt: number;
}

/** A pending delivery of the feed's events as the store has it (after a restart), with the event it names. */
export function inOrderOf<E extends FeedEvent | undefined>(pending: StoredRecord, event: E): InOrder<E> {
  const firstAttemptAt = Date.parse(String(pending[DELIVERY_FIELDS.firstAttemptAt]));
  const nextAttemptAt = Date.parse(String(pending[DELIVERY_FIELDS.nextAttemptAt]));
  return {
    event,
    deliveryId: pending.id as number,
    attempts: pending[DELIVERY_FIELDS.attempts] as number,
    firstAttemptAt: Number.isFinite(firstAttemptAt) ? firstAttemptAt : undefined,
    nextAttemptAt: Number.isFinite(nextAttemptAt) ? nextAttemptAt : 0,
  };
}

/** The fields of an event's delivery after `outcome`: succeeded, or failed (a retry sets pending and its next time). */
export function inOrderFields(inOrder: InOrder<FeedEvent | undefined>, outcome: AttemptOutcome): Fields {
  return {
    [DELIVERY_FIELDS.kind]: 'event',
    ...(inOrder.event === undefined ? {} : { [DELIVERY_FIELDS.eventId]: inOrder.event.id }),
    [DELIVERY_FIELDS.status]: outcome.delivered ? 'succeeded' : 'failed',
    [DELIVERY_FIELDS.attempts]: inOrder.attempts,
    ...outcomeFields(outcome),
    ...(inOrder.firstAttemptAt === undefined
      ? {}
      : { [DELIVERY_FIELDS.firstAttemptAt]: isoTimestamp(inOrder.firstAttemptAt) }),
  };
}

/** A requested delivery (a redelivery, a test) once tried, at `startedAt`. */
export function requestedFields(record: StoredRecord, outcome: AttemptOutcome, startedAt: number): Fields {
  return {
    ...record,
    [DELIVERY_FIELDS.status]: outcome.delivered ? 'succeeded' : 'failed',
    [DELIVERY_FIELDS.attempts]: 1,
    [DELIVERY_FIELDS.firstAttemptAt]: isoTimestamp(startedAt),
    ...outcomeFields(outcome),
  };
}

function outcomeFields(outcome: AttemptOutcome): Fields {
  return {
    ...(outcome.status === undefined ? {} : { [DELIVERY_FIELDS.responseStatus]: outcome.status }),
    ...(outcome.error === undefined ? {} : { [DELIVERY_FIELDS.error]: outcome.error }),
  };
}

/** A test event's body (OpenAPI: webhooks, testEvent), and its webhook-id. */
export function testMessage(webhookId: number, deliveryId: number, at: number): { id: string; body: string } {
  const body = JSON.stringify({ type: 'test', webhook_id: webhookId, delivery_id: deliveryId, at: isoTimestamp(at) });
  return { id: `test-${deliveryId}`, body };
}
