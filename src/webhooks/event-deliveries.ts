// The feed's events for one subscription, in order (docs/webhooks.md: Delivery, Retries, Durability): the delivery in
// hand (a pending one read back after a restart or a lease taken over), the next event it takes, each attempt and its
// outcome written before the next (delivered, to retry after retry-schedule.ts's delay, or given up: disabled), and
// the position kept up with the feed where it takes nothing.

import { isoTimestamp } from '../records/timestamps.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import { isResumable } from '../feed/change-feed.ts';
import type { DisabledReason } from '../declarations/built-in-webhooks.ts';
import { DELIVERY_FIELDS } from '../declarations/built-in-webhooks.ts';
import type { InOrder } from './delivery-fields.ts';
import { inOrderFields, inOrderOf } from './delivery-fields.ts';
import type { SubscriptionUpdate } from './delivery-writes.ts';
import type { AttemptOutcome } from './send-attempt.ts';
import type { SubscriptionChannel } from './subscription-channel.ts';
import { RETRY_WINDOW_MS, retryDelayMs } from './retry-schedule.ts';

/** How far reading past events it does not take may run ahead of the stored position, in events and in time. */
const POSITION_EVENTS = 1000;
const POSITION_MS = 60_000;

export class EventDeliveries {
  readonly #channel: SubscriptionChannel;
  /** The pending delivery and position are read from the store once this process holds the subscription. */
  #loaded = false;
  #current: InOrder | undefined;
  /** Every event up to here is read; those it takes, up to the position, delivered. */
  #readThrough = 0;
  #positionWrittenAt = 0;

  constructor(channel: SubscriptionChannel) {
    this.#channel = channel;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  /** Whether it would read the feed for events up to `latest` (it has none in hand and is enabled). */
  awaits(latest: number): boolean {
    return this.#current === undefined && this.#channel.subscription.enabled && latest > this.#readThrough;
  }

  /** What it holds is read from the store again before its next step (a lease lost or taken over, a store failing). */
  forget(): void {
    this.#loaded = false;
    this.#current = undefined;
  }

  /** The pending delivery of the feed's events, if any, and the position, as the store has them. */
  async load(): Promise<void> {
    const { parts, id: webhookId } = this.#channel;
    const pending = await parts.read((store) => {
      const filters = [
        { field: DELIVERY_FIELDS.webhook, value: webhookId },
        { field: DELIVERY_FIELDS.kind, value: 'event' },
        { field: DELIVERY_FIELDS.status, value: 'pending' },
      ];
      return store.query(parts.deliveries.collection, { filters, sort: [], offset: 0, limit: 1 }).records[0];
    });
    this.#current = undefined;
    this.#readThrough = this.#channel.subscription.position;
    this.#loaded = true;
    if (pending === undefined) return;
    const event = await parts.source.one(pending[DELIVERY_FIELDS.eventId] as number);
    if (event === undefined) {
      const error = 'the event is no longer kept';
      await this.#settle(inOrderOf(pending, undefined), { delivered: false, error }, 'history_gone');
      return;
    }
    this.#current = inOrderOf(pending, event);
  }

  /**
   * The next step of an enabled subscription: an attempt made (true), nothing to deliver until the feed moves on
   * (false), or the time the delivery in hand falls due.
   */
  async step(): Promise<boolean | number> {
    const current = this.#current ?? (await this.#nextEvent());
    if (current === undefined) return false;
    if (current.nextAttemptAt > this.#channel.parts.clock.now()) return current.nextAttemptAt;
    await this.#attempt(current);
    return true;
  }

  /** The subscription is disabled: an event's delivery left pending fails, and is sent afresh once it is enabled. */
  async pause(): Promise<void> {
    const current = this.#current;
    if (current?.deliveryId !== undefined) {
      const error = 'the subscription was disabled; the event is sent again once it is enabled';
      const fields = inOrderFields(current, { delivered: false, error });
      await this.#channel.write({ id: current.deliveryId, fields }, {});
    }
    this.#current = undefined;
  }

  /** The feed's next event the subscription takes, or none yet (or its history gone: it is disabled). */
  async #nextEvent(): Promise<InOrder | undefined> {
    const { source, clock } = this.#channel.parts;
    const subscription = this.#channel.subscription;
    if (!isResumable(subscription.position, await source.window())) {
      await this.#channel.write(undefined, { disable: 'history_gone' });
      return undefined;
    }
    const after = Math.max(this.#readThrough, subscription.position);
    const { event, readThrough } = await source.next(subscription, after);
    this.#readThrough = Math.max(this.#readThrough, readThrough);
    if (event !== undefined) {
      this.#current = { event, deliveryId: undefined, attempts: 0, firstAttemptAt: undefined, nextAttemptAt: 0 };
      return this.#current;
    }
    // Nothing to deliver: the position follows what was read, now and then, so that events of other collections
    // leaving the history do not look like this subscription's own (history_gone) after a restart.
    const ahead = this.#readThrough - subscription.position;
    const now = clock.now();
    if (ahead > 0 && (ahead >= POSITION_EVENTS || now - this.#positionWrittenAt >= POSITION_MS)) {
      this.#positionWrittenAt = now;
      await this.#channel.write(undefined, { position: this.#readThrough });
    }
    return undefined;
  }

  /** One attempt at the feed's event in hand, and its outcome written: delivered, to retry, or given up. */
  async #attempt(current: InOrder): Promise<void> {
    const { source, clock, random } = this.#channel.parts;
    const { event } = current;
    const startedAt = clock.now();
    const outcome = await this.#channel.send({ id: String(event.id), body: source.payload(event) }, true);
    if (outcome === undefined) return;
    const inOrder = { ...current, attempts: current.attempts + 1, firstAttemptAt: current.firstAttemptAt ?? startedAt };
    const now = clock.now();
    if (outcome.delivered) return this.#settle(inOrder, outcome, undefined);
    if (now - inOrder.firstAttemptAt >= RETRY_WINDOW_MS) return this.#settle(inOrder, outcome, 'retries_exhausted');
    const nextAttemptAt = now + retryDelayMs(inOrder.attempts, random());
    const fields = {
      ...inOrderFields(inOrder, outcome),
      [DELIVERY_FIELDS.status]: 'pending',
      [DELIVERY_FIELDS.nextAttemptAt]: isoTimestamp(nextAttemptAt),
    };
    const result = await this.#channel.write({ id: current.deliveryId, fields }, { position: event.id - 1 });
    if (result.written) this.#current = { ...inOrder, deliveryId: result.deliveryId, nextAttemptAt };
  }

  /** The delivery settled: succeeded (the position moves past it), or failed and the subscription disabled. */
  async #settle(
    inOrder: InOrder<FeedEvent | undefined>,
    outcome: AttemptOutcome,
    disable: DisabledReason | undefined,
  ): Promise<void> {
    const eventId = inOrder.event?.id;
    const fields = inOrderFields(inOrder, outcome);
    const update: SubscriptionUpdate =
      disable === undefined
        ? { position: eventId ?? 0 }
        : { disable, ...(eventId === undefined ? {} : { position: eventId - 1 }) };
    const result = await this.#channel.write({ id: inOrder.deliveryId, fields }, update);
    if (!result.written) return;
    this.#current = undefined;
    if (outcome.delivered && eventId !== undefined) this.#readThrough = Math.max(this.#readThrough, eventId);
    if (disable !== undefined) this.#channel.disabled(disable);
  }
}
