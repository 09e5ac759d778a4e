// The words of a text as numbers, for building the word index (word-index.ts) of a search (`q`, README: Lists): the
// words search-words.ts gives, each numbered when first met, read from ASCII text without making a string for a word
// already numbered (a hash of its lower-cased characters, then a comparison), so that a catalog whose million
// descriptions repeat a few words is read at about the speed of its characters. Other text goes through searchWords.

import { searchWords } from './search-words.ts';

/** Slots in the table at first; it doubles once half of them are taken. */
const FIRST_SLOTS = 1024;
/** FNV-1a, 32 bits. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Per ASCII code: the character lower-cased if it is a letter or a digit (a word's), else 0 (between words). */
const WORD_CHARACTER = new Uint8Array(128).map((_, code) =>
  (code >= 48 && code <= 57) || (code >= 97 && code <= 122) ? code : code >= 65 && code <= 90 ? code + 32 : 0,
);

export class WordNumbers {
  /** The words, by number. */
  readonly #words: string[] = [];
  /** Each word's hash, by number. */
  #hashes = new Int32Array(FIRST_SLOTS / 2);
  /** Open addressing: a word's number + 1 in the slot its hash leads to (or a later one), 0 for an empty slot. */
  #slots = new Int32Array(FIRST_SLOTS);
  /** The numbers of the text last read. */
  #read: Int32Array = new Int32Array(64);

  /** How many words have numbers: each number is below it. */
  get count(): number {
    return this.#words.length;
  }

  /** The word numbered `number`. */
  word(number: number): string {
    return this.#words[number] as string;
  }

  /**
   * Numbers the words of `text`, in order, into `read` (a word that comes twice is there twice), and says how many:
   * they are read from `read` before the next call.
   */
  numbersIn(text: string): number {
    const count = this.#numbersOfAscii(text);
    if (count >= 0) return count;
    const words = searchWords(text);
    const read = this.#roomFor(words.length);
    words.forEach((word, index) => (read[index] = this.#numberOf(word, hashOf(word, 0, word.length))));
    return words.length;
  }

  /** The numbers the last numbersIn gave, from position 0. */
  get read(): Int32Array {
    return this.#read;
  }

  /**
   * The words of `text` numbered into #read, and how many; −1 as soon as a character is not ASCII (the words read so
   * far are then dropped: numbering one gives it a number no holder may ever use, which costs nothing).
   */
  #numbersOfAscii(text: string): number {
    let count = 0;
    let start = -1;
    let hash = FNV_OFFSET;
    let read: Int32Array = this.#read;
    const length = text.length;
    for (let index = 0; index < length; index++) {
      const code = text.charCodeAt(index);
      if (code > 0x7f) return -1;
      const lowered = WORD_CHARACTER[code] as number;
      if (lowered !== 0) {
        if (start < 0) {
          start = index;
          hash = FNV_OFFSET;
        }
        hash = Math.imul(hash ^ lowered, FNV_PRIME);
      } else if (start >= 0) {
        if (count === read.length) read = this.#roomFor(count + 1);
        read[count++] = this.#numberInText(text, start, index, hash);
        start = -1;
      }
    }
    if (start >= 0) {
      if (count === read.length) read = this.#roomFor(count + 1);
      read[count++] = this.#numberInText(text, start, length, hash);
    }
    return count;
  }

  /** #read made long enough for `count` numbers, those it holds kept. */
  #roomFor(count: number): Int32Array {
    if (count <= this.#read.length) return this.#read;
    const wider = new Int32Array(Math.max(count, 2 * this.#read.length));
    wider.set(this.#read);
    this.#read = wider;
    return wider;
  }

  /** The number of the word `text` holds from `start` to `end` (exclusive), lower-cased ASCII; numbered if new. */
  #numberInText(text: string, start: number, end: number, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const taken = slots[slot] as number;
      if (taken === 0) return this.#numberNew(text.slice(start, end).toLowerCase(), hash, slot);
      const number = taken - 1;
      if (this.#hashes[number] === hash && sameAsciiWord(this.#words[number] as string, text, start, end))
        return number;
    }
  }

  /** The number of `word` (already lower-cased, as searchWords gives it); numbered if new. */
  #numberOf(word: string, hash: number): number {
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const taken = this.#slots[slot] as number;
      if (taken === 0) return this.#numberNew(word, hash, slot);
      if (this.#hashes[taken - 1] === hash && this.#words[taken - 1] === word) return taken - 1;
    }
  }

  /** Numbers `word` into the empty `slot`, the table doubled once half full. */
  #numberNew(word: string, hash: number, slot: number): number {
    const number = this.#words.length;
    this.#words.push(word);
    if (number === this.#hashes.length) {
      const wider = new Int32Array(number * 2);
      wider.set(this.#hashes);
      this.#hashes = wider;
    }
    this.#hashes[number] = hash;
    this.#slots[slot] = number + 1;
    if (2 * this.#words.length > this.#slots.length) this.#rehash();
    return number;
  }

  #rehash(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    for (let number = 0; number < this.#words.length; number++) {
      let slot = (this.#hashes[number] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = number + 1;
    }
    this.#slots = slots;
  }
}

/** FNV-1a of the character codes of `text` from `start` to `end` (exclusive). */
function hashOf(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
  return hash;
}

/** Whether `word` is the text from `start` to `end` (exclusive) lower-cased, that text being ASCII. */
function sameAsciiWord(word: string, text: string, start: number, end: number): boolean {
  if (word.length !== end - start) return false;
  for (let index = 0; index < word.length; index++)
    if (word.charCodeAt(index) !== WORD_CHARACTER[text.charCodeAt(start + index)]) return false;
  return true;
}
