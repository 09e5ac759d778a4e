// Appending to the journal with group commit (README: Storage and durability): each commit comes numbered by the store
// (memory-store.ts: commit) and is queued; one loop writes everything queued in a single durable write, then
// acknowledges all of it, so concurrent writers share a disk flush instead of waiting for one each.

import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory } from './atomic-file.ts';
import { encodeEntry, segmentName, seqsTaken } from './journal-format.ts';
import type { Change } from './store.ts';

/**
 * On Linux a segment is opened with O_DSYNC: each write() returns once its bytes are on
 * disk, as write() then fdatasync() would, but in one system call and one trip to the
 * thread pool (POSIX.1-2017 open(): "synchronized I/O data integrity completion").
 * Elsewhere each write is followed by fdatasync().
 */
const WRITES_ARE_SYNCHRONOUS = process.platform === 'linux' && constants.O_DSYNC !== undefined;
const SEGMENT_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (WRITES_ARE_SYNCHRONOUS ? constants.O_DSYNC : 0);

/** Entries waiting to be written together, and the one promise they all wait on. */
interface Batch {
  readonly kind: 'batch';
  readonly texts: string[];
  readonly durable: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

interface RotateMarker {
  readonly kind: 'rotate';
  readonly firstSeq: number;
  readonly resolve: (finished: string[]) => void;
  readonly reject: (error: Error) => void;
}

function newBatch(): Batch {
  let resolve: () => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const durable = new Promise<void>((resolveDurable, rejectDurable) => {
    resolve = resolveDurable;
    reject = rejectDurable;
  });
  return { kind: 'batch', texts: [], durable, resolve, reject };
}

export class JournalWriter {
  readonly #directory: string;
  #file: FileHandle;
  #segmentPath: string;
  /** Segments before the current one, oldest first: replayed at start until a snapshot covers them. */
  #finishedSegments: string[];
  #lastSeq: number;
  #bytesInSegment = 0;
  /** Batches and rotations in order; the batch being written has left the queue, so new entries never join it. */
  readonly #queue: (Batch | RotateMarker)[] = [];
  #draining: Promise<void> | undefined;
  #failure: Error | undefined;

  private constructor(directory: string, file: FileHandle, segmentPath: string, finished: string[], lastSeq: number) {
    this.#directory = directory;
    this.#file = file;
    this.#segmentPath = segmentPath;
    this.#finishedSegments = finished;
    this.#lastSeq = lastSeq;
  }

  /** Opens a new segment after `lastSeq`; `existing` are the segment paths found at start. */
  static async open(directory: string, lastSeq: number, existing: readonly string[]): Promise<JournalWriter> {
    const path = join(directory, segmentName(lastSeq + 1));
    const file = await open(path, SEGMENT_FLAGS, 0o600);
    await syncDirectory(directory);
    const finished = existing.filter((segment) => segment !== path);
    const writer = new JournalWriter(directory, file, path, finished, lastSeq);
    // Segments left by earlier runs count towards compaction, so restarts do not let the journal grow unbounded.
    for (const segment of existing) writer.#bytesInSegment += (await stat(segment)).size;
    return writer;
  }

  /** True after a write failed: no later append is accepted (fail-stop). */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** The last number an entry has taken (journal-format.ts: seqsTaken). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Bytes queued or written since the current segment began (drives compaction). */
  get bytesInSegment(): number {
    return this.#bytesInSegment;
  }

  /**
   * Appends the entry numbered `seq`, which must follow every number taken so far (its changes take `seqsTaken`
   * numbers); resolves once it is on disk (written with O_DSYNC, or written and fdatasync'ed), with the rest of its
   * batch.
   */
  append(changes: readonly Change[], seq: number, at: string): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (seq <= this.#lastSeq) return Promise.reject(new Error(`journal entry ${seq} is not after ${this.#lastSeq}`));
    this.#lastSeq = seq + seqsTaken(changes) - 1;
    const text = encodeEntry(seq, changes, at);
    this.#bytesInSegment += Buffer.byteLength(text);
    let batch = this.#queue.at(-1);
    if (batch?.kind !== 'batch') {
      batch = newBatch();
      this.#queue.push(batch);
    }
    batch.texts.push(text);
    this.#drain();
    return batch.durable;
  }

  /**
   * From the next append on, entries go to a new segment. Resolves, once every entry
   * before that point is durable, with the segment files they are in. Rotated at an exact seq, so a snapshot taken
   * at that moment makes every older segment redundant.
   */
  rotate(): Promise<string[]> {
    const firstSeq = this.#lastSeq + 1;
    this.#bytesInSegment = 0;
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind: 'rotate', firstSeq, resolve, reject });
      this.#drain();
    });
  }

  /** Forgets segments that a snapshot now covers (the caller has deleted them). */
  dropFinished(paths: readonly string[]): void {
    this.#finishedSegments = this.#finishedSegments.filter((path) => !paths.includes(path));
  }

  /** The segment being appended to. */
  get currentSegment(): string {
    return this.#segmentPath;
  }

  async close(): Promise<void> {
    await this.#draining;
    await this.#file.close();
  }

  /** Starts #writeQueued unless it is running (it then takes what was queued), and again if more came as it ended. */
  #drain(): void {
    this.#draining ??= this.#writeQueued().finally(() => {
      this.#draining = undefined;
      if (this.#queue.length > 0) this.#drain();
    });
  }

  /** Takes the queue in order: each batch in one durable write, then acknowledged; each rotation a new segment. */
  async #writeQueued(): Promise<void> {
    for (let head = this.#queue.shift(); head !== undefined; head = this.#queue.shift()) {
      if (head.kind === 'rotate') {
        await this.#startSegment(head);
        continue;
      }
      try {
        if (this.#failure !== undefined) throw this.#failure;
        await writeAll(this.#file, Buffer.from(head.texts.join('')));
        if (!WRITES_ARE_SYNCHRONOUS) await this.#file.datasync();
        head.resolve();
      } catch (error) {
        // Fail-stop: after a failed write the file's tail is unknown, so refuse all later writes.
        this.#failure ??= error instanceof Error ? error : new Error(String(error));
        head.reject(this.#failure);
      }
    }
  }

  async #startSegment(marker: RotateMarker): Promise<void> {
    try {
      if (this.#failure !== undefined) throw this.#failure;
      const path = join(this.#directory, segmentName(marker.firstSeq));
      if (path === this.#segmentPath) {
        marker.resolve([...this.#finishedSegments]); // nothing was appended since the last rotation
        return;
      }
      const file = await open(path, SEGMENT_FLAGS, 0o600);
      await syncDirectory(this.#directory);
      await this.#file.close();
      this.#finishedSegments.push(this.#segmentPath);
      this.#file = file;
      this.#segmentPath = path;
      marker.resolve([...this.#finishedSegments]);
    } catch (error) {
      marker.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/**
 * Writes every byte, looping over short writes (FileHandle.appendFile does the same with
 * more overhead per call). A write that makes no progress (a full disk) throws.
 */
async function writeAll(file: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset);
    if (bytesWritten === 0) throw new Error('the journal write made no progress (is the disk full?)');
    offset += bytesWritten;
  }
}
