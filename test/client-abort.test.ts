// A client that goes away is not a server error (README: Errors: the log's error lines are
// for the server's failures). A request whose body never completes is logged once, as
// an access line with the status the server answered or would have answered: 408 when
// requestTimeoutMs cut it off (with the request id of the 408 answer), 499 "client
// closed request" (nginx's convention) when the client closed the connection mid-body.
// No error line, no stack trace. Real sockets; the logger is the embedding option.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { connect as connectSocket } from 'node:net';
import { describe, test } from 'node:test';
import type { Logger } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { bodyReadBegins, cleanUpAfterEach, eventually, startTestServer } from './helpers.ts';
import { within } from './server-sockets.ts';

const defer = cleanUpAfterEach();

interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly text: string;
}

/** A logger keeping every line, and the access lines (JSON) parsed. */
function capture(): Logger & { lines: LoggedLine[]; accessLines(): Record<string, unknown>[] } {
  const lines: LoggedLine[] = [];
  return {
    lines,
    info: (text) => lines.push({ level: 'info', text }),
    warn: (text) => lines.push({ level: 'warn', text }),
    error: (text) => lines.push({ level: 'error', text }),
    accessLines: () =>
      lines
        .filter((line) => line.level === 'info' && line.text.startsWith('{'))
        .map((line) => JSON.parse(line.text) as Record<string, unknown>),
  };
}

async function startLogged(
  options: { requestTimeoutMs?: number; headersTimeoutMs?: number } = {},
): Promise<{ api: TestServer; logger: ReturnType<typeof capture> }> {
  const logger = capture();
  const api = await startTestServer({ accessLog: 'json', logger, ...options });
  defer(() => api.close());
  logger.lines.length = 0; // the start's own lines
  return { api, logger };
}

/** Opens a connection and sends the head of a POST /v1/products with Content-Length 200 and the first 50 bytes of its body. */
function sendHalfABody(
  api: TestServer,
  extraHeaders = '',
): { socket: Socket; received: () => string; closed: Promise<void> } {
  const { hostname, port } = new URL(api.url);
  const socket = connectSocket(Number(port), hostname);
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const body = JSON.stringify({ name: 'Never finished', category: 'c', price: 1 }).padEnd(200, ' ');
  socket.on('connect', () =>
    socket.write(
      `POST /v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n${extraHeaders}\r\n${body.slice(0, 50)}`,
    ),
  );
  return { socket, received: () => text, closed };
}

/** Waiting for a connection requestTimeoutMs cuts off: longer, the timer never fired (a busy machine fires it late, not this late). */
const HANG_MS = 15_000;

/** How long after the expected lines a late extra line is looked for. */
const LATE_LINE_WINDOW_MS = 200;

/** Waits until `count` access lines are logged, then LATE_LINE_WINDOW_MS longer, so that a late extra line would be seen. */
async function accessLinesSettled(
  logger: ReturnType<typeof capture>,
  count: number,
): Promise<Record<string, unknown>[]> {
  await eventually(() =>
    assert.ok(logger.accessLines().length >= count, `${count} access lines expected: ${JSON.stringify(logger.lines)}`),
  );
  // A window for a negative check only (no line after these): it can let a late line slip by, never fail a good run.
  await new Promise((resolve) => setTimeout(resolve, LATE_LINE_WINDOW_MS));
  return logger.accessLines();
}

function assertNoErrorOrStack(logger: ReturnType<typeof capture>): void {
  assert.deepEqual(
    logger.lines.filter((line) => line.level !== 'info'),
    [],
    'no error or warning line',
  );
  for (const line of logger.lines) assert.doesNotMatch(line.text, /\n|\bat .+:\d+:\d+/, 'one line, no stack');
}

describe('client abort: a client that closes the connection mid-body', () => {
  const cases = [
    { name: 'closes it (FIN)', leave: (socket: Socket) => socket.destroy() },
    { name: 'resets it (RST)', leave: (socket: Socket) => socket.resetAndDestroy() },
  ];
  for (const c of cases) {
    test(`a client that ${c.name} is logged once, as an access line with status 499 and its request id; no error line or stack`, async () => {
      const { api, logger } = await startLogged();
      const client = sendHalfABody(api, 'X-Request-Id: goes-away-1\r\n');
      await bodyReadBegins(client.socket); // the server is now reading the body
      c.leave(client.socket);

      const lines = await accessLinesSettled(logger, 1);
      assertNoErrorOrStack(logger);
      assert.equal(lines.length, 1, JSON.stringify(logger.lines));
      assert.deepEqual(
        { ...lines[0], time: undefined, duration_ms: undefined },
        {
          time: undefined,
          request_id: 'goes-away-1',
          method: 'POST',
          path: '/v1/products',
          status: 499,
          bytes: 0,
          duration_ms: undefined,
          user_id: 1,
        },
      );
      assert.equal((await api.server.app.recordCounts()).products, 0, 'nothing was created');
      assert.equal((await api.get('/healthz')).status, 200, 'the server is still serving');
    });
  }
});

describe('client abort: a body that stops half-way until requestTimeoutMs', () => {
  const cases = [
    { name: 'with a generated request id', header: '' },
    { name: 'with the request id the client sent', header: 'X-Request-Id: slow-body-7\r\n' },
  ];
  for (const c of cases) {
    test(`${c.name}: one access line with status 408 and the X-Request-Id of the 408 answer; no error line or stack`, async () => {
      const { api, logger } = await startLogged({ requestTimeoutMs: 1000, headersTimeoutMs: 500 });
      const client = sendHalfABody(api, c.header);
      await within(client.closed, HANG_MS, 'the timed-out connection');

      const answer = client.received();
      assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      const answeredId = /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(answer)?.[1];
      assert.ok(answeredId !== undefined, answer);
      assert.ok(answer.includes(`"request_id":"${answeredId}"`), 'the body names the same request id');
      if (c.header !== '') assert.equal(answeredId, 'slow-body-7');

      const lines = await accessLinesSettled(logger, 1);
      assertNoErrorOrStack(logger);
      assert.equal(lines.length, 1, JSON.stringify(logger.lines));
      assert.equal(lines[0]?.['status'], 408);
      assert.equal(lines[0]?.['request_id'], answeredId);
      assert.equal(lines[0]?.['method'], 'POST');
      assert.equal(lines[0]?.['path'], '/v1/products');
    });
  }

  test('five such connections at once: five access lines, all 408, and nothing else in the log', async () => {
    const { api, logger } = await startLogged({ requestTimeoutMs: 1000, headersTimeoutMs: 500 });
    const clients = Array.from({ length: 5 }, () => sendHalfABody(api));
    await within(Promise.all(clients.map((client) => client.closed)), HANG_MS, 'the timed-out connections');
    const lines = await accessLinesSettled(logger, 5);
    assertNoErrorOrStack(logger);
    assert.equal(logger.lines.length, 5, JSON.stringify(logger.lines));
    assert.deepEqual(
      lines.map((line) => line['status']),
      [408, 408, 408, 408, 408],
    );
  });
});
