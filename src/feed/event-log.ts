// The memory store's change feed (README: Events): the events of the journal kept in memory, oldest first, and handed
// to subscribers as each commit becomes durable. It keeps at least the newest `kept` events, and any younger than
// `keptForMs`, up to ten times `kept`; the journal keeps the segments that hold them (store/journal-persistence.ts), so
// the history survives a restart.

import type { ChangeFeed, EventPage, EventWindow } from './change-feed.ts';
import type { EventFilter, FeedEvent } from './feed-event.ts';
import { matches } from './feed-event.ts';

export interface Retention {
  /** At least this many of the newest events are kept. Default 10,000. */
  readonly kept: number;
  /** Events younger than this are kept too (up to ten times `kept`); 0 keeps none for its age. Default 24 h. */
  readonly keptForMs: number;
}

export const DEFAULT_RETENTION: Retention = { kept: 10_000, keptForMs: 24 * 60 * 60 * 1000 };

/** The history before the events a log was made with, once decoded. */
export interface EarlierHistory {
  /** Oldest first, every id below those the log holds. */
  readonly events: readonly FeedEvent[];
  /** Nothing up to this number is known. */
  readonly lostThrough: number;
}

export class EventLog implements ChangeFeed {
  readonly #retention: Retention;
  readonly #now: () => number;
  /** Oldest first; `#start` is the first one still kept (dropped ones are spliced off in bulk). */
  #events: FeedEvent[];
  #start = 0;
  #lostThrough: number;
  #latest: number;
  readonly #listeners = new Set<(events: readonly FeedEvent[]) => void>();
  /**
   * An event after this time is young enough to be kept for its age; as text, worked out once per millisecond
   * (toISOString is not cheap).
   */
  #cutoff = '';
  #cutoffMs = Number.NaN;
  /** The earlier history being decoded; undefined once it is in (or when there was none). */
  #loading: Promise<void> | undefined;

  /**
   * `events` as loaded from the journal; nothing up to `lostThrough` is known; `lastSeq` is the journal's last number.
   */
  constructor(
    events: FeedEvent[],
    lostThrough: number,
    lastSeq: number,
    retention: Retention = DEFAULT_RETENTION,
    now: () => number = Date.now,
  ) {
    this.#events = events;
    this.#lostThrough = lostThrough;
    this.#latest = lastSeq;
    this.#retention = retention;
    this.#now = now;
    this.#trim();
  }

  window(): EventWindow | Promise<EventWindow> {
    if (this.#loading !== undefined) return this.#loading.then(() => this.window());
    return { lostThrough: this.#lostThrough, latest: this.#latest };
  }

  /** The newest event's id, or the journal's last number (known before the history is in). */
  get latest(): number {
    return this.#latest;
  }

  /**
   * Puts `earlier` (the older history a start is still decoding: store/journal-history.ts) before the events held,
   * once it resolves; the window and pages wait for it meanwhile. Events published in between keep their place
   * after it.
   */
  loadEarlier(earlier: Promise<EarlierHistory>): void {
    // Should the decoding fail outright, the feed goes on as if all of it were gone.
    const gone: EarlierHistory = { events: [], lostThrough: this.#latest };
    const loading = earlier
      .catch(() => gone)
      .then((history) => {
        this.#lostThrough = Math.max(this.#lostThrough, history.lostThrough);
        const lost = this.#lostThrough;
        const kept = history.events.filter((event) => event.id > lost);
        this.#events = [...kept, ...this.#events.slice(this.#start)];
        this.#start = 0;
        this.#loading = undefined;
        this.#trim();
      });
    this.#loading = loading;
  }

  /**
   * The oldest number the journal must still hold for this log (journal-persistence.ts keeps the segments from it on).
   */
  get keptFrom(): number {
    return this.#lostThrough + 1;
  }

  page(filter: EventFilter, offset: number, limit: number): EventPage | Promise<EventPage> {
    if (this.#loading !== undefined) return this.#loading.then(() => this.page(filter, offset, limit));
    const events: FeedEvent[] = [];
    let total = 0;
    for (let index = this.#firstAfter(filter.after); index < this.#events.length; index++) {
      const event = this.#events[index] as FeedEvent;
      if (!matches(event, filter)) continue;
      if (total >= offset && events.length < limit) events.push(event);
      total++;
    }
    return { events, total };
  }

  subscribe(listener: (events: readonly FeedEvent[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Adds the events of a durable commit (numbered up to `lastSeq`) and hands them to the subscribers. */
  publish(events: readonly FeedEvent[], lastSeq: number): void {
    this.#latest = Math.max(this.#latest, lastSeq);
    if (events.length === 0) return;
    for (const event of events) this.#events.push(event);
    this.#trim();
    for (const listener of this.#listeners) listener(events);
  }

  /** The index of the first kept event whose id is greater than `after` (binary search: ids only grow). */
  #firstAfter(after: number): number {
    let low = this.#start;
    let high = this.#events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#events[middle] as FeedEvent).id <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #youngAfter(keptForMs: number): string {
    const ms = this.#now() - keptForMs;
    if (ms !== this.#cutoffMs) {
      this.#cutoffMs = ms;
      this.#cutoff = new Date(ms).toISOString();
    }
    return this.#cutoff;
  }

  #trim(): void {
    const { kept, keptForMs } = this.#retention;
    if (this.#events.length - this.#start <= kept) return;
    const youngAfter = this.#youngAfter(keptForMs);
    const most = kept * 10;
    let start = this.#start;
    while (this.#events.length - start > kept) {
      const oldest = this.#events[start] as FeedEvent;
      if (this.#events.length - start <= most && oldest.at > youngAfter) break;
      this.#lostThrough = oldest.id;
      start++;
    }
    if (start === this.#start) return;
    this.#start = start;
    // Drop the references in bulk, not one shift() per event.
    if (start > 1024 && start * 2 > this.#events.length) {
      this.#events = this.#events.slice(start);
      this.#start = 0;
    }
  }
}
