// Slow and idle clients (the hardening issue, item 3): a body trickled byte by byte,
// a body that stops half-way, hundreds of idle keep-alive connections, hundreds of
// connections that never send a byte, a client that never reads its answers (and one
// that reads them slowly), and an answer that never comes. Each
// is cut off by a timer of src/server/server.ts (set short here through the embedding
// options), and meanwhile other clients are served at normal speed. Real sockets; the
// server's side of each connection is watched through test/server-sockets.ts. (Headers
// trickled byte by byte are in http-limits.test.ts.)

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { connect as connectSocket } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { MemoryStore } from '../src/index.ts';
import { sweepIntervalMs } from '../src/http/stalled-connections.ts';
import { createProduct, startTestServer } from './helpers.ts';
import { heldByServer, within } from './server-sockets.ts';

const TIMEOUTS = { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 1000 } as const;
/** How often Node checks the headers and request timers: min(1000, headersTimeoutMs / 4) (src/server/server.ts). */
const CHECK_INTERVAL_MS = 250;
/** Node 20 closes an idle keep-alive connection this long after keepAliveTimeout (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER). */
const KEEP_ALIVE_GRACE_MS = 1000;
/** Room for a loaded 2-core machine on top of a timer. */
const SLACK_MS = 1000;
/**
 * What a well-behaved client's request may take while the slow ones are connected: half
 * the shortest timeout, so that a request made to wait until a slow client is cut off
 * fails, while a loaded 2-core machine (250 ms seen, with other suites beside) passes.
 */
const NORMAL_LATENCY_MS = TIMEOUTS.headersTimeoutMs / 2;
/** How many idle or silent connections the crowd tests open at once. */
const CROWD = 300;

interface RawClient {
  readonly socket: Socket;
  /** When the connection was established (Date.now()). */
  readonly connectedAt: Promise<number>;
  /** Everything the server has sent so far. */
  received(): string;
  /** When the server first sent something (Date.now()), once it has. */
  readonly answeredAt: Promise<number>;
  /** When the connection closed (Date.now()). */
  readonly closedAt: Promise<number>;
}

/** A raw TCP client to the test server; `onConnect` writes whatever it likes. */
function openRawClient(api: TestServer, onConnect: (socket: Socket) => void = () => undefined): RawClient {
  const { hostname, port } = new URL(api.url);
  const socket = connectSocket(Number(port), hostname);
  let text = '';
  const connectedAt = new Promise<number>((resolve) => socket.once('connect', () => resolve(Date.now())));
  const answeredAt = new Promise<number>((resolve) => socket.once('data', () => resolve(Date.now())));
  const closedAt = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  socket.on('connect', () => onConnect(socket));
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => undefined); // a reset is one way of being cut off; 'close' follows
  return { socket, connectedAt, answeredAt, closedAt, received: () => text };
}

/**
 * A well-behaved client: GET /v1/products/1 every 100 ms until `done` settles or
 * `maxMs` have passed; returns each request's latency, connection set-up included.
 */
async function latenciesUntil(api: TestServer, done: Promise<unknown>, maxMs: number): Promise<number[]> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const latencies: number[] = [];
  const deadline = Date.now() + maxMs;
  while (!finished && Date.now() < deadline) {
    const started = performance.now();
    const response = await api.get('/v1/products/1');
    latencies.push(performance.now() - started);
    assert.equal(response.status, 200, 'a well-behaved client is answered');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return latencies;
}

/** Checks that enough requests were timed and each was fast; returns a summary for the test's diagnostics. */
function assertNormalLatency(latencies: readonly number[], minimumCount: number): string {
  assert.ok(latencies.length >= minimumCount, `only ${latencies.length} requests were timed`);
  const worst = Math.max(...latencies);
  const summary = `the slowest of ${latencies.length} well-behaved requests took ${worst.toFixed(1)} ms`;
  assert.ok(worst < NORMAL_LATENCY_MS, summary);
  return summary;
}

/**
 * Times well-behaved requests until `client`, whose POST body never completes, is cut off;
 * checks it was cut off by requestTimeoutMs (not before), told so or closed, that the
 * others were served fast, and that nothing was created. Returns the latency summary.
 */
