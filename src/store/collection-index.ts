// The list indexes of one collection (README: Lists, performance issue): what makes a list
// page cost about the same over a hundred records or a hundred thousand.
//  - All records in id order, for unfiltered lists.
//  - An equality index per filtered field, built the first time the field is filtered
//    on: filtered lists, the unique-email check, the orders of one user.
//  - Sorted views: the records matching one set of filters, kept in one sort order.
//    A view is built the first time a list asks for it and kept up to date on every
//    write after that; beyond MAX_VIEWS one not used lately is dropped (recently-used.ts).
// When the narrowest equality bucket holds only a few records, sorting them per request
// is cheaper than keeping a view, so no view is made; nor for range filters (`price[gte]`),
// whose bounds differ per request: the bucket is scanned.
//  - A word index per set of searchable fields (`q`), built on the first search: a search
//    costs the records holding its rarest word, not a scan of the collection.

import type { StoredRecord } from '../json.js';
import { RecentlyUsed } from '../recently-used.js';
import { EqualityIndex } from './equality-index.js';
import { recordWords } from '../search-words.js';
import { BY_ID, orderBy, SortedRecords } from './sorted-records.js';
import type { Filter, Query, QueryResult, RangeFilter, SortKey } from './store.js';

const MAX_VIEWS = 16;
const SORT_PER_REQUEST_UP_TO = 64;

interface View {
  readonly filters: readonly Filter[];
  readonly records: SortedRecords;
}

const NO_MATCH: QueryResult = Object.freeze({ records: [], total: 0 });

export class CollectionIndex {
  readonly #all: SortedRecords;
  readonly #equality = new Map<string, EqualityIndex>();
  readonly #views = new RecentlyUsed<string, View>(MAX_VIEWS);
  /** Per set of searchable fields: each word → the records holding it. */
  readonly #words = new Map<string, WordIndex>();

  constructor(records: Iterable<StoredRecord>) {
    this.#all = new SortedRecords(BY_ID, [...records]);
  }

