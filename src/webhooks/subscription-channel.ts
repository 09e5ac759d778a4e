// What one subscription's deliveries go through (docs/webhooks.md: Delivery): the subscription as this process knows
// it (a poll's read, merged with its own writes), its kept connection (kept-connection.ts), one attempt to its URL as
// the store has it then, and the writes for it through the store (delivery-writes.ts). A subscription found deleted,
// or its lease found lost to another process, is told to the runner (subscription-runner.ts).

import type { StoredRecord } from '../records/json.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import type { DisabledReason } from '../declarations/built-in-webhooks.ts';
import type { Attempt, AttemptOutcome } from './send-attempt.ts';
import type { RunnerParts } from './runner-parts.ts';
import type { DeliveryUpdate, SubscriptionUpdate, WriteResult } from './delivery-writes.ts';
import { recordDelivery } from './delivery-writes.ts';
import { KeptConnection } from './kept-connection.ts';
import type { Subscription } from './subscription.ts';
import { mergedSubscription, notTaken, subscriptionOf } from './subscription.ts';

/** What the runner is told: the subscription is gone (it stops), or another process holds its lease. */
export interface ChannelNews {
  gone(): void;
  lost(): void;
}

export class SubscriptionChannel {
  readonly parts: RunnerParts;
  #subscription: Subscription;
  /** The connection its deliveries reuse: one at a time, to its URL. */
  readonly #connection = new KeptConnection();
  readonly #news: ChannelNews;

  constructor(parts: RunnerParts, record: StoredRecord, news: ChannelNews) {
    this.parts = parts;
    this.#subscription = subscriptionOf(record);
    this.#news = news;
  }

  get id(): number {
    return this.#subscription.id;
  }

  get subscription(): Subscription {
    return this.#subscription;
  }

  /** The subscription as a lease's write gave it. */
  set subscription(subscription: Subscription) {
    this.#subscription = subscription;
  }

  /** The subscription as a poll (or a read before an attempt) found it, over what this process knew. */
  merge(record: StoredRecord): void {
    this.#subscription = mergedSubscription(this.#subscription, subscriptionOf(record));
  }

  /** A subscription paused, disabled or given another URL keeps no connection (to the URL it had). */
  tidyConnection(): void {
    if (this.#subscription.enabled) this.#connection.keepOnlyFor(this.#subscription.url);
    else this.#connection.close();
  }

  closeConnection(): void {
    this.#connection.close();
  }

  /** The server disabled the subscription (written): its connection closed, the reason logged. */
  disabled(reason: DisabledReason): void {
    this.#connection.close();
    this.parts.disabled(this.id, reason);
  }

  /**
   * One attempt to the subscription's URL, as the store has it now (a `redelivered` event it does not take fails
   * unsent); undefined when none is made (it was deleted: the runner stops; an event's, once it was disabled) or the
   * server closed meanwhile: nothing is written.
   */
  async send(
    message: Pick<Attempt, 'id' | 'body'>,
    ofEvent: boolean,
    redelivered?: FeedEvent,
  ): Promise<AttemptOutcome | undefined> {
    const { settings, clock, closing } = this.parts;
    const record = await this.parts.read((store) => store.get(this.parts.webhooks.collection, this.id));
    if (record === undefined) {
      this.#news.gone();
      return undefined;
    }
    this.merge(record);
    const { url, secret, enabled } = this.#subscription;
    if (ofEvent && !enabled) return undefined;
    const untaken = redelivered === undefined ? undefined : notTaken(this.#subscription, redelivered);
    if (untaken !== undefined) return { delivered: false, error: untaken };
    const agent = this.#connection.agentFor(url);
    const outcome = await this.parts.send({ ...message, url, secret, agent }, settings, clock, closing);
    return closing.aborted ? undefined : outcome;
  }

  /** Writes for this subscription; a subscription gone stops the runner, a lease lost leaves it to its holder. */
  async write(delivery: DeliveryUpdate | undefined, update: SubscriptionUpdate): Promise<WriteResult> {
    const result = await this.parts.write((store, writer) => recordDelivery(store, writer, delivery, update), this.id);
    if (result.written) this.#subscription = result.subscription;
    else if (result.why === 'gone') this.#news.gone();
    else this.#news.lost();
    return result;
  }
}
