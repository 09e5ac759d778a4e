// A set of record ids kept in ascending order in a typed array: the lists of the word index (word-index.ts). Four
// bytes an id (eight once one passes 2^32 − 1), where a Set of records costs several times that, and in id order, so
// that lists intersect by galloping search (seek) and a page of matches in id order is a slice.

const FIRST_CAPACITY = 4;
const LARGEST_UINT32 = 0xffff_ffff;
/** Lists shorter than this keep no bits (and drop theirs below half of it). */
const BITS_FROM = 256;

export class IdList {
  #ids: Uint32Array | Float64Array;
  #length = 0;
  /**
   * Bit `id` set for each id held, while the list is long and dense (the bits take no more room than the ids), so that
   * a search's rarer word checks each of its ids against a common word's list in one step (has) instead of a search.
   */
  #bits: Uint32Array | undefined;

  /** `capacity`: how many ids the list will hold, when known (an index being built counts them first). */
  constructor(ids: readonly number[] = [], capacity = ids.length) {
    this.#ids = new Uint32Array(Math.max(FIRST_CAPACITY, capacity));
    for (const id of ids) this.add(id);
  }

  get length(): number {
    return this.#length;
  }

  /** The id at `index` (0 ≤ index < length). */
  at(index: number): number {
    return this.#ids[index] as number;
  }

  /** Adds `id` in its place; nothing when it is there already. Ids come mostly in ascending order (an append). */
  add(id: number): void {
    const last = this.#length === 0 ? 0 : (this.#ids[this.#length - 1] as number);
    if (id === last) return; // a word twice in one record, as an index is built
    if (this.#length > 0 && id < last) {
      const at = this.positionOf(id, 0);
      if (this.#ids[at] === id) return;
      this.#makeRoom(id);
      this.#ids.copyWithin(at + 1, at, this.#length);
      this.#ids[at] = id;
    } else {
      this.#makeRoom(id);
      this.#ids[this.#length] = id;
    }
    this.#length++;
    this.#bitAdded(id);
  }

  /**
   * Adds `id`, above every id held, while an index is built: the list's room was counted beforehand, and its bits are
   * made once, by `settle`, when the index is complete.
   */
  append(id: number): void {
    const last = this.#length === 0 ? -1 : (this.#ids[this.#length - 1] as number);
    if (id <= last) {
      if (id < last) this.add(id); // not above every id: put in its place
      return; // the same id: a word twice in one record
    }
    this.#makeRoom(id);
    this.#ids[this.#length++] = id;
  }

  /** After appends: the bits made if the list is long and dense. */
  settle(): void {
    const largest = this.#ids[this.#length - 1] as number;
    const words = (largest >>> 5) + 1;
    const dense = this.#length >= BITS_FROM && largest <= LARGEST_UINT32 && words <= this.#length;
    this.#bits = dense ? this.#bitsOfAll(words) : undefined;
  }

  /** Removes `id` if it is there. */
  remove(id: number): void {
    const at = this.positionOf(id, 0);
    if (at >= this.#length || this.#ids[at] !== id) return;
    this.#ids.copyWithin(at, at + 1, this.#length);
    this.#length--;
    const bits = this.#bits;
    if (bits === undefined) return;
    if (this.#length < BITS_FROM / 2) this.#bits = undefined;
    else bits[id >>> 5] = (bits[id >>> 5] as number) & ~(1 << (id & 31));
  }

  /** Whether the list keeps bits: `has` is then one step. */
  get dense(): boolean {
    return this.#bits !== undefined;
  }

  /** Whether `id` is in the list. */
  has(id: number): boolean {
    const bits = this.#bits;
    if (bits !== undefined) return id <= LARGEST_UINT32 && (((bits[id >>> 5] ?? 0) >>> (id & 31)) & 1) === 1;
    const at = this.positionOf(id, 0);
    return at < this.#length && this.#ids[at] === id;
  }

  /**
   * After `id` was added: its bit set, or the bits made once the list is long and dense, or dropped once it is not (an
   * add below BITS_FROM, an id past the bits' worth).
   */
  #bitAdded(id: number): void {
    const largest = this.#ids[this.#length - 1] as number;
    const words = (largest >>> 5) + 1;
    const dense = this.#length >= BITS_FROM && largest <= LARGEST_UINT32 && words <= this.#length;
    let bits = this.#bits;
    if (!dense || bits === undefined) {
      this.#bits = dense ? this.#bitsOfAll(words) : undefined;
      return;
    }
    if (id >>> 5 >= bits.length) {
      const wider = new Uint32Array(Math.min(Math.max(bits.length * 2, words), this.#length));
      wider.set(bits);
      this.#bits = bits = wider;
    }
    bits[id >>> 5] = (bits[id >>> 5] as number) | (1 << (id & 31));
  }

  #bitsOfAll(words: number): Uint32Array {
    const bits = new Uint32Array(words);
    for (let index = 0; index < this.#length; index++) {
      const id = this.#ids[index] as number;
      bits[id >>> 5] = (bits[id >>> 5] as number) | (1 << (id & 31));
    }
    return bits;
  }

  /** The first position from `from` on whose id is not below `id` (length when none is). */
  positionOf(id: number, from: number): number {
    return this.#firstNotBelow(id, from, this.#length);
  }

  /**
   * positionOf, for ids sought in ascending order (an intersection): looks 1, 2, 4, …
   * places ahead of `from` until it passes `id`, then searches only that last step, so a
   * walk through the list costs about the log of each gap rather than of the whole list.
   */
  seek(id: number, from: number): number {
    const ids = this.#ids;
    const length = this.#length;
    let low = from;
    let ahead = from;
    let step = 1;
    while (ahead < length && (ids[ahead] as number) < id) {
      low = ahead + 1;
      ahead = low + step;
      step *= 2;
    }
    return this.#firstNotBelow(id, low, Math.min(ahead, length));
  }

  /**
   * Binary search between `low` and `high` (exclusive): the first position whose id is not below `id` (high when none
   * is).
   */
  #firstNotBelow(id: number, low: number, high: number): number {
    const ids = this.#ids;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((ids[middle] as number) < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Room for one more id, in an array that can hold `id`. */
  #makeRoom(id: number): void {
    const wider = id > LARGEST_UINT32 && this.#ids instanceof Uint32Array;
    if (this.#length < this.#ids.length && !wider) return;
    const capacity = this.#length < this.#ids.length ? this.#ids.length : this.#ids.length * 2;
    const ids = wider || this.#ids instanceof Float64Array ? new Float64Array(capacity) : new Uint32Array(capacity);
    ids.set(this.#ids.subarray(0, this.#length));
    this.#ids = ids;
  }
}
