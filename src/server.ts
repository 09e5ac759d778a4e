// startServer (CONTRACT §10): the app on its own node:http server, with timeouts so
// idle or slow clients cannot hold it, and caps on header size. close() stops
// accepting, lets in-flight requests finish (at most DRAIN_TIMEOUT_MS, then cuts the
// remaining connections), and writes the final snapshot.

import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { App } from './app.js';
import { createApp } from './app.js';
import { answerClientError, refuseConnect } from './http/client-errors.js';
import { closeStalledConnections } from './http/stalled-connections.js';
import type { ServerOptions } from './config.js';
import { methodsServed } from './routes.js';

export const DRAIN_TIMEOUT_MS = 10_000;
/** Larger request headers get 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

export interface RunningServer {
  /** Where the server listens, such as "http://127.0.0.1:54321". */
  readonly url: string;
  readonly app: App;
  /** Drains in-flight requests, snapshots, and stops. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const app = await createApp(options);
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = app.config;
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs, // slowloris: headers trickled byte by byte
      requestTimeout: requestTimeoutMs, // slow bodies
      keepAliveTimeout: keepAliveTimeoutMs, // idle connections
      // How often Node checks the two timeouts above (its default, 30 s, would let a slow client overstay).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeoutMs / 4)),
      maxHeaderSize: MAX_HEADER_BYTES,
      requireHostHeader: false, // checked in app.ts, so the 400 is a problem-details body like every other
    },
    app.handle,
  );
  // A connection whose answer makes no progress for this long is closed (a client that
  // stopped reading its answers).
  closeStalledConnections(server, requestTimeoutMs, (socket) => app.pendingAnswer(socket) !== undefined);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket, app.pendingAnswer(socket)));
  // Requests Node would otherwise answer itself, with no body: an Expect other than
  // 100-continue (app.ts answers 417) and CONNECT (405); and, with requireHostHeader off
  // above, a missing Host (app.ts answers 400).
  server.on('checkExpectation', app.handle);
  const allow = methodsServed();
  server.on('connect', (_req: IncomingMessage, socket: Socket) => refuseConnect(socket, allow));
  try {
    await listen(server, app.config.port, app.config.host);
  } catch (error) {
    await app.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = app.config.host.includes(':') ? `[${app.config.host}]` : app.config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    app,
    close: () => (closing ??= drainAndClose(server, app)),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function drainAndClose(server: Server, app: App): Promise<void> {
  app.beginShutdown();
  await new Promise<void>((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
  await app.close();
}
