// The list indexes of one collection (README: Lists): all records in id order, an equality index per filtered field,
// sorted views (one set of filters, one sort order; one key serves both directions) and a word index per set of
// searchable fields (`q`), each but the first built ahead or when a list first needs it, then kept up to date. A page
// is a lookup and a slice; bounds and other operators scan what equality filters or an `in`'s buckets leave.

import type { StoredRecord } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import { RecentlyUsed } from './recently-used.ts';
import { EqualityIndex } from './equality-index.ts';
import { BY_ID, keyOrder, orderBy, SortedRecords } from './sorted-records.ts';
import type { Condition, Filter, Query, QueryResult, SortKey } from './query.ts';
import { matchesAll, passesQuery } from './record-filters.ts';
import { SortedView, viewKey, withoutIdOnly } from './sorted-view.ts';
import { OneOfBuckets } from './one-of-buckets.ts';
import { WordIndex } from './word-index.ts';
import { idsAtOnce, sortedInSlices } from './sort-in-slices.ts';
import { SortedIds } from './sorted-ids.ts';
import { IndexBuilding } from './index-building.ts';

/** Sorted views kept at most; beyond it, one not used lately is dropped (recently-used.ts). */
const MAX_VIEWS = 16;
/** An equality bucket this small is sorted per request: cheaper than keeping a view. */
const SORT_PER_REQUEST_UP_TO = 64;

/** A view larger than this is sorted in slices (sort-in-slices.ts): its first request waits, others go on. */
const SORT_IN_SLICES_FROM = 20_000;

const NO_MATCH: QueryResult = Object.freeze({ records: [], total: 0 });

export class CollectionIndex {
  readonly #all: SortedRecords;
  /** Per filtered field, built when first filtered on: filtered lists, the unique-email check, one user's orders. */
  readonly #equality = new Map<string, EqualityIndex>();
  readonly #views = new RecentlyUsed<string, SortedView>(MAX_VIEWS);
  /**
   * Per set of searchable fields: each word → the ids of the records holding it, so a search costs the records
   * holding its rarest word, not a scan. Built on the first search, in slices while other requests go on
   * (word-index.ts).
   */
  readonly #words = new Map<string, WordIndex>();
  /** The collection's records by id, kept by the store in step with this index. */
  readonly #byId: ReadonlyMap<RecordId, StoredRecord>;
  /**
   * For uuid and string ids (record-id.ts): each id's number in the word indexes, which keep numbers (word-index.ts),
   * given in id order at start and then as records come (never taken back: an id made again keeps its number).
   */
  readonly #numbers = new Map<RecordId, number>();
  /** The ids by number − 1. */
  readonly #numbered: RecordId[] = [];

  constructor(byId: ReadonlyMap<RecordId, StoredRecord>) {
    this.#byId = byId;
    this.#all = new SortedRecords(BY_ID, [...byId.values()]);
    if (typeof this.#all.first()?.id === 'string') for (const record of this.#all.toArray()) this.#numberOf(record);
  }

  /** A record's number in the word indexes: its integer id, or the number given its uuid or string id. */
  readonly #numberOf = (record: StoredRecord): number => {
    const id = record.id;
    if (typeof id === 'number') return id;
    let number = this.#numbers.get(id);
    if (number === undefined) {
      this.#numbered.push(id);
      number = this.#numbered.length;
      this.#numbers.set(id, number);
    }
    return number;
  };

  /** Keeps every index in step with one record's change: added, replaced or deleted. */
  update(previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
    if (next !== undefined && typeof next.id === 'string') this.#numberOf(next);
    if (previous !== undefined && next !== undefined) this.#all.replace(previous, next);
    else if (previous !== undefined) this.#all.remove(previous);
    else if (next !== undefined) this.#all.insert(next);
    for (const index of this.#equality.values()) index.update(previous, next);
    for (const index of this.#words.values()) index.update(previous, next);
    for (const [key, view] of this.#views.entries()) if (!view.note(previous, next)) this.#views.delete(key);
  }

  /** The page `query` asks for and how many records match; throws IndexBuilding while an index it needs is built. */
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
    const perRequest = query.ranges !== undefined || query.conditions !== undefined || query.anyOf !== undefined;
    if (filters.length <= 1 && sort.length === 0 && !perRequest) {
      return { records: narrowest.slice(offset, offset + limit), total: narrowest.length };
    }
    // Bounds and the other operators vary from request to request: the records they keep are picked out per request,
    // not kept in a view.
    if (narrowest.length <= SORT_PER_REQUEST_UP_TO || perRequest)
      return this.#picked(query, narrowest, narrowestFilter);
    // One key descending is read from the order of it ascending: one view serves both. By id ascending is no sort.
    const [only] = sort;
    const reversed = sort.length === 1 && only !== undefined && only.descending;
    const ascending = withoutIdOnly(reversed ? [{ field: only.field, descending: false }] : sort);
    const sorted =
      filters.length <= 1 && ascending.length === 0 ? narrowest : this.#sorted(filters, ascending, narrowest);
    const page = reversed
      ? sorted.sliceGroupsReversed(offset, offset + limit, keyOrder(only.field))
      : sorted.slice(offset, offset + limit);
    return { records: page, total: sorted.length };
  }

  /**
   * The page of the records that pass `query`, picked from `narrowest` (all that `narrowestFilter` keeps), or from the
   * buckets of an `in` on an indexed field when they hold fewer; sorted per request.
   */
  #picked(query: Query, narrowest: SortedRecords, narrowestFilter: Filter | undefined): QueryResult {
    const { filters, sort, offset, limit } = query;
    const oneOf = this.#narrowestOneOf(query.conditions ?? [], narrowest.length);
    const onlyOneOf = oneOf !== undefined && filters.length === 0 && query.conditions?.length === 1;
    if (onlyOneOf && sort.length === 0 && query.ranges === undefined && query.anyOf === undefined) {
      // Already in the order asked for: only the page's records are merged.
      return { records: oneOf.firstInIdOrder(offset + limit).slice(offset), total: oneOf.length };
    }
    // An `in`'s buckets are put in id order only when no sort follows; `narrowest` passes its own filter already.
    const candidates =
      oneOf === undefined ? narrowest.toArray() : sort.length > 0 ? oneOf.records() : oneOf.firstInIdOrder();
    const checked = oneOf === undefined ? filters.filter((filter) => filter !== narrowestFilter) : filters;
    const matches = candidates.filter((record) => passesQuery(record, checked, query));
    if (sort.length > 0) matches.sort(orderBy(sort));
    return { records: matches.slice(offset, offset + limit), total: matches.length };
  }

  /** The buckets of the `in` among `conditions` whose values hold the fewest records, if fewer than `than`. */
  #narrowestOneOf(conditions: readonly Condition[], than: number): OneOfBuckets | undefined {
    let narrowest: OneOfBuckets | undefined;
    for (const condition of conditions) {
      if (condition.op !== 'in') continue;
      const index = this.#equalityIndex(condition.field, condition.ignoreCase === true);
      const buckets = new Set<SortedRecords>();
      for (const value of condition.values) {
        const bucket = index.bucket(value);
        if (bucket !== undefined) buckets.add(bucket);
      }
      const oneOf = new OneOfBuckets([...buckets]);
      if (oneOf.length < (narrowest?.length ?? than)) narrowest = oneOf;
    }
    return narrowest;
  }

