// Whether one record passes a list's filters (README: Lists): equality filters (`category=tea`, an email ignoring
// case) and range filters (`price[gte]=10`). The indexes (collection-index.ts) use them to keep their views in step
// and to narrow what equality buckets hold.

import type { StoredRecord } from '../records/json.ts';
import type { Filter, RangeFilter } from './query.ts';

/** Equality filters; a filter marked ignoreCase compares strings lowercased. */
export function matchesAll(record: StoredRecord, filters: readonly Filter[]): boolean {
  for (const filter of filters) {
    const value = record[filter.field];
    if (filter.ignoreCase === true && typeof value === 'string' && typeof filter.value === 'string') {
      if (value.toLowerCase() !== filter.value.toLowerCase()) return false;
    } else if (value !== filter.value) {
      return false;
    }
  }
  return true;
}

/** Range filters: a record without the field is outside every bound. */
export function withinAll(record: StoredRecord, ranges: readonly RangeFilter[]): boolean {
  for (const { field, op, value } of ranges) {
    const stored = record[field];
    if ((typeof stored !== 'number' && typeof stored !== 'string') || typeof stored !== typeof value) return false;
    const held: number | string = stored;
    const compared = held < value ? -1 : held > value ? 1 : 0;
    if (op === 'gt' ? compared <= 0 : op === 'gte' ? compared < 0 : op === 'lt' ? compared >= 0 : compared > 0)
      return false;
  }
  return true;
}
