// The journal's on-disk format (README: Storage and durability): JSON Lines, one committed write per line,
// numbered by `seq`. A write that touches several records (a user and their orders) is
// one line, so it is replayed all or nothing. Segment files are named by the first seq
// they may hold: `journal-000000000042.jsonl`.

import { isJsonObject } from '../json.js';
import { isStoredRecord } from './collection-state.js';
import type { Change, StoredCollection } from './store.js';
import { COLLECTION_NAME } from './store.js';

export interface JournalEntry {
  readonly seq: number;
  readonly changes: readonly Change[];
}

const SEGMENT_NAME = /^journal-(\d{12})\.jsonl$/;

export function segmentName(firstSeq: number): string {
  return `journal-${String(firstSeq).padStart(12, '0')}.jsonl`;
}

/** The first seq of a segment file name, or undefined for any other file. */
export function segmentFirstSeq(fileName: string): number | undefined {
  const match = SEGMENT_NAME.exec(fileName);
  return match === null ? undefined : Number(match[1]);
}

/**
 * One line: `{"seq":1,"changes":[{"put":"products","record":{…}},{"delete":"orders","id":7}]}`.
 * Written out by hand, as JSON.stringify of that shape would, without building the shape
 * first (an entry is encoded for every write); collection names need no escaping.
 */
export function encodeEntry(seq: number, changes: readonly Change[]): string {
  let line = `{"seq":${seq},"changes":[`;
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index] as Change;
    if (index > 0) line += ',';
    line +=
      change.kind === 'put'
        ? `{"put":"${change.collection}","record":${change.json ?? JSON.stringify(change.record)}}`
        : `{"delete":"${change.collection}","id":${change.id}}`;
  }
  return `${line}]}\n`;
}

/** Decodes one line; undefined when it is not a well-formed entry. */
export function decodeEntry(line: string): JournalEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || !Array.isArray(parsed['changes'])) return undefined;
  const seq = parsed['seq'];
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return undefined;
  const changes: Change[] = [];
  for (const item of parsed['changes'] as unknown[]) {
    const change = decodeChange(item);
    if (change === undefined) return undefined;
    changes.push(change);
  }
  return { seq, changes };
}

function decodeChange(item: unknown): Change | undefined {
  if (!isJsonObject(item)) return undefined;
  const put = item['put'];
  if (isCollection(put) && isStoredRecord(item['record'])) {
    return { kind: 'put', collection: put, record: Object.freeze(item['record']) };
  }
  const removed = item['delete'];
  const id = item['id'];
  if (isCollection(removed) && typeof id === 'number' && Number.isSafeInteger(id) && id >= 1) {
    return { kind: 'delete', collection: removed, id };
  }
  return undefined;
}

function isCollection(value: unknown): value is StoredCollection {
  return typeof value === 'string' && COLLECTION_NAME.test(value);
}

export interface ParsedSegment {
  readonly entries: readonly JournalEntry[];
  /** Bytes up to the end of the last good line: a torn last line lies beyond. */
  readonly goodBytes: number;
  /** True when the last line was incomplete or unreadable (a write cut short by a crash). */
  readonly tornTail: boolean;
}

/**
 * Splits a segment into entries. Only the last line may be damaged (a crash during an
 * append that was never acknowledged); damage anywhere else throws, naming the line.
 */
export function parseSegment(text: string): ParsedSegment {
  const entries: JournalEntry[] = [];
  let offset = 0;
  let lineNumber = 0;
  while (offset < text.length) {
    lineNumber++;
    const newline = text.indexOf('\n', offset);
    const entry = newline === -1 ? undefined : decodeEntry(text.slice(offset, newline));
    if (entry === undefined) {
      // Only the last line may be unreadable: a batch cut short by a crash can leave a
      // partial line, or (blocks written out of order) garbage that still ends in a
      // newline. It was never acknowledged. Damage anywhere before it is corruption.
      const isLast = newline === -1 || newline === text.length - 1;
      if (isLast) return { entries, goodBytes: Buffer.byteLength(text.slice(0, offset)), tornTail: true };
      throw new Error(`line ${lineNumber} is not a journal entry`);
    }
    const previous = entries[entries.length - 1];
    if (previous !== undefined && entry.seq <= previous.seq) throw new Error(`line ${lineNumber} has seq ${entry.seq} out of order`);
    entries.push(entry);
    offset = newline + 1;
  }
  return { entries, goodBytes: Buffer.byteLength(text), tornTail: false };
}
