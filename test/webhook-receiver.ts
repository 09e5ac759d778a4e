// Test support for webhooks (docs/webhooks.md): a receiver on node:http (port 0) that answers each delivery as told
// (2xx, 500, slowly, never, a reset, a redirect, a 2xx then a close) and keeps what it got and the connections it took;
// a clock the delivery worker is handed, moved by hand; and a signature check written here from the Standard Webhooks
// specification, independent of the server's own code.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WebhookClock } from '../src/config/server-options.ts';

/** How the receiver answers a delivery. */
export type Answer =
  | 'ok'
  | 'fail'
  | 'hang'
  | 'reset'
  | 'redirect'
  /** 204, then the connection closed by the receiver (a FIN, without a `Connection: close` header). */
  | 'ok-then-close'
  | { readonly status: number; readonly body: string; readonly delayMs?: number };

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly path: string;
  /** When it came in whole (Date.now()). */
  readonly at: number;
}

export class Receiver {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  /** What it got, in order. */
  readonly received: Received[] = [];
  /** Answers for the next deliveries, in order; then `otherwise`. */
  readonly answers: Answer[] = [];
  otherwise: Answer = 'ok';
  /** How long it takes to answer each delivery. */
  delayMs = 0;
  /** Connections it accepted, in all. */
  connections = 0;
  #waiting: (() => void)[] = [];

  private constructor(server: Server) {
    this.#server = server;
    server.on('connection', (socket: Socket) => {
      this.connections++;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => receiver?.handle(req, res));
    receiver = new Receiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** Connections open now. */
  get openConnections(): number {
    return this.#sockets.size;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Resolves once it has got `count` deliveries in all (at most 15 s). */
  async waitFor(count: number, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`the receiver got ${this.received.length} deliveries, not ${count}`);
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.received.slice(0, count);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      this.received.push({ headers: req.headers, body, path: req.url ?? '', at: Date.now() });
      for (const wake of this.#waiting.splice(0)) wake();
      const answer = this.answers.shift() ?? this.otherwise;
      const delayMs = typeof answer === 'object' ? (answer.delayMs ?? this.delayMs) : this.delayMs;
      if (delayMs > 0 && answer !== 'hang') setTimeout(() => this.answer(answer, req, res), delayMs);
      else this.answer(answer, req, res);
    });
  }

  answer(answer: Answer, req: IncomingMessage, res: ServerResponse): void {
    if (answer === 'ok') res.writeHead(204).end();
    else if (answer === 'fail') res.writeHead(500, { 'content-type': 'text/plain' }).end('the receiver is down');
    else if (answer === 'reset') req.socket.destroy();
    else if (answer === 'redirect') res.writeHead(302, { location: `${this.url}/elsewhere` }).end();
    else if (answer === 'ok-then-close') res.writeHead(204).end(() => req.socket.end());
    else if (answer !== 'hang' && !res.destroyed)
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A clock whose time moves only when the test moves it, firing the timers that fall due, in order. */
export class ManualClock implements WebhookClock {
  #now: number;
  #next = 1;
  readonly #timers = new Map<number, { readonly at: number; readonly callback: () => void }>();

  constructor(start = Date.parse('2026-03-01T12:00:00.000Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(timer: unknown): void {
    this.#timers.delete(timer as number);
  }

  /** The time the next timer falls due, if any. */
  get nextDue(): number | undefined {
    let soonest: number | undefined;
    for (const { at } of this.#timers.values()) if (soonest === undefined || at < soonest) soonest = at;
    return soonest;
  }

  /** Moves the time on by `ms`, calling each timer that falls due on the way, soonest first. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let due: [number, { readonly at: number; readonly callback: () => void }] | undefined;
      for (const entry of this.#timers)
        if (entry[1].at <= end && (due === undefined || entry[1].at < due[1].at)) due = entry;
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = end;
  }
}

/**
 * Whether `headers` sign `body` with `secret`, as the Standard Webhooks specification says, read from its text: the
 * content signed is `{webhook-id}.{webhook-timestamp}.{body}`; the key is the secret's base64 after `whsec_`; the
 * signature is HMAC-SHA256, in base64 after `v1,`; the header is a space-separated list of such signatures; compared in
 * constant time.
 */
export function verifiesStandardSignature(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  const expected = standardSignature(secret, id, timestamp, body);
  return signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value);
    const wanted = Buffer.from(expected);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  });
}

/** The base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under the secret's bytes (its base64 after `whsec_`). */
export function standardSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}
