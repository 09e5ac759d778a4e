// The word index of one collection's searchable fields (`q`, README: Lists), for collection-index.ts: each word of
// those fields (store/search-words.ts) → the ids of the records holding it, ascending, in an IdList (id-list.ts), or
// the id alone for a word only one record holds. Built in slices once the store opens (or on a first search), which
// wait for it (`building`).

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoredRecord } from '../records/json.ts';
import { searchWords } from './search-words.ts';
import { IdList } from './id-list.ts';

/** Time spent building between two yields to the event loop, so that other requests are answered meanwhile. */
const SLICE_MS = 10;
/** Records indexed between two looks at the clock. */
const RECORDS_PER_CHECK = 256;

type Holders = number | IdList;

export class WordIndex {
  readonly #fields: readonly string[];
  /** Word → its holders: an IdList takes far less memory than a Set of records per word. */
  readonly #holders = new Map<string, Holders>();
  /** Settles once the index is complete. */
  readonly #complete: Promise<void>;
  #built = false;
  /** Changes made while the index is being built, oldest first, to apply when it is. */
  #changes: [StoredRecord | undefined, StoredRecord | undefined][] = [];

  /**
   * Starts indexing `records` (in id order; the caller's copy, which this keeps until done), `sliceMs` of work per
   * event-loop turn.
   */
  constructor(fields: readonly string[], records: readonly StoredRecord[], sliceMs = SLICE_MS) {
    this.#fields = fields;
    this.#complete = this.#build(records, sliceMs);
  }

  /** While the index is being built, the promise of its completion. */
  get building(): Promise<void> | undefined {
    return this.#built ? undefined : this.#complete;
  }

  /** Keeps the index in step with one record's change: added, replaced or deleted. */
  update(previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
    if (!this.#built) this.#changes.push([previous, next]);
    else this.#apply(previous, next);
  }

  /** The ids of the records holding every one of `words`, ascending (the index must be built). */
  idsHolding(words: readonly string[]): readonly number[] {
    if (words.length === 0) return [];
    const lists: IdList[] = [];
    for (const word of words) {
      const holders = this.#holders.get(word);
      if (holders === undefined) return [];
      if (typeof holders === 'number') return words.every((other) => this.#holds(other, holders)) ? [holders] : [];
      lists.push(holders);
    }
    lists.sort((a, b) => a.length - b.length);
    const [rarest, ...others] = lists as [IdList, ...IdList[]];
    // Walk the rarest list; each other list is asked its bit (id-list.ts: dense), or sought from where its last search
    // ended.
    const positions = others.map(() => 0);
    const ids: number[] = [];
    rarest.forEach((id) => {
      for (let other = 0; other < others.length; other++) {
        const list = others[other] as IdList;
        if (list.dense) {
          if (!list.has(id)) return;
          continue;
        }
        const at = list.seek(id, positions[other] as number);
        positions[other] = at;
        if (at >= list.length || list.at(at) !== id) return;
      }
      ids.push(id);
    });
    return ids;
  }

  #holds(word: string, id: number): boolean {
    const holders = this.#holders.get(word);
    if (holders === undefined) return false;
    return typeof holders === 'number' ? holders === id : holders.has(id);
  }

  async #build(records: readonly StoredRecord[], sliceMs: number): Promise<void> {
    // Each word's holders are counted first, so that each list is made once, at its size: lists grown by doubling, or
    // turned from ids into bits, leave holes that the allocator does not give back to the system.
    const rooms = new Map<string, { count: number; largest: number }>();
    await this.#eachWord(records, sliceMs, (word, id) => {
      const room = rooms.get(word);
      if (room === undefined) rooms.set(word, { count: 1, largest: id });
      else if (room.largest !== id) {
        // Counted once per record: a record's words come one after another, and a word may come twice in them.
        room.count++;
        room.largest = id;
      }
    });
    await this.#eachWord(records, sliceMs, (word, id) => {
      const holders = this.#holders.get(word);
      if (typeof holders === 'object') holders.append(id);
      else if (holders === undefined) {
        const room = rooms.get(word) as { count: number; largest: number };
        this.#holders.set(word, room.count === 1 ? id : new IdList([id], room));
      }
    });
    for (const [previous, next] of this.#changes) this.#apply(previous, next);
    this.#changes = [];
    this.#built = true;
  }

  /** Calls `each` with every word of every record, and the record's id, `sliceMs` of work per event-loop turn. */
  async #eachWord(
    records: readonly StoredRecord[],
    sliceMs: number,
    each: (word: string, id: number) => void,
  ): Promise<void> {
    let sliceStarted = performance.now();
    for (let index = 0; index < records.length; index++) {
      if (index % RECORDS_PER_CHECK === 0 && performance.now() - sliceStarted >= sliceMs) {
        await yieldToEventLoop();
        sliceStarted = performance.now();
      }
      const record = records[index] as StoredRecord;
      for (const word of this.#wordsOf(record)) each(word, record.id);
    }
  }

  #apply(previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
    // A change that leaves the searchable fields as they were (a price) changes no word.
    if (previous !== undefined && next !== undefined && this.#fields.every((field) => previous[field] === next[field]))
      return;
    const kept = next === undefined ? new Set<string>() : new Set(this.#wordsOf(next));
    if (previous !== undefined)
      for (const word of this.#wordsOf(previous)) if (!kept.has(word)) this.#remove(word, previous.id);
    if (next !== undefined) for (const word of kept) this.#add(word, next.id);
  }

  /** The words of the record's searchable fields (a word may come twice: adding is idempotent). */
  #wordsOf(record: StoredRecord): string[] {
    const words: string[] = [];
    for (const field of this.#fields) {
      const value = record[field];
      if (typeof value === 'string') for (const word of searchWords(value)) words.push(word);
    }
    return words;
  }

  #add(word: string, id: number): void {
    const holders = this.#holders.get(word);
    if (holders === undefined) this.#holders.set(word, id);
    else if (typeof holders !== 'number') holders.add(id);
    else if (holders !== id) this.#holders.set(word, new IdList(holders < id ? [holders, id] : [id, holders]));
  }

  #remove(word: string, id: number): void {
    const holders = this.#holders.get(word);
    if (holders === undefined) return;
    if (typeof holders === 'number') {
      if (holders === id) this.#holders.delete(word);
      return;
    }
    holders.remove(id);
    if (holders.length === 0) this.#holders.delete(word);
  }
}
