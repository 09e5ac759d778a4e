// Reading a snapshot file as a stream (README: Storage and durability), so that a large collection is never one string
// in memory beside its parsed records, whatever its layout: snapshot-file.ts's, one line as JSON.stringify writes it,
// or any other spacing. Each record, and each other member of the top-level object, is parsed on its own, and
// parse-snapshot.ts checks what they make up, wording a damaged file's error as for a whole text.

import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { StoredRecord } from '../records/json.ts';
import { compareIds, type RecordId } from '../records/record-id.ts';
import type { CollectionState } from './collection-state.ts';
import { isNextId } from './collection-state.ts';
import type { Snapshot } from './parse-snapshot.ts';
import { checkedRecord, NOT_VALID_JSON, parseSnapshot, snapshotOf } from './parse-snapshot.ts';

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * The snapshot at `path`, or undefined when there is none; throws an Error saying what is wrong with a damaged one.
 * `chunkBytes`: bytes read at a time (a test splits the text everywhere with a few).
 */
export async function readSnapshotFile(path: string, chunkBytes = CHUNK_BYTES): Promise<Snapshot | undefined> {
  const reader = new SnapshotReader();
  try {
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: chunkBytes })) {
      if (!reader.read(chunk as string)) break;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // Not an object at all: parsed whole, which says what it is.
  return reader.end() ?? parseSnapshot(await readFile(path, 'utf8'));
}

/** What comes next in the top-level object, outside a value being read. */
type Expect =
  | 'object'
  | 'key or end'
  | 'key'
  | 'colon'
  | 'value'
  | 'comma or end'
  | 'record or end'
  | 'record'
  | 'comma or bracket'
  | 'nothing';

/** A value being read: a key, a member's value, or a record. */
type Reading = 'key' | 'member' | 'record';

const QUOTE = 0x22;

/**
 * The top-level object of a snapshot's text, given chunk by chunk: its members parsed, "records" one element at a
 * time. Each value's extent is found by its brackets outside strings (a string's end by indexOf, its escapes skipped),
 * then JSON.parse reads it, so that JSON.parse alone decides what a value is.
 */
class SnapshotReader {
  #expect: Expect = 'object';
  /** The value being read, if one is. */
  #reading: Reading | undefined;
  /** The key whose value comes next. */
  #key = '';
  readonly #members = new Map<string, unknown>();
  /** The records read so far, the value of "records" while it is read (none while they go into #checked). */
  #records: unknown[] = [];
  /**
   * While "next_id" came before "records" and every record so far is valid, with ids rising: the records, checked as
   * they are read, and the next id they were checked against. Otherwise (a hand-edited file) they are kept as parsed in
   * #records, and parse-snapshot.ts checks them once the file has ended.
   */
  #checked: CollectionState | undefined;
  /** The id of the last record checked. */
  #lastId: RecordId | undefined;
  /** The value being read: its text in earlier chunks, and where it starts in this one. */
  #pieces: string[] = [];
  #start = 0;
  /** Its kind: a string, an object or array (brackets counted), or a number or literal (up to a delimiter). */
  #kind: 'string' | 'nested' | 'bare' = 'bare';
  #depth = 0;
  #inString = false;
  /** A backslash ended the last chunk inside a string: the next chunk's first character is escaped. */
  #escaped = false;
  /** In the chunk being read: the next quote and the next backslash at or after the place last looked from. */
  #quoteAt = -1;
  #backslashAt = -1;

  /** Reads the next chunk of text; false when the text is not an object (it is then parsed whole). */
  read(chunk: string): boolean {
    this.#quoteAt = -1;
    this.#backslashAt = -1;
    let at = 0;
    while (at < chunk.length) {
      if (this.#reading !== undefined) {
        const end = this.#scan(chunk, at);
        if (end < 0) return true;
        this.#took(this.#reading, this.#pieces.length === 0 ? chunk.slice(this.#start, end) : this.#joined(chunk, end));
        at = end;
        continue;
      }
      const code = chunk.charCodeAt(at);
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) {
        at++;
        continue;
      }
      if (this.#expect === 'object' && code !== 0x7b) return false;
      at = this.#punctuation(code) ? at + 1 : this.#begin(chunk, at);
    }
    return true;
  }

