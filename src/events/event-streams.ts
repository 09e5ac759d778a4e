// The change feed as Server-Sent Events (README: Events; WHATWG HTML §9.2): each event is
// `id:` (its number), `event:` (its type) and `data:` (its JSON, event-json.ts). A stream
// starts after `Last-Event-ID` (or `after`), sends what it missed page by page, then each
// event as it is committed, to this caller only if they may read it at that moment.
//   - Its own user deleted, or its token expired, ends it; a change of role widens or narrows it at once.
//   - A comment line goes out every `heartbeatMs`, with `id:` the newest event considered,
//     so a reconnect resumes after events the caller was not shown.
//   - A position the feed no longer keeps gets `event: reset`, then the stream goes on from the newest event.
//   - A reader that falls `streamBufferBytes` behind is disconnected; its user's next stream
//     begins with `event: notice` saying why. Streams are capped per user and in all (429 beyond).
//   - At shutdown every stream ends with `event: closed`, so clients reconnect to another process;
//     so does every stream of a feed that missed events it no longer holds (the reconnect resets).
// Fan-out is the cost that grows with subscribers (a socket write per stream), so it does
// the least per stream and never holds up the writes: the hub subscribes to the feed
// once; the events of FAN_OUT_MS go out together, a stream writing them in one write;
// each event's block is encoded once per language (event-json.ts) and a batch shown whole
// is one buffer shared by every stream (fan-out-batch.ts); and the streams are served
// FAN_OUT_SLICE at a time, each slice in its own turn of the event loop, so a request
// arriving meanwhile waits for one slice, not for every stream.

import type { ServerResponse } from 'node:http';
import type { Actor } from '../auth/permissions.ts';
import type { EventSettings } from '../config/config.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { HttpError } from '../errors/errors.ts';
import type { Reply } from '../http/respond.ts';
import type { Language } from '../resources/definition.ts';
import { RecentlyUsed } from '../store/recently-used.ts';
import type { ChangeFeed, EventWindow } from '../feed/change-feed.ts';
import { isResumable, unresumableDetail } from '../feed/change-feed.ts';
import { readableBy } from './event-access.ts';
import { blocksOf, FanOutBatch } from './fan-out-batch.ts';
import type { EventFilter, EventType, FeedEvent, Readable } from '../feed/feed-event.ts';
import { eventFilter, matches } from '../feed/feed-event.ts';

/** How long an EventSource waits before reconnecting (its `retry:`). */
const RETRY_MS = 1000;
/** Events sent per page while a stream catches up. */
const CATCH_UP_PAGE = 500;
/** Events committed within this many ms go to the streams together (one write per stream, not one per event). */
const FAN_OUT_MS = 50;
/** Streams served per turn of the event loop during a fan-out. */
const FAN_OUT_SLICE = 100;
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
interface Ending {
  readonly reason: 'token_expired' | 'user_deleted' | 'slow_reader' | 'shutting_down' | 'events_missed';
  readonly detail: string;
}

export class EventStreams {
  readonly #feed: ChangeFeed;
  readonly #table: ResourceTable;
  readonly #settings: EventSettings;
  readonly #streams = new Set<EventStream>();
  readonly #perUser = new Map<number, number>();
  /** Why a user's last stream was cut (a slow reader), told to their next stream. */
  readonly #notices = new RecentlyUsed<number, Ending>(1000);
  #heartbeat: NodeJS.Timeout | undefined;
  #closed = false;
  /** The hub's one subscription to the feed, while any stream is open. */
  #unsubscribe: (() => void) | undefined;
  /** Events waiting for the next fan-out, oldest first. */
  #queued: FeedEvent[] = [];
  #fanOut: NodeJS.Timeout | undefined;
  /** A fan-out is being handed to the streams, slice by slice. */
  #delivering = false;

  constructor(feed: ChangeFeed, table: ResourceTable, settings: EventSettings) {
    this.#feed = feed;
    this.#table = table;
    this.#settings = settings;
  }

