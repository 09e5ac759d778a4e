// The word numbers (word-numbers.ts) of every record, one record after another, kept between the two passes of a word
// index's build (word-index.ts) so that the text is read once: in blocks of a fixed size, two bytes a number while
// every number fits, four after, so that nothing is copied as it grows and a million records of a dozen words take
// about 24 MB until the build ends.

/** Numbers per block: 2 or 4 MiB, each block allocated once and freed whole. */
const BLOCK = 1 << 20;
const LARGEST_SHORT = 0xffff;

export class WordSequence {
  readonly #blocks: (Uint16Array | Uint32Array | undefined)[] = [];
  /** Numbers written into the last block. */
  #filled = BLOCK;
  #wide = false;
  /** Where the next number read is: its block, and its place in it. */
  #readBlock = 0;
  #readAt = 0;

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
      block = this.#wide ? new Uint32Array(BLOCK) : new Uint16Array(BLOCK);
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