  /** The snapshot, once the text has ended (parse-snapshot.ts checks it); undefined if the text was not an object. */
  end(): Snapshot | undefined {
    if (this.#expect === 'object') return undefined;
    if (this.#reading !== undefined || this.#expect !== 'nothing') throw new Error(NOT_VALID_JSON);
    const checked = this.#checked;
    if (checked === undefined || this.#members.get('records') !== this.#records) return snapshotOf(this.#members);
    // Checked against a "next_id" given again after them (JSON.parse takes the last): checked again, whole.
    if (this.#members.get('next_id') !== checked.nextId) {
      this.#members.set('records', [...checked.records.values()]);
      return snapshotOf(this.#members);
    }
    return snapshotOf(this.#members, checked);
  }

  /** A record of "records", parsed: checked and kept at once while it can be (#checked), else kept as it is. */
  #record(value: unknown): void {
    const checked = this.#checked;
    if (checked !== undefined) {
      let record: StoredRecord | undefined;
      try {
        record = checkedRecord(value, checked.records.size, checked.nextId);
      } catch {
        record = undefined;
      }
      if (record !== undefined && (this.#lastId === undefined || compareIds(record.id, this.#lastId) > 0)) {
        this.#lastId = record.id;
        checked.records.set(record.id, Object.freeze(record));
        return;
      }
      // Damaged or out of order: this record and those before it are kept as they are, for parse-snapshot.ts.
      for (const earlier of checked.records.values()) this.#records.push(earlier);
      this.#checked = undefined;
    }
    this.#records.push(value);
  }

  /** Takes a character between values: true if it was the punctuation expected, false if a value begins there. */
  #punctuation(code: number): boolean {
    const expect = this.#expect;
    if (expect === 'object') this.#expect = 'key or end';
    else if ((expect === 'key or end' || expect === 'comma or end') && code === 0x7d) this.#expect = 'nothing';
    else if (expect === 'colon' && code === 0x3a) this.#expect = 'value';
    else if (expect === 'comma or end' && code === 0x2c) this.#expect = 'key';
    else if (expect === 'value' && this.#key === 'records' && code === 0x5b) {
      this.#records = [];
      this.#members.set('records', this.#records);
      const nextId = this.#members.get('next_id');
      this.#checked = isNextId(nextId) ? { nextId, records: new Map() } : undefined;
      this.#lastId = undefined;
      this.#expect = 'record or end';
    } else if ((expect === 'record or end' || expect === 'comma or bracket') && code === 0x5d)
      this.#expect = 'comma or end';
    else if (expect === 'comma or bracket' && code === 0x2c) this.#expect = 'record';
    else if ((expect === 'key or end' || expect === 'key') && code === QUOTE) return false;
    else if (expect === 'value' || expect === 'record or end' || expect === 'record') return false;
    else throw new Error(NOT_VALID_JSON);
    return true;
  }

  /** Starts reading the value whose first character is at `at`; gives the place to read it on from. */
  #begin(chunk: string, at: number): number {
    const expect = this.#expect;
    this.#reading = expect === 'value' ? 'member' : expect === 'key' || expect === 'key or end' ? 'key' : 'record';
    this.#pieces = [];
    this.#start = at;
    this.#depth = 0;
    this.#escaped = false;
    const code = chunk.charCodeAt(at);
    this.#kind = code === QUOTE ? 'string' : code === 0x7b || code === 0x5b ? 'nested' : 'bare';
    // Read from its first character: a string's opening quote, or an object's or array's bracket, which is counted.
    this.#inString = false;
    return at;
  }

  /** Reads the value on from `at`: the place just after its end, or −1 when it goes on past this chunk. */
  #scan(chunk: string, at: number): number {
    const length = chunk.length;
    let place = at;
    if (this.#kind === 'bare') {
      for (; place < length; place++) {
        const code = chunk.charCodeAt(place);
        // A comma, a closing bracket or white space ends it.
        if (code === 0x2c || code === 0x7d || code === 0x5d || code === 0x20 || code === 0x0a || code === 0x0d)
          return place;
        if (code === 0x09) return place;
      }
    } else {
      while (place < length) {
        if (this.#inString) {
          if (this.#escaped) {
            this.#escaped = false;
            place++;
            continue;
          }
          const quote = this.#stringEnd(chunk, place);
          if (quote < 0) break;
          this.#inString = false;
          place = quote + 1;
          if (this.#kind === 'string') return place;
          continue;
        }
        const code = chunk.charCodeAt(place++);
        if (code === QUOTE) this.#inString = true;
        else if (code === 0x7b || code === 0x5b) this.#depth++;
        else if ((code === 0x7d || code === 0x5d) && --this.#depth === 0) return place;
      }
    }
    this.#pieces.push(chunk.slice(this.#start));
    this.#start = 0;
    return -1;
  }

  /**
   * The place of the quote that ends the string being read, from `at` on, escapes skipped; −1 if it is not in this
   * chunk (#escaped then says whether the chunk ended in the middle of an escape).
   */
  #stringEnd(chunk: string, at: number): number {
    const length = chunk.length;
    let place = at;
    for (;;) {
      if (this.#quoteAt < place) this.#quoteAt = indexOrLength(chunk, '"', place);
      if (this.#backslashAt < place) this.#backslashAt = indexOrLength(chunk, '\\', place);
      if (this.#backslashAt >= this.#quoteAt) return this.#quoteAt < length ? this.#quoteAt : -1;
      // An escape before the quote: the backslash and the character after it are passed.
      if (this.#backslashAt + 1 >= length) {
        this.#escaped = true;
        return -1;
      }
      place = this.#backslashAt + 2;
    }
  }

  /** The value's whole text, from its pieces in earlier chunks to `end` in this one. */
  #joined(chunk: string, end: number): string {
    this.#pieces.push(chunk.slice(0, end));
    const text = this.#pieces.join('');
    this.#pieces = [];
    return text;
  }

  /** A value read whole: parsed, and kept where it belongs. */
  #took(reading: Reading, text: string): void {
    this.#reading = undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(NOT_VALID_JSON);
    }
    if (reading === 'key') {
      this.#key = value as string;
      this.#expect = 'colon';
    } else if (reading === 'member') {
      this.#members.set(this.#key, value);
      this.#expect = 'comma or end';
    } else {
      this.#record(value);
      this.#expect = 'comma or bracket';
    }
  }
}

/** The place of `search` in `text` from `from` on, or text's length when it is not there. */
function indexOrLength(text: string, search: string, from: number): number {
  const found = text.indexOf(search, from);
  return found < 0 ? text.length : found;
}
