// A set of record ids kept in ascending order in a typed array: the lists of the word
// index (word-index.ts). Four bytes an id (eight once one passes 2^32 − 1), where a Set
// of records costs several times that, and in id order, so that lists intersect by
// binary search and a page of matches in id order is a slice. Ids arrive mostly in
// ascending order (a collection read in id order, new records), which is an append.

const FIRST_CAPACITY = 4;
const LARGEST_UINT32 = 0xffff_ffff;

export class IdList {
  #ids: Uint32Array | Float64Array;
  #length = 0;

  constructor(ids: readonly number[] = []) {
    this.#ids = new Uint32Array(Math.max(FIRST_CAPACITY, ids.length));
    for (const id of ids) this.add(id);
  }

  get length(): number {
    return this.#length;
  }

  /** The id at `index` (0 ≤ index < length). */
  at(index: number): number {
    return this.#ids[index] as number;
  }

  /** Adds `id` in its place; nothing when it is there already. */
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
  }

  /** Removes `id` if it is there. */
  remove(id: number): void {
    const at = this.positionOf(id, 0);
    if (at >= this.#length || this.#ids[at] !== id) return;
    this.#ids.copyWithin(at, at + 1, this.#length);
    this.#length--;
  }

  /** The first position from `from` on whose id is not below `id` (length when none is). */
  positionOf(id: number, from: number): number {
    let low = from;
    let high = this.#length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#ids[middle] as number) < id) low = middle + 1;
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
