// The word index of one collection's searchable fields (`q`, README: Lists), for collection-index.ts: each word of
// those fields (store/search-words.ts) → the numbers of the records holding it (their ids; for uuid and string ids, a
// number collection-index.ts gives each), ascending, in an IdList (id-list.ts), or the number alone for a word only
// one record holds. Built in slices once the store opens (or on a first search), which wait for it (`building`).

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoredRecord } from '../records/json.ts';
import { searchWords } from './search-words.ts';
import { IdList } from './id-list.ts';
import { WordNumbers } from './word-numbers.ts';
import { WordSequence } from './word-sequence.ts';

/** Time spent building between two yields to the event loop, so that other requests are answered meanwhile. */
const SLICE_MS = 10;
/** Records indexed between two looks at the clock. */
const RECORDS_PER_CHECK = 256;

type Holders = number | IdList;

/** A record's number in the index: its id, in a collection of integer ids. */
const integerId = (record: StoredRecord): number => record.id as number;

export class WordIndex {
  readonly #fields: readonly string[];
  /** Word → its holders: an IdList takes far less memory than a Set of records per word. */
  readonly #holders = new Map<string, Holders>();
  /** Settles once the index is complete. */
  readonly #complete: Promise<void>;
  #built = false;
  /** Changes made while the index is being built, oldest first, to apply when it is. */
  #changes: [StoredRecord | undefined, StoredRecord | undefined][] = [];
  /** Each record's number, rising with the records' order as given. */
  readonly #numberOf: (record: StoredRecord) => number;

  /**
   * Starts indexing `records` (in the order of their numbers, `numberOf`'s: by default their integer ids; the caller's
   * copy, which this keeps until done), `sliceMs` of work per event-loop turn.
   */
  constructor(
    fields: readonly string[],
    records: readonly StoredRecord[],
    sliceMs = SLICE_MS,
    numberOf: (record: StoredRecord) => number = integerId,
  ) {
    this.#fields = fields;
    this.#numberOf = numberOf;
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

  /** The numbers of the records holding every one of `words`, ascending (the index must be built). */
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
    // Walk the rarest list where the lists keeping bits (id-list.ts: dense) hold it too; each other list is sought from
    // where its last search ended.
    const dense = others.filter((list) => list.dense);
    const sparse = others.filter((list) => !list.dense);
    const positions = sparse.map(() => 0);
    const ids: number[] = [];
    rarest.forEachAlsoIn(dense, (id) => {
      for (let other = 0; other < sparse.length; other++) {
        const list = sparse[other] as IdList;
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
    // The text is read once, its words numbered without making strings (word-numbers.ts): each record's distinct
    // word numbers are kept in order (word-sequence.ts) and each word's holders counted, so that each list is then
    // made once, at its size (lists grown by doubling, or turned from ids into bits, leave holes that the allocator
    // does not give back to the system), and filled from the numbers kept.
    const numbers = new WordNumbers();
    const sequence = new WordSequence();
    /** Per word number: how many records hold it, and the last (largest) id holding it. */
    const counts: number[] = [];
    const lastIds: number[] = [];
    /** The distinct words of the record being read, as numbers. */
    const distinct: number[] = [];
    await this.#eachRecord(records, sliceMs, (record) => {
      const id = this.#numberOf(record);
      distinct.length = 0;
      for (const field of this.#fields) {
        const value = record[field];
        if (typeof value !== 'string') continue;
        const read = numbers.numbersIn(value);
        const words = numbers.read;
        for (let index = 0; index < read; index++) {
          const word = words[index] as number;
          if (word === counts.length) {
            counts.push(0);
            lastIds.push(0);
          }
          // Counted once per record: a word may come twice in a record's fields.
          if (lastIds[word] === id) continue;
          lastIds[word] = id;
          counts[word] = (counts[word] as number) + 1;
          distinct.push(word);
        }
      }
      sequence.push(distinct.length);
      for (const word of distinct) sequence.push(word);
    });
    // A word held once is kept as its holder's id, known already: its list is never made.
    const lists: (IdList | undefined)[] = counts.map((held, word) =>
      held > 1 ? new IdList([], { count: held, largest: lastIds[word] as number }) : undefined,
    );
    await this.#eachRecord(records, sliceMs, (record) => {
      for (let left = sequence.shift(); left > 0; left--) lists[sequence.shift()]?.append(this.#numberOf(record));
    });
    for (let word = 0; word < counts.length; word++) {
      const held = counts[word] as number;
      if (held > 0)
        this.#holders.set(numbers.word(word), held === 1 ? (lastIds[word] as number) : (lists[word] as IdList));
    }
    for (const [previous, next] of this.#changes) this.#apply(previous, next);
    this.#changes = [];
    this.#built = true;
  }

  /** Calls `each` with every record, `sliceMs` of work per event-loop turn. */
  async #eachRecord(
    records: readonly StoredRecord[],
    sliceMs: number,
    each: (record: StoredRecord) => void,
  ): Promise<void> {
    let sliceStarted = performance.now();
    for (let index = 0; index < records.length; index++) {
      if (index % RECORDS_PER_CHECK === 0 && performance.now() - sliceStarted >= sliceMs) {
        await yieldToEventLoop();
        sliceStarted = performance.now();
      }
      each(records[index] as StoredRecord);
    }
  }

  #apply(previous: StoredRecord | undefined, next: StoredRecord | undefined): void {
    // A change that leaves the searchable fields as they were (a price) changes no word.
    if (previous !== undefined && next !== undefined && this.#fields.every((field) => previous[field] === next[field]))
      return;
    const kept = next === undefined ? new Set<string>() : new Set(this.#wordsOf(next));
    if (previous !== undefined)
      for (const word of this.#wordsOf(previous)) if (!kept.has(word)) this.#remove(word, this.#numberOf(previous));
    if (next !== undefined) for (const word of kept) this.#add(word, this.#numberOf(next));
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
