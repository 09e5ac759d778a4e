// Who owns a record (README: Authentication and permissions): the user it is, the user at
// the root of its path, the user named by its owner_id, or its parent's owner.

import type { StoredRecord } from '../records/json.ts';
import type { RecordReader, ResourceDefinition } from './definition.ts';
import { OWNER_FIELD_NAME } from './definition.ts';
import type { RecordId } from '../records/record-id.ts';

/**
 * The owner of the record `ids` names (outermost id first, one per level of
 * `definition`'s path), or undefined when it has none or does not exist.
 */
export function ownerOf(
  definition: ResourceDefinition,
  ids: readonly RecordId[],
  store: RecordReader,
): number | undefined {
  switch (definition.ownership) {
    // Users' ids are integers (declarations/check-ids.ts).
    case 'self':
      return ids[ids.length - 1] as number | undefined;
    case 'root-user':
      return ids[0] as number | undefined;
    case 'owned': {
      const owner = store.get(definition.collection, ids[ids.length - 1] as RecordId)?.[OWNER_FIELD_NAME];
      return typeof owner === 'number' ? owner : undefined;
    }
    case 'ancestor':
      return definition.parent === undefined
        ? undefined
        : ownerOf(definition.parent.definition, ids.slice(0, -1), store);
    case undefined:
      return undefined;
  }
}

/**
 * The ids of `record`'s path, outermost first (`/v1/users/3/orders/7` for order 7: 3, 7), its ancestors read through
 * their fields: what ownerOf and a permission check take for a record reached otherwise than by its path.
 */
export function pathIdsOf(definition: ResourceDefinition, record: StoredRecord, store: RecordReader): RecordId[] {
  const ids = [record.id];
  let level = definition;
  let held: StoredRecord | undefined = record;
  while (level.parent !== undefined && held !== undefined) {
    const parentId = held[level.parent.field];
    // A parent's id is of its kind: an integer, or a uuid or string id (records/record-id.ts).
    if (typeof parentId !== 'number' && typeof parentId !== 'string') break;
    ids.unshift(parentId);
    held = store.get(level.parent.definition.collection, parentId);
    level = level.parent.definition;
  }
  return ids;
}
