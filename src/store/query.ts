// What a list asks of a collection (README: Lists): filters, bounds, words to search, a sort order and a page; and
// what it gets back.

import type { StoredRecord } from '../records/json.ts';

export interface Filter {
  readonly field: string;
  readonly value: string | number | boolean;
  readonly ignoreCase?: boolean;
}

/** A bound on a number, a date or a timestamp (`price[gte]=10`); dates and timestamps compare as ISO 8601 text. */
export interface RangeFilter {
  readonly field: string;
  readonly op: 'gt' | 'gte' | 'lt' | 'lte';
  readonly value: number | string;
}

export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

export interface Query {
  readonly filters: readonly Filter[];
  /** Bounds every record must also be within (none when absent). */
  readonly ranges?: readonly RangeFilter[];
  /** `q`: records whose searchable `fields` hold every one of `words` (store/search-words.ts). */
  readonly search?: { readonly fields: readonly string[]; readonly words: readonly string[] };
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
