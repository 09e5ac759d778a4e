// Statements that arrive together, sent as one (for read-batches.ts and create-batches.ts). Under load a statement's
// round trip (the pool, the protocol's messages, a system call each way) costs more than one row more in a statement,
// so while as many statements are in flight as the pool has connections, a new item waits here with the others of
// its shape, and they go out together as one statement when a statement returns.

/** How the items of one shape are sent. */
export interface BatchShape<Item, Answer> {
  /** One item: the statement it would be without batching. */
  alone(item: Item): Promise<Answer>;
  /** Several items in one statement: an answer per item, in their order. */
  together(items: readonly Item[]): Promise<readonly Answer[]>;
}

/** At most this many items in one statement: the rest wait for the next. */
export const MAX_BATCH = 100;

interface Waiting<Item, Answer> {
  readonly shape: BatchShape<Item, Answer>;
  readonly items: {
    readonly item: Item;
    readonly resolve: (answer: Answer) => void;
    readonly reject: (error: unknown) => void;
  }[];
}

export class StatementBatches<Item, Answer> {
  readonly #maxInFlight: number;
  /** By shape's key. */
  readonly #waiting = new Map<string, Waiting<Item, Answer>>();
  #inFlight = 0;

  /**
   * `maxInFlight`: the statements sent at once, the pool's size (an item never waits here for a connection that is
   * free).
   */
  constructor(maxInFlight: number) {
    this.#maxInFlight = maxInFlight;
  }

  /**
   * `item`'s answer, sent at once as a statement of its own when a connection is free (without load nothing waits),
   * else with the items of the shape `key` waiting with it. Sent after it arrived, a read sees every write
   * acknowledged before it, as a statement of its own would.
   */
  send(key: string, shape: () => BatchShape<Item, Answer>, item: Item): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let waiting = this.#waiting.get(key);
      if (waiting === undefined) {
        waiting = { shape: shape(), items: [] };
        this.#waiting.set(key, waiting);
      }
      waiting.items.push({ item, resolve, reject });
      this.#sendWaiting();
    });
  }

  /** Sends what waits, a statement per shape, while fewer than maxInFlight are in flight. */
  #sendWaiting(): void {
    for (const [key, waiting] of this.#waiting) {
      if (this.#inFlight >= this.#maxInFlight) return;
      const sent = waiting.items.splice(0, MAX_BATCH);
      // A shape with more waiting goes behind the others, so that no shape waits for another's backlog.
      this.#waiting.delete(key);
      if (waiting.items.length > 0) this.#waiting.set(key, waiting);
      this.#inFlight += 1;
      const items = sent.map((entry) => entry.item);
      let answers: Promise<readonly Answer[]>;
      try {
        answers =
          items.length === 1
            ? waiting.shape.alone(items[0] as Item).then((answer) => [answer])
            : waiting.shape.together(items);
      } catch (error) {
        // A shape that threw at once would otherwise leave its statement counted in flight for ever.
        answers = Promise.reject(error);
      }
      answers
        .then((given) => {
          if (given.length !== sent.length)
            throw new Error(`a statement for ${sent.length} items gave ${given.length} answers`);
          return given;
        })
        .then(
          (given) => this.#settled(() => sent.forEach((entry, index) => entry.resolve(given[index] as Answer))),
          (error: unknown) => this.#settled(() => sent.forEach((entry) => entry.reject(error))),
        );
    }
  }

  /** A statement returned: what waits goes out at once, then its items are answered. */
  #settled(answer: () => void): void {
    this.#inFlight -= 1;
    this.#sendWaiting();
    answer();
  }
}
