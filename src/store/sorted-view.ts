// A sorted view of a collection's records (README: Lists): the records one set of filters keeps, as ids in one order
// (sorted-ids.ts). A write only notes its change; the view places the changes when it is next read, at once when they
// are few and in slices when many, so a view nobody reads costs writes next to nothing. A view left unread for more
// changes than sorting it again would cost asks to be dropped (collection-index.ts makes it again when next needed).

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoredRecord } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import { IndexBuilding } from './index-building.ts';
import type { Filter, SortKey } from './query.ts';
import { matchesAll } from './record-filters.ts';
import type { Ids } from './sort-in-slices.ts';
import { SortedIds } from './sorted-ids.ts';

/** Changes a read places itself: at most a few milliseconds at a million records. More are placed in slices. */
const PLACED_BY_THE_READ = 256;
/** Changes placed between two yields to the event loop while a view catches up in slices. */
const PLACED_PER_SLICE = 512;
/**
 * Placing a change costs a binary search and a move of the ids after it; sorting the view again about a pass over its
 * records: past an eighth of them in changes (never fewer than a read places), sorting again is the cheaper. Past
 * FURTHEST_BEHIND changes too, so that the record versions the changes hold stay few.
 */
const BEHIND_AT_MOST = 1 / 8;
const FURTHEST_BEHIND = 16_384;

/** One record's change: its version before (none: created) and after (none: deleted). */
type Change = readonly [StoredRecord | undefined, StoredRecord | undefined];

export class SortedView {
  readonly filters: readonly Filter[];
  /** The ids in order; undefined while first sorted. */
  #records: SortedIds | undefined;
  /** The changes not placed yet, oldest first: made while the view was sorted, or since it was last read. */
  readonly #pending: Change[] = [];
  /** While changes are placed: each record they change, as the view holds it now (SortedIds looks it up here). */
  #placedAs: Map<RecordId, StoredRecord | undefined> | undefined;
  /** While the view is first sorted, or places many changes in slices: settles when a read may go on. */
  #ready: Promise<void> | undefined;
  #dropped = false;

  /**
   * A view of `byId`'s records that `filters` keep, in `order`: `sorted` gives their ids in that order, at once or
   * (a promise) sorted in slices; a read meanwhile waits. Should sorting fail, `failed` is told (the view is dropped).
   */
  constructor(
    filters: readonly Filter[],
    order: (a: StoredRecord, b: StoredRecord) => number,
    byId: ReadonlyMap<RecordId, StoredRecord>,
    sorted: Ids | Promise<Ids>,
    failed: () => void,
  ) {
    this.filters = filters;
    const recordOf = (id: RecordId): StoredRecord | undefined =>
      this.#placedAs?.has(id) === true ? this.#placedAs.get(id) : byId.get(id);
    if (!(sorted instanceof Promise)) {
      this.#records = new SortedIds(order, sorted, recordOf);
      return;
    }
    this.#ready = sorted.then(
      (ids) => {
        this.#records = new SortedIds(order, ids, recordOf);
        this.#ready = undefined;
      },
      (error: unknown) => {
        this.#dropped = true;
        failed();
        throw error;
      },
    );
    // The requests waiting for it get the error; the view is made again by the next.
    this.#ready.catch(() => undefined);
  }

  /** Settles once the view is sorted (at once when it was sorted at once). */
  sorted(): Promise<void> {
    return this.#ready ?? Promise.resolve();
  }

  /** Notes one record's change; false once the view is so far behind that it should be dropped and sorted again. */
  note(previous: StoredRecord | undefined, next: StoredRecord | undefined): boolean {
    if (this.#dropped) return false;
    this.#pending.push([previous, next]);
    const records = this.#records;
    if (records === undefined) return true; // the changes made while it is first sorted are placed when it is read
    const limit = Math.max(PLACED_BY_THE_READ, Math.min(records.length * BEHIND_AT_MOST, FURTHEST_BEHIND));
    if (this.#pending.length <= limit) return true;
    this.#dropped = true; // a catch-up in slices stops at its next slice
    return false;
  }

  /** The view's ids with every change placed; throws IndexBuilding while it is sorted or places many changes. */
  current(): SortedIds {
    if (this.#ready !== undefined) throw new IndexBuilding(this.#ready);
    const records = this.#records as SortedIds;
    if (this.#pending.length === 0) return records;
    if (this.#pending.length <= PLACED_BY_THE_READ) {
      this.#placeAll(records);
      return records;
    }
    this.#ready = this.#placeInSlices(records).finally(() => (this.#ready = undefined));
    throw new IndexBuilding(this.#ready);
  }

  #placeAll(records: SortedIds): void {
    const placedAs = new Map<RecordId, StoredRecord | undefined>();
    this.#placedAs = placedAs;
    this.#notePlacedAs(placedAs, 0);
    for (const change of this.#pending.splice(0)) this.#place(records, placedAs, change);
    this.#placedAs = undefined;
  }

  /** As #placeAll, a slice at a time; the changes noted meanwhile are placed too, in their turn. */
  async #placeInSlices(records: SortedIds): Promise<void> {
    const placedAs = new Map<RecordId, StoredRecord | undefined>();
    this.#placedAs = placedAs;
    let noted = 0;
    while (this.#pending.length > 0 && !this.#dropped) {
      noted = this.#notePlacedAs(placedAs, noted);
      const slice = this.#pending.splice(0, PLACED_PER_SLICE);
      noted -= slice.length;
      for (const change of slice) this.#place(records, placedAs, change);
      if (this.#pending.length > 0) await yieldToEventLoop();
    }
    this.#placedAs = undefined;
  }

  /**
   * Each record the pending changes from `from` on change, as the view holds it (the version before its first pending
   * change), unless already known; the ids are in their places by those versions until their own changes are placed.
   */
  #notePlacedAs(placedAs: Map<RecordId, StoredRecord | undefined>, from: number): number {
    for (let index = from; index < this.#pending.length; index++) {
      const [previous, next] = this.#pending[index] as Change;
      const id = (previous ?? next)?.id as RecordId;
      if (!placedAs.has(id)) placedAs.set(id, previous);
    }
    return this.#pending.length;
  }

  #place(records: SortedIds, placedAs: Map<RecordId, StoredRecord | undefined>, [previous, next]: Change): void {
    updateList(records, this.filters, previous, next);
    placedAs.set((previous ?? next)?.id as RecordId, next);
  }
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