  /** Keeps every index in step with one record's change: added, replaced or deleted. */
  update(previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
    if (previous !== undefined && next !== undefined) this.#all.replace(previous, next);
    else if (previous !== undefined) this.#all.remove(previous);
    else if (next !== undefined) this.#all.insert(next);
    for (const index of this.#equality.values()) index.update(previous, next);
    for (const index of this.#words.values()) {
      if (previous !== undefined) removeWords(index, previous);
      if (next !== undefined) addWords(index, next);
    }
    for (const view of this.#views.values()) updateView(view, previous, next);
  }

  query(query: Query): QueryResult {
    const { filters, sort, offset, limit } = query;
    if (query.search !== undefined) return this.#searched(query, query.search.fields, query.search.words);
    let narrowest = this.#all;
    let narrowestFilter: Filter | undefined;
    for (const filter of filters) {
      const bucket = this.#equalityIndex(filter.field, filter.ignoreCase === true).bucket(filter.value);
      if (bucket === undefined) return NO_MATCH;
      if (narrowestFilter === undefined || bucket.length < narrowest.length) {
        narrowest = bucket;
        narrowestFilter = filter;
      }
    }
    const ranges = query.ranges ?? [];
    if (filters.length <= 1 && sort.length === 0 && ranges.length === 0) {
      return { records: narrowest.slice(offset, offset + limit), total: narrowest.length };
    }
    // Bounds vary from request to request: the records they keep are picked out per request, not kept in a view.
    if (narrowest.length <= SORT_PER_REQUEST_UP_TO || ranges.length > 0) {
      const others = filters.filter((filter) => filter !== narrowestFilter);
      const matches = narrowest.toArray().filter((record) => matchesAll(record, others) && withinAll(record, ranges));
      if (sort.length > 0) matches.sort(orderBy(sort));
      return { records: matches.slice(offset, offset + limit), total: matches.length };
    }
    const view = this.#view(filters, sort, narrowest);
    return { records: view.records.slice(offset, offset + limit), total: view.records.length };
  }

  /** `q`: the records holding the rarest word that hold every other, then the filters, bounds, sort and page. */
  #searched(query: Query, fields: readonly string[], words: readonly string[]): QueryResult {
    const index = this.#wordIndex(fields);
    const holding = words.map((word) => index.get(word));
    let rarest: Set<StoredRecord> | undefined;
    for (const records of holding) {
      if (records === undefined) return NO_MATCH;
      if (rarest === undefined || records.size < rarest.size) rarest = records;
    }
    const ranges = query.ranges ?? [];
    const matches = [...(rarest ?? [])].filter(
      (record) => holding.every((records) => records === rarest || (records as Set<StoredRecord>).has(record)) && matchesAll(record, query.filters) && withinAll(record, ranges),
    );
    matches.sort(orderBy(query.sort));
    return { records: matches.slice(query.offset, query.offset + query.limit), total: matches.length };
  }

  #wordIndex(fields: readonly string[]): Map<string, Set<StoredRecord>> {
    const key = fields.join(',');
    let index = this.#words.get(key);
    if (index === undefined) {
      index = { fields, records: new Map() };
      for (const record of this.#all.toArray()) addWords(index, record);
      this.#words.set(key, index);
    }
    return index.records;
  }

  /** The first record, in id order, whose `field` equals `value` ignoring case. */
  findIgnoringCase(field: string, value: string): StoredRecord | undefined {
    return this.#equalityIndex(field, true).bucket(value)?.first();
  }

  #equalityIndex(field: string, ignoreCase: boolean): EqualityIndex {
    const name = ignoreCase ? `${field} ignoring case` : field;
    let index = this.#equality.get(name);
    if (index === undefined) {
      index = new EqualityIndex(field, ignoreCase, this.#all.toArray());
      this.#equality.set(name, index);
    }
    return index;
  }

  #view(filters: readonly Filter[], sort: readonly SortKey[], narrowest: SortedRecords): View {
    const key = viewKey(filters, sort);
    let view = this.#views.get(key);
    if (view === undefined) {
      const matches = narrowest.toArray().filter((record) => matchesAll(record, filters));
      view = { filters, records: new SortedRecords(orderBy(sort), matches) };
      this.#views.set(key, view);
    }
    return view;
  }
}

interface WordIndex {
  readonly fields: readonly string[];
  readonly records: Map<string, Set<StoredRecord>>;
}

function addWords(index: WordIndex, record: StoredRecord): void {
  for (const word of recordWords(record, index.fields)) {
    let records = index.records.get(word);
    if (records === undefined) {
      records = new Set();
      index.records.set(word, records);
    }
    records.add(record);
  }
}

function removeWords(index: WordIndex, record: StoredRecord): void {
  for (const word of recordWords(record, index.fields)) {
    const records = index.records.get(word);
    records?.delete(record);
    if (records?.size === 0) index.records.delete(word);
  }
}

function updateView(view: View, previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
  const wasIn = previous !== undefined && matchesAll(previous, view.filters);
  const isIn = next !== undefined && matchesAll(next, view.filters);
  if (wasIn && isIn) view.records.replace(previous, next);
  else if (wasIn) view.records.remove(previous);
  else if (isIn) view.records.insert(next);
}

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
    if (op === 'gt' ? compared <= 0 : op === 'gte' ? compared < 0 : op === 'lt' ? compared >= 0 : compared > 0) return false;
  }
  return true;
}

/** Names a view: its filters (case-folded where they ignore case) and its sort keys. */
function viewKey(filters: readonly Filter[], sort: readonly SortKey[]): string {
  let key = '';
  for (const filter of filters) {
    const value = filter.ignoreCase === true && typeof filter.value === 'string' ? filter.value.toLowerCase() : filter.value;
    key += `${filter.field}${filter.ignoreCase === true ? '~' : '='}${JSON.stringify(value)}&`;
  }
  for (const sortKey of sort) key += `${sortKey.descending ? '-' : '+'}${sortKey.field},`;
  return key;
}
