// Connections whose answer has stopped moving are closed (RFC 9112 §9.8 lets a server close a connection at any
// time): a client that stops reading would otherwise hold its socket, and the bytes waiting for it, for ever, since
// Node's headers, request and keep-alive timeouts do not apply while an answer is pending. A connection with an answer
// pending (being prepared, or not yet taken by the client) that moves no byte for `timeoutMs` is destroyed.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface Progress {
  /** bytesRead + bytesWritten when last seen to change. */
  bytes: number;
  /** performance.now() when `bytes` last changed, or when the connection last had nothing pending. */
  since: number;
}

/**
 * How often the connections are looked at: a quarter of the timeout, between 50 ms and 1 s. One sweep does what a
 * per-socket inactivity timer would, without Node re-arming that timer on every read and write of every request.
 */
export function sweepIntervalMs(timeoutMs: number): number {
  return Math.min(1000, Math.max(50, Math.ceil(timeoutMs / 4)));
}

/**
 * Watches every connection `server` accepts until it closes. `answerPending(socket)` says
 * whether an answer on it is still being prepared (server/server.ts: pendingAnswer; Node does not know).
 */
export function closeStalledConnections(
  server: Server,
  timeoutMs: number,
  answerPending: (socket: Socket) => boolean,
): void {
  const open = new Map<Socket, Progress>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, { bytes: 0, since: performance.now() });
    socket.once('close', () => open.delete(socket));
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, progress] of open) {
      const bytes = socket.bytesRead + socket.bytesWritten;
      const waiting = socket.writableLength > 0 || answerPending(socket);
      if (!waiting || bytes !== progress.bytes) {
        progress.bytes = bytes;
        progress.since = now;
      } else if (now - progress.since >= timeoutMs) {
        socket.destroy();
      }
    }
  }, sweepIntervalMs(timeoutMs));
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