async function assertCutOffByRequestTimeout(api: TestServer, client: RawClient, what: string): Promise<string> {
  const started = await client.connectedAt;
  const bound = TIMEOUTS.requestTimeoutMs + CHECK_INTERVAL_MS + SLACK_MS;
  const latencies = await latenciesUntil(api, client.closedAt, bound);
  const closed = await within(client.closedAt, 100, `${what} after ${bound} ms`);
  const elapsed = closed - started;
  assert.ok(elapsed >= TIMEOUTS.requestTimeoutMs - 50, `cut off after ${elapsed} ms, before requestTimeoutMs`);
  assertTimedOut(client);
  assert.equal((await api.server.app.recordCounts()).products, 1, `${what}: its POST created nothing`);
  return assertNormalLatency(latencies, 10);
}

/**
 * The server lets go of every one of `sockets` soon after their clients saw them close:
 * after an error answer it ends its side and waits for the client's end (or 500 ms).
 */
async function assertReleasedByServer(sockets: readonly Socket[]): Promise<void> {
  const deadline = Date.now() + 1000;
  while (heldByServer(sockets).length > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(heldByServer(sockets).length, 0, 'the server holds none of them any more');
}

const TIMEOUT_ANSWER =
  /^HTTP\/1\.1 408 Request Timeout\r\n[^]*\r\nConnection: close\r\n\r\n\{[^]*"code":"request_timeout"/;

/** The server either answered 408 request_timeout and closed, or just closed. */
function assertTimedOut(client: RawClient): void {
  const text = client.received();
  if (text !== '') assert.match(text, TIMEOUT_ANSWER);
}

function postHead(api: TestServer, contentLength: number): string {
  return (
    `POST /v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`
  );
}

const PRODUCT_BODY = JSON.stringify({ name: 'Slow', category: 'tools', price: 1 });

describe('slow and idle clients are cut off by the server timers while others are served', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer(TIMEOUTS);
    await createProduct(api, { name: 'Served' });
  });
  afterEach(() => api.close());

  test('a body trickled one byte per 200 ms → 408 once requestTimeoutMs has passed; nothing is created; others are served fast', async (t) => {
    const body = PRODUCT_BODY.padEnd(1000, ' ');
    let trickle: NodeJS.Timeout | undefined;
    const slow = openRawClient(api, (socket) => {
      socket.write(postHead(api, body.length));
      let sent = 0;
      trickle = setInterval(() => {
        if (socket.writable && sent < body.length) socket.write(body[sent++] as string);
      }, 200);
    });
    void slow.closedAt.finally(() => clearInterval(trickle));
    t.diagnostic(await assertCutOffByRequestTimeout(api, slow, 'the slow body'));
    assert.match(slow.received(), TIMEOUT_ANSWER, 'the slow client is told why');
  });

  test('a body that stops half-way (Content-Length 200, 100 bytes sent) → cut off by requestTimeoutMs; nothing is created', async (t) => {
    const body = PRODUCT_BODY.padEnd(200, ' ');
    const stalled = openRawClient(api, (socket) => socket.write(postHead(api, body.length) + body.slice(0, 100)));
    t.diagnostic(await assertCutOffByRequestTimeout(api, stalled, 'the stalled body'));
    assert.equal((await api.get('/v1/products')).body.meta.total, 1);
  });

  test(`${CROWD} idle keep-alive connections are closed after keepAliveTimeoutMs; while open, others are served fast`, async (t) => {
    const idle = Array.from({ length: CROWD }, () =>
      openRawClient(api, (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')),
    );
    const answered = await within(Promise.all(idle.map((client) => client.answeredAt)), 5000, 'the first answers');
    for (const client of idle)
      assert.match(client.received(), /^HTTP\/1\.1 200 OK\r\n[^]*\r\nConnection: keep-alive\r\n/);
    const sockets = idle.map((client) => client.socket);
    assert.equal(heldByServer(sockets).length, CROWD, 'the server holds every idle connection');

    const latencies: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const started = performance.now();
      assert.equal((await api.get('/v1/products/1')).status, 200);
      latencies.push(performance.now() - started);
    }
    assert.equal(heldByServer(sockets).length, CROWD, 'the idle connections were all open while the others were timed');
    t.diagnostic(assertNormalLatency(latencies, 5));

    const lastAnswer = Math.max(...answered);
    const closed = await within(
      Promise.all(idle.map((client) => client.closedAt)),
      TIMEOUTS.keepAliveTimeoutMs + KEEP_ALIVE_GRACE_MS + SLACK_MS + (lastAnswer - Math.min(...answered)),
      'the idle connections',
    );
    const idleFor = closed.map((at, i) => at - (answered[i] as number));
    assert.ok(
      Math.min(...idleFor) >= TIMEOUTS.keepAliveTimeoutMs,
      `one was closed after ${Math.min(...idleFor)} ms idle`,
    );
    await assertReleasedByServer(sockets);
  });

  test(`${CROWD} connections that never send a byte are closed by headersTimeoutMs; meanwhile others are served fast`, async (t) => {
    const silent = Array.from({ length: CROWD }, () => openRawClient(api));
    const connected = await within(Promise.all(silent.map((client) => client.connectedAt)), 5000, 'the connections');
    const allClosed = Promise.all(silent.map((client) => client.closedAt));

    const bound = TIMEOUTS.headersTimeoutMs + CHECK_INTERVAL_MS + SLACK_MS;
    const latencies = await latenciesUntil(api, allClosed, bound);
    const closed = await within(allClosed, 100, `the silent connections after ${bound} ms`);

    const openFor = closed.map((at, i) => at - (connected[i] as number));
    assert.ok(
      Math.min(...openFor) >= TIMEOUTS.headersTimeoutMs - 50,
      `one was closed after ${Math.min(...openFor)} ms`,
    );
    for (const client of silent) assertTimedOut(client);
    t.diagnostic(assertNormalLatency(latencies, 5));
    await assertReleasedByServer(silent.map((client) => client.socket));
  });

  test(`${CROWD} connections that send nothing and read nothing are released after headersTimeoutMs, though they never close their side`, async () => {
    const { hostname, port } = new URL(api.url);
    const deaf = Array.from({ length: CROWD }, () =>
      connectSocket(Number(port), hostname).on('error', () => undefined),
    );
    try {
      await within(Promise.all(deaf.map((socket) => once(socket, 'connect'))), 5000, 'the connections');
      const deadline = Date.now() + TIMEOUTS.headersTimeoutMs + CHECK_INTERVAL_MS + SLACK_MS;
      while (heldByServer(deaf).length > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const held = heldByServer(deaf);
      assert.equal(
        held.length,
        0,
        `the server still holds ${held.length} of ${CROWD} connections ${TIMEOUTS.headersTimeoutMs + CHECK_INTERVAL_MS + SLACK_MS} ms ` +
          `after they connected (${held.filter((socket) => socket.writableEnded).length} of them answered 408 and half-closed, ` +
          'waiting for the client to close): each keeps a file descriptor until the client goes away',
      );
    } finally {
      for (const socket of deaf) socket.destroy();
    }
  });
});

describe('a client that never reads its answers', () => {
  let api: TestServer;
  beforeEach(async () => {
    api = await startTestServer(TIMEOUTS);
    for (let i = 0; i < 20; i += 1) await createProduct(api, { name: `Product ${i}` });
  });
  afterEach(() => api.close());

  /** Pipelines `count` list requests (about 2 KB of answer each) without ever reading. */
  function pipelineWithoutReading(count: number): { client: RawClient; bytesQueued: number } {
    const request = `GET /v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\n\r\n`;
    const batch = request.repeat(100);
    const client = openRawClient(api, (socket) => {
      let sent = 0;
      const pump = (): void => {
        while (sent < count) {
          sent += 100;
          if (!socket.write(batch)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    client.socket.pause();
    return { client, bytesQueued: batch.length * (count / 100) };
  }

  /**
   * Waits until the server has stopped reading `client`'s requests because the answers
   * wait for it (the server's side paused, with bytes queued), or 3 s have passed: this
   * takes about 200 ms, more on a busy machine, where a fixed pause could be too short.
   */
  async function serverStopsReading(client: RawClient): Promise<void> {
    const deadline = Date.now() + 3000;
    const stopped = (): boolean =>
      heldByServer([client.socket]).some((socket) => socket.isPaused() && socket.writableLength > 0);
    while (!stopped() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  test('20,000 pipelined GETs left unread: the server stops reading them instead of buffering answers, and serves others fast', async (t) => {
    const { client, bytesQueued } = pipelineWithoutReading(20_000);
    await client.connectedAt;
    await serverStopsReading(client); // the answers it already asked for fill its buffers
    // Well inside requestTimeoutMs, after which the server drops a connection that makes no progress (the next test).
    const latencies = await latenciesUntil(api, new Promise(() => undefined), 1000);

    const [serverSide] = heldByServer([client.socket]);
    assert.ok(serverSide !== undefined, 'the connection is still open');
    assert.ok(
      serverSide.bytesRead < bytesQueued / 2,
      `the server read ${serverSide.bytesRead} of ${bytesQueued} bytes`,
    );
    assert.ok(
      serverSide.writableLength < 1024 * 1024,
      `the server buffers ${serverSide.writableLength} bytes of answers`,
    );
    // At one request per 100 ms plus its latency, a busy machine still fits four in the second.
    t.diagnostic(assertNormalLatency(latencies, 4));
    client.socket.destroy();
  });

  test('a client that reads its answers slowly but steadily is not cut off, though it takes longer than requestTimeoutMs', async () => {
    const { client } = pipelineWithoutReading(20_000);
    await client.connectedAt;
    // Reads for 20 ms every 300 ms, for one and a half request timeouts.
    const readUntil = Date.now() + TIMEOUTS.requestTimeoutMs * 1.5;
    try {
      while (Date.now() < readUntil) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        client.socket.resume();
        await new Promise((resolve) => setTimeout(resolve, 20));
        client.socket.pause();
      }
      const [serverSide] = heldByServer([client.socket]);
      assert.ok(serverSide !== undefined, 'the server still holds the connection of a client that keeps reading');
      assert.ok(client.received().length > 1024 * 1024, `it read ${client.received().length} bytes`);
    } finally {
      client.socket.destroy();
    }
  });

  test('a client that stopped reading is disconnected once requestTimeoutMs passes without progress', async () => {
    const { client } = pipelineWithoutReading(20_000);
    await client.connectedAt;
    await serverStopsReading(client); // the server's writes stall
    const [serverSide] = heldByServer([client.socket]);
    assert.ok(serverSide !== undefined, 'the connection is open');
    try {
      const bound = 2 * TIMEOUTS.requestTimeoutMs + SLACK_MS;
      await within(
        new Promise((resolve) => serverSide.once('close', resolve)),
        bound,
        `a connection whose client never reads is still held by the server ${bound} ms later (no bound on stalled answers)`,
      );
    } finally {
      client.socket.destroy();
    }
  });
});

describe('an answer that never comes', () => {
  test('a write whose persistence never settles: the connection is closed once requestTimeoutMs passes, not before', async () => {
    /** A disk that stops answering once `hang` is set (the administrator is written at start). */
    const stuckDisk = {
      hang: false,
      writable: true,
      persist(): Promise<void> {
        return this.hang ? new Promise<void>(() => undefined) : Promise.resolve();
      },
      close: async (): Promise<void> => undefined,
    };
    const api = await startTestServer({ ...TIMEOUTS, store: new MemoryStore(new Map(), stuckDisk) });
    try {
      stuckDisk.hang = true;
      const client = openRawClient(api, (socket) =>
        socket.write(postHead(api, Buffer.byteLength(PRODUCT_BODY)) + PRODUCT_BODY),
      );
      const started = await client.connectedAt;
      const bound = TIMEOUTS.requestTimeoutMs + sweepIntervalMs(TIMEOUTS.requestTimeoutMs) + SLACK_MS;
      const closed = await within(
        client.closedAt,
        bound,
        'the connection of a request whose write never became durable',
      );
      assert.ok(
        closed - started >= TIMEOUTS.requestTimeoutMs - 50,
        `closed after ${closed - started} ms, before requestTimeoutMs`,
      );
      assert.equal(client.received(), '', 'no answer: the write was never acknowledged');
    } finally {
      await api.close();
    }
  });
});
