// What deleting a record does to the records that depend on it (README: Your own resources), all in the one commit:
// the records nested under it go with it, at every depth (`on-delete` `cascade`, the default), or their presence is
// a 409 (`restrict`); a record of another collection naming a deleted one (`x-references`) is a 409 (`x-on-delete`
// `restrict`, the default), deleted too (`cascade`) or loses the reference (`set-null`: an array of them, the id).

import { HttpError } from '../errors/errors.ts';
import type { StoredRecord } from '../records/json.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import type { Change, RecordReads } from '../store/store.ts';
import type { RecordId } from '../records/record-id.ts';

/** Whether the caller may delete `record` of `definition`'s collection, or (`set-null`) remove its `field`. */
export type MayTouch = (
  definition: ResourceDefinition,
  record: StoredRecord,
  operation: 'delete' | 'update',
  field?: string,
) => boolean;

/** A record a deletion takes with it. */
interface Doomed {
  readonly definition: ResourceDefinition;
  readonly record: StoredRecord;
}

/**
 * The changes that delete `record` of `definition` with what depends on it: the references a `set-null` clears first
 * (each record once, `updatedAt` its new `updated_at`), then the deletions, each parent before its children and each
 * record before those it names (for a database's foreign keys). A 409 `still_referenced` names what restricts it; a
 * 403 the first record reached through a reference that the caller may not touch (children go with their parent, as
 * the parent's permission says).
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
  // A queue read by position: shifting a long one would cost its length each time.
  for (let position = 0; position < queue.length; position++) {
    const next = queue[position] as Doomed;
    const key = keyOf(next.definition, next.record.id);
    if (doomed.has(key)) continue;
    doomed.set(key, next);
    for (const child of next.definition.children) {
      const field = child.parent?.field as string;
      const nested = holders(store, child, field, next.record.id);
      if (nested.length === 0) continue;
      if (child.parent?.onDelete === 'restrict')
        throw stillReferenced(next, child, nested, field, 'delete those first');
      for (const held of nested) queue.push({ definition: child, record: held });
    }
    for (const { definition: referrer, path } of next.definition.referencedBy) {
      const field = path[0] as string;
      if (ruleOf(referrer, field)?.onDelete !== 'cascade') continue;
      for (const held of touched(referrer, holders(store, referrer, field, next.record.id), 'delete', mayTouch))
        queue.push(held);
    }
  }
  // Once every record the deletion takes is known: what still names one is refused, or loses the name; and which of
  // those it takes name one, to be deleted before it.
  const cleared = new Map<string, { definition: ResourceDefinition; record: Record<string, unknown> }>();
  const namedBy = new Map<string, string[]>();
  for (const [goneKey, gone] of doomed) {
    for (const { definition: referrer, path } of gone.definition.referencedBy) {
      const field = path[0] as string;
      const onDelete = ruleOf(referrer, field)?.onDelete ?? 'restrict';
      const remaining: StoredRecord[] = [];
      for (const holder of holders(store, referrer, field, gone.record.id)) {
        const holderKey = keyOf(referrer, holder.id);
        if (!doomed.has(holderKey)) remaining.push(holder);
        else if (holderKey !== goneKey) {
          const naming = namedBy.get(goneKey);
          if (naming === undefined) namedBy.set(goneKey, [holderKey]);
          else naming.push(holderKey);
        }
      }
      if (remaining.length === 0 || onDelete === 'cascade') continue;
      if (onDelete === 'restrict')
        throw stillReferenced(gone, referrer, remaining, field, 'delete or change those first');
      for (const { record: holder } of touched(referrer, remaining, 'update', mayTouch, field)) {
        const key = keyOf(referrer, holder.id);
        const clearedRecord = cleared.get(key)?.record ?? { ...holder, updated_at: updatedAt };
        const held = clearedRecord[field];
        if (Array.isArray(held)) clearedRecord[field] = held.filter((id: unknown) => id !== gone.record.id);
        else delete clearedRecord[field];
        cleared.set(key, { definition: referrer, record: clearedRecord });
      }
    }
  }
  const changes: Change[] = [...cleared.values()].map(({ definition: target, record: changed }) => ({
    kind: 'put',
    collection: target.collection,
    record: Object.freeze(changed) as StoredRecord,
  }));
  for (const key of namingFirst(doomed.keys(), namedBy)) {
    const gone = doomed.get(key) as Doomed;
    changes.push({ kind: 'delete', collection: gone.definition.collection, id: gone.record.id });
  }
  return changes;
}

/**
 * `keys` in their order, but each after the keys `namedBy` lists for it (the records naming it), at any depth. Records
 * naming each other in a circle keep their order among themselves (a database then refuses the deletion).
 */
function namingFirst(keys: Iterable<string>, namedBy: ReadonlyMap<string, readonly string[]>): string[] {
  const ordered: string[] = [];
  const seen = new Set<string>();
  const visit = (key: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const holder of namedBy.get(key) ?? []) visit(holder);
    ordered.push(key);
  };
  for (const key of keys) visit(key);
  return ordered;
}

function keyOf(definition: ResourceDefinition, id: RecordId): string {
  return `${definition.collection} ${id}`;
}

function ruleOf(definition: ResourceDefinition, field: string) {
  return definition.fields.find((rule) => rule.name === field);
}

/**
 * The records of `definition`'s collection whose `field` holds `id`: found by its equality index, or, for an array of
 * references, which no index keeps, by a pass over the collection.
 */
function holders(store: RecordReads, definition: ResourceDefinition, field: string, id: RecordId): StoredRecord[] {
  if (ruleOf(definition, field)?.type === 'array') {
    const all = { filters: [], sort: [], offset: 0, limit: Number.POSITIVE_INFINITY };
    return store.query(definition.collection, all).records.filter((record) => {
      const held = record[field];
      return Array.isArray(held) && held.includes(id);
    });
  }
  const query = { filters: [{ field, value: id }], sort: [], offset: 0, limit: Number.POSITIVE_INFINITY };
  return [...store.query(definition.collection, query).records];
}

/** `records` as the deletion touches them; a 403 for the first the caller may not delete (or update). */
function touched(
  definition: ResourceDefinition,
  records: readonly StoredRecord[],
  operation: 'delete' | 'update',
  mayTouch: MayTouch,
  field?: string,
): Doomed[] {
  for (const record of records) {
    if (!mayTouch(definition, record, operation, field)) {
      const what = shown(definition, definition.singular, [record]);
      throw new HttpError(
        'forbidden',
        `this deletion would ${operation === 'delete' ? 'delete' : 'change'} ${what}, ` +
          `which you may not ${operation}; nothing was deleted`,
      );
    }
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
  return new HttpError(
    'still_referenced',
    `${shown(gone.definition, gone.definition.singular, [gone.record])} is still referenced by ` +
      `${shown(holder, holder.collection, records)} (${field}); ${advice}`,
  );
}

/**
 * Records as a message names them, `name` and their ids (five at most): `board road-map`, `lanes 1, 2`; a singleton by
 * its collection's name alone, its id being shown nowhere but the change feed (docs/resources.md: Singletons).
 */
function shown(definition: ResourceDefinition, name: string, records: readonly StoredRecord[]): string {
  if (definition.singleton === true) return definition.collection;
  const ids = records
    .slice(0, 5)
    .map((record) => record.id)
    .join(', ');
  return `${name} ${ids}${records.length > 5 ? ' and more' : ''}`;
}
