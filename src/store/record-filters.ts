// Whether one record passes a list's filters (README: Lists): equality filters (`category=tea`, an email ignoring
// case), range filters (`price[gte]=10`), the other operators (`status[in]=paid,sent`, `name[contains]=tea`, …) and
// `or=(…)`. The indexes (collection-index.ts) use them to keep their views in step and to narrow what buckets hold.

import type { StoredRecord } from '../records/json.ts';
import type { Condition, Filter, FilterValue, Query, RangeFilter } from './query.ts';
import { foldedText } from './folded-text.ts';

/** Equality filters; a filter marked ignoreCase compares strings lowercased. */
export function matchesAll(record: StoredRecord, filters: readonly Filter[]): boolean {
  for (const filter of filters) {
    if (!equals(record[filter.field], filter.value, filter.ignoreCase === true)) return false;
  }
  return true;
}

/** Range filters: a record without the field is outside every bound. */
export function withinAll(record: StoredRecord, ranges: readonly RangeFilter[]): boolean {
  for (const range of ranges) if (!within(record, range)) return false;
  return true;
}

/** Whether `record` passes `filters` and the rest of `query`: its bounds, its other operators and its `or`. */
export function passesQuery(
  record: StoredRecord,
  filters: readonly Filter[],
  query: Pick<Query, 'ranges' | 'conditions' | 'anyOf'>,
): boolean {
  if (!matchesAll(record, filters)) return false;
  if (query.ranges !== undefined && !withinAll(record, query.ranges)) return false;
  if (query.conditions !== undefined)
    for (const condition of query.conditions) if (!meets(record, condition)) return false;
  return query.anyOf === undefined || query.anyOf.some((condition) => meets(record, condition));
}

/** One condition (query.ts: Condition). */
export function meets(record: StoredRecord, condition: Condition): boolean {
  const value = record[condition.field];
  switch (condition.op) {
    case 'eq':
      return equals(value, condition.value, condition.ignoreCase === true);
    case 'ne':
      return !equals(value, condition.value, condition.ignoreCase === true);
    case 'in':
      return condition.values.some((allowed) => equals(value, allowed, condition.ignoreCase === true));
    case 'null':
      return (value === undefined || value === null) === condition.isNull;
    case 'contains':
      return typeof value === 'string' && foldedText(value).includes(condition.text);
    case 'starts':
      return typeof value === 'string' && foldedText(value).startsWith(condition.text);
    default:
      return within(record, condition);
  }
}

function equals(value: unknown, wanted: FilterValue, ignoreCase: boolean): boolean {
  if (ignoreCase && typeof value === 'string' && typeof wanted === 'string')
    return value.toLowerCase() === wanted.toLowerCase();
  return value === wanted;
}

function within(record: StoredRecord, { field, op, value, instant }: RangeFilter): boolean {
  const stored = record[field];
  if ((typeof stored !== 'number' && typeof stored !== 'string') || typeof stored !== typeof value) return false;
  // A declared date-time is compared as the instant it names: a client may write it at any offset.
  const held: number | string = instant === true ? Date.parse(stored as string) : stored;
  const bound = instant === true ? Date.parse(value as string) : value;
  if (Number.isNaN(held)) return false;
  const compared = held < bound ? -1 : held > bound ? 1 : 0;
  return op === 'gt' ? compared > 0 : op === 'gte' ? compared >= 0 : op === 'lt' ? compared < 0 : compared <= 0;
}
