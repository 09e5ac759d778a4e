// The application and the server it runs on (README: Embedding). createApp opens the services and builds the router;
// its App's `handle` is the request listener (listener.ts), for a host's server. startServer puts it on its own
// node:http server with timeouts and header caps, and listens before it opens the data directory: a start that cannot
// listen writes nothing. Its close() stops accepting, lets the requests in progress finish, and closes the journal.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerClientError, refuseConnect, requestsInProgress } from '../http/client-errors.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { recordedResources } from '../resources/definition.ts';
import { NO_PLAN } from '../store/store.ts';
import type { CoreDoor } from '../json-server/dialect.ts';
import { HttpError } from '../errors/errors.ts';
import type { Pipeline } from './dispatch.ts';
import { requireHostAndExpectation, runHandler } from './dispatch.ts';
import type { Edge } from './listener.ts';
import { requestListener } from './listener.ts';
import { keepNextTickShape } from './next-tick-shape.ts';
import { openServices } from './services.ts';
import { closeStalledConnections } from '../http/stalled-connections.ts';
import type { Config } from '../config/config.ts';
import type { ServerOptions } from '../config/server-options.ts';
import { resolveConfig } from '../config/config.ts';
import { buildRouter, methodsServed } from './routes.ts';
import { routeTable } from '../routing/route-table.ts';
import { resolveResources } from '../declarations/resolve-resources.ts';

/** How long close() lets in-flight requests finish before it cuts the remaining connections. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** Larger request headers get 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

export interface App {
  /** A `node:http` request listener: `http.createServer(app.handle)`. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  readonly config: Config;
  /** The resources served, compiled from the declaration. */
  readonly resources: ResourceTable;
  /**
   * How many records each collection of the change feed holds (for the start banner; not the webhooks and their
   * deliveries); read through a view where the store has them.
   */
  recordCounts(): Promise<Record<string, number>>;
  /**
   * The answer being prepared on `socket` for a request that has fully arrived (startServer asks, for a malformed
   * request pipelined after it, and for a connection whose answer has stalled). While a body is still arriving there
   * is none: Node's requestTimeout applies.
   */
  pendingAnswer(socket: Socket): ServerResponse | undefined;
  /**
   * The password generated for the administrator when this start created it without `adminPassword`, handed out once:
   * later calls, and a start that generated none, give undefined. Embedding logs nothing without a logger, so this is
   * how the program learns it (README: Embedding).
   */
  takeGeneratedAdminPassword(): string | undefined;
  /** From now on, answers ask clients to close their connections (`Connection: close`). */
  beginShutdown(): void;
  /** Waits for pending writes to be durable, then closes the store. */
  close(): Promise<void>;
}

/** The app, for a server of the embedding program's (`http.createServer(app.handle)`, a framework's route). */
export function createApp(options: ServerOptions = {}): Promise<App> {
  keepNextTickShape();
  return openApp(options, true);
}

/**
 * The app; `inHostServer`: run by a server plainrest did not make, whose timeouts do not cut a slow body off at
 * requestTimeoutMs, so the body's read does (http/body.ts).
 */
async function openApp(options: ServerOptions, inHostServer: boolean): Promise<App> {
  const opened = await openServices(options, inHostServer);
  const { config, resources, services, shutdown, closing, generatedAdmin, webhooks } = opened;
  const { store, eventStreams, adminReady } = services;
  const { router, allMethods } = buildRouter(resources, config.basePath);
  const limiter = config.rateLimit === 0 ? undefined : new RateLimiter(config.rateLimit, config.clock);
  const pipeline: Pipeline = { router, allMethods, services, limiter };
  const edge = config.jsonServer === undefined ? undefined : await jsonServerEdge(resources, config, pipeline);

  const handle = requestListener(pipeline, config, shutdown, edge);
  webhooks.start();

  return {
    handle,
    config,
    pendingAnswer: (socket) => {
      const res = requestsInProgress.get(socket)?.res;
      return res?.req.complete === true ? res : undefined;
    },
    resources,
    takeGeneratedAdminPassword: () => {
      const password = generatedAdmin.password;
      generatedAdmin.password = undefined;
      return password;
    },
    recordCounts: async () =>
      store.serve(NO_PLAN, (view) =>
        Object.fromEntries(recordedResources(resources).map(({ collection }) => [collection, view.count(collection)])),
      ),
    beginShutdown: () => {
      shutdown.begun = true;
      eventStreams?.closeAll();
    },
    close: async () => {
      closing.abort();
      eventStreams?.closeAll();
      await webhooks.close();
      await adminReady;
      await store.close();
    },
  };
}

