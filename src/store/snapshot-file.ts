// Writing one collection's snapshot (README: Storage and durability) in the layout parse-snapshot.ts reads back:
// `{next_id, journal_seq, records}`, one record per line in id order, replaced atomically (atomic-file.ts). A
// compaction serialises only the records created or changed since the last one; the others are copied as bytes.

import { readFile } from 'node:fs/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoredRecord } from '../records/json.ts';
import { writeFileAtomically } from './atomic-file.ts';

/** What a snapshot file holds and where, so the next snapshot can copy from it. */
export interface WrittenSnapshot {
  /** The records written, in id order. */
  readonly records: readonly StoredRecord[];
  /** Byte offsets of each record's JSON in the file: from `starts[i]` up to `ends[i]`. */
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  /** The file's size. */
  readonly bytes: number;
}

/** Records serialised between two yields to the event loop, so a large snapshot does not stall requests. */
const RECORDS_PER_SLICE = 2000;
/** Between two records, on their own lines. */
const SEPARATOR = ',\n    ';

/**
 * Writes the snapshot of `records` (in id order) to `path`. `previous` describes the
 * file now at `path` as this process wrote it; unchanged records are copied from it
 * when the file is still exactly that size.
 */
export async function writeSnapshot(
  path: string,
  records: readonly StoredRecord[],
  nextId: number,
  journalSeq: number,
  previous?: WrittenSnapshot,
): Promise<WrittenSnapshot> {
  const earlier = previous === undefined ? undefined : await readIfSize(path, previous.bytes);
  const out = new PieceWriter();
  const starts = new Float64Array(records.length);
  const ends = new Float64Array(records.length);
  out.text(
    `{\n  "next_id": ${nextId},\n  "journal_seq": ${journalSeq},\n  "records": ` +
      `${records.length === 0 ? '[]' : '[\n    '}`,
  );
  let serialised = 0;
  let old = 0; // the first record of `previous` not yet passed
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as StoredRecord;
    if (i > 0) out.ascii(SEPARATOR);
    if (previous !== undefined && earlier !== undefined) {
      while (old < previous.records.length && (previous.records[old] as StoredRecord).id < record.id) old++;
      // Records are immutable: the very object the previous snapshot of this process wrote has the same JSON, so its
      // bytes are copied from that file instead of being serialised again.
      if (previous.records[old] === record) {
        // A run of records written one after the other last time is one copy, separators included.
        let last = old;
        while (i + 1 < records.length && previous.records[last + 1] === records[i + 1]) {
          i++;
          last++;
        }
        const from = previous.starts[old] as number;
        const to = previous.ends[last] as number;
        const shift = out.bytes - from;
        for (let k = old; k <= last; k++) {
          starts[i - (last - k)] = (previous.starts[k] as number) + shift;
          ends[i - (last - k)] = (previous.ends[k] as number) + shift;
        }
        out.copy(earlier.subarray(from, to));
        old = last + 1;
        continue;
      }
    }
    if (serialised > 0 && serialised % RECORDS_PER_SLICE === 0) await yieldToEventLoop();
    serialised++;
    starts[i] = out.bytes;
    out.text(JSON.stringify(record));
    ends[i] = out.bytes;
  }
  out.text(records.length === 0 ? '\n}\n' : '\n  ]\n}\n');
  await writeFileAtomically(path, out.pieces());
  return { records, starts, ends, bytes: out.bytes };
}

/** The file's bytes if it has exactly `size` of them; otherwise (changed, gone) undefined, and nothing is copied. */
async function readIfSize(path: string, size: number): Promise<Buffer | undefined> {
  try {
    const bytes = await readFile(path);
    return bytes.length === size ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The file being built: text gathered into blocks of about 64 KiB, and byte ranges copied as they are. */
class PieceWriter {
  readonly #pieces: Uint8Array[] = [];
  #text = '';
  #bytes = 0;

  /** Bytes so far. */
  get bytes(): number {
    return this.#bytes;
  }

  text(text: string): void {
    this.#text += text;
    this.#bytes += Buffer.byteLength(text);
    if (this.#text.length >= 65_536) this.#flushText();
  }

  /** Text known to be ASCII: one byte per character. */
  ascii(text: string): void {
    this.#text += text;
    this.#bytes += text.length;
  }

  copy(bytes: Uint8Array): void {
    this.#flushText();
    this.#pieces.push(bytes);
    this.#bytes += bytes.length;
  }

  pieces(): Uint8Array[] {
    this.#flushText();
    return this.#pieces;
  }

  #flushText(): void {
    if (this.#text.length === 0) return;
    this.#pieces.push(Buffer.from(this.#text));
    this.#text = '';
  }
}
