// A set of record ids in ascending order: the lists of the word index (word-index.ts). A short or sparse list keeps
// its ids in a typed array (four bytes an id, eight once one passes 2^32 − 1) and is searched by galloping (seek); a
// long, dense one keeps one bit per id up to its largest instead, whichever takes less room, and answers `has` in one
// step. Either takes far less than a Set of records.

const FIRST_CAPACITY = 4;
const LARGEST_UINT32 = 0xffff_ffff;
/** Lists shorter than this keep ids. */
const BITS_FROM = 256;

/** Whether bits up to `largest` take no more room than `length` ids. */
function denseEnough(length: number, largest: number): boolean {
  return length >= BITS_FROM && largest <= LARGEST_UINT32 && (largest >>> 5) + 1 <= length;
}

/** Whether a list kept as bits should go back to ids: far sparser or shorter than when it became bits. */
function tooSparse(length: number, words: number): boolean {
  return length < BITS_FROM / 2 || words > 2 * length;
}

export class IdList {
  /** The ids, ascending, while the list is sparse (undefined while it keeps bits). */
  #ids: Uint32Array | Float64Array | undefined;
  /** Bit `id` set for each id held, while the list is dense (undefined while it keeps ids). */
  #bits: Uint32Array | undefined;
  #length = 0;

  /**
   * `ids`, or, with `room`, an empty list for as many ids up to the largest (an index being built counts them first):
   * made at once as bits or as room for the ids, whichever takes less, so nothing is made twice.
   */
  constructor(ids: readonly number[] = [], room?: { readonly count: number; readonly largest: number }) {
    if (room !== undefined && denseEnough(room.count, room.largest))
      this.#bits = new Uint32Array((room.largest >>> 5) + 1);
    else this.#ids = new Uint32Array(Math.max(FIRST_CAPACITY, room?.count ?? ids.length));
    for (const id of ids) this.add(id);
  }

  get length(): number {
    return this.#length;
  }

  /** Whether the list keeps bits: `has` is then one step, and `seek` is not asked of it. */
  get dense(): boolean {
    return this.#bits !== undefined;
  }

  /** Whether `id` is in the list. */
  has(id: number): boolean {
    const bits = this.#bits;
    if (bits !== undefined) return id <= LARGEST_UINT32 && (((bits[id >>> 5] ?? 0) >>> (id & 31)) & 1) === 1;
    const at = this.positionOf(id, 0);
    return at < this.#length && this.#idsHeld()[at] === id;
  }

