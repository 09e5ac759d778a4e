// What the delivery worker reads of the change feed (docs/webhooks.md: Delivery; feed/change-feed.ts): a
// subscription's next event after its position, one event by its id for a redelivery, and a delivery's body, the
// event's JSON as the feed shows it to an administrator (events/event-json.ts), in the declared names.

import type { ChangeFeed, EventWindow } from '../feed/change-feed.ts';
import type { EventFilter, FeedEvent } from '../feed/feed-event.ts';
import { eventJson } from '../events/event-json.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { Subscription } from './subscription.ts';
import { takesType } from './subscription.ts';

/** Events read from the feed at once, looking for a subscription's next. */
const PAGE = 100;

/** A subscription's next event, or none yet, and how far the feed was read to find it. */
export interface NextEvent {
  readonly event: FeedEvent | undefined;
  /** Every event up to this id was read (and, but for `event`, is none the subscription takes). */
  readonly readThrough: number;
}

export class EventSource {
  readonly #feed: ChangeFeed;
  readonly #table: ResourceTable;
  readonly #basePath: string;
  readonly #caches: boolean;
  /** Every collection in the feed: what a subscription without `collections` takes. */
  readonly #recorded: ReadonlySet<string>;

  constructor(feed: ChangeFeed, table: ResourceTable, basePath: string, caches: boolean) {
    this.#feed = feed;
    this.#table = table;
    this.#basePath = basePath;
    this.#caches = caches;
    this.#recorded = new Set(table.resources.filter((d) => d.unrecorded !== true).map((d) => d.collection));
  }

  async window(): Promise<EventWindow> {
    return this.#feed.window();
  }

  /** The first event after `after` that `subscription` takes. */
  async next(subscription: Subscription, after: number): Promise<NextEvent> {
    const { latest } = await this.#feed.window();
    const readable = { all: subscription.collections ?? this.#recorded, own: new Set<string>(), owner: 0 };
    for (let from = after; ;) {
      const filter: EventFilter = { after: from, readable };
      const { events } = await this.#feed.page(filter, 0, PAGE);
      const event = events.find((candidate) => takesType(subscription, candidate.type));
      if (event !== undefined) return { event, readThrough: event.id - 1 };
      const last = events.at(-1);
      // A short page is the end of the history as it was when `latest` was read (a later event comes in a later call).
      if (last === undefined || events.length < PAGE) return { event: undefined, readThrough: Math.max(from, latest) };
      from = last.id;
    }
  }

  /** The event numbered `id`, if the feed still keeps it. */
  async one(id: number): Promise<FeedEvent | undefined> {
    const all = { all: this.#recorded, own: new Set<string>(), owner: 0 };
    const { events } = await this.#feed.page({ after: id - 1, readable: all }, 0, 1);
    const event = events[0];
    return event?.id === id ? event : undefined;
  }

  /** The body a receiver gets: the event's JSON, as the change feed shows it (`{"id":…,"type":…,…}`). */
  payload(event: FeedEvent): string {
    return eventJson(event, this.#table, 'en', this.#caches, this.#basePath);
  }
}
