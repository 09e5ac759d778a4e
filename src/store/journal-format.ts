// The journal's on-disk format (README: Storage and durability): JSON Lines, one committed write per line, numbered
// by `seq`; a write that touches several records (a user and their orders) is one line, replayed all or nothing.
// The journal is also the change feed's history (README: Events; feed/): a line carries when it was written (`at`),
// and each change of a declared record its event facts (`created`, `under`, `owner`).

import { basename } from 'node:path';
import type { JsonObject } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import { isStringId } from '../records/record-id.ts';
import { isStoredRecord } from './collection-state.ts';
import type { Change, EventFacts, StoredCollection } from './store.ts';
import { COLLECTION_NAME_PATTERN } from './store.ts';

export interface JournalEntry {
  readonly seq: number;
  /** When it was committed (ISO 8601, UTC); absent in entries written before the change feed. */
  readonly at?: string;
  readonly changes: readonly Change[];
}

/**
 * The numbers an entry takes: one per change (at least one), seq, seq+1, …, so every event has its own id; the next
 * entry's seq follows the last of them.
 */
export function seqsTaken(changes: readonly Change[]): number {
  return Math.max(1, changes.length);
}

const SEGMENT_NAME = /^journal-(\d{12})\.jsonl$/;

/** Segment files are named by the first seq they may hold: `journal-000000000042.jsonl`. */
export function segmentName(firstSeq: number): string {
  return `journal-${String(firstSeq).padStart(12, '0')}.jsonl`;
}

/**
 * The segments (paths, oldest first, followed by a segment starting at `nextFirstSeq`)
 * whose every number is before `keptFrom`: a segment ends where the next one begins.
 */
export function segmentsBefore(paths: readonly string[], nextFirstSeq: number, keptFrom: number): string[] {
  return paths.filter((_path, index) => {
    const next = paths[index + 1];
    const end = (next === undefined ? nextFirstSeq : (segmentFirstSeq(basename(next)) ?? nextFirstSeq)) - 1;
    return end < keptFrom;
  });
}

/** The first seq of a segment file name, or undefined for any other file. */
export function segmentFirstSeq(fileName: string): number | undefined {
  const match = SEGMENT_NAME.exec(fileName);
  return match === null ? undefined : Number(match[1]);
}

/**
 * One line: `{"seq":1,"at":"…","changes":[{"put":"products","created":true,"under":[],"record":{…}},
 * {"delete":"orders","id":7,"under":[5],"owner":5}]}`.
 * Written out by hand, as JSON.stringify of that shape would, without building the shape
 * first (an entry is encoded for every write); collection names and ISO dates need no escaping. Ids are JSON: an
 * integer bare, a uuid or string id quoted (`{"delete":"boards","id":"road-map","under":[]}`).
 */
export function encodeEntry(seq: number, changes: readonly Change[], at?: string): string {
  let line = at === undefined ? `{"seq":${seq},"changes":[` : `{"seq":${seq},"at":"${at}","changes":[`;
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index] as Change;
    if (index > 0) line += ',';
    line +=
      change.kind === 'put'
        ? `{"put":"${change.collection}"${encodeFacts(change.event)},"record":` +
          `${change.json ?? JSON.stringify(change.record)}}`
        : `{"delete":"${change.collection}","id":${encodeId(change.id)}${encodeFacts(change.event)}}`;
  }
  return `${line}]}\n`;
}

function encodeFacts(facts: EventFacts | undefined): string {
  if (facts === undefined) return '';
  const created = facts.type === 'created' ? ',"created":true' : '';
  const owner = facts.owner === undefined ? '' : `,"owner":${facts.owner}`;
  return `${created},"under":[${encodeIds(facts.under)}]${owner}`;
}

/** An id as JSON: an integer as it is (the common case, on every write), a string quoted and escaped. */
function encodeId(id: RecordId): string {
  return typeof id === 'number' ? String(id) : JSON.stringify(id);
}

/** Ids as the inside of a JSON array. */
function encodeIds(ids: readonly RecordId[]): string {
  let text = '';
  for (let index = 0; index < ids.length; index++) {
    text += index === 0 ? encodeId(ids[index] as RecordId) : `,${encodeId(ids[index] as RecordId)}`;
  }
  return text;
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
  const at = parsed['at'];
  if (at !== undefined && (typeof at !== 'string' || Number.isNaN(Date.parse(at)))) return undefined;
  const changes: Change[] = [];
  for (const item of parsed['changes'] as unknown[]) {
    const change = decodeChange(item);
    if (change === undefined) return undefined;
    changes.push(change);
  }
  return at === undefined ? { seq, changes } : { seq, at, changes };
}

function decodeChange(item: unknown): Change | undefined {
  if (!isJsonObject(item)) return undefined;
  const put = item['put'];
  if (isCollection(put) && isStoredRecord(item['record'])) {
    const facts = decodeFacts(item, item['created'] === true ? 'created' : 'updated');
    if (facts === null) return undefined;
    const record = Object.freeze(item['record']);
    return facts === undefined
      ? { kind: 'put', collection: put, record }
      : { kind: 'put', collection: put, record, event: facts };
  }
  const removed = item['delete'];
  const id = item['id'];
  if (isCollection(removed) && isId(id)) {
    const facts = decodeFacts(item, 'deleted');
    if (facts === null) return undefined;
    return facts === undefined
      ? { kind: 'delete', collection: removed, id }
      : { kind: 'delete', collection: removed, id, event: facts };
  }
  return undefined;
}

