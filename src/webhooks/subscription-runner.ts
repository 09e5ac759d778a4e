// One subscription's deliveries (docs/webhooks.md: Delivery), one at a time: what a POST asked for (a redelivery, a
// test: tried once), then the feed's next event it takes, tried until a 2xx or for a day (retry-schedule.ts). Each
// outcome is written before the next attempt (delivery-writes.ts): a restart takes up the pending retry or the event
// after the last acknowledged, at least once, in order. Where processes share the data, the lease's holder delivers.

import type { StoredRecord } from '../records/json.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import { isResumable } from '../feed/change-feed.ts';
import type { InOrder } from './delivery-fields.ts';
import { inOrderFields, inOrderOf, requestedFields, testMessage } from './delivery-fields.ts';
import type { DisabledReason } from '../declarations/built-in-webhooks.ts';
import { DELIVERY_FIELDS } from '../declarations/built-in-webhooks.ts';
import type { Attempt, AttemptOutcome } from './send-attempt.ts';
import { KeptConnection } from './kept-connection.ts';
import type { RunnerParts } from './runner-parts.ts';
import type { DeliveryUpdate, SubscriptionUpdate, WriteResult } from './delivery-writes.ts';
import { claimLease, recordDelivery, releaseLease } from './delivery-writes.ts';
import type { Subscription } from './subscription.ts';
import { mergedSubscription, notTaken, subscriptionOf } from './subscription.ts';
import { RETRY_WINDOW_MS, retryDelayMs } from './retry-schedule.ts';

/** How far reading past events it does not take may run ahead of the stored position, in events and in time. */
const POSITION_EVENTS = 1000;
const POSITION_MS = 60_000;

export class SubscriptionRunner {
  readonly #parts: RunnerParts;
  #subscription: Subscription;
  /** The pending delivery and position are read from the store once this process holds the subscription. */
  #loaded = false;
  #current: InOrder | undefined;
  /** Every event up to here is read; those it takes, up to the position, delivered. */
  #readThrough = 0;
  #positionWrittenAt = 0;
  /** Deliveries a POST asked for, by id, oldest first. */
  readonly #requested = new Map<number, StoredRecord>();
  #running: Promise<void> | undefined;
  #again = false;
  #timer: unknown;
  #stopped = false;
  /** The connection its deliveries reuse: one at a time, to its URL. */
  readonly #connection = new KeptConnection();

  constructor(parts: RunnerParts, record: StoredRecord) {
    this.#parts = parts;
    this.#subscription = subscriptionOf(record);
  }

  get id(): number {
    return this.#subscription.id;
  }

  /** Whether it would read the feed for events up to `latest` (it has none in hand and is enabled). */
  awaits(latest: number): boolean {
    return this.#current === undefined && this.#subscription.enabled && latest > this.#readThrough;
  }

  /** The subscription as a poll read it; true when something there is for it to do. */
  update(record: StoredRecord): boolean {
    const before = this.#subscription;
    this.#subscription = mergedSubscription(before, subscriptionOf(record));
    const { holder, leaseMs, clock } = this.#parts;
    const renew = holder !== undefined && this.#subscription.leaseUntil - clock.now() < leaseMs / 2;
    const changed = before.enabled !== this.#subscription.enabled || before.url !== this.#subscription.url;
    return renew || changed || !this.#loaded;
  }

