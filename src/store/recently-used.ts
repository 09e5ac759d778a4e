// A Map of at most `limit` entries that forgets a little-used one to make room: the second-chance ("clock")
// approximation of least recently used. A read only marks its entry as used; when an entry must be forgotten, each
// used entry passed over goes to the back of the line, unmarked, and the first unused one is forgotten.

interface Entry<V> {
  value: V;
  used: boolean;
}

export class RecentlyUsed<K, V> {
  readonly #limit: number;
  readonly #entries = new Map<K, Entry<V>>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, not ${limit}`);
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The value for `key`, marking it used. The Map's order is left alone: moving the entry to the end on every read
   * makes V8 rebuild the table every few reads, and a long-lived Map's new table is old-generation garbage.
   */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** The value for `key`, without marking it used. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Sets the value for `key`; a new key first makes room by forgetting one entry when the map is full. */
  set(key: K, value: V): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      entry.value = value;
      entry.used = true;
      return;
    }
    if (this.#entries.size >= this.#limit) this.#forgetOne();
    this.#entries.set(key, { value, used: false });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Each key with its value, without marking them used; an entry may be deleted meanwhile. */
  *entries(): IterableIterator<[K, V]> {
    for (const [key, entry] of this.#entries) yield [key, entry.value];
  }

  *values(): IterableIterator<V> {
    for (const entry of this.#entries.values()) yield entry.value;
  }

  #forgetOne(): void {
    // A Map's iteration visits entries added during it, so when every entry is marked,
    // the loop comes round to the first one it sent to the back, now unmarked.
    for (const [key, entry] of this.#entries) {
      this.#entries.delete(key);
      if (!entry.used) return;
      entry.used = false;
      this.#entries.set(key, entry);
    }
  }
}
