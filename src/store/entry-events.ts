// The change feed's events of one journal entry (journal-format.ts): one per change that
// carries event facts (describe-changes.ts), numbered from the entry's sequence, so an
// event id is a position in one history that survives restarts.

import type { FeedEvent } from '../feed/feed-event.ts';
import type { Change } from './store.ts';

/** The events of one journal entry: its changes that carry event facts, the n-th numbered seq + n. */
export function eventsOfEntry(seq: number, at: string, changes: readonly Change[]): FeedEvent[] {
  const events: FeedEvent[] = [];
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index] as Change;
    const facts = change.event;
    if (facts === undefined) continue;
    events.push({
      id: seq + index,
      type: facts.type,
      collection: change.collection,
      recordId: change.kind === 'put' ? change.record.id : change.id,
      under: facts.under,
      owner: facts.owner,
      at,
      record: change.kind === 'put' ? change.record : undefined,
    });
  }
  return events;
}
