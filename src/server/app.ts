// The application a server runs (README: Embedding): its services opened, its router built, its request listener
// (listener.ts), and what a stop needs: answers that ask clients to close, then the store closed.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config, ServerOptions } from '../config/config.ts';
import { requestsInProgress } from '../http/client-errors.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { Store } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';
import type { Pipeline } from './dispatch.ts';
import { requestListener } from './listener.ts';
import { buildRouter } from './build-router.ts';
import { openServices } from './services.ts';

export interface App {
  /** A `node:http` request listener: `http.createServer(app.handle)`. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  readonly config: Config;
  /** The resources served, compiled from the declaration. */
  readonly resources: ResourceTable;
  /** How many records each collection holds (for the start banner); read through a view where the store has them. */
  recordCounts(): Promise<Record<string, number>>;
  /**
   * The answer being prepared on `socket` for a request that has fully arrived (server/server.ts,
   * for a malformed request pipelined after it, and for a connection whose answer has
   * stalled). While a body is still arriving there is none: Node's requestTimeout applies.
   */
  pendingAnswer(socket: Socket): ServerResponse | undefined;
  /** From now on, answers ask clients to close their connections (`Connection: close`). */
  beginShutdown(): void;
  /** Waits for pending writes to be durable, then closes the store. */
  close(): Promise<void>;
}

export async function createApp(options: ServerOptions = {}): Promise<App> {
  const { config, resources, services, shutdown, closing } = await openServices(options);
  const { store, eventStreams, adminReady } = services;
  const { router, allMethods } = buildRouter(resources);
  const limiter = config.rateLimit === 0 ? undefined : new RateLimiter(config.rateLimit, config.clock);
  const pipeline: Pipeline = { router, allMethods, services, limiter };

  const handle = requestListener(pipeline, config, shutdown);

  return {
    handle,
    config,
    pendingAnswer: (socket) => {
      const res = requestsInProgress.get(socket)?.res;
      return res?.req.complete === true ? res : undefined;
    },
    resources,
    recordCounts: async () => {
      const shared: Store = store;
      return shared.serve(NO_PLAN, (view) =>
        view.read(() =>
          Object.fromEntries(resources.resources.map(({ collection }) => [collection, view.count(collection)])),
        ),
      );
    },
    beginShutdown: () => {
      shutdown.begun = true;
      eventStreams?.closeAll();
    },
    close: async () => {
      closing.abort();
      eventStreams?.closeAll();
      await adminReady;
      await store.close();
    },
  };
}
