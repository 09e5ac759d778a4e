// One subscription's deliveries (docs/webhooks.md: Delivery), one at a time, woken by the worker (webhook-worker.ts):
// what a POST asked for first (requested-deliveries.ts), then the feed's next event it takes (event-deliveries.ts),
// each through the subscription's channel (subscription-channel.ts). Where processes share the data, only the lease's
// holder delivers: it takes the lease when free or run out, renews it as it goes, and lets go of it when it stops.

import type { StoredRecord } from '../records/json.ts';
import type { RunnerParts } from './runner-parts.ts';
import { claimLease, releaseLease } from './delivery-writes.ts';
import { EventDeliveries } from './event-deliveries.ts';
import { RequestedDeliveries } from './requested-deliveries.ts';
import { SubscriptionChannel } from './subscription-channel.ts';

export class SubscriptionRunner {
  readonly #parts: RunnerParts;
  readonly #channel: SubscriptionChannel;
  readonly #events: EventDeliveries;
  readonly #requested: RequestedDeliveries;
  #running: Promise<void> | undefined;
  #again = false;
  #timer: unknown;
  #stopped = false;

  constructor(parts: RunnerParts, record: StoredRecord) {
    this.#parts = parts;
    this.#channel = new SubscriptionChannel(parts, record, { gone: () => this.#gone(), lost: () => this.#lost() });
    this.#events = new EventDeliveries(this.#channel);
    this.#requested = new RequestedDeliveries(this.#channel);
  }

  get id(): number {
    return this.#channel.id;
  }

  /** Whether it would read the feed for events up to `latest` (it has none in hand and is enabled). */
  awaits(latest: number): boolean {
    return this.#events.awaits(latest);
  }

  /** The subscription as a poll read it; true when something there is for it to do. */
  update(record: StoredRecord): boolean {
    const before = this.#channel.subscription;
    this.#channel.merge(record);
    const after = this.#channel.subscription;
    const { holder, leaseMs, clock } = this.#parts;
    const renew = holder !== undefined && after.leaseUntil - clock.now() < leaseMs / 2;
    const changed = before.enabled !== after.enabled || before.url !== after.url;
    return renew || changed || !this.#events.loaded;
  }

  /** A delivery a POST asked for, still pending. */
  request(record: StoredRecord): void {
    this.#requested.request(record);
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
    this.#channel.closeConnection();
    if (release && this.#parts.holder !== undefined)
      await this.#parts.write((store, writer) => releaseLease(store, writer), this.id).catch(() => undefined);
  }

  async #run(): Promise<void> {
    try {
      while (!this.#stopped && (await this.#step()));
    } catch (error) {
      // A store that cannot be reached: the next poll wakes it again.
      this.#events.forget();
      this.#parts.failed(this.id, error);
    }
  }

  /** One thing done; false when there is nothing more to do until a wake. */
  async #step(): Promise<boolean> {
    this.#channel.tidyConnection();
    if (!(await this.#holdLease()) || this.#stopped) return false;
    if (!this.#events.loaded) await this.#events.load();
    if (await this.#requested.deliverOldest()) return true;
    if (!this.#channel.subscription.enabled) {
      await this.#events.pause();
      return false;
    }
    const next = await this.#events.step();
    if (typeof next === 'boolean') return next;
    // The delivery in hand falls due later: a wake then.
    const { clock } = this.#parts;
    clock.clearTimeout(this.#timer);
    this.#timer = clock.setTimeout(() => this.wake(), next - clock.now());
    return false;
  }

  /** Where processes share the data: this process holds the lease, taken or renewed now if need be. */
  async #holdLease(): Promise<boolean> {
    const { holder, leaseMs, clock } = this.#parts;
    if (holder === undefined) return true;
    const { leaseHolder, leaseUntil } = this.#channel.subscription;
    const now = clock.now();
    if (leaseHolder === holder && leaseUntil - now > leaseMs / 2) return true;
    if (leaseHolder !== undefined && leaseHolder !== holder && leaseUntil > now) return this.#lost();
    const result = await this.#parts.write((store, writer) => claimLease(store, writer), this.id);
    if (!result.written) return result.why === 'gone' ? this.#gone() : this.#lost();
    // Taken from another process: what it delivered meanwhile is read again.
    if (leaseHolder !== holder) this.#events.forget();
    this.#channel.subscription = result.subscription;
    return true;
  }

  /** Its subscription was deleted: it stops, its connection closed. */
  #gone(): false {
    this.#stopped = true;
    this.#channel.closeConnection();
    return false;
  }

  /** Another process holds the lease: what it had in hand is read again once it holds it. */
  #lost(): false {
    this.#events.forget();
    return false;
  }
}
