// The deliveries a POST asked for (docs/webhooks.md: Test events and redelivery): a test event or a redelivery of one
// of the feed's events, each tried once, oldest first, outside the feed's order and whether or not the subscription is
// enabled; its outcome written if its record is still there (an administrator may have deleted it meanwhile).

import type { StoredRecord } from '../records/json.ts';
import { DELIVERY_FIELDS } from '../declarations/built-in-webhooks.ts';
import { requestedFields, testMessage } from './delivery-fields.ts';
import type { AttemptOutcome } from './send-attempt.ts';
import type { SubscriptionChannel } from './subscription-channel.ts';

export class RequestedDeliveries {
  readonly #channel: SubscriptionChannel;
  /** Deliveries asked for, by id, oldest first. */
  readonly #requested = new Map<number, StoredRecord>();

  constructor(channel: SubscriptionChannel) {
    this.#channel = channel;
  }

  /** A delivery a POST asked for, still pending (as a poll read it). */
  request(record: StoredRecord): void {
    if (!this.#requested.has(record.id as number)) this.#requested.set(record.id as number, record);
  }

  /** Tries the oldest one asked for; false when none is. */
  async deliverOldest(): Promise<boolean> {
    const [asked] = this.#requested.values();
    if (asked === undefined) return false;
    this.#requested.delete(asked.id as number);
    await this.#deliver(asked);
    return true;
  }

  /** A redelivery or a test: tried once, if it is still pending. */
  async #deliver(asked: StoredRecord): Promise<void> {
    const channel = this.#channel;
    const { source, clock, deliveries } = channel.parts;
    const record = await channel.parts.read((store) => store.get(deliveries.collection, asked.id));
    if (record === undefined || record[DELIVERY_FIELDS.status] !== 'pending') return;
    const eventId = record[DELIVERY_FIELDS.eventId];
    const startedAt = clock.now();
    let outcome: AttemptOutcome | undefined;
    if (typeof eventId === 'number') {
      const event = await source.one(eventId);
      outcome =
        event === undefined
          ? { delivered: false, error: `event ${eventId} is no longer kept in the change feed` }
          : await channel.send({ id: String(event.id), body: source.payload(event) }, false, event);
    } else outcome = await channel.send(testMessage(channel.id, record.id as number, startedAt), false);
    if (outcome === undefined) return;
    const fields = requestedFields(record, outcome, startedAt);
    await channel.write({ id: record.id as number, fields, onlyIfPresent: true }, {});
  }
}
