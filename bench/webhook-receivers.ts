// The webhooks benchmark's receivers (bench/webhooks-bench.ts), a child process of their own: a node:http server that
// answers 204 as soon as a delivery's body is in, one path per subscription, checking each signature (the Standard
// Webhooks algorithm), the webhook-ids' order and the lag from the event's `at`; beside it a dead receiver that accepts
// and never answers, and a port where nothing listens. Driven over the IPC channel (receiver-process.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { verifiesStandardSignature } from '../test/webhook-receiver.ts';

export type ReceiverCommand =
  /** Starts the servers (once). */
  | { readonly kind: 'listen' }
  /** The live subscriptions from now on, each its path on the live server and its secret; tallies start afresh. */
  | { readonly kind: 'expect'; readonly subscriptions: readonly { readonly path: string; readonly secret: string }[] }
  /** Deliveries, lags and receipt times are counted afresh from now on (the tallies per subscription go on). */
  | { readonly kind: 'mark' }
  | { readonly kind: 'progress' }
  | { readonly kind: 'report' };

export type ReceiverAnswer =
  | { readonly kind: 'listening'; readonly live: number; readonly hanging: number; readonly refusing: number }
  | { readonly kind: 'expecting' }
  | { readonly kind: 'marked' }
  /** The fewest and most distinct events any live subscription has received. */
  | { readonly kind: 'progress'; readonly least: number; readonly most: number }
  | { readonly kind: 'report'; readonly report: ReceiversReport }
  | { readonly kind: 'failed'; readonly message: string };

/** What one live subscription's path received since it was expected. */
export interface DeliveryTally {
  readonly path: string;
  /** Distinct webhook-ids. */
  readonly received: number;
  /** A webhook-id received again (at least once allows it after an attempt that was not acknowledged). */
  readonly repeated: number;
  /** A webhook-id lower than one received before it, not seen before. */
  readonly outOfOrder: number;
  readonly badSignatures: number;
  /** Deliveries that were not the feed's event as a receiver expects it (no JSON, or no id or `at`, or another id). */
  readonly malformed: number;
  readonly firstId: number;
  readonly lastId: number;
  /** The sum of the distinct ids: equal on every path when all received the same events. */
  readonly idSum: number;
}

/** Since the last mark: the deliveries, when the first and last came, and the lag from `at` to receipt. */
export interface ReceiversReport {
  readonly tallies: readonly DeliveryTally[];
  readonly deliveries: number;
  /** Epoch ms of the first and last delivery since the mark; undefined when none came. */
  readonly firstAt: number | undefined;
  readonly lastAt: number | undefined;
  readonly lagMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Requests to a path no live subscription has. */
  readonly strays: number;
  /** Connections the receiver that never answers accepted, since it started. */
  readonly hangingConnections: number;
}

class PathTally {
  readonly #path: string;
  readonly #secret: string;
  readonly #seen = new Set<number>();
  #repeated = 0;
  #outOfOrder = 0;
  #badSignatures = 0;
  #malformed = 0;
  #firstId = 0;
  #lastId = 0;
  #idSum = 0;

  constructor(path: string, secret: string) {
    this.#path = path;
    this.#secret = secret;
  }

  get received(): number {
    return this.#seen.size;
  }

  /** Checks one delivery; its event's `at` in epoch ms, when it is well formed. */
  take(req: IncomingMessage, body: string): number | undefined {
    if (!verifiesStandardSignature(this.#secret, req.headers, body)) this.#badSignatures++;
    const id = Number(req.headers['webhook-id']);
    let event: { id?: unknown; at?: unknown };
    try {
      event = JSON.parse(body) as { id?: unknown; at?: unknown };
    } catch {
      event = {};
    }
    const at = typeof event.at === 'string' ? Date.parse(event.at) : Number.NaN;
    if (!Number.isSafeInteger(id) || event.id !== id || Number.isNaN(at)) {
      this.#malformed++;
      return undefined;
    }
    if (this.#seen.has(id)) this.#repeated++;
    else {
      if (id < this.#lastId) this.#outOfOrder++;
      if (this.#seen.size === 0) this.#firstId = id;
      this.#seen.add(id);
      this.#idSum += id;
      this.#lastId = Math.max(this.#lastId, id);
    }
    return at;
  }

  tally(): DeliveryTally {
    return {
      path: this.#path,
      received: this.#seen.size,
      repeated: this.#repeated,
      outOfOrder: this.#outOfOrder,
      badSignatures: this.#badSignatures,
      malformed: this.#malformed,
      firstId: this.#firstId,
      lastId: this.#lastId,
      idSum: this.#idSum,
    };
  }
}

let paths = new Map<string, PathTally>();
let lags: number[] = [];
let firstAt: number | undefined;
let lastAt: number | undefined;
let strays = 0;
let hangingConnections = 0;
let listening: Extract<ReceiverAnswer, { kind: 'listening' }> | undefined;

function receive(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    res.writeHead(204).end();
    const receivedAt = Date.now();
    const tally = paths.get(req.url ?? '');
    if (tally === undefined) {
      strays++;
      return;
    }
    const at = tally.take(req, Buffer.concat(chunks).toString('utf8'));
    if (at === undefined) return;
    lags.push(receivedAt - at);
    firstAt ??= receivedAt;
    lastAt = receivedAt;
  });
}

function listenOn(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function listen(): Promise<Extract<ReceiverAnswer, { kind: 'listening' }>> {
  if (listening !== undefined) return listening;
  const live = createServer(receive);
  // Accepts, reads what it is sent, and never answers: the worker's attempt ends at its own timeout.
  const sockets = new Set<Socket>();
  const hanging = createTcpServer((socket) => {
    hangingConnections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.resume();
  });
  // A port that was free a moment ago, closed again: nothing listens there (a refused connection).
  const closed = createTcpServer();
  const refusing = await listenOn(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  listening = { kind: 'listening', live: await listenOn(live), hanging: await listenOn(hanging), refusing };
  return listening;
}

/** The pooled lag percentiles of `values` (sorted here). */
function lagSummary(values: number[]): ReceiversReport['lagMs'] {
  values.sort((a, b) => a - b);
  const at = (fraction: number): number =>
    values[Math.min(values.length - 1, Math.floor(values.length * fraction))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: values[values.length - 1] ?? 0 };
}

async function answer(command: ReceiverCommand): Promise<ReceiverAnswer> {
  switch (command.kind) {
    case 'listen':
      return listen();
    case 'expect':
      paths = new Map(command.subscriptions.map(({ path, secret }) => [path, new PathTally(path, secret)]));
      return { kind: 'expecting' };
    case 'mark':
      lags = [];
      firstAt = undefined;
      lastAt = undefined;
      return { kind: 'marked' };
    case 'progress': {
      const counts = [...paths.values()].map((tally) => tally.received);
      return {
        kind: 'progress',
        least: counts.length === 0 ? 0 : Math.min(...counts),
        most: counts.length === 0 ? 0 : Math.max(...counts),
      };
    }
    case 'report':
      return {
        kind: 'report',
        report: {
          tallies: [...paths.values()].map((tally) => tally.tally()),
          deliveries: lags.length,
          firstAt,
          lastAt,
          lagMs: lagSummary([...lags]),
          strays,
          hangingConnections,
        },
      };
  }
}

process.on('message', (command: ReceiverCommand) => {
  answer(command).then(
    (reply) => process.send?.(reply),
    (error: unknown) =>
      process.send?.({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
  );
});
// The benchmark gone, nothing is left to do.
process.on('disconnect', () => process.exit(0));
