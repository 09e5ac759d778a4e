// A subscription's kept connection (docs/webhooks.md: Delivery): a keep-alive agent of node:http or node:https for its
// URL, one socket at most (its events go one at a time), closed after IDLE_CONNECTION_MS unused, or sooner where the
// receiver's Keep-Alive says so, and destroyed when the subscription is paused, disabled, deleted or given another URL,
// or the server closes. Each new connection's address is checked by the request's lookup (target-policy.ts).
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/** How long a connection no delivery uses is kept open. */
export const IDLE_CONNECTION_MS = 4000;

export class KeptConnection {
  #agent: HttpAgent | undefined;
  #url: string | undefined;

  /** The agent for `url`: the one kept, if it is for `url`; else a new one (the other's connection closed). */
  agentFor(url: string): HttpAgent {
    if (this.#agent !== undefined && this.#url === url) return this.#agent;
    this.close();
    const options = { keepAlive: true, maxSockets: 1, maxFreeSockets: 1, timeout: IDLE_CONNECTION_MS };
    this.#agent = url.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
    this.#url = url;
    return this.#agent;
  }

  /** Closes the connection unless it is for `url` (a subscription whose URL changed keeps none to the old one). */
  keepOnlyFor(url: string): void {
    if (this.#url !== url) this.close();
  }

  /** Destroys the connection, if one is open. */
  close(): void {
    this.#agent?.destroy();
    this.#agent = undefined;
    this.#url = undefined;
  }
}
