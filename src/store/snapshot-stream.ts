// Reading a snapshot file record by record (README: Storage and durability), so that a large collection is never one
// string in memory beside its parsed records: the layout snapshot-file.ts writes is read line by line. A file in any
// other layout (written or edited by hand) is read whole and parsed by collection-state.ts, which also words the error
// for a damaged file.

import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { StoredRecord } from '../records/json.ts';
import type { CollectionState, Snapshot } from './collection-state.ts';
import { checkedRecord, parseSnapshot } from './collection-state.ts';

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
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8', highWaterMark: CHUNK_BYTES }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let nextId = 0;
  let journalSeq = 0;
  let state: CollectionState | undefined;
  let previousId = 0;
  let index = 0;
  /** Where in the layout the next line is. */
  let expect: 'open' | 'next_id' | 'journal_seq' | 'records' | 'record' | 'end' | 'nothing' = 'open';
  /** The last record line ended with a comma: another must follow, not the closing bracket. */
  let more = false;
  try {
    for await (const line of lines) {
      switch (expect) {
        case 'open':
          if (line !== '{') return undefined;
          expect = 'next_id';
          break;
        case 'next_id': {
          const match = NEXT_ID.exec(line);
          if (match === null) return undefined;
          nextId = Number(match[1]);
          expect = 'journal_seq';
          break;
        }
        case 'journal_seq': {
          const match = JOURNAL_SEQ.exec(line);
          if (match === null) return undefined;
          journalSeq = Number(match[1]);
          expect = 'records';
          break;
        }
        case 'records':
          if (!Number.isSafeInteger(nextId) || nextId < 1 || !Number.isSafeInteger(journalSeq)) return undefined;
          state = { nextId, records: new Map() };
          if (line === '  "records": []') expect = 'end';
          else if (line === '  "records": [') expect = 'record';
          else return undefined;
          break;
        case 'record': {
          if (line === '  ]') {
            if (more || index === 0) return undefined;
            expect = 'end';
            break;
          }
          if (index > 0 && !more) return undefined;
          more = line.endsWith(',');
          const record = parsedRecord(line, index++, nextId);
          // A record out of id order, or one that does not parse: the whole file decides (and words the error).
          if (record === undefined || record.id <= previousId) return undefined;
          previousId = record.id;
          (state as CollectionState).records.set(record.id, Object.freeze(record));
          break;
        }
        case 'end':
          if (line !== '}') return undefined;
          expect = 'nothing';
          break;
        default:
          return undefined;
      }
    }
  } finally {
    lines.close();
  }
  return expect === 'nothing' && state !== undefined ? { state, journalSeq } : undefined;
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
