// startServer (CONTRACT §10): the app on its own node:http server, with timeouts so
// idle or slow clients cannot hold it, and caps on header size. close() stops
// accepting, lets in-flight requests finish (at most DRAIN_TIMEOUT_MS, then cuts the
// remaining connections), and writes the final snapshot.

import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from './app.js';
import { createApp } from './app.js';
import { answerClientError } from './http/client-errors.js';
import type { ServerOptions } from './config.js';

export const DRAIN_TIMEOUT_MS = 10_000;
/** A client must send all its headers within this time (slowloris). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** …and the whole request, body included, within this time. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** An idle keep-alive connection is closed after this time. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
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
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    app.handle,
  );
  server.on('clientError', answerClientError);
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
