// Working out a commit's event facts (CONTRACT §13) while the data it changes is still
// at hand: whether a put created its record (writers that know say so: `created`), the
// ids above the record on its path, and its owner by the rules of auth/permissions.ts.
// A deletion's facts come from the record as it was, so they are worked out before the
// commit is applied; a store then keeps them with the change (the journal, an events table).

import type { ResourceTable } from '../declarations/compile-declaration.js';
import type { StoredRecord } from '../json.js';
import type { ResourceDefinition } from '../resources/definition.js';
import { OWNER_FIELD_NAME } from '../resources/definition.js';
import type { Change, EventFacts, StoredCollection } from '../store/store.js';

export type RecordLookup = (collection: StoredCollection, id: number) => StoredRecord | undefined;

/** `changes`, those of declared collections with their event facts (the same array when there is nothing to add). */
export function describeChanges(table: ResourceTable, changes: readonly Change[], get: RecordLookup): readonly Change[] {
  let described: Change[] | undefined;
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index] as Change;
    const definition = change.event === undefined ? table.get(change.collection) : undefined;
    if (definition === undefined) continue;
    described ??= changes.slice();
    const event = factsOf(definition, change, get);
    // Built field by field: a spread of changes of several shapes is slower on every write.
    described[index] =
      change.kind === 'delete'
        ? { kind: 'delete', collection: change.collection, id: change.id, event }
        : { kind: 'put', collection: change.collection, record: change.record, json: change.json, created: change.created, event };
  }
  return described ?? changes;
}

function factsOf(definition: ResourceDefinition, change: Change, get: RecordLookup): EventFacts {
  const id = change.kind === 'put' ? change.record.id : change.id;
  const previous = change.kind === 'put' && change.created === true ? undefined : get(change.collection, id);
  const type = change.kind === 'delete' ? 'deleted' : previous === undefined ? 'created' : 'updated';
  const place = placeOf(definition, id, change.kind === 'put' ? change.record : previous, get);
  return place.owner === undefined ? { type, under: place.under } : { type, under: place.under, owner: place.owner };
}

interface Place {
  readonly under: readonly number[];
  readonly owner: number | undefined;
}

/** Where record `id` of `definition` sits: the ids above it, and whose it is (permissions.ts ownerOf, from the record rather than a path). */
function placeOf(definition: ResourceDefinition, id: number, record: StoredRecord | undefined, get: RecordLookup): Place {
  const parent = definition.parent;
  const parentId = parent === undefined ? undefined : record?.[parent.field];
  const above: Place = parent === undefined || typeof parentId !== 'number' ? { under: [], owner: undefined } : parentPlace(parent.definition, parentId, get);
  const under = parent === undefined || typeof parentId !== 'number' ? above.under : [...above.under, parentId];
  switch (definition.ownership) {
    case 'self':
      return { under, owner: id };
    case 'root-user':
      return { under, owner: under[0] };
    case 'owned': {
      const owner = record?.[OWNER_FIELD_NAME];
      return { under, owner: typeof owner === 'number' ? owner : undefined };
    }
    case 'ancestor':
      return { under, owner: above.owner };
    case undefined:
      return { under, owner: undefined };
  }
}

function parentPlace(definition: ResourceDefinition, id: number, get: RecordLookup): Place {
  return placeOf(definition, id, get(definition.collection, id), get);
}
