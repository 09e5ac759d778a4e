// What a list asks of a collection (README: Lists): filters, bounds, the other operators and their alternatives
// (`or`), words to search, a sort order and a page; and what it gets back.

import type { StoredRecord } from '../records/json.ts';

export interface Filter {
  readonly field: string;
  readonly value: string | number | boolean;
  readonly ignoreCase?: boolean;
}

/**
 * A bound on a number, a date or a timestamp (`price[gte]=10`); dates and timestamps compare as ISO 8601 text, and a
 * declared date-time, which a client may write at any offset, as the instant it names (`instant`).
 */
export interface RangeFilter {
  readonly field: string;
  readonly op: 'gt' | 'gte' | 'lt' | 'lte';
  readonly value: number | string;
  readonly instant?: boolean;
}

/** A value an equality, `in` or `ne` condition compares with. */
export type FilterValue = string | number | boolean;

/**
 * One of the other operators on one property (README: Lists, "Filter operators"), or an equality or a bound inside
 * `or=(…)`. `ne` holds for a record without the property; `contains`, `starts` and bounds never do; `null` asks whether
 * the property is absent (or null). `contains` and `starts` compare folded text (folded-text.ts): `text` is folded.
 */
export type Condition =
  | { readonly field: string; readonly op: 'eq' | 'ne'; readonly value: FilterValue; readonly ignoreCase?: boolean }
  | {
      readonly field: string;
      readonly op: 'in';
      readonly values: readonly FilterValue[];
      readonly ignoreCase?: boolean;
    }
  | RangeFilter
  | { readonly field: string; readonly op: 'contains' | 'starts'; readonly text: string }
  | { readonly field: string; readonly op: 'null'; readonly isNull: boolean };

export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

export interface Query {
  readonly filters: readonly Filter[];
  /** Bounds every record must also be within (none when absent). */
  readonly ranges?: readonly RangeFilter[];
  /** The other operators (`status[in]=a,b`, `name[contains]=tea`, …), each of which every record must meet. */
  readonly conditions?: readonly Condition[];
  /** `or=(…)`: every record must also meet one of these at least. */
  readonly anyOf?: readonly Condition[];
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
