// Who owns a record (README: Authentication and permissions): the user it is, the user at
// the root of its path, the user named by its owner_id, or its parent's owner.

import type { RecordReader, ResourceDefinition } from './definition.ts';
import { OWNER_FIELD_NAME } from './definition.ts';

/**
 * The owner of the record `ids` names (outermost id first, one per level of
 * `definition`'s path), or undefined when it has none or does not exist.
 */
export function ownerOf(
  definition: ResourceDefinition,
  ids: readonly number[],
  store: RecordReader,
): number | undefined {
  switch (definition.ownership) {
    case 'self':
      return ids[ids.length - 1];
    case 'root-user':
      return ids[0];
    case 'owned': {
      const owner = store.get(definition.collection, ids[ids.length - 1] as number)?.[OWNER_FIELD_NAME];
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
