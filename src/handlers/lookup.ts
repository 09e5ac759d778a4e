// Finding the records a path names, or answering 404 (RFC 9110 §15.5.5). An order is
// found only under its own user: `/v1/users/1/orders/9` is a 404 when order 9 belongs
// to someone else. The store reports "missing" as undefined; the status is chosen here.

import type { RequestContext } from '../context.js';
import { HttpError } from '../http/errors.js';
import type { StoredRecord } from '../json.js';
import type { ResourceDefinition } from '../resources/definition.js';
import { RESOURCE_BY_COLLECTION } from '../resources/index.js';

/** The parent id from the path after checking the parent exists; undefined for top-level resources. */
export function requireParent(context: RequestContext, definition: ResourceDefinition): number | undefined {
  const parent = definition.parent;
  if (parent === undefined) return undefined;
  const parentId = context.ids[0] as number;
  if (context.services.store.get(parent.collection, parentId) === undefined) {
    const singular = RESOURCE_BY_COLLECTION.get(parent.collection)?.singular ?? parent.collection;
    throw new HttpError('record_not_found', `no ${singular} has id ${parentId}`);
  }
  return parentId;
}

export function requireRecord(context: RequestContext, definition: ResourceDefinition): StoredRecord {
  const parentId = requireParent(context, definition);
  const id = context.ids[context.ids.length - 1] as number;
  const record = context.services.store.get(definition.collection, id);
  const parentField = definition.parent?.field;
  if (record === undefined || (parentField !== undefined && record[parentField] !== parentId)) {
    throw new HttpError('record_not_found', `no ${definition.singular} has id ${id}${parentId === undefined ? '' : ` here`}`);
  }
  return record;
}