/**
 * A change's event facts; undefined when it has none (an idempotency key, an entry from before the feed), null when
 * they are malformed.
 */
function decodeFacts(item: JsonObject, type: EventFacts['type']): EventFacts | undefined | null {
  const under = item['under'];
  if (under === undefined) return undefined;
  if (!Array.isArray(under) || !under.every(isId)) return null;
  const owner = item['owner'];
  if (owner === undefined) return { type, under };
  // Owners are users, whose ids are integers.
  return isIntegerId(owner) ? { type, under, owner } : null;
}

/** An id of any kind, as isStoredRecord (collection-state.ts) takes: which kind its collection has is not read here. */
function isId(value: unknown): value is RecordId {
  return isIntegerId(value) || isStringId(value);
}

function isIntegerId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

function isCollection(value: unknown): value is StoredCollection {
  return typeof value === 'string' && COLLECTION_NAME_PATTERN.test(value);
}

/**
 * A line the snapshots already cover, kept as text: only its seq is read at start, and the
 * change feed decodes the rest later (store/journal-history.ts), since no record needs it.
 */
export interface UndecodedEntry {
  readonly seq: number;
  /** Its line number in its segment, for a message naming it. */
  readonly line: number;
  readonly text: string;
}

export interface ParsedSegment {
  readonly entries: readonly JournalEntry[];
  /** Bytes up to the end of the last good line: a torn last line lies beyond. */
  readonly goodBytes: number;
  /** True when the last line was incomplete or unreadable (a write cut short by a crash). */
  readonly tornTail: boolean;
}

/** A segment read at start: entries the snapshots cover may stay undecoded. */
export interface ReadSegment extends Omit<ParsedSegment, 'entries'> {
  readonly entries: readonly (JournalEntry | UndecodedEntry)[];
}

export function isUndecoded(entry: JournalEntry | UndecodedEntry): entry is UndecodedEntry {
  return 'text' in entry;
}

/**
 * Splits a segment into entries. Only the last line may be damaged (a crash during an
 * append that was never acknowledged); damage anywhere else throws, naming the line.
 */
export function parseSegment(text: string): ParsedSegment {
  // With nothing covered, every line is decoded.
  return readSegment(text, 0) as ParsedSegment;
}

/**
 * parseSegment, but a line written as plainrest writes it (`{"seq":N,…`) whose seq is at
 * most `coveredThrough` (the snapshots hold its changes) is kept undecoded: a start after a
 * clean stop reads the feed's history without parsing it first (100,000 events: about
 * 300 ms). Its seq is still checked to follow the line before it.
 */
export function readSegment(text: string, coveredThrough: number): ReadSegment {
  const entries: (JournalEntry | UndecodedEntry)[] = [];
  let offset = 0;
  let lineNumber = 0;
  let previousSeq = 0;
  while (offset < text.length) {
    lineNumber++;
    const newline = text.indexOf('\n', offset);
    const seq = newline === -1 ? undefined : leadingSeq(text, offset);
    const entry: JournalEntry | UndecodedEntry | undefined =
      seq !== undefined && seq <= coveredThrough
        ? { seq, line: lineNumber, text: text.slice(offset, newline) }
        : newline === -1
          ? undefined
          : decodeEntry(text.slice(offset, newline));
    if (entry === undefined) {
      // Only the last line may be unreadable: a batch cut short by a crash can leave a
      // partial line, or (blocks written out of order) garbage that still ends in a
      // newline. It was never acknowledged. Damage anywhere before it is corruption.
      const isLast = newline === -1 || newline === text.length - 1;
      if (isLast) return { entries, goodBytes: Buffer.byteLength(text.slice(0, offset)), tornTail: true };
      throw new Error(`line ${lineNumber} is not a journal entry`);
    }
    if (entries.length > 0 && entry.seq <= previousSeq)
      throw new Error(`line ${lineNumber} has seq ${entry.seq} out of order`);
    previousSeq = entry.seq;
    entries.push(entry);
    offset = newline + 1;
  }
  return { entries, goodBytes: Buffer.byteLength(text), tornTail: false };
}

const SEQ_PREFIX = '{"seq":';

/**
 * The seq of a line beginning `{"seq":N,` as encodeEntry writes it (N without leading zeros); undefined for any other
 * line.
 */
function leadingSeq(text: string, offset: number): number | undefined {
  if (!text.startsWith(SEQ_PREFIX, offset)) return undefined;
  let at = offset + SEQ_PREFIX.length;
  let seq = 0;
  const first = at;
  for (let code = text.charCodeAt(at); code >= 48 && code <= 57; code = text.charCodeAt(++at))
    seq = seq * 10 + (code - 48);
  const digits = at - first;
  if (digits === 0 || digits > 15 || (digits > 1 && text.charCodeAt(first) === 48) || text.charCodeAt(at) !== 44)
    return undefined;
  return seq >= 1 ? seq : undefined;
}
