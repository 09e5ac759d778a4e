// The word numbers (word-numbers.ts) of every record, one record after another, kept between the two passes of a word
// index's build (word-index.ts) so that the text is read once: in blocks of a fixed size, two bytes a number while
// every number fits, four after, so that nothing is copied as it grows and a million records of a dozen words take
// about 24 MB until the build ends.

/**
 * Numbers per block: 32 or 64 MiB of address space, of which only the pages written take memory. A block this large is
 * mapped from the system and given back to it whole once freed (glibc's malloc maps any request of 32 MiB or more);
 * smaller ones come from the heap malloc keeps, whose freed holes stay resident: 2 MiB blocks left some 25 MB there
 * after a million records' build.
 */
const BLOCK = 1 << 24;
/**
 * Numbers in the first block: 128 KiB, enough for a few thousand records. A small collection (one at every start of a
 * server with a handful of records) does not reserve a full block, which V8 counts as 32 MiB of external memory and
 * answers with garbage collections; a large one leaves at most this much behind in malloc's heap.
 */
const FIRST_BLOCK = 1 << 16;
const LARGEST_SHORT = 0xffff;

export class WordSequence {
  readonly #block: number;
  readonly #blocks: (Uint16Array | Uint32Array | undefined)[] = [];
  /** Numbers written into the last block. */
  #filled: number;
  #wide = false;
  /** Where the next number read is: its block, and its place in it. */
  #readBlock = 0;
  #readAt = 0;

  /** `block`: numbers per block after the first (a test makes them small). */
  constructor(block = BLOCK) {
    this.#block = block;
    this.#filled = block;
  }

  /** Adds `number` (a non-negative integer below 2^32) at the end. */
  push(number: number): void {
    const last = this.#blocks.length - 1;
    let block = this.#blocks[last];
    if (number > LARGEST_SHORT && !this.#wide) {
      this.#wide = true;
      // The short block ends here: its unwritten end is cut off, and read no further.
      if (block !== undefined) this.#blocks[last] = block.subarray(0, this.#filled);
      block = undefined;
    }
    if (block === undefined || this.#filled === block.length) {
      const size = this.#blocks.length === 0 ? Math.min(FIRST_BLOCK, this.#block) : this.#block;
      block = this.#wide ? new Uint32Array(size) : new Uint16Array(size);
      this.#blocks.push(block);
      this.#filled = 0;
    }
    block[this.#filled++] = number;
  }

  /** The first number not yet read, in the order pushed (there must be one); each block is let go once read. */
  shift(): number {
    let block = this.#blocks[this.#readBlock] as Uint16Array | Uint32Array;
    if (this.#readAt === block.length) {
      this.#blocks[this.#readBlock++] = undefined;
      block = this.#blocks[this.#readBlock] as Uint16Array | Uint32Array;
      this.#readAt = 0;
    }
    return block[this.#readAt++] as number;
  }
}
