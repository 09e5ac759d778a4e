// Requests Node's HTTP parser rejects before any handler runs: a request line or
// headers that are malformed, headers over the size cap (431, RFC 6585 §5), or a
// client too slow to send its headers (408, RFC 9110 §15.5.9). They still get a JSON
// problem body, and the connection is closed, since its framing cannot be trusted.

import type { Socket } from 'node:net';
import type { ErrorCode } from './errors.js';
import { ERROR_STATUS, STATUS_TITLES } from './errors.js';
import { newRequestId } from './request-id.js';

const CAUSES: Readonly<Record<string, { code: ErrorCode; detail: string }>> = {
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', detail: 'the request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', detail: 'the request took too long to arrive' },
};
const MALFORMED = { code: 'malformed_request' as const, detail: 'the request is not valid HTTP/1.1' };

export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { code, detail } = CAUSES[error.code ?? ''] ?? MALFORMED;
  const status = ERROR_STATUS[code];
  const title = STATUS_TITLES[status] ?? 'Error';
  const requestId = newRequestId();
  const body = JSON.stringify({ type: 'about:blank', title, status, code, detail, request_id: requestId });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
