// A sorted view of a collection's records (README: Lists): the records one set of filters keeps, as ids in one order
// (sorted-ids.ts), kept in step with each change, or the changes queued while it is first sorted; and the key that
// names it among a collection's views (collection-index.ts).

import type { StoredRecord } from '../records/json.ts';
import type { Filter, SortKey } from './query.ts';
import { matchesAll } from './record-filters.ts';
import type { SortedIds } from './sorted-ids.ts';

export interface View {
  readonly filters: readonly Filter[];
  /** As ids (sorted-ids.ts); undefined while the view is being sorted in slices. */
  records: SortedIds | undefined;
  /** While the view is being sorted, the promise of its completion, and the changes to apply then, oldest first. */
  building: Promise<void> | undefined;
  readonly changes: [StoredRecord | undefined, StoredRecord | undefined][];
}

export function updateView(view: View, previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
  if (view.records === undefined) view.changes.push([previous, next]);
  else updateList(view.records, view.filters, previous, next);
}

/** Keeps a view's records, those `filters` match, in step with one record's change. */
export function updateList(
  records: SortedIds,
  filters: readonly Filter[],
  previous: StoredRecord | undefined,
  next: StoredRecord | undefined,
): void {
  const wasIn = previous !== undefined && matchesAll(previous, filters);
  const isIn = next !== undefined && matchesAll(next, filters);
  if (wasIn && isIn) records.replace(previous, next);
  else if (wasIn) records.remove(previous);
  else if (isIn) records.insert(next);
}

/** `sort`, or none when it is by id ascending alone: every list and view is kept in id order already. */
export function withoutIdOnly(sort: readonly SortKey[]): readonly SortKey[] {
  const [only] = sort;
  return sort.length === 1 && only?.field === 'id' && !only.descending ? [] : sort;
}

/** Names a view: its filters (case-folded where they ignore case) and its sort keys. */
export function viewKey(filters: readonly Filter[], sort: readonly SortKey[]): string {
  let key = '';
  for (const filter of filters) {
    const value =
      filter.ignoreCase === true && typeof filter.value === 'string' ? filter.value.toLowerCase() : filter.value;
    key += `${filter.field}${filter.ignoreCase === true ? '~' : '='}${JSON.stringify(value)}&`;
  }
  for (const sortKey of sort) key += `${sortKey.descending ? '-' : '+'}${sortKey.field},`;
  return key;
}
