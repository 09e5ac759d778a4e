// One Server-Sent Events stream of the change feed (README: Events; WHATWG HTML §9.2): from
// `Last-Event-ID` (or `after`) it sends what the caller missed, page by page, then each
// event as it is committed, if the caller may read it at that moment; event-streams.ts
// holds the streams and hands them each batch.

import type { ServerResponse } from 'node:http';
import type { Actor } from '../auth/permissions.ts';
import type { EventSettings } from '../config/server-options.ts';
import { API_KEYS } from '../declarations/built-in-keys.ts';
import type { ChangeFeed, EventWindow } from '../feed/change-feed.ts';
import { isResumable, unresumableDetail } from '../feed/change-feed.ts';
import type { EventFilter, EventType, FeedEvent, Readable } from '../feed/feed-event.ts';
import { eventFilter, matches } from '../feed/feed-event.ts';
import type { Language, ResourceTable } from '../resources/definition.ts';
import { readableBy } from './event-access.ts';
import { blocksOf, FanOutBatch } from './fan-out-batch.ts';

/** How long an EventSource waits before reconnecting (its `retry:`). */
const RETRY_MS = 1000;
/** Events sent per page while a stream catches up. */
const CATCH_UP_PAGE = 500;
/** setTimeout's longest delay; a later expiry is caught by the heartbeat. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface StreamRequest {
  readonly actor: Actor;
  /** When the caller's token expires, in seconds since the epoch. */
  readonly expiresAt: number;
  readonly collection?: string;
  readonly type?: EventType;
  /** Where to resume: after this event; undefined: from now on. */
  readonly after?: number;
  readonly language: Language;
}

/** Why a stream ended, as its last event (and the next stream's notice) says. */
export interface Ending {
  readonly reason: 'token_expired' | 'user_deleted' | 'key_deleted' | 'slow_reader' | 'shutting_down' | 'events_missed';
  readonly detail: string;
}

/**
 * One stream. Its own user deleted, or its token expired, ends it; a change of role widens
 * or narrows it at once. A comment line goes out every `heartbeatMs`, with `id:` the newest
 * event considered, so a reconnect resumes after events the caller was not shown. A
 * position the feed no longer keeps gets `event: reset`, then the stream goes on from the
 * newest event. A reader `streamBufferBytes` behind is disconnected (its user's next stream
 * says why). Ended by the server, a stream's last event is `event: closed`, saying why.
 */
