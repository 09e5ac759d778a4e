// The change feed's streams (README: Events): admitted within their caps (per user and in
// all, 429 beyond), each batch of committed events handed to every stream, and every stream
// ended with `event: closed` at shutdown, or when the feed missed events it no longer holds.

import type { ServerResponse } from 'node:http';
import type { EventSettings } from '../config/server-options.ts';
import { HttpError } from '../errors/errors.ts';
import type { ChangeFeed, EventWindow } from '../feed/change-feed.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import type { Reply } from '../http/respond.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { RecentlyUsed } from '../store/recently-used.ts';
import type { Actor } from '../auth/permissions.ts';
import { EventStream, type Ending, type StreamRequest } from './event-stream.ts';
import { FanOutBatch } from './fan-out-batch.ts';

export type { StreamRequest } from './event-stream.ts';

/**
 * Events committed within this many ms go to the streams together, a stream writing them in
 * one write: the fan-out's cost grows with the streams (a socket write each), not the events.
 */
const FAN_OUT_MS = 50;
/**
 * Streams served per turn of the event loop during a fan-out: a request arriving meanwhile waits for one slice, not
 * all.
 */
const FAN_OUT_SLICE = 100;

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

  /** Whether events' blocks are kept for the streams that follow (README: Caches). */
  readonly #useCaches: boolean;
  /** Where each event's path begins (http/base-path.ts). */
  readonly #basePath: string;

  constructor(feed: ChangeFeed, table: ResourceTable, settings: EventSettings, useCaches: boolean, basePath: string) {
    this.#feed = feed;
    this.#table = table;
    this.#settings = settings;
    this.#useCaches = useCaches;
    this.#basePath = basePath;
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
    this.#deliverFrom([...this.#streams], 0, new FanOutBatch(batch, this.#table, this.#useCaches, this.#basePath));
  }

  /**
   * The feed missed events it no longer holds: every stream ends, and its reconnect after Last-Event-ID gets
   * `event: reset`.
   */
  #missed(): void {
    this.#queued = [];
    const ending: Ending = {
      reason: 'events_missed',
      detail:
        'this server missed events that are no longer kept; ' +
        'reconnect with Last-Event-ID: the stream starts again with event: reset',
    };
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
    if (this.#closed)
      throw new HttpError('not_ready', 'the server is shutting down; reconnect to another process', {
        headers: { 'Retry-After': '1' },
      });
    const mine = this.#perUser.get(actor.id) ?? 0;
    if (mine >= this.#settings.maxStreamsPerUser) {
      throw new HttpError(
        'too_many_streams',
        `you have ${mine} event streams open, the most one user may; close one first`,
        { headers: { 'Retry-After': '5' } },
      );
    }
    if (this.#streams.size >= this.#settings.maxStreams) {
      throw new HttpError(
        'too_many_streams',
        `the server has ${this.#streams.size} event streams open, the most it takes; retry later`,
        { headers: { 'Retry-After': '5' } },
      );
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
    for (const stream of [...this.#streams])
      stream.end({
        reason: 'shutting_down',
        detail: 'the server is shutting down; reconnect (to another process) to resume',
      });
  }

  #start(res: ServerResponse, request: StreamRequest, window: EventWindow): void {
    if (this.#closed) {
      res.end();
      return;
    }
    const onEnd = (ending: Ending): void => {
      if (ending.reason === 'slow_reader') this.#notices.set(request.actor.id, ending);
    };
    const [feed, table, settings] = [this.#feed, this.#table, this.#settings];
    const stream = new EventStream(res, request, feed, table, settings, this.#useCaches, this.#basePath, onEnd);
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
