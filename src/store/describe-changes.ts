// A commit's changes as the change feed sees them (README: Events). Their facts (whether a put created its record, the
// ids above it on its path, its owner by auth/permissions.ts' rules) are worked out before the commit is applied, while
// a deleted record is still at hand; the store keeps them with the change. Once it is durable, the entry's events are
// numbered from its sequence, so an event id is a position in one history that survives restarts.

import type { RecordReader, ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import type { StoredRecord } from '../records/json.ts';
import { ownerOf } from '../resources/ownership.ts';
import type { Change, EventFacts } from './store.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import type { RecordId } from '../records/record-id.ts';

/**
 * `changes`, those of declared collections with their event facts (the same array when there is nothing to add);
 * `store` reads the records as they are before the commit.
 */
export function describeChanges(
  table: ResourceTable,
  changes: readonly Change[],
  store: RecordReader,
): readonly Change[] {
  let described: Change[] | undefined;
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index] as Change;
    const definition = change.event === undefined ? table.get(change.collection) : undefined;
    // Webhooks and their deliveries deliver the feed; they are not in it.
    if (definition === undefined || definition.unrecorded === true) continue;
    described ??= changes.slice();
    const event = factsOf(definition, change, store);
    // Built field by field: a spread of changes of several shapes is slower on every write.
    described[index] =
      change.kind === 'delete'
        ? { kind: 'delete', collection: change.collection, id: change.id, event }
        : {
            kind: 'put',
            collection: change.collection,
            record: change.record,
            json: change.json,
            created: change.created,
            event,
          };
  }
  return described ?? changes;
}

function factsOf(definition: ResourceDefinition, change: Change, store: RecordReader): EventFacts {
  const id = change.kind === 'put' ? change.record.id : change.id;
  const previous = change.kind === 'put' && change.created === true ? undefined : store.get(change.collection, id);
  const type = change.kind === 'delete' ? 'deleted' : previous === undefined ? 'created' : 'updated';
  const record = change.kind === 'put' ? change.record : previous;
  const under = idsAbove(definition, record, store);
  // Whose it is by permissions.ts's own rule, the record itself answered as it is in this change.
  const owner = ownerOf(definition, [...under, id], {
    get: (collection, wanted) =>
      collection === change.collection && wanted === id ? record : store.get(collection, wanted),
  });
  return owner === undefined ? { type, under } : { type, under, owner };
}

/**
 * The ids above `record` on its path, outermost first, from its parent's id up (a parent is read only when it has a
 * parent itself).
 */
function idsAbove(definition: ResourceDefinition, record: StoredRecord | undefined, store: RecordReader): RecordId[] {
  const parent = definition.parent;
  const parentId = parent === undefined ? undefined : record?.[parent.field];
  // A parent's id is of its kind: an integer, or a uuid or string id (records/record-id.ts).
  if (parent === undefined || (typeof parentId !== 'number' && typeof parentId !== 'string')) return [];
  const above =
    parent.definition.parent === undefined
      ? []
      : idsAbove(parent.definition, store.get(parent.definition.collection, parentId), store);
  return [...above, parentId];
}

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
