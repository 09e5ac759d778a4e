// A cap on the request-body bytes held in memory at once, across all requests (OWASP API4:2023 Unrestricted Resource
// Consumption): bodies are read whole before they are parsed, so without a cap a few hundred clients each sending 1 MiB
// slowly would hold hundreds of MiB. A body that does not fit is refused at once with 503 and Retry-After (RFC 9110
// §15.6.4), rather than waited for.

export class BodyBudget {
  readonly capacity: number;
  #held = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Bytes held now (for tests and health checks). */
  get held(): number {
    return this.#held;
  }

  /** Takes `bytes` if they fit in what is left; false (taking nothing) if not. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.capacity) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held -= bytes;
  }
}
