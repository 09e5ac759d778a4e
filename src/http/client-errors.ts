// Requests Node's HTTP parser rejects before any handler runs: a malformed request line or headers, headers over the
// size cap (431, RFC 6585 §5; 414 when the request line alone overflowed it, RFC 9110 §15.5.15), or a client too slow
// to send its headers (408, RFC 9110 §15.5.9). They still get a JSON problem body, and the connection is closed,
// since its framing cannot be trusted.

import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../errors/errors.ts';
import { ERROR_STATUS, STATUS_TITLES } from '../errors/errors.ts';
import { newRequestId } from './request-id.ts';
import { MAX_URL_LENGTH } from './request-target.ts';

const CAUSES: Readonly<Record<string, { code: ErrorCode; detail: string }>> = {
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', detail: 'the request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', detail: 'the request took too long to arrive' },
};
const MALFORMED = { code: 'malformed_request' as const, detail: 'the request is not valid HTTP/1.1' };
const TARGET_TOO_LONG = {
  code: 'uri_too_long' as const,
  detail: `the request target is longer than ${MAX_URL_LENGTH} characters`,
};

/**
 * Headers overflowed while the bytes Node was parsing began with a request line longer
 * than any target the server reads: the target is what is too long, as server/listener.ts says of
 * a shorter one. (Node hands over those bytes as `rawPacket`.)
 */
function targetOverflowed(error: NodeJS.ErrnoException): boolean {
  const packet: unknown = Reflect.get(error, 'rawPacket');
  if (
    error.code !== 'HPE_HEADER_OVERFLOW' ||
    !Buffer.isBuffer(packet) ||
    !/^[A-Z]+ [^ ]/.test(packet.toString('latin1', 0, 32))
  )
    return false;
  const lineEnd = packet.indexOf('\r\n');
  return lineEnd === -1 || lineEnd > MAX_URL_LENGTH;
}

/**
 * After an error answer, the socket is closed for sending at once and destroyed a moment
 * later: destroying it at once, with the client's unread bytes still in the kernel, would
 * reset the connection and could drop the answer before the client read it.
 */
const LINGER_MS = 500;

/** A request server/listener.ts is handling, as this module needs it when the request's own bytes fail. */
export interface RequestInProgress {
  readonly requestId: string;
  readonly res: ServerResponse;
  /**
   * Set when this module answered the request itself (a 408 mid-body): server/listener.ts then writes nothing and
   * logs this.
   */
  answeredByClientErrors: { readonly status: number; readonly bytes: number } | undefined;
}

/**
 * The request server/listener.ts is handling on each connection (HTTP/1.1 hands the handler one at
 * a time), from the moment its handler waits until it settles. server/listener.ts keeps it up to date.
 */
export const requestsInProgress = new WeakMap<Socket, RequestInProgress>();

/**
 * Sockets whose bad bytes are already being answered. Node's parser stays failed, so every
 * later chunk on such a socket is another client error; they change nothing.
 */
const answering = new WeakSet<Socket>();

/** `pending` is the answer still being prepared for an earlier, complete request on this socket, if any. */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  pending: ServerResponse | undefined,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (answering.has(socket)) return;
  answering.add(socket);
  // The bad bytes came after a complete request: its answer goes first, then the connection closes with no error
  // answer (one written now would take that answer's place, and its client could not tell its request was carried out).
  // (When the request's own body is what failed, that request can never complete: answer now.)
  if (pending !== undefined && pending.req.complete) {
    pending.once('close', () => closeSoon(socket));
    return;
  }
  const request = requestsInProgress.get(socket);
  // The client closed its end in the middle of a body server/listener.ts is reading: it has gone, and
  // server/listener.ts logs the request as closed by the client; an answer would reach no one.
  if (request !== undefined && error.code === 'HPE_INVALID_EOF_STATE') {
    socket.destroy();
    return;
  }
  const { code, detail } = targetOverflowed(error) ? TARGET_TOO_LONG : (CAUSES[error.code ?? ''] ?? MALFORMED);
  answerRaw(socket, code, detail, '', request);
}

/**
 * CONNECT asks for a tunnel, which this server does not offer: 405, written by hand (Node
 * hands over the socket), with `allow` the methods the server does serve (RFC 9110 §15.5.6).
 */
export function refuseConnect(socket: Socket, allow: string): void {
  answerRaw(
    socket,
    'method_not_allowed',
    'CONNECT is not allowed here; this server offers no tunnels',
    `Allow: ${allow}\r\n`,
  );
}

/**
 * A problem-details answer written straight to the socket, which then closes. For a request server/listener.ts is
 * handling (`request`), the answer has its id and is noted for its log: server/listener.ts logs it as the request's one
 * access line.
 */
function answerRaw(
  socket: Socket,
  code: ErrorCode,
  detail: string,
  extraHeaders = '',
  request?: RequestInProgress,
): void {
  const status = ERROR_STATUS[code];
  const title = STATUS_TITLES[status] ?? 'Error';
  const requestId = request?.requestId ?? newRequestId();
  const body = JSON.stringify({ type: 'about:blank', title, status, code, detail, request_id: requestId });
  const bytes = Buffer.byteLength(body);
  socket.write(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n` +
      `X-Request-Id: ${requestId}\r\n${extraHeaders}Connection: close\r\n\r\n${body}`,
  );
  if (request !== undefined) request.answeredByClientErrors = { status, bytes };
  closeSoon(socket);
}

/** Ends the socket, then destroys it after LINGER_MS: a client that neither reads nor closes must not keep it. */
function closeSoon(socket: Socket): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
