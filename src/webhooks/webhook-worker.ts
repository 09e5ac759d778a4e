// The webhook delivery worker (docs/webhooks.md): one runner per subscription (subscription-runner.ts), found by a
// poll of the store every second and woken by the change feed as events are committed, so that a write never waits
// for a delivery. It also prepares the subscriptions' writes (a URL checked once its name is resolved, where a new one
// starts in the feed) and the deliveries' (an event to redeliver must still be kept).

import { randomUUID } from 'node:crypto';
import type { Config } from '../config/config.ts';
import type { WebhookClock } from '../config/server-options.ts';
import type { ChangeFeed } from '../feed/change-feed.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import type { WritePreparation } from '../handlers/context.ts';
import { HttpError, validationError } from '../errors/errors.ts';
import type { Fields, StoredRecord } from '../records/json.ts';
import type { ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import type { Decision, RecordReads, Store } from '../store/store.ts';
import { NO_PLAN, StoreUnavailable } from '../store/store.ts';
import type { Query } from '../store/query.ts';
import type { DisabledReason } from '../declarations/built-in-webhooks.ts';
import { DELIVERIES, DELIVERY_FIELDS, WEBHOOK_FIELDS, WEBHOOKS } from '../declarations/built-in-webhooks.ts';
import type { WriteStore, Writer } from './delivery-writes.ts';
import { EventSource } from './event-source.ts';
import type { RunnerParts } from './runner-parts.ts';
import { sendAttempt } from './send-attempt.ts';
import { SubscriptionRunner } from './subscription-runner.ts';
import { requireAllowedTarget, TargetRefused } from './target-policy.ts';

/** How often the store is read for subscriptions and requested deliveries, by default. */
const POLL_MS = 1000;
/** How long a process's lease on a subscription lasts unless renewed (where processes share the data), by default. */
export const LEASE_MS = 30_000;
/** Subscriptions and requested deliveries read at once, a page of a poll's read of them all. */
const READ_AT_ONCE = 1000;

/**
 * Every record of `collection` that `filters` match, by id, READ_AT_ONCE at a time in one read: a subscription past
 * the first page is read as the first is (one left out would be stopped as deleted, and never delivered to).
 */
function everyRecord(store: RecordReads, collection: string, filters: Query['filters']): StoredRecord[] {
  const records: StoredRecord[] = [];
  for (let offset = 0; ; offset += READ_AT_ONCE) {
    const page = store.query(collection, { filters, sort: [], offset, limit: READ_AT_ONCE }).records;
    records.push(...page);
    if (page.length < READ_AT_ONCE) return records;
  }
}

/** The system's clock, whose timers keep no process alive. */
const SYSTEM_CLOCK: WebhookClock = {
  now: Date.now,
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export class WebhookWorker {
  readonly #store: Store;
  readonly #feed: ChangeFeed | undefined;
  readonly #source: EventSource | undefined;
  readonly #config: Config;
  readonly #webhooks: ResourceDefinition;
  readonly #parts: RunnerParts | undefined;
  readonly #runners = new Map<number, SubscriptionRunner>();
  readonly #closing = new AbortController();
  readonly #pollMs: number;
  readonly #leaseMs: number;
  #poll: NodeJS.Timeout | undefined;
  #soon: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  /** The newest event the feed handed on, and whether the runners have been woken for it. */
  #latest = 0;
  #wakeScheduled = false;

  constructor(store: Store, table: ResourceTable, config: Config) {
    this.#store = store;
    this.#feed = store.feed;
    this.#config = config;
    this.#webhooks = table.get(WEBHOOKS) as ResourceDefinition;
    this.#pollMs = config.webhooks.worker.pollMs ?? POLL_MS;
    this.#leaseMs = config.webhooks.worker.leaseMs ?? LEASE_MS;
    const feed = store.feed;
    if (feed === undefined) return;
    this.#source = new EventSource(feed, table, config.basePath, config.caches);
    const clock = config.webhooks.worker.clock ?? SYSTEM_CLOCK;
    const holder = store.shared === true ? randomUUID() : undefined;
    this.#parts = {
      source: this.#source,
      webhooks: this.#webhooks,
      deliveries: table.get(DELIVERIES) as ResourceDefinition,
      settings: config.webhooks,
      clock,
      holder,
      leaseMs: this.#leaseMs,
      closing: this.#closing.signal,
      random: Math.random,
      send: sendAttempt,
      read: (reads) => this.#read(reads),
      write: (decide, webhookId) => this.#write(decide, webhookId, clock, holder),
      disabled: (id, reason) => this.#disabled(id, reason),
      failed: (id, error) => this.#failed(id, error),
    };
  }

  /** The writes it prepares: subscriptions' and deliveries' (handlers/context.ts). */
  get preparations(): ReadonlyMap<string, WritePreparation> {
    return new Map([
      [WEBHOOKS, { prepare: (next, current) => this.#prepareSubscription(next, current) }],
      [DELIVERIES, { prepare: (next, current) => this.#prepareDelivery(next, current) }],
    ]);
  }

  /** Starts delivering: follows the feed, and polls for subscriptions. */
  start(): void {
    if (this.#feed === undefined || this.#closing.signal.aborted) return;
    this.#unsubscribe = this.#feed.subscribe((events) => this.#committed(events));
    this.#pollNow();
  }

  /** Stops: no new attempt; one under way is cut off and not recorded (it is sent again after a restart). */
  async close(): Promise<void> {
    this.#closing.abort();
    clearTimeout(this.#poll);
    clearTimeout(this.#soon);
    this.#unsubscribe?.();
    await this.#polling;
    await Promise.all([...this.#runners.values()].map((runner) => runner.stop(true)));
    this.#runners.clear();
  }

  /** Events just committed: the runners waiting for events wake, together, after this turn (the write goes on). */
  #committed(events: readonly FeedEvent[]): void {
    const last = events.at(-1);
    if (last !== undefined) this.#latest = Math.max(this.#latest, last.id);
    if (this.#wakeScheduled || this.#runners.size === 0) return;
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      for (const runner of this.#runners.values()) if (runner.awaits(this.#latest)) runner.wake();
    });
  }

  #pollNow(): void {
    if (this.#closing.signal.aborted || this.#polling !== undefined) return;
    clearTimeout(this.#poll);
    this.#polling = this.#refresh()
      .catch((error: unknown) => this.#failed(undefined, error))
      .finally(() => {
        this.#polling = undefined;
        if (!this.#closing.signal.aborted) this.#poll = setTimeout(() => this.#pollNow(), this.#pollMs).unref();
      });
  }

  /** A poll soon, after a request has written a subscription or asked for a delivery. */
  #pollSoon(): void {
    clearTimeout(this.#soon);
    this.#soon = setTimeout(() => this.#pollNow(), Math.min(50, this.#pollMs)).unref();
  }

  /** Reads the subscriptions and the deliveries asked for, starts and stops runners, and wakes those with work. */
  async #refresh(): Promise<void> {
    const parts = this.#parts;
    if (parts === undefined) return;
    const { webhooks, asked } = await this.#read((store) => ({
      webhooks: everyRecord(store, WEBHOOKS, []),
      asked: everyRecord(store, DELIVERIES, [{ field: DELIVERY_FIELDS.status, value: 'pending' }]),
    }));
    if (this.#closing.signal.aborted) return;
    const seen = new Set<number>();
    const woken = new Set<SubscriptionRunner>();
    for (const record of webhooks) {
      const id = record.id as number;
      seen.add(id);
      let runner = this.#runners.get(id);
      if (runner === undefined) {
        runner = new SubscriptionRunner(parts, record);
        this.#runners.set(id, runner);
      }
      if (runner.update(record) || runner.awaits(this.#latest)) woken.add(runner);
    }
    for (const [id, runner] of this.#runners) {
      if (seen.has(id)) continue;
      this.#runners.delete(id);
      void runner.stop(false);
    }
    for (const record of asked) {
      if (record[DELIVERY_FIELDS.kind] === 'event') continue;
      const runner = this.#runners.get(record[DELIVERY_FIELDS.webhook] as number);
      if (runner === undefined) continue;
      runner.request(record);
      woken.add(runner);
    }
    for (const runner of woken) runner.wake();
  }

  #read<T>(reads: (store: RecordReads) => T): Promise<T> {
    return Promise.resolve(this.#store.serve(NO_PLAN, (store) => store.read(() => reads(store))));
  }

  #write<T>(
    decide: (store: WriteStore, writer: Writer) => Decision<T>,
    webhookId: number,
    clock: WebhookClock,
    holder: string | undefined,
  ): Promise<T> {
    const deliveries = this.#parts?.deliveries as ResourceDefinition;
    return Promise.resolve(
      this.#store.serve(NO_PLAN, (store) =>
        store.write(() => {
          const writer: Writer = {
            webhooks: this.#webhooks,
            deliveries,
            webhookId,
            holder,
            now: clock.now(),
            leaseMs: this.#leaseMs,
          };
          return decide(store, writer);
        }),
      ),
    );
  }

  /**
   * A subscription's write: a URL new to it checked against the target policy once its name is resolved (422); a new
   * one starts after the feed's newest event, and one enabled again after its history was gone starts there too.
   */
  async #prepareSubscription(next: Fields, current: StoredRecord | undefined): Promise<Fields> {
    const url = next[WEBHOOK_FIELDS.url];
    if (typeof url === 'string' && url !== current?.[WEBHOOK_FIELDS.url]) {
      try {
        await requireAllowedTarget(url, this.#config.webhooks);
      } catch (error) {
        throw error instanceof TargetRefused ? error.toHttpError() : error;
      }
    }
    this.#pollSoon();
    const restarts =
      current === undefined ||
      (current[WEBHOOK_FIELDS.disabledReason] === 'history_gone' && next[WEBHOOK_FIELDS.enabled] !== false);
    if (!restarts || this.#source === undefined) return {};
    return { [WEBHOOK_FIELDS.position]: (await this.#source.window()).latest };
  }

  /** A delivery asked for: the event it names must be in the feed's history still (422). */
  async #prepareDelivery(next: Fields, current: StoredRecord | undefined): Promise<Fields> {
    const eventId = next[DELIVERY_FIELDS.eventId];
    if (current === undefined && typeof eventId === 'number' && this.#source !== undefined) {
      if ((await this.#source.one(eventId)) === undefined) {
        const { lostThrough, latest } = await this.#source.window();
        throw validationError([
          {
            field: DELIVERY_FIELDS.eventId,
            code: 'unknown_event',
            message: `names no event the change feed keeps (it keeps those after ${lostThrough}, up to ${latest})`,
          },
        ]);
      }
    }
    this.#pollSoon();
    return {};
  }

  #disabled(webhookId: number, reason: DisabledReason): void {
    this.#config.logger.warn(
      `webhook ${webhookId} disabled: ${reason} (docs/webhooks.md: Disabling and enabling again)`,
    );
  }

  #failed(webhookId: number | undefined, error: unknown): void {
    if (error instanceof StoreUnavailable || error instanceof HttpError || this.#closing.signal.aborted) return;
    const which = webhookId === undefined ? 'webhooks' : `webhook ${webhookId}`;
    this.#config.logger.error(`${which}: delivery stopped until the next poll: ${String(error)}`);
  }
}