  /**
   * The records of the view of `filters` in `sort`; throws IndexBuilding while it is sorted or catches up with many
   * changes (MemoryStore.read).
   */
  #sorted(filters: readonly Filter[], sort: readonly SortKey[], narrowest: SortedRecords): SortedIds {
    return this.#view(filters, sort, narrowest).current();
  }

  /** `q`: the records holding every word (in id order), then the filters, bounds, sort and page. */
  #searched(query: Query, fields: readonly string[], words: readonly string[]): QueryResult {
    const index = this.#wordIndex(fields);
    const building = index.building;
    // A search asked while the index is built waits for it (MemoryStore.read).
    if (building !== undefined) throw new IndexBuilding(building);
    const ids = index.idsHolding(words);
    const { offset, limit } = query;
    const perRequest = query.ranges !== undefined || query.conditions !== undefined || query.anyOf !== undefined;
    // The numbers of uuid and string ids are not in id order: their records are sorted below.
    const inIdOrder = this.#numbered.length === 0;
    if (query.filters.length === 0 && !perRequest && query.sort.length === 0 && inIdOrder) {
      // Already in the order asked for: only the page's records are looked up.
      return { records: this.#recordsOf(ids.slice(offset, offset + limit)), total: ids.length };
    }
    const matches = this.#recordsOf(ids).filter((record) => passesQuery(record, query.filters, query));
    if (query.sort.length > 0 || !inIdOrder) matches.sort(orderBy(query.sort));
    return { records: matches.slice(offset, offset + limit), total: matches.length };
  }

  /** The records of the word indexes' numbers (#numberOf). */
  #recordsOf(numbers: readonly number[]): StoredRecord[] {
    const records: StoredRecord[] = [];
    const numbered = this.#numbered;
    for (const number of numbers) {
      const record = this.#byId.get(numbered.length === 0 ? number : (numbered[number - 1] as RecordId));
      if (record !== undefined) records.push(record);
    }
    return records;
  }

  /** Starts building the word index of `fields` (if not yet), in slices; settles once it is built. */
  prepareSearch(fields: readonly string[]): Promise<void> {
    return this.#wordIndex(fields).building ?? Promise.resolve();
  }

  /**
   * Starts sorting all records by `field` (if not yet), in slices once there are many; settles once they are sorted.
   * The view serves `field` ascending and descending.
   */
  prepareSort(field: string): Promise<void> {
    const sort = withoutIdOnly([{ field, descending: false }]);
    return sort.length === 0 ? Promise.resolve() : this.#view([], sort, this.#all).sorted();
  }

  #wordIndex(fields: readonly string[]): WordIndex {
    const key = fields.join(',');
    let index = this.#words.get(key);
    if (index === undefined) {
      const records = this.#all.toArray();
      // In the order of their numbers: ids' own for integers, else as numbered.
      if (this.#numbered.length > 0) records.sort((a, b) => this.#numberOf(a) - this.#numberOf(b));
      const built = new WordIndex(fields, records, undefined, this.#numberOf);
      // Should building fail, the next search starts again (those waiting get the error).
      built.building?.catch(() => this.#words.delete(key));
      this.#words.set(key, built);
      index = built;
    }
    return index;
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

  #view(filters: readonly Filter[], sort: readonly SortKey[], narrowest: SortedRecords): SortedView {
    const key = viewKey(filters, sort);
    let view = this.#views.get(key);
    if (view === undefined) {
      const all = narrowest.toArray();
      const matches = filters.length === 0 ? all : all.filter((record) => matchesAll(record, filters));
      const order = orderBy(sort);
      const sorted =
        matches.length < SORT_IN_SLICES_FROM ? idsAtOnce(matches.sort(order)) : sortedInSlices(matches, sort, order);
      const made: SortedView = new SortedView(filters, order, this.#byId, sorted, () => {
        if (this.#views.peek(key) === made) this.#views.delete(key);
      });
      this.#views.set(key, made);
      view = made;
    }
    return view;
  }
}
