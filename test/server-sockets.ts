// Test support for the load tests (slow-clients, overload): the server's side of every
// connection accepted in this process, watched through Node's `net.server.socket`
// diagnostics channel (RunningServer does not expose its node:http server), and a
// deadline for promises that must not hang.

import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** The server's side of every connection accepted in this process, while it is open. */
const serverSockets = new Set<Socket>();

subscribe('net.server.socket', (message) => {
  const { socket } = message as { socket: Socket };
  serverSockets.add(socket);
  socket.once('close', () => serverSockets.delete(socket));
});

/** The server's side of each connection `clients` opened that the server still holds open. */
export function heldByServer(clients: readonly Socket[]): Socket[] {
  const ports = new Set(clients.map((client) => client.localPort));
  return [...serverSockets].filter((socket) => ports.has(socket.remotePort));
}

/** Resolves with `promise`, or rejects naming `what` once `ms` have passed. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