/**
 * json-server 0.17's dialect at the root (docs/json-server.md: Serving json-server's dialect), loaded only when asked
 * for: each of its operations runs through the pipeline as the route under /v1 it stands for (runHandler).
 */
async function jsonServerEdge(resources: ResourceTable, config: Config, pipeline: Pipeline): Promise<Edge> {
  const { JsonServerDialect } = await import('../json-server/dialect.ts');
  const dialect = new JsonServerDialect(resources, config.jsonServer ?? {}, pipeline.router, config.basePath);
  return {
    serves: (path) => dialect.serves(path),
    answer: async (exchange, path, queryString) => {
      requireHostAndExpectation(exchange.req);
      const door: CoreDoor = {
        run: (method, corePath, handler) => {
          const match = pipeline.router.match(corePath);
          if (match === undefined || !match.value.handlers.has(method))
            throw new HttpError('route_not_found', `nothing is served at ${corePath} for ${method}`);
          const { value: endpoint, ids } = match;
          const routed = { path: config.basePath + corePath, queryString: '', method, endpoint, handler };
          return runHandler(exchange, { ...routed, ids: endpoint.impliedIds ?? ids }, pipeline);
        },
      };
      return dialect.answer(exchange.req, path, queryString, door);
    },
  };
}

export interface RunningServer {
  /** Where the server listens, such as "http://127.0.0.1:54321". */
  readonly url: string;
  readonly app: App;
  /** Drains in-flight requests, snapshots, and stops. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  keepNextTickShape();
  // The port is taken before the data directory is opened: a start that cannot listen
  // (a busy port, an address not on this machine) then fails before anything is written,
  // so an administrator password generated on a first start is never created and lost.
  // Requests that arrive while the app opens its store wait for it.
  const {
    port: wantedPort,
    host: wantedHost,
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs,
  } = resolveConfig(options);
  // A declaration that cannot be served stops the start before anything listens.
  const resources = await resolveResources(options.resources, options.hooks);
  let app: App | undefined;
  const server = createServer({
    headersTimeout: headersTimeoutMs, // slowloris: headers trickled byte by byte
    requestTimeout: requestTimeoutMs, // slow bodies
    keepAliveTimeout: keepAliveTimeoutMs, // idle connections
    // How often Node checks the two timeouts above (its default, 30 s, would let a slow client overstay).
    connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeoutMs / 4)),
    maxHeaderSize: MAX_HEADER_BYTES,
    requireHostHeader: false, // checked in server/dispatch.ts, so the 400 is a problem-details body like every other
  });
  // A connection whose answer makes no progress for this long is closed (a client that
  // stopped reading its answers).
  closeStalledConnections(server, requestTimeoutMs, (socket) => app?.pendingAnswer(socket) !== undefined);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(error, socket, app?.pendingAnswer(socket)),
  );
  const allow = methodsServed(routeTable(resources));
  server.on('connect', (_req: IncomingMessage, socket: Socket) => refuseConnect(socket, allow));

  await listen(server, wantedPort, wantedHost);
  // No connection is accepted before this turn ends, so these listeners miss no request.
  // Until the app is open, requests wait for it (and a failed start cuts them off).
  // Node's requestTimeout (above) cuts off a slow body here.
  const opening = openApp({ ...options, resources }, false);
  const handleWhenOpen = (req: IncomingMessage, res: ServerResponse): void => {
    void opening.then(
      (opened) => opened.handle(req, res),
      () => res.destroy(),
    );
  };
  server.on('request', handleWhenOpen);
  // Requests Node would otherwise answer itself, with no body: an Expect other than
  // 100-continue (server/dispatch.ts answers 417) and CONNECT (405); and, with requireHostHeader off
  // above, a missing Host (server/dispatch.ts answers 400).
  server.on('checkExpectation', handleWhenOpen);
  try {
    app = await opening;
  } catch (error) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  // From now on requests go straight to the app, without the wait above.
  server.off('request', handleWhenOpen).on('request', app.handle);
  server.off('checkExpectation', handleWhenOpen).on('checkExpectation', app.handle);

  const { port } = server.address() as AddressInfo;
  const host = wantedHost.includes(':') ? `[${wantedHost}]` : wantedHost;
  const running = app;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    app: running,
    close: () => (closing ??= drainAndClose(server, running)),
  };
}

/**
 * Connections the kernel may hold for the server before it accepts them. Node's default,
 * 511, turns a burst of a thousand clients into dropped handshakes that retry a second
 * later, and now and then a reset; Linux caps this at net.core.somaxconn (4096 by default).
 */
const LISTEN_BACKLOG = 4096;

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
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
