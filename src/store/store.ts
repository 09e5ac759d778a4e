// The Store interface: what the HTTP layer may ask of the data, and nothing about HTTP
// (STYLE §6). A missing record is `undefined`; the caller chooses the status.
// `commit` is the single way to change data: all changes of one request are applied
// together and the promise resolves only once they are on disk.

import type { StoredRecord } from '../json.js';
import type { CollectionName } from '../resources/definition.js';

export type Change =
  | { readonly kind: 'put'; readonly collection: CollectionName; readonly record: StoredRecord }
  | { readonly kind: 'delete'; readonly collection: CollectionName; readonly id: number };

export interface Filter {
  readonly field: string;
  readonly value: string | number;
  readonly ignoreCase?: boolean;
}

export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

export interface Query {
  readonly filters: readonly Filter[];
  /** Empty means by id ascending; ties are always broken by id ascending. */
  readonly sort: readonly SortKey[];
  readonly offset: number;
  readonly limit: number;
}

export interface QueryResult {
  readonly records: readonly StoredRecord[];
  /** How many records match the filters, ignoring offset and limit. */
  readonly total: number;
}

export interface Store {
  get(collection: CollectionName, id: number): StoredRecord | undefined;
  query(collection: CollectionName, query: Query): QueryResult;
  /** The first record whose `field` equals `value` ignoring case (for unique emails). */
  findIgnoringCase(collection: CollectionName, field: string, value: string): StoredRecord | undefined;
  count(collection: CollectionName): number;
  /** Reserves the next id of a collection; ids are never reused, even if the write then fails. */
  allocateId(collection: CollectionName): number;
  /** Applies the changes at once in memory and resolves when they are durable. */
  commit(changes: readonly Change[]): Promise<void>;
  /** False once writes can no longer be made durable (a failed disk): the server is then not ready. Absent means true. */
  readonly writable?: boolean;
  /** Waits for pending writes and writes a final snapshot. */
  close(): Promise<void>;
}
