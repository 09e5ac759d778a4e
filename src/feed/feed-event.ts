// The change feed's events (README: Events): one per change of a declared record,
// numbered by the journal's sequence. What an event may show and to whom is decided here:
// admins see everything, anyone with a token the collections everyone may read, owners
// their own.

import type { StoredRecord } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';

export const EVENT_TYPES = ['created', 'updated', 'deleted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface FeedEvent {
  readonly id: number;
  readonly type: EventType;
  readonly collection: string;
  readonly recordId: RecordId;
  /** The ids above the record on its path, outermost first. */
  readonly under: readonly RecordId[];
  readonly owner: number | undefined;
  /** When it was committed (ISO 8601, UTC). */
  readonly at: string;
  /** The record at this version; undefined for a deletion. */
  readonly record: StoredRecord | undefined;
}

/** Which collections' events a caller may see: all of `all`, and those of `own` whose owner is `owner`. */
export interface Readable {
  readonly all: ReadonlySet<string>;
  readonly own: ReadonlySet<string>;
  readonly owner: number;
}

/** What a list or a stream asks for, besides its position. */
export interface EventFilter {
  /** Only events after this id. */
  readonly after: number;
  readonly collection?: string;
  readonly type?: EventType;
  readonly readable: Readable;
}

/** The filter after `after` for a reader with `readable`, narrowed to what they asked for (`collection`, `type`). */
export function eventFilter(
  after: number,
  readable: Readable,
  asked: { readonly collection?: string; readonly type?: EventType },
): EventFilter {
  const { collection, type } = asked;
  return {
    after,
    readable,
    ...(collection === undefined ? {} : { collection }),
    ...(type === undefined ? {} : { type }),
  };
}

/** Whether `event` passes `filter` (after, collection, type and the caller's permission). */
export function matches(event: FeedEvent, filter: EventFilter): boolean {
  if (event.id <= filter.after) return false;
  if (filter.collection !== undefined && event.collection !== filter.collection) return false;
  if (filter.type !== undefined && event.type !== filter.type) return false;
  return mayRead(event, filter.readable);
}

export function mayRead(event: FeedEvent, readable: Readable): boolean {
  if (readable.all.has(event.collection)) return true;
  return readable.own.has(event.collection) && event.owner === readable.owner;
}