  /** Calls `visit` with each id, in ascending order. */
  forEach(visit: (id: number) => void): void {
    const bits = this.#bits;
    if (bits === undefined) {
      const ids = this.#idsHeld();
      for (let index = 0; index < this.#length; index++) visit(ids[index] as number);
      return;
    }
    for (let word = 0; word < bits.length; word++) {
      let held = bits[word] as number;
      while (held !== 0) {
        const lowest = held & -held;
        visit(word * 32 + 31 - Math.clz32(lowest));
        held ^= lowest;
      }
    }
  }

  /**
   * Calls `visit` with each id held here and by every one of `others`, ascending: where this list and the others keep
   * bits, a 32-bit word of each at a time (a search for words most records hold, in a catalog that reuses a few).
   */
  forEachAlsoIn(others: readonly IdList[], visit: (id: number) => void): void {
    const bits = this.#bits;
    const othersBits = others.map((other) => other.#bits);
    if (bits === undefined || !othersBits.every((other) => other !== undefined)) {
      this.forEach((id) => {
        if (others.every((other) => other.has(id))) visit(id);
      });
      return;
    }
    for (let word = 0; word < bits.length; word++) {
      let held = bits[word] as number;
      for (let other = 0; other < othersBits.length && held !== 0; other++)
        held &= (othersBits[other] as Uint32Array)[word] ?? 0;
      while (held !== 0) {
        const lowest = held & -held;
        visit(word * 32 + 31 - Math.clz32(lowest));
        held ^= lowest;
      }
    }
  }

  /** Adds `id` in its place; nothing when it is there already. Ids come mostly in ascending order (an append). */
  add(id: number): void {
    if (this.#bits !== undefined) {
      this.#addBit(id);
      return;
    }
    const ids = this.#idsHeld();
    const last = this.#length === 0 ? -1 : (ids[this.#length - 1] as number);
    if (id === last) return; // a word twice in one record, as an index is built
    if (this.#length > 0 && id < last) {
      const at = this.positionOf(id, 0);
      if (ids[at] === id) return;
      this.#makeRoom(id);
      const room = this.#idsHeld();
      room.copyWithin(at + 1, at, this.#length);
      room[at] = id;
    } else {
      this.#makeRoom(id);
      this.#idsHeld()[this.#length] = id;
    }
    this.#length++;
    const largest = this.#idsHeld()[this.#length - 1] as number;
    if (denseEnough(this.#length, largest)) this.#keepBits(largest);
  }

  /** Adds `id`, above every id held, while an index is built into the room counted for it. */
  append(id: number): void {
    const bits = this.#bits;
    if (bits !== undefined && id <= LARGEST_UINT32 && id >>> 5 < bits.length) {
      // Bits made for this id's room: set, and counted unless set already (a word twice in one record).
      const word = id >>> 5;
      const bit = 1 << (id & 31);
      if (((bits[word] as number) & bit) === 0) {
        bits[word] = (bits[word] as number) | bit;
        this.#length++;
      }
      return;
    }
    const ids = this.#ids;
    const last = ids === undefined || this.#length === 0 ? -1 : (ids[this.#length - 1] as number);
    if (ids === undefined || id < last) this.add(id); // bits, or not above every id: put in its place
    if (ids === undefined || id <= last) return; // the same id: a word twice in one record
    this.#makeRoom(id);
    this.#idsHeld()[this.#length++] = id;
  }

  /** Removes `id` if it is there. */
  remove(id: number): void {
    const bits = this.#bits;
    if (bits !== undefined) {
      if (!this.has(id)) return;
      bits[id >>> 5] = (bits[id >>> 5] as number) & ~(1 << (id & 31));
      this.#length--;
      if (tooSparse(this.#length, bits.length)) this.#keepIds();
      return;
    }
    const ids = this.#idsHeld();
    const at = this.positionOf(id, 0);
    if (at >= this.#length || ids[at] !== id) return;
    ids.copyWithin(at, at + 1, this.#length);
    this.#length--;
  }

  /** The first position from `from` on whose id is not below `id` (length when none is); a list keeping ids only. */
  positionOf(id: number, from: number): number {
    return this.#firstNotBelow(id, from, this.#length);
  }

  /**
   * positionOf, for ids sought in ascending order (an intersection): looks 1, 2, 4, … places ahead of `from` until it
   * passes `id`, then searches only that last step, so a walk through the list costs about the log of each gap rather
   * than of the whole list. A list keeping ids only.
   */
  seek(id: number, from: number): number {
    const ids = this.#idsHeld();
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

  /** The id at `position` (0 ≤ position < length); a list keeping ids only. */
  at(position: number): number {
    return this.#idsHeld()[position] as number;
  }

  /**
   * Binary search between `low` and `high` (exclusive): the first position whose id is not below `id` (high when none
   * is).
   */
  #firstNotBelow(id: number, low: number, high: number): number {
    const ids = this.#idsHeld();
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((ids[middle] as number) < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #idsHeld(): Uint32Array | Float64Array {
    if (this.#ids === undefined) throw new Error('IdList: ids asked of a list that keeps bits');
    return this.#ids;
  }

  /** Adds `id` to a list keeping bits: their room grown, or the list back to ids if `id` is far past the others. */
  #addBit(id: number): void {
    if (this.has(id)) return;
    let bits = this.#bits as Uint32Array;
    const needed = id > LARGEST_UINT32 ? Infinity : (id >>> 5) + 1;
    if (needed > bits.length) {
      if (tooSparse(this.#length + 1, needed)) {
        this.#keepIds();
        this.add(id);
        return;
      }
      const wider = new Uint32Array(Math.max(needed, Math.min(bits.length * 2, 2 * (this.#length + 1))));
      wider.set(bits);
      this.#bits = bits = wider;
    }
    bits[id >>> 5] = (bits[id >>> 5] as number) | (1 << (id & 31));
    this.#length++;
  }

  /** From ids to bits, up to `largest`. */
  #keepBits(largest: number): void {
    const ids = this.#idsHeld();
    const bits = new Uint32Array((largest >>> 5) + 1);
    for (let index = 0; index < this.#length; index++) {
      const id = ids[index] as number;
      bits[id >>> 5] = (bits[id >>> 5] as number) | (1 << (id & 31));
    }
    this.#bits = bits;
    this.#ids = undefined;
  }

  /** From bits to ids. */
  #keepIds(): void {
    const ids = new Uint32Array(Math.max(FIRST_CAPACITY, this.#length));
    let index = 0;
    this.forEach((id) => (ids[index++] = id));
    this.#ids = ids;
    this.#bits = undefined;
  }

  /** Room for one more id, in an array that can hold `id`. */
  #makeRoom(id: number): void {
    const held = this.#idsHeld();
    const wider = id > LARGEST_UINT32 && held instanceof Uint32Array;
    if (this.#length < held.length && !wider) return;
    const capacity = this.#length < held.length ? held.length : held.length * 2;
    const ids = wider || held instanceof Float64Array ? new Float64Array(capacity) : new Uint32Array(capacity);
    ids.set(held.subarray(0, this.#length));
    this.#ids = ids;
  }
}
