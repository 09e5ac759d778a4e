// A Server-Sent Events client for tests (WHATWG HTML §9.2.5, the parsing rules): node's
// fetch reads the stream, and each block up to a blank line becomes a message with its
// `id`, `event` and `data` fields and its comment lines (a heartbeat is a block of
// comments, perhaps with an `id`). Nothing is dropped: a test reads messages in order.

export interface StreamMessage {
  readonly id: string | undefined;
  /** `message` when the block named none, '' for a block without data (comments, an id alone). */
  readonly event: string;
  readonly data: string;
  readonly comments: readonly string[];
}

/** How long a read waits for a message that is due: longer, it is not coming, however busy the machine. */
const WAIT_MS = 15_000;

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

export class EventStreamClient {
  readonly status: number;
  readonly headers: Headers;
  /** The body of a refusal (not 200). */
  readonly text: string;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #controller: AbortController;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  readonly #messages: StreamMessage[] = [];
  #ended = false;

  private constructor(response: Response, controller: AbortController, text: string) {
    this.status = response.status;
    this.headers = response.headers;
    this.text = text;
    this.#controller = controller;
    this.#reader = response.status === 200 && response.body !== null ? response.body.getReader() : undefined;
  }

  static async open(
    url: string,
    token: string | undefined,
    headers: Record<string, string> = {},
  ): Promise<EventStreamClient> {
    const controller = new AbortController();
    const all: Record<string, string> = { accept: 'text/event-stream', ...headers };
    if (token !== undefined) all['authorization'] = `Bearer ${token}`;
    const response = await fetch(url, { headers: all, signal: controller.signal });
    const text = response.status === 200 ? '' : await response.text();
    return new EventStreamClient(response, controller, text);
  }

  /** True once the server has ended the stream (and every message before the end was read). */
  get ended(): boolean {
    return this.#ended && this.#messages.length === 0;
  }

  /** The next message, waiting up to `timeoutMs`; throws when none comes or the stream ends first. */
  async next(timeoutMs = WAIT_MS): Promise<StreamMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = this.#messages.shift();
      if (message !== undefined) return message;
      if (this.#ended) throw new Error('the stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message within ${timeoutMs} ms`);
      await this.#readSome(left);
    }
  }

  /** The next message with data (an event), skipping heartbeats; `event: closed` included. */
  async nextEvent(timeoutMs = WAIT_MS): Promise<StreamMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = await this.next(Math.max(1, deadline - Date.now()));
      if (message.event !== '') return message;
    }
  }

  /** Resolves once the server ends the stream, with the messages still unread. */
  async untilEnd(timeoutMs = WAIT_MS): Promise<StreamMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the stream did not end within ${timeoutMs} ms`);
      await this.#readSome(left);
    }
    return this.#messages.splice(0);
  }

  /** Hangs up: the body is cancelled, then the request aborted, so the connection closes and the server counts the stream out. */
  close(): void {
    if (this.#reader === undefined) this.#controller.abort();
    else this.#reader.cancel().catch(() => undefined);
  }

  async #readSome(timeoutMs: number): Promise<void> {
    if (this.#reader === undefined) {
      this.#ended = true;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    // A read that loses the race is kept and awaited next time, so no chunk is lost.
    this.#pendingRead ??= this.#reader.read().then(
      (result) => result,
      () => ({ done: true as const, value: undefined }),
    );
    const result = await Promise.race([this.#pendingRead, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') return;
    this.#pendingRead = undefined;
    if (result.done) {
      this.#ended = true;
      return;
    }
    this.#buffer += this.#decoder.decode(result.value, { stream: true });
    this.#parse();
  }

  #pendingRead: Promise<ReadResult> | undefined;

  #parse(): void {
    for (let end = this.#buffer.indexOf('\n\n'); end !== -1; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let id: string | undefined;
      let event = '';
      const data: string[] = [];
      const comments: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      // `retry:` alone is a block with nothing to show; it is kept as a message like any other.
      this.#messages.push({
        id,
        event: data.length > 0 && event === '' ? 'message' : data.length > 0 ? event : '',
        data: data.join('\n'),
        comments,
      });
    }
  }
}
