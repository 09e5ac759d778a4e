// What deleting a record does to the records that depend on it (README: Your own resources), all in the one commit:
// the records nested under it are deleted, at every depth (`on-delete` `cascade`, the default), or their presence is
// a 409 (`restrict`); a record of another collection naming a deleted one (`x-references`) is a 409 (`x-on-delete`
// `restrict`, the default), deleted too (`cascade`) or loses the reference (`set-null`), each if the caller may.

import { HttpError } from '../errors/errors.ts';
import type { StoredRecord } from '../records/json.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import type { Change, RecordReads } from '../store/store.ts';

/** Whether the caller may delete (or, for `set-null`, update) `record` of `definition`'s collection. */
export type MayTouch = (
  definition: ResourceDefinition,
  record: StoredRecord,
  operation: 'delete' | 'update',
) => boolean;

/** A record a deletion takes with it. */
interface Doomed {
  readonly definition: ResourceDefinition;
  readonly record: StoredRecord;
}

/**
 * The changes that delete `record` of `definition` with what depends on it: the references a `set-null` clears first
 * (each record once, `updatedAt` its new `updated_at`), then the deletions, dependents before what they depend on.
 * A 409 `still_referenced` names what restricts it; a 403 the first dependent the caller may not touch.
 */
export function deletionWithDependents(
  store: RecordReads,
  definition: ResourceDefinition,
  record: StoredRecord,
  mayTouch: MayTouch,
  updatedAt: string,
): Change[] {
  const doomed = new Map<string, Doomed>();
  const queue: Doomed[] = [{ definition, record }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const key = keyOf(next.definition, next.record.id);
    if (doomed.has(key)) continue;
    doomed.set(key, next);
    for (const child of next.definition.children) {
      const nested = holders(store, child, child.parent?.field as string, next.record.id);

      if (nested.length === 0) continue;
      const parentField = child.parent?.field as string;
      if (child.parent?.onDelete === 'restrict')
        throw stillReferenced(next, child, nested, parentField, 'delete those first');
      queue.push(...touched(child, nested, 'delete', mayTouch));
    }
    for (const { definition: referrer, path } of next.definition.referencedBy) {
      const field = path[0] as string;
      if (ruleOf(referrer, field)?.onDelete !== 'cascade') continue;
      queue.push(...touched(referrer, holders(store, referrer, field, next.record.id), 'delete', mayTouch));
    }
  }
  // Once every record the deletion takes is known: what still names one is refused, or loses the name.
  const cleared = new Map<string, { definition: ResourceDefinition; record: Record<string, unknown> }>();
  for (const gone of doomed.values()) {
    for (const { definition: referrer, path } of gone.definition.referencedBy) {
      const field = path[0] as string;
      const onDelete = ruleOf(referrer, field)?.onDelete ?? 'restrict';
      if (onDelete === 'cascade') continue;
      const remaining = holders(store, referrer, field, gone.record.id).filter(
        (holder) => !doomed.has(keyOf(referrer, holder.id)),
      );
      if (remaining.length === 0) continue;
      if (onDelete === 'restrict')
        throw stillReferenced(gone, referrer, remaining, field, 'delete or change those first');
      for (const { record: holder } of touched(referrer, remaining, 'update', mayTouch)) {
        const key = keyOf(referrer, holder.id);
        const clearedRecord = cleared.get(key)?.record ?? { ...holder, updated_at: updatedAt };
        delete clearedRecord[field];
        cleared.set(key, { definition: referrer, record: clearedRecord });
      }
    }
  }
  const changes: Change[] = [...cleared.values()].map(({ definition: target, record: changed }) => ({
    kind: 'put',
    collection: target.collection,
    record: Object.freeze(changed) as StoredRecord,
  }));
  for (const gone of [...doomed.values()].reverse())
    changes.push({ kind: 'delete', collection: gone.definition.collection, id: gone.record.id });
  return changes;
}

function keyOf(definition: ResourceDefinition, id: number): string {
  return `${definition.collection} ${id}`;
}

function ruleOf(definition: ResourceDefinition, field: string) {
  return definition.fields.find((rule) => rule.name === field);
}

/** The records of `definition`'s collection whose `field` holds `id`. */
function holders(store: RecordReads, definition: ResourceDefinition, field: string, id: number): StoredRecord[] {
  const query = { filters: [{ field, value: id }], sort: [], offset: 0, limit: Number.POSITIVE_INFINITY };
  return [...store.query(definition.collection, query).records];
}

/** `records` as the deletion touches them; a 403 for the first the caller may not delete (or update). */
function touched(
  definition: ResourceDefinition,
  records: readonly StoredRecord[],
  operation: 'delete' | 'update',
  mayTouch: MayTouch,
): Doomed[] {
  for (const record of records) {
    if (!mayTouch(definition, record, operation))
      throw new HttpError(
        'forbidden',
        `this deletion would ${operation === 'delete' ? 'delete' : 'change'} ${definition.singular} ${record.id}, ` +
          `which you may not ${operation}; nothing was deleted`,
      );
  }
  return records.map((record) => ({ definition, record }));
}

/** 409: `gone` is still named by `records` of `holder`'s collection, in `field`. */
function stillReferenced(
  gone: Doomed,
  holder: ResourceDefinition,
  records: readonly StoredRecord[],
  field: string,
  advice: string,
): HttpError {
  const ids = records
    .slice(0, 5)
    .map((record) => record.id)
    .join(', ');
  return new HttpError(
    'still_referenced',
    `${gone.definition.singular} ${gone.record.id} is still referenced by ${holder.collection} ` +
      `${ids}${records.length > 5 ? ' and more' : ''} (${field}); ${advice}`,
  );
}
