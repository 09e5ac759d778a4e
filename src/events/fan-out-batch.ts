// The events one fan-out hands to every stream (events/event-streams.ts). Most streams
// show a batch whole, so its bytes are joined once per language and the same buffer is
// written to each of them: a thousand streams cost a thousand references, not a thousand
// copies, even while a stalled reader's socket holds on to them.

import type { ResourceTable } from '../resources/definition.ts';
import type { Language } from '../resources/definition.ts';
import { eventBlock } from './event-json.ts';
import type { FeedEvent } from '../feed/feed-event.ts';

export class FanOutBatch {
  readonly events: readonly FeedEvent[];
  readonly #table: ResourceTable;
  /** Whether each event's block is kept for the streams that follow (README: Caches). */
  readonly #useCaches: boolean;
  /** Where each event's path begins (http/base-path.ts). */
  readonly #basePath: string;
  readonly #whole = new Map<Language, Buffer>();

  constructor(events: readonly FeedEvent[], table: ResourceTable, useCaches: boolean, basePath: string) {
    this.events = events;
    this.#table = table;
    this.#useCaches = useCaches;
    this.#basePath = basePath;
  }

  /**
   * The blocks of `shown` (some of this batch's events, in order), as one buffer: the shared one when they are all of
   * them.
   */
  bytes(shown: readonly FeedEvent[], language: Language): Buffer {
    if (shown.length !== this.events.length)
      return blocksOf(shown, this.#table, language, this.#useCaches, this.#basePath);
    let whole = this.#whole.get(language);
    if (whole === undefined) {
      whole = blocksOf(this.events, this.#table, language, this.#useCaches, this.#basePath);
      this.#whole.set(language, whole);
    }
    return whole;
  }
}

/** The events' blocks joined, in order. */
export function blocksOf(
  events: readonly FeedEvent[],
  table: ResourceTable,
  language: Language,
  useCaches: boolean,
  basePath: string,
): Buffer {
  return Buffer.concat(events.map((event) => eventBlock(event, table, language, useCaches, basePath)));
}