  /**
   * Queues events for every stream. They go out FAN_OUT_MS after the first of them, with
   * any that follow meanwhile, and never while the previous fan-out is still being
   * written: under load the batches grow instead of the fan-outs overlapping.
   */
  #receive(events: readonly FeedEvent[]): void {
    for (const event of events) this.#queued.push(event);
    if (!this.#delivering) this.#fanOut ??= setTimeout(() => this.#startFanOut(), FAN_OUT_MS);
  }

  #startFanOut(): void {
    this.#fanOut = undefined;
    const batch = this.#queued;
    this.#queued = [];
    this.#delivering = true;
    this.#deliverFrom([...this.#streams], 0, new FanOutBatch(batch, this.#table));
  }

  /** The feed missed events it no longer holds: every stream ends, and its reconnect after Last-Event-ID gets `event: reset`. */
  #missed(): void {
    this.#queued = [];
    const ending: Ending = { reason: 'events_missed', detail: 'this server missed events that are no longer kept; reconnect with Last-Event-ID: the stream starts again with event: reset' };
    for (const stream of [...this.#streams]) stream.end(ending);
  }

  /** Hands `batch` to the streams from `start` on, a slice per turn (a stream closed meanwhile ignores it). */
  #deliverFrom(streams: readonly EventStream[], start: number, batch: FanOutBatch): void {
    const end = Math.min(streams.length, start + FAN_OUT_SLICE);
    for (let index = start; index < end; index++) (streams[index] as EventStream).deliver(batch);
    if (end < streams.length) {
      setImmediate(() => this.#deliverFrom(streams, end, batch));
      return;
    }
    this.#delivering = false;
    if (this.#queued.length > 0) this.#fanOut ??= setTimeout(() => this.#startFanOut(), FAN_OUT_MS);
  }

  get open(): number {
    return this.#streams.size;
  }

  /** A 429 when the caller, or the server, has as many streams open as allowed; a 503 once shutting down. */
  admit(actor: Actor): void {
    if (this.#closed) throw new HttpError('not_ready', 'the server is shutting down; reconnect to another process', { headers: { 'Retry-After': '1' } });
    const mine = this.#perUser.get(actor.id) ?? 0;
    if (mine >= this.#settings.maxStreamsPerUser) {
      throw new HttpError('too_many_streams', `you have ${mine} event streams open, the most one user may; close one first`, { headers: { 'Retry-After': '5' } });
    }
    if (this.#streams.size >= this.#settings.maxStreams) {
      throw new HttpError('too_many_streams', `the server has ${this.#streams.size} event streams open, the most it takes; retry later`, { headers: { 'Retry-After': '5' } });
    }
  }

  /** The 200 that opens a stream for `request` (admitted first), given where the feed stands. */
  reply(request: StreamRequest, window: EventWindow): Reply {
    return {
      status: 200,
      contentType: 'text/event-stream; charset=utf-8',
      headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', Vary: 'Accept' },
      stream: (res) => this.#start(res, request, window),
    };
  }

  /** Ends every stream with `event: closed` (graceful shutdown) and admits no more. */
  closeAll(): void {
    this.#closed = true;
    for (const stream of [...this.#streams]) stream.end({ reason: 'shutting_down', detail: 'the server is shutting down; reconnect (to another process) to resume' });
  }

  #start(res: ServerResponse, request: StreamRequest, window: EventWindow): void {
    if (this.#closed) {
      res.end();
      return;
    }
    const stream = new EventStream(res, request, this.#feed, this.#table, this.#settings, (ending) => {
      if (ending.reason === 'slow_reader') this.#notices.set(request.actor.id, ending);
    });
    this.#unsubscribe ??= this.#feed.subscribe(
      (events) => this.#receive(events),
      () => this.#missed(),
    );
    this.#streams.add(stream);
    this.#perUser.set(request.actor.id, (this.#perUser.get(request.actor.id) ?? 0) + 1);
    res.on('close', () => {
      stream.dispose();
      this.#streams.delete(stream);
      const left = (this.#perUser.get(request.actor.id) ?? 1) - 1;
      if (left === 0) this.#perUser.delete(request.actor.id);
      else this.#perUser.set(request.actor.id, left);
      if (this.#streams.size === 0) {
        clearInterval(this.#heartbeat);
        this.#heartbeat = undefined;
        this.#unsubscribe?.();
        this.#unsubscribe = undefined;
      }
    });
    this.#heartbeat ??= setInterval(() => {
      for (const each of this.#streams) each.beat();
    }, this.#settings.heartbeatMs).unref();
    const notice = this.#notices.get(request.actor.id);
    if (notice !== undefined) this.#notices.delete(request.actor.id);
    stream.begin(window, notice);
  }
}

class EventStream {
  readonly #res: ServerResponse;
  readonly #request: StreamRequest;
  readonly #feed: ChangeFeed;
  readonly #table: ResourceTable;
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

  constructor(res: ServerResponse, request: StreamRequest, feed: ChangeFeed, table: ResourceTable, settings: EventSettings, onEnd: (ending: Ending) => void) {
    this.#res = res;
    this.#request = request;
    this.#feed = feed;
    this.#table = table;
    this.#settings = settings;
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
      this.#write(`id: ${window.latest}\nevent: reset\ndata: ${JSON.stringify({ reason: 'history_gone', detail, latest: window.latest })}\n\n`);
      position = window.latest;
    }
    this.#lastSent = position;
    this.#seen = position;
    const untilExpiry = this.#request.expiresAt * 1000 - Date.now();
    if (untilExpiry <= LONGEST_TIMER_MS) this.#expiry = setTimeout(() => this.#expire(), Math.max(0, untilExpiry)).unref();
    this.#catchUp().catch(() => this.#res.destroy());
  }

  /** Sends the events after the position, page by page, then those that arrived meanwhile. */
  async #catchUp(): Promise<void> {
    for (;;) {
      const page = await this.#feed.page(this.#filter(), 0, CATCH_UP_PAGE);
      if (this.#ended) return;
      this.#send(page.events, blocksOf(page.events, this.#table, this.#request.language));
      if (page.events.length < CATCH_UP_PAGE) break;
    }
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    this.deliver(new FanOutBatch(pending, this.#table));
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
      if (matches(event, filter)) shown.push(event);
    }
    this.#send(shown, batch.bytes(shown, this.#request.language));
  }

  /** The caller's own record changed: false when that ends the stream (deleted, after `shown`, the events already due); a new role applies from this event on. */
  #followUser(event: FeedEvent, shown: readonly FeedEvent[], batch: FanOutBatch): boolean {
    if (event.type === 'deleted') {
      this.#send(shown, batch.bytes(shown, this.#request.language));
      this.end({ reason: 'user_deleted', detail: 'the user of this token was deleted' });
      return false;
    }
    const role = event.record?.['role'] === 'admin' ? 'admin' : 'user';
    if (role !== this.#actor.role) {
      this.#actor = { id: this.#actor.id, role };
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
    this.end({ reason: 'token_expired', detail: 'the token of this stream has expired; get a new one (POST /v1/tokens) and reconnect' });
  }

  #write(text: string | Buffer): void {
    if (text.length === 0 || this.#ended || this.#res.destroyed) return;
    this.#res.write(text);
    if (this.#res.writableLength > this.#settings.streamBufferBytes) {
      const ending: Ending = { reason: 'slow_reader', detail: `the previous stream fell more than ${this.#settings.streamBufferBytes} bytes behind and was closed; it resumes from Last-Event-ID` };
      this.#ended = true;
      this.#onEnd(ending);
      this.#res.destroy();
    }
  }

  /** Ends the stream with `event: closed` saying why, and its connection with it: the client reconnects afresh (to another process at shutdown). */
  end(ending: Ending): void {
    if (this.#ended) return;
    this.#write(`event: closed\ndata: ${JSON.stringify(ending)}\n\n`);
    this.#ended = true;
    this.#onEnd(ending);
    this.#res.end(() => this.#res.socket?.destroy());
  }

  dispose(): void {
    this.#ended = true;
    clearTimeout(this.#expiry);
  }
}
