// Reading a snapshot file record by record (README: Storage and durability), so that a large collection is never one
// string in memory beside its parsed records: the layout snapshot-file.ts writes is read line by line. A file in any
// other layout (written or edited by hand) is read whole and parsed by parse-snapshot.ts, which also words the error
// for a damaged file.

import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { StoredRecord } from '../records/json.ts';
import type { CollectionState } from './collection-state.ts';
import { isNextId } from './collection-state.ts';
import type { Snapshot } from './parse-snapshot.ts';
import { checkedRecord, parseSnapshot } from './parse-snapshot.ts';

/** The lines before the records, as snapshot-file.ts writes them. */
const NEXT_ID = /^ {2}"next_id": (\d{1,16}),$/;
const JOURNAL_SEQ = /^ {2}"journal_seq": (\d{1,16}),$/;
/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/** The snapshot at `path`, or undefined when there is none; throws an Error saying what is wrong with a damaged one. */
export async function readSnapshotFile(path: string): Promise<Snapshot | undefined> {
  let streamed: Snapshot | undefined;
  try {
    streamed = await readLineByLine(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return streamed ?? parseSnapshot(await readFile(path, 'utf8'));
}

/** The snapshot when the file has snapshot-file.ts's layout, with ids rising; otherwise undefined. */
export async function readLineByLine(path: string): Promise<Snapshot | undefined> {
  const reader = new LayoutReader();
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: CHUNK_BYTES })) {
    const text = rest + (chunk as string);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      if (!reader.line(text.slice(start, end))) return undefined;
      start = end + 1;
    }
    rest = text.slice(start);
  }
  if (rest !== '' && !reader.line(rest)) return undefined;
  return reader.snapshot();
}

/** The layout snapshot-file.ts writes, followed line by line. */
class LayoutReader {
  #expect: 'open' | 'next_id' | 'journal_seq' | 'records' | 'record' | 'end' | 'nothing' = 'open';
  #nextId = 0;
  #journalSeq = 0;
  #state: CollectionState | undefined;
  #previousId = 0;
  #index = 0;
  /** The last record line ended with a comma: another must follow, not the closing bracket. */
  #more = false;

  /** Takes the next line; false when the file is not in the layout (the whole-file parse then decides). */
  line(line: string): boolean {
    switch (this.#expect) {
      case 'open':
        this.#expect = 'next_id';
        return line === '{';
      case 'next_id': {
        const match = NEXT_ID.exec(line);
        this.#nextId = Number(match?.[1]);
        this.#expect = 'journal_seq';
        return match !== null && isNextId(this.#nextId);
      }
      case 'journal_seq': {
        const match = JOURNAL_SEQ.exec(line);
        this.#journalSeq = Number(match?.[1]);
        this.#expect = 'records';
        return match !== null && Number.isSafeInteger(this.#journalSeq);
      }
      case 'records':
        this.#state = { nextId: this.#nextId, records: new Map() };
        this.#expect = line === '  "records": []' ? 'end' : 'record';
        return line === '  "records": []' || line === '  "records": [';
      case 'record':
        return this.#record(line);
      case 'end':
        this.#expect = 'nothing';
        return line === '}';
      default:
        return false;
    }
  }

  #record(line: string): boolean {
    if (line === '  ]') {
      this.#expect = 'end';
      return !this.#more && this.#index > 0;
    }
    if (this.#index > 0 && !this.#more) return false;
    this.#more = line.endsWith(',');
    const record = parsedRecord(line, this.#index++, this.#nextId);
    // A record out of id order, or one that does not parse: the whole file decides (and words the error).
    if (record === undefined || record.id <= this.#previousId) return false;
    this.#previousId = record.id;
    (this.#state as CollectionState).records.set(record.id, Object.freeze(record));
    return true;
  }

  /** The snapshot, once the file has ended where the layout does. */
  snapshot(): Snapshot | undefined {
    return this.#expect === 'nothing' && this.#state !== undefined
      ? { state: this.#state, journalSeq: this.#journalSeq }
      : undefined;
  }
}

/** A record line (`    {…},`), checked; undefined when it is not one. */
function parsedRecord(line: string, index: number, nextId: number): StoredRecord | undefined {
  if (!line.startsWith('    {')) return undefined;
  const json = line.endsWith(',') ? line.slice(4, -1) : line.slice(4);
  try {
    return checkedRecord(JSON.parse(json), index, nextId);
  } catch {
    return undefined;
  }
}
