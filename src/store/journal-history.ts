// The change feed's history as a start finds it in the journal (README: Events): the entries of the segments kept
// beside the snapshots, in order (data-directory.ts). The lines every snapshot covers were left as text, since no
// record needs them; they are decoded here after the start (the feed waits for its history: feed/event-log.ts).

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from '../logging/logger.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import { eventsOfEntry } from './describe-changes.ts';
import type { SegmentHistory } from './data-directory.ts';
import type { JournalEntry } from './journal-format.ts';
import { decodeEntry, isUndecoded, seqsTaken } from './journal-format.ts';

/** Lines decoded between two yields to the event loop (about 3 ms of work). */
const LINES_PER_SLICE = 1000;

export interface LoadedHistory {
  readonly events: FeedEvent[];
  /** Nothing up to this number is known (more than the start said when a damaged line was given up). */
  readonly lostThrough: number;
}

/** True when some entry was left undecoded: the history then has to be loaded (loadHistory). */
export function hasUndecoded(history: readonly SegmentHistory[]): boolean {
  return history.some((segment) => segment.entries.some(isUndecoded));
}

/** The events of entries that are all decoded already. */
export function decodedEvents(history: readonly SegmentHistory[]): FeedEvent[] {
  const events: FeedEvent[] = [];
  for (const segment of history) {
    for (const entry of segment.entries)
      if (!isUndecoded(entry) && entry.at !== undefined)
        events.push(...eventsOfEntry(entry.seq, entry.at, entry.changes));
  }
  return events;
}

/**
 * Decodes the history in slices, so that requests are served meanwhile and a start does not parse every kept event
 * first. `lostThrough` is what the start knows to be gone; a damaged line, which can no longer stop the start, gives
 * up every event up to the entry after it (up to `latest` for the last): the records are safe in the snapshots.
 */
export async function loadHistory(
  history: readonly SegmentHistory[],
  lostThrough: number,
  latest: number,
  logger: Logger,
): Promise<LoadedHistory> {
  let events: FeedEvent[] = [];
  let lost = lostThrough;
  /** A damaged line was given up: the history is lost up to the entry after it. */
  let givenUp = false;
  let lastTaken = 0;
  let decoded = 0;
  await yieldToEventLoop(); // not a line before the start has gone on
  for (const { path, entries } of history) {
    for (const item of entries) {
      if (givenUp) lost = Math.max(lost, item.seq - 1);
      givenUp = false;
      let entry: JournalEntry | undefined = item as JournalEntry;
      if (isUndecoded(item)) {
        if (++decoded % LINES_PER_SLICE === 0) await yieldToEventLoop();
        entry = decodeEntry(item.text);
      }
      // Since the change feed an entry takes one number per change (data-directory.ts checks this of the lines it
      // decodes).
      const problem =
        entry === undefined || entry.seq !== item.seq
          ? 'is not a journal entry'
          : entry.at !== undefined && entry.seq <= lastTaken
            ? `has seq ${entry.seq}, a number the entry before it took (up to ${lastTaken})`
            : undefined;
      if (problem !== undefined || entry === undefined) {
        givenUp = true;
        events = [];
        const where = isUndecoded(item) ? ` line ${item.line}` : '';
        logger.error(
          `journal ${path}${where} ${problem}: the change feed's history up to it is given up ` +
            `(the snapshots hold every record); restore the data directory from a backup to have it back`,
        );
        continue;
      }
      lastTaken = Math.max(lastTaken, entry.seq + seqsTaken(entry.changes) - 1);
      if (entry.at !== undefined)
        for (const event of eventsOfEntry(entry.seq, entry.at, entry.changes)) events.push(event);
    }
  }
  if (givenUp) lost = Math.max(lost, latest);
  return { events: events.filter((event) => event.id > lost), lostThrough: lost };
}