export class EventStream {
  readonly #res: ServerResponse;
  readonly #request: StreamRequest;
  readonly #feed: ChangeFeed;
  readonly #table: ResourceTable;
  /** Whether events' blocks are kept (README: Caches). */
  readonly #useCaches: boolean;
  /** Where each event's path begins (http/base-path.ts). */
  readonly #basePath: string;
  readonly #settings: EventSettings;
  readonly #onEnd: (ending: Ending) => void;
  #actor: Actor;
  #readable: Readable;
  /** The last event sent (the client's Last-Event-ID). */
  #lastSent = 0;
  /** The newest event looked at, sent or not. */
  #seen = 0;
  /** Live events that arrive while the stream catches up; undefined once it has. */
  #pending: FeedEvent[] | undefined = [];
  #expiry: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(
    res: ServerResponse,
    request: StreamRequest,
    feed: ChangeFeed,
    table: ResourceTable,
    settings: EventSettings,
    useCaches: boolean,
    basePath: string,
    onEnd: (ending: Ending) => void,
  ) {
    this.#res = res;
    this.#request = request;
    this.#feed = feed;
    this.#table = table;
    this.#settings = settings;
    this.#useCaches = useCaches;
    this.#basePath = basePath;
    this.#onEnd = onEnd;
    this.#actor = request.actor;
    this.#readable = readableBy(request.actor, table);
  }

  begin(window: EventWindow, notice: Ending | undefined): void {
    let position = this.#request.after ?? window.latest;
    this.#write(`retry: ${RETRY_MS}\n\n`);
    if (notice !== undefined) this.#write(`event: notice\ndata: ${JSON.stringify(notice)}\n\n`);
    if (!isResumable(position, window)) {
      const detail = unresumableDetail(position, window);
      this.#write(
        `id: ${window.latest}\nevent: reset\ndata: ` +
          `${JSON.stringify({ reason: 'history_gone', detail, latest: window.latest })}\n\n`,
      );
      position = window.latest;
    }
    this.#lastSent = position;
    this.#seen = position;
    const untilExpiry = this.#request.expiresAt * 1000 - Date.now();
    if (untilExpiry <= LONGEST_TIMER_MS)
      this.#expiry = setTimeout(() => this.#expire(), Math.max(0, untilExpiry)).unref();
    this.#catchUp().catch(() => this.#res.destroy());
  }

  /** Sends the events after the position, page by page, then those that arrived meanwhile. */
  async #catchUp(): Promise<void> {
    for (;;) {
      const page = await this.#feed.page(this.#filter(), 0, CATCH_UP_PAGE);
      if (this.#ended) return;
      this.#send(
        page.events,
        blocksOf(page.events, this.#table, this.#request.language, this.#useCaches, this.#basePath),
      );
      if (page.events.length < CATCH_UP_PAGE) break;
    }
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    this.deliver(new FanOutBatch(pending, this.#table, this.#useCaches, this.#basePath));
  }

  #filter(): EventFilter {
    return eventFilter(this.#lastSent, this.#readable, this.#request);
  }

  /** A batch of live events (the hub's fan-out): those this caller may see, in one write. */
  deliver(batch: FanOutBatch): void {
    if (this.#ended) return;
    if (this.#pending !== undefined) {
      this.#pending.push(...batch.events);
      return;
    }
    const shown: FeedEvent[] = [];
    let filter = this.#filter();
    for (const event of batch.events) {
      if (event.id <= this.#seen) continue;
      this.#seen = event.id;
      if (event.collection === 'users' && event.recordId === this.#actor.id) {
        if (!this.#followUser(event, shown, batch)) return;
        filter = this.#filter();
      }
      if (event.collection === API_KEYS && event.type === 'deleted' && event.recordId === this.#actor.key?.id) {
        this.#send(shown, batch.bytes(shown, this.#request.language));
        this.end({ reason: 'key_deleted', detail: 'the API key of this stream was deleted' });
        return;
      }
      if (matches(event, filter)) shown.push(event);
    }
    this.#send(shown, batch.bytes(shown, this.#request.language));
  }

  /**
   * The caller's own record changed: false when that ends the stream (deleted, after `shown`, the events already due);
   * a new role applies from this event on.
   */
  #followUser(event: FeedEvent, shown: readonly FeedEvent[], batch: FanOutBatch): boolean {
    if (event.type === 'deleted') {
      this.#send(shown, batch.bytes(shown, this.#request.language));
      this.end({ reason: 'user_deleted', detail: 'the user of this token was deleted' });
      return false;
    }
    const role = event.record?.['role'] === 'admin' ? 'admin' : 'user';
    if (role !== this.#actor.role) {
      this.#actor = { ...this.#actor, role };
      this.#readable = readableBy(this.#actor, this.#table);
    }
    return true;
  }

  /** Writes the blocks of `events`, noting the last as sent. */
  #send(events: readonly FeedEvent[], bytes: Buffer): void {
    const last = events[events.length - 1];
    if (last === undefined) return;
    this.#lastSent = last.id;
    this.#seen = Math.max(this.#seen, last.id);
    this.#write(bytes);
  }

  /** The heartbeat: a comment, and the newest id looked at when it is past the last one sent. */
  beat(): void {
    if (this.#request.expiresAt * 1000 <= Date.now()) {
      this.#expire();
      return;
    }
    const advance = this.#pending === undefined && this.#seen > this.#lastSent;
    if (advance) this.#lastSent = this.#seen;
    this.#write(advance ? `: keep-alive\nid: ${this.#seen}\n\n` : ': keep-alive\n\n');
  }

  #expire(): void {
    this.end({
      reason: 'token_expired',
      detail:
        this.#actor.key === undefined
          ? 'the token of this stream has expired; get a new one (POST /v1/tokens) and reconnect'
          : 'the API key of this stream has expired; reconnect with another',
    });
  }

  #write(text: string | Buffer): void {
    if (text.length === 0 || this.#ended || this.#res.destroyed) return;
    this.#res.write(text);
    if (this.#res.writableLength > this.#settings.streamBufferBytes) {
      const ending: Ending = {
        reason: 'slow_reader',
        detail:
          `the previous stream fell more than ${this.#settings.streamBufferBytes} bytes behind and was closed; ` +
          `it resumes from Last-Event-ID`,
      };
      this.#ended = true;
      this.#onEnd(ending);
      resetConnection(this.#res);
    }
  }

  /**
   * Ends the stream with `event: closed` saying why, and its connection with it: the client reconnects afresh (to
   * another process at shutdown).
   */
  end(ending: Ending): void {
    if (this.#ended) return;
    this.#write(`event: closed\ndata: ${JSON.stringify(ending)}\n\n`);
    if (this.#ended) return; // that last write found the reader too far behind, and cut it
    this.#ended = true;
    this.#onEnd(ending);
    this.#res.end(() => this.#res.socket?.destroy());
  }

  dispose(): void {
    this.#ended = true;
    clearTimeout(this.#expiry);
  }
}

/**
 * Ends a slow reader's connection with a reset, not a close: a closed connection would keep what the kernel still
 * holds for the reader (megabytes on a busy stream) until the reader took it or timed out; a reset lets it go at once.
 * Only a TCP connection can be reset (an embedding server may hand over TLS or a Unix socket): another is destroyed.
 */
function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (socket === null) {
    res.destroy();
    return;
  }
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy(); // ERR_INVALID_HANDLE_TYPE: not a TCP connection
  }
}
