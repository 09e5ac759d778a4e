// What a store offers the change feed (README: Events): its retained history, pages of it,
// and the events as they are committed. The memory store keeps it in memory from the
// journal (event-log.ts); a store whose data is elsewhere (PostgreSQL) reads it from
// there and may answer with promises.

import type { EventFilter, FeedEvent } from './feed-event.ts';

export interface EventWindow {
  /** Events numbered up to this one may be gone: a position before it cannot be resumed. */
  readonly lostThrough: number;
  /** The newest event's id (0 when there is none). */
  readonly latest: number;
}

export interface EventPage {
  readonly events: readonly FeedEvent[];
  /** How many events pass the filter, ignoring offset and limit. */
  readonly total: number;
}

export interface ChangeFeed {
  window(): EventWindow | Promise<EventWindow>;
  /** The events that pass `filter`, oldest first, from `offset`, at most `limit`. */
  page(filter: EventFilter, offset: number, limit: number): EventPage | Promise<EventPage>;
  /**
   * Calls `listener` with each batch of events once they are durable, in id order; returns
   * the unsubscribe. `lost`: the feed could not hand on some events, which its history no
   * longer holds (a store that lost its place for longer than the history is kept).
   */
  subscribe(listener: (events: readonly FeedEvent[]) => void, lost?: () => void): () => void;
}

/**
 * Whether `position` (an `after` or a Last-Event-ID) can be resumed from: nothing after it is gone, and it is not ahead
 * of the history.
 */
export function isResumable(position: number, window: EventWindow): boolean {
  return position >= window.lostThrough && position <= window.latest;
}

/** Why `position` cannot be resumed from, for a 410 or an `event: reset`. */
export function unresumableDetail(position: number, window: EventWindow): string {
  return position > window.latest
    ? `event ${position} is not in this feed's history, whose newest event is ${window.latest} ` +
        `(was the server's history reset?); read the records again, then follow the feed from ${window.latest}`
    : `the events after ${position} are no longer kept (the feed keeps those after ${window.lostThrough}); ` +
        `read the records again, then follow the feed from ${window.latest}`;
}
