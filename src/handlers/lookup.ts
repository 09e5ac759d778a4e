// Finding the records a path names, or answering 404 (RFC 9110 §15.5.5). A nested
// record is found only under its own parents, at every level: `/v1/users/1/orders/9`
// is a 404 when order 9 belongs to someone else. The store reports "missing" as
// undefined; the status is chosen here.

import type { RequestContext } from './context.ts';
import { HttpError } from '../errors/errors.ts';
import type { StoredRecord } from '../records/json.ts';
import type { ResourceDefinition } from '../resources/definition.ts';

/**
 * The parent's id from the path after checking that every record above this one
 * exists and holds the next (`/v1/a/1/b/2/c`: a 1 exists, b 2 exists under a 1);
 * undefined for a top-level resource.
 */
export function requireParent(context: RequestContext, definition: ResourceDefinition): number | undefined {
  const parent = definition.parent;
  if (parent === undefined) return undefined;
  const depth = depthOf(parent.definition);
  requireAt(context, parent.definition, depth);
  return context.ids[depth - 1];
}

export function requireRecord(context: RequestContext, definition: ResourceDefinition): StoredRecord {
  return requireAt(context, definition, depthOf(definition));
}

/** The record of `definition` named by the path's id at `depth` (1: the first id), under its parents. */
function requireAt(context: RequestContext, definition: ResourceDefinition, depth: number): StoredRecord {
  const parent = definition.parent;
  const parentId = parent === undefined ? undefined : requireAt(context, parent.definition, depth - 1).id;
  const id = context.ids[depth - 1] as number;
  const record = context.store.get(definition.collection, id);
  if (record === undefined || (parent !== undefined && record[parent.field] !== parentId)) {
    throw new HttpError(
      'record_not_found',
      `no ${definition.singular} has id ${id}${parentId === undefined ? '' : ' here'}`,
    );
  }
  return record;
}

/** How many ids a path to one record of `definition` has: 1 at the top level. */
export function depthOf(definition: ResourceDefinition): number {
  return definition.parent === undefined ? 1 : depthOf(definition.parent.definition) + 1;
}
