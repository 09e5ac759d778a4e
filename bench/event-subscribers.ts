// The subscribers of the change-feed benchmark (bench/events-bench.ts): a child process
// holding many Server-Sent Events streams of GET /v1/events (README: Events) on raw node:http,
// each on its own connection, reading and discarding what arrives but for its `id:` lines,
// which it counts and checks for order. It runs apart from the benchmark so that reading a
// thousand streams does not delay the write load's timer; the benchmark drives it over the
// IPC channel, one command at a time (started by SubscriberProcess in events-bench.ts).

import type { ClientRequest } from 'node:http';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export type SubscriberCommand =
  /**
   * Opens `perToken` streams with each token (retrying a 429 while a previous round's
   * streams are let go); the first `stalled` of them stop reading once subscribed.
   */
  | {
      readonly kind: 'connect';
      readonly url: string;
      readonly tokens: readonly string[];
      readonly perToken: number;
      readonly stalled: number;
    }
  | { readonly kind: 'progress' }
  | { readonly kind: 'report' }
  | { readonly kind: 'close' };

export type SubscriberAnswer =
  | { readonly kind: 'connected'; readonly streams: number }
  | { readonly kind: 'failed'; readonly message: string }
  /** The fewest and most events any stream has received, and how many streams are still open. */
  | { readonly kind: 'progress'; readonly least: number; readonly most: number; readonly open: number }
  | { readonly kind: 'report'; readonly tallies: readonly StreamTally[] }
  | { readonly kind: 'closed' };

/** What one stream received since it was opened. */
export interface StreamTally {
  /** `id:` lines: events (these subscribers may read every product, so no heartbeat carries an id). */
  readonly received: number;
  readonly firstId: number;
  readonly lastId: number;
  /** Ids not greater than the one before: repeats or disorder. */
  readonly outOfOrder: number;
  readonly bytes: number;
  /** Why the stream ended before the benchmark closed it, if it did. */
  readonly endedEarly: string | undefined;
}

/** Streams opened at once: more would overflow the server's listen backlog. */
const CONNECTING_AT_ONCE = 50;
const ATTEMPTS = 25;
const RETRY_MS = 200;

class Subscriber {
  #received = 0;
  #firstId = 0;
  #lastId = 0;
  #outOfOrder = 0;
  #bytes = 0;
  #endedEarly: string | undefined;
  /** The unfinished last line of the previous chunk. */
  #tail: Buffer = Buffer.alloc(0);
  #request: ClientRequest | undefined;
  #closing = false;

  get received(): number {
    return this.#received;
  }

  get open(): boolean {
    return this.#request !== undefined && this.#endedEarly === undefined;
  }