  /** A delivery a POST asked for, still pending. */
  request(record: StoredRecord): void {
    if (!this.#requested.has(record.id as number)) this.#requested.set(record.id as number, record);
  }

  wake(): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#again = false;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      if (this.#again) this.wake();
    });
  }

  /** Stops (its subscription is gone, or the server closes), letting go of its lease; waits for the step under way. */
  async stop(release: boolean): Promise<void> {
    this.#stopped = true;
    this.#parts.clock.clearTimeout(this.#timer);
    await this.#running;
    this.#connection.close();
    if (release && this.#parts.holder !== undefined)
      await this.#parts.write((store, writer) => releaseLease(store, writer), this.id).catch(() => undefined);
  }

  async #run(): Promise<void> {
    try {
      while (!this.#stopped && (await this.#step()));
    } catch (error) {
      // A store that cannot be reached: the next poll wakes it again.
      this.#loaded = false;
      this.#parts.failed(this.id, error);
    }
  }

  /** One thing done; false when there is nothing more to do until a wake. */
  async #step(): Promise<boolean> {
    // A subscription paused, disabled or given another URL keeps no connection (to the URL it had).
    if (this.#subscription.enabled) this.#connection.keepOnlyFor(this.#subscription.url);
    else this.#connection.close();
    if (!(await this.#holdLease()) || this.#stopped) return false;
    if (!this.#loaded) await this.#load();
    const [requested] = this.#requested.values();
    if (requested !== undefined) {
      this.#requested.delete(requested.id as number);
      await this.#deliverRequested(requested);
      return true;
    }
    if (!this.#subscription.enabled) {
      if (this.#current?.deliveryId !== undefined) await this.#abandon(this.#current);
      this.#current = undefined;
      return false;
    }
    const current = this.#current ?? (await this.#nextEvent());
    if (current === undefined) return false;
    const now = this.#parts.clock.now();
    if (current.nextAttemptAt > now) {
      this.#parts.clock.clearTimeout(this.#timer);
      this.#timer = this.#parts.clock.setTimeout(() => this.wake(), current.nextAttemptAt - now);
      return false;
    }
    await this.#attempt(current);
    return true;
  }

  /** Where processes share the data: this process holds the lease, taken or renewed now if need be. */
  async #holdLease(): Promise<boolean> {
    const { holder, leaseMs, clock } = this.#parts;
    if (holder === undefined) return true;
    const { leaseHolder, leaseUntil } = this.#subscription;
    const now = clock.now();
    if (leaseHolder === holder && leaseUntil - now > leaseMs / 2) return true;
    if (leaseHolder !== undefined && leaseHolder !== holder && leaseUntil > now) return this.#lost();
    const result = await this.#parts.write((store, writer) => claimLease(store, writer), this.id);
    if (!result.written) return result.why === 'gone' ? this.#gone() : this.#lost();
    // Taken from another process: what it delivered meanwhile is read again.
    if (leaseHolder !== holder) this.#loaded = false;
    this.#subscription = result.subscription;
    return true;
  }

  /** The pending delivery of the feed's events, if any, and the position, as the store has them. */
  async #load(): Promise<void> {
    const webhookId = this.id;
    const pending = await this.#parts.read((store) => {
      const filters = [
        { field: DELIVERY_FIELDS.webhook, value: webhookId },
        { field: DELIVERY_FIELDS.kind, value: 'event' },
        { field: DELIVERY_FIELDS.status, value: 'pending' },
      ];
      return store.query(this.#parts.deliveries.collection, { filters, sort: [], offset: 0, limit: 1 }).records[0];
    });
    this.#current = undefined;
    this.#readThrough = this.#subscription.position;
    this.#loaded = true;
    if (pending === undefined) return;
    const event = await this.#parts.source.one(pending[DELIVERY_FIELDS.eventId] as number);
    if (event === undefined) {
      const error = 'the event is no longer kept';
      await this.#settle(inOrderOf(pending, undefined), { delivered: false, error }, 'history_gone');
      return;
    }
    this.#current = inOrderOf(pending, event);
  }

  /** The feed's next event the subscription takes, or none yet (or its history gone: it is disabled). */
  async #nextEvent(): Promise<InOrder | undefined> {
    const { source, clock } = this.#parts;
    const subscription = this.#subscription;
    if (!isResumable(subscription.position, await source.window())) {
      await this.#write(undefined, { disable: 'history_gone' });
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
      await this.#write(undefined, { position: this.#readThrough });
    }
    return undefined;
  }

  /** One attempt at the feed's event in hand, and its outcome written: delivered, to retry, or given up. */
  async #attempt(current: InOrder): Promise<void> {
    const { source, clock } = this.#parts;
    const { event } = current;
    const startedAt = clock.now();
    const outcome = await this.#send({ id: String(event.id), body: source.payload(event) }, true);
    if (outcome === undefined) return;
    const inOrder = { ...current, attempts: current.attempts + 1, firstAttemptAt: current.firstAttemptAt ?? startedAt };
    const now = clock.now();
    if (outcome.delivered) return this.#settle(inOrder, outcome, undefined);
    if (now - inOrder.firstAttemptAt >= RETRY_WINDOW_MS) return this.#settle(inOrder, outcome, 'retries_exhausted');
    const nextAttemptAt = now + retryDelayMs(inOrder.attempts, this.#parts.random());
    const fields = {
      ...inOrderFields(inOrder, outcome),
      [DELIVERY_FIELDS.status]: 'pending',
      [DELIVERY_FIELDS.nextAttemptAt]: isoTimestamp(nextAttemptAt),
    };
    const result = await this.#write({ id: current.deliveryId, fields }, { position: event.id - 1 });
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
    const result = await this.#write({ id: inOrder.deliveryId, fields }, update);
    if (!result.written) return;
    this.#current = undefined;
    if (outcome.delivered && eventId !== undefined) this.#readThrough = Math.max(this.#readThrough, eventId);
    if (disable === undefined) return;
    this.#connection.close();
    this.#parts.disabled(this.id, disable);
  }

  /** An event's delivery left pending when the subscription was disabled: failed, sent afresh once it is enabled. */
  async #abandon(current: InOrder): Promise<void> {
    const error = 'the subscription was disabled; the event is sent again once it is enabled';
    const fields = inOrderFields(current, { delivered: false, error });
    await this.#write({ id: current.deliveryId, fields }, {});
  }

  /** A redelivery or a test a POST asked for: tried once, if it is still pending. */
  async #deliverRequested(asked: StoredRecord): Promise<void> {
    const { source, clock, deliveries } = this.#parts;
    const record = await this.#parts.read((store) => store.get(deliveries.collection, asked.id));
    if (record === undefined || record[DELIVERY_FIELDS.status] !== 'pending') return;
    const eventId = record[DELIVERY_FIELDS.eventId];
    const startedAt = clock.now();
    let outcome: AttemptOutcome | undefined;
    if (typeof eventId === 'number') {
      const event = await source.one(eventId);
      outcome =
        event === undefined
          ? { delivered: false, error: `event ${eventId} is no longer kept in the change feed` }
          : await this.#send({ id: String(event.id), body: source.payload(event) }, false, event);
    } else outcome = await this.#send(testMessage(this.id, record.id as number, startedAt), false);
    if (outcome === undefined) return;
    const fields = requestedFields(record, outcome, startedAt);
    await this.#write({ id: record.id as number, fields, onlyIfPresent: true }, {});
  }

  /**
   * One attempt to the subscription's URL, as the store has it now (a `redelivered` event it does not take fails
   * unsent); undefined when none is made (it was deleted: the runner stops; an event's, once it was disabled) or the
   * server closed meanwhile: nothing is written.
   */
  async #send(message: Pick<Attempt, 'id' | 'body'>, ofEvent: boolean, redelivered?: FeedEvent) {
    const { settings, clock, closing } = this.#parts;
    const record = await this.#parts.read((store) => store.get(this.#parts.webhooks.collection, this.id));
    if (record === undefined) {
      this.#gone();
      return undefined;
    }
    this.#subscription = mergedSubscription(this.#subscription, subscriptionOf(record));
    const { url, secret, enabled } = this.#subscription;
    if (ofEvent && !enabled) return undefined;
    const untaken = redelivered === undefined ? undefined : notTaken(this.#subscription, redelivered);
    if (untaken !== undefined) return { delivered: false, error: untaken };
    const agent = this.#connection.agentFor(url);
    const outcome = await this.#parts.send({ ...message, url, secret, agent }, settings, clock, closing);
    return closing.aborted ? undefined : outcome;
  }

  /** Writes for this subscription; a subscription gone stops the runner, a lease lost leaves it to its holder. */
  async #write(delivery: DeliveryUpdate | undefined, update: SubscriptionUpdate): Promise<WriteResult> {
    const result = await this.#parts.write((store, writer) => recordDelivery(store, writer, delivery, update), this.id);
    if (result.written) this.#subscription = result.subscription;
    else if (result.why === 'gone') this.#gone();
    else this.#lost();
    return result;
  }

  #gone(): false {
    this.#stopped = true;
    this.#connection.close();
    return false;
  }

  #lost(): false {
    this.#loaded = false;
    this.#current = undefined;
    return false;
  }
}
