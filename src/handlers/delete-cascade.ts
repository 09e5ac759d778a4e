// What deleting a record deletes with it (README: Methods): the records nested under it, at
// every depth, in the same commit, unless a record of another collection still references
// one of them (`x-references`): then a 409 names that collection.

import { HttpError } from '../errors/errors.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import type { Change, RecordReads } from '../store/store.ts';

/**
 * Deleting a record deletes the records nested under it, at every depth, in the same
 * commit; a 409 when a record of another collection still references one of them
 * (`x-references`), naming that collection.
 */
export function deletionWithDependents(store: RecordReads, definition: ResourceDefinition, id: number): Change[] {
  const doomed: Doomed[] = [];
  collectDoomed(store, definition, id, doomed);
  const deleted = new Set(doomed.map(({ definition: target, id: doomedId }) => `${target.collection} ${doomedId}`));
  for (const { definition: target, id: doomedId } of doomed) {
    for (const { definition: referrer, path } of target.referencedBy) {
      const field = path[0] as string;
      const query = { filters: [{ field, value: doomedId }], sort: [], offset: 0, limit: Number.POSITIVE_INFINITY };
      const holders = store
        .query(referrer.collection, query)
        .records.filter((record) => !deleted.has(`${referrer.collection} ${record.id}`));
      if (holders.length === 0) continue;
      const ids = holders
        .slice(0, 5)
        .map((record) => record.id)
        .join(', ');
      throw new HttpError(
        'still_referenced',
        `${target.singular} ${doomedId} is still referenced by ${referrer.collection} ` +
          `${ids}${holders.length > 5 ? ' and more' : ''} (${field}); delete or change those first`,
      );
    }
  }
  return doomed.map(({ definition: target, id: doomedId }) => ({
    kind: 'delete',
    collection: target.collection,
    id: doomedId,
  }));
}

/** A record a deletion takes with it. */
interface Doomed {
  readonly definition: ResourceDefinition;
  readonly id: number;
}

function collectDoomed(store: RecordReads, definition: ResourceDefinition, id: number, doomed: Doomed[]): void {
  doomed.push({ definition, id });
  for (const child of definition.children) {
    const field = child.parent?.field as string;
    const query = { filters: [{ field, value: id }], sort: [], offset: 0, limit: Number.POSITIVE_INFINITY };
    for (const record of store.query(child.collection, query).records) collectDoomed(store, child, record.id, doomed);
  }
}