  /**
   * Resolves once the stream's first bytes (its `retry:`) arrived: it is subscribed.
   * Rejects with the status of a refusal. A `stalled` stream then reads nothing more, as
   * a client that hung would: what the server sends piles up in its buffers.
   */
  connect(url: string, token: string, stalled: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${url}/v1/events`,
        { agent: false, headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`GET /v1/events answered ${res.statusCode}`));
            return;
          }
          this.#request = req;
          res.once('data', () => {
            if (stalled) res.pause();
            resolve();
          });
          res.on('data', (chunk: Buffer) => this.#read(chunk));
          res.once('close', () => this.#ended('the server closed the stream'));
        },
      );
      req.once('error', (error) => {
        if (this.#request === undefined) reject(error);
        else this.#ended(error.message);
      });
      req.end();
    });
  }

  /**
   * Counts the `id:` lines of `chunk`, read as bytes (no string is made of what arrives:
   * the subscribers should cost as little as they can beside the server they measure).
   * A line split over two chunks is completed by the next.
   */
  #read(chunk: Buffer): void {
    this.#bytes += chunk.length;
    const bytes = this.#tail.length > 0 ? Buffer.concat([this.#tail, chunk]) : chunk;
    this.#tail = EMPTY;
    let at = bytes.subarray(0, ID_LINE.length).equals(ID_LINE) ? 0 : nextIdLine(bytes, 0);
    while (at !== -1) {
      const end = bytes.indexOf(NEWLINE, at);
      if (end === -1) {
        this.#tail = bytes.subarray(at);
        return;
      }
      this.#count(digitsAt(bytes, at + ID_LINE.length, end));
      at = nextIdLine(bytes, end);
    }
    const lastLine = bytes.lastIndexOf(NEWLINE) + 1;
    // Only an unfinished line that could still become an `id:` line is kept.
    if (lastLine < bytes.length && bytes[lastLine] === ID_LINE[0]) this.#tail = Buffer.from(bytes.subarray(lastLine));
  }

  #count(id: number): void {
    if (this.#received === 0) this.#firstId = id;
    else if (!(id > this.#lastId)) this.#outOfOrder++;
    this.#lastId = id;
    this.#received++;
  }

  #ended(reason: string): void {
    if (!this.#closing) this.#endedEarly ??= reason;
  }

  close(): void {
    this.#closing = true;
    this.#request?.destroy();
  }

  tally(): StreamTally {
    return {
      received: this.#received,
      firstId: this.#firstId,
      lastId: this.#lastId,
      outOfOrder: this.#outOfOrder,
      bytes: this.#bytes,
      endedEarly: this.#endedEarly,
    };
  }
}

const ID_LINE = Buffer.from('id: ');
const NEXT_ID_LINE = Buffer.from('\nid: ');
const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/** Where the next `id:` line of `bytes` starts, searching from `from`; -1 when there is none. */
function nextIdLine(bytes: Buffer, from: number): number {
  const found = bytes.indexOf(NEXT_ID_LINE, from);
  return found === -1 ? -1 : found + 1;
}

/** The decimal number written in `bytes` from `start` to before `end`. */
function digitsAt(bytes: Buffer, start: number, end: number): number {
  let value = 0;
  for (let index = start; index < end; index++) value = value * 10 + ((bytes[index] as number) - 48);
  return value;
}

let subscribers: Subscriber[] = [];

/** Connects one subscriber, retrying a refusal (a 429 while the server lets the previous round's streams go). */
async function connectOne(url: string, token: string, stalled: boolean): Promise<Subscriber> {
  for (let attempt = 1; ; attempt++) {
    const subscriber = new Subscriber();
    try {
      await subscriber.connect(url, token, stalled);
      return subscriber;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await sleep(RETRY_MS);
    }
  }
}

async function connectAll(url: string, tokens: readonly string[], perToken: number, stalled: number): Promise<number> {
  const wanted = tokens.flatMap((token) => Array.from({ length: perToken }, () => token));
  subscribers = [];
  for (let from = 0; from < wanted.length; from += CONNECTING_AT_ONCE) {
    const batch = wanted
      .slice(from, from + CONNECTING_AT_ONCE)
      .map((token, index) => connectOne(url, token, from + index < stalled));
    subscribers.push(...(await Promise.all(batch)));
  }
  return subscribers.length;
}

async function answer(command: SubscriberCommand): Promise<SubscriberAnswer> {
  switch (command.kind) {
    case 'connect':
      return {
        kind: 'connected',
        streams: await connectAll(command.url, command.tokens, command.perToken, command.stalled),
      };
    case 'progress': {
      const counts = subscribers.map((subscriber) => subscriber.received);
      const open = subscribers.filter((subscriber) => subscriber.open).length;
      return {
        kind: 'progress',
        least: counts.length === 0 ? 0 : Math.min(...counts),
        most: counts.length === 0 ? 0 : Math.max(...counts),
        open,
      };
    }
    case 'report':
      return { kind: 'report', tallies: subscribers.map((subscriber) => subscriber.tally()) };
    case 'close':
      for (const subscriber of subscribers) subscriber.close();
      subscribers = [];
      return { kind: 'closed' };
  }
}

process.on('message', (command: SubscriberCommand) => {
  answer(command).then(
    (reply) => process.send?.(reply),
    (error: unknown) =>
      process.send?.({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
  );
});
// The benchmark gone, nothing is left to do.
process.on('disconnect', () => process.exit(0));
