// What a write hands the store (README: Storage and durability): the changes one commit applies together, with the
// facts the change feed needs, and the collections they may name.

import { NAME } from '../resources/names.ts';
import type { StoredRecord } from '../records/json.ts';
import type { EventType } from '../feed/feed-event.ts';

/**
 * What the store keeps: the declared resources' collections (by their declared plural),
 * plus the idempotency keys that must be saved in the same commit as the record they created.
 */
export type StoredCollection = string;

/** The collection of saved Idempotency-Key answers (http/idempotency.ts). */
export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

/** A collection name that can be a snapshot file's name and a journal entry's collection. */
export const COLLECTION_NAME = NAME;

/**
 * What the change feed (README: Events; feed/) needs to know of a change beyond the
 * record itself, worked out once when it is committed and kept with it in the journal:
 * whether a put created the record, the ids above it on its path and its owner.
 */
export interface EventFacts {
  readonly type: EventType;
  /** The ids of the records above it on its path, outermost first (`/v1/users/5/orders/7`: [5]). */
  readonly under: readonly number[];
  /** The user who owns the record (permissions.ts), when it has one. */
  readonly owner?: number;
}

export type Change =
  | {
      readonly kind: 'put';
      readonly collection: StoredCollection;
      readonly record: StoredRecord;
      /** `JSON.stringify(record)`, when the writer has it already: a store that saves JSON need not serialise again. */
      readonly json?: string;
      /** Set by a writer that knows the record is new (a POST), so the feed need not look for an earlier version. */
      readonly created?: boolean;
      /** Set at commit for a declared collection's change (store/describe-changes.ts). */
      readonly event?: EventFacts;
    }
  | {
      readonly kind: 'delete';
      readonly collection: StoredCollection;
      readonly id: number;
      readonly event?: EventFacts;
    };

/** What a write decided: the changes to commit together, and the answer once they are committed. */
export interface Decision<T> {
  readonly changes: readonly Change[];
  readonly result: T;
}
