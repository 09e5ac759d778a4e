// Stored data against a changed declaration (README: Your own resources, Troubleshooting): once the data directory is
// loaded, a collection the declaration no longer has that still holds records, records lacking a property it now
// requires, and a singleton's records under any id but its own, stop the start; nothing is changed. Fields not of
// their declared kind are found while loading (stored-fields.ts).

import type { ResourceTable } from '../resources/definition.ts';
import { SINGLETON_ID } from '../resources/definition.ts';
import type { CollectionState } from './collection-state.ts';
import type { StoredCollection } from './store.ts';
import { IDEMPOTENCY_COLLECTION } from './store.ts';
import type { RecordId } from '../records/record-id.ts';

const FIRST_IDS = 5;

/**
 * One line per problem; empty when the stored data fits. Each names the collection, the property, how many records
 * and the first ids, so the fix (a default, a migration, the old declaration) is clear.
 */
export function declarationFitProblems(
  table: ResourceTable,
  collections: ReadonlyMap<StoredCollection, CollectionState>,
): string[] {
  const problems: string[] = [];
  for (const [collection, state] of collections) {
    if (collection === IDEMPOTENCY_COLLECTION || state.records.size === 0) continue;
    const definition = table.get(collection);
    if (definition === undefined) {
      problems.push(
        `${removedCollection(collection, state.records.size, [...state.records.keys()])}, or remove its snapshot ` +
          `file and journal entries`,
      );
      continue;
    }
    if (definition.singleton === true) {
      const others = [...state.records.keys()].filter((id) => id !== SINGLETON_ID);
      if (others.length > 0) problems.push(notTheSingleton(collection, others.length, others));
    }
    // A property only requests must give (a provider's user's email) may be absent from stored records.
    // A property that may hold null may also be absent (a PATCH's null removes it): it reads as null.
    const required = definition.fields.filter(
      (rule) => rule.required === true && rule.requiredOfRequestsOnly !== true && rule.nullable !== true,
    );
    const lacking = lackingIds(
      state,
      required.map((rule) => rule.storedAs ?? rule.name),
    );
    required.forEach((rule, index) => {
      const ids = lacking[index] as RecordId[];
      if (ids.length > 0) problems.push(lackingRequired(collection, rule.name, ids.length, ids));
    });
  }
  return problems;
}

/** For each of `names`, the ids of the records lacking it: one pass over the records for all of them. */
function lackingIds(state: CollectionState, names: readonly string[]): RecordId[][] {
  const lacking = names.map((): RecordId[] => []);
  for (const record of state.records.values()) {
    for (let index = 0; index < names.length; index++)
      if (record[names[index] as string] === undefined) (lacking[index] as RecordId[]).push(record.id);
  }
  return lacking;
}

/**
 * `notes: 2 records (ids 1, 2) but the declaration has no collection notes; declare it again` (the remedy for the store
 * follows).
 */
export function removedCollection(collection: string, total: number, ids: readonly RecordId[]): string {
  return (
    `${collection}: ${count(total)} (${firstIds(ids, total)}) but the declaration has no collection ` +
    `${collection}; declare it again`
  );
}

/** Records of a singleton `collection` stored under another id than its one record's. */
export function notTheSingleton(collection: string, total: number, ids: readonly RecordId[]): string {
  return (
    `${collection}: ${count(total)} (${firstIds(ids, total)}) but ${collection} is a singleton, whose one record ` +
    `is stored under id ${SINGLETON_ID}; keep only that one, or declare ${collection} without "x-singleton"`
  );
}

/** Records of `collection` lacking a property the declaration now requires. */
export function lackingRequired(collection: string, property: string, total: number, ids: readonly RecordId[]): string {
  return (
    `${collection}: ${count(total)} (${firstIds(ids, total)}) lack "${property}", which the declaration ` +
    `requires; give it a "default" and make it optional, or set it in those records first`
  );
}

/** `2 records (ids 1, 2)`: how many, and the first of their ids. */
export function recordsWithIds(total: number, ids: readonly RecordId[]): string {
  return `${count(total)} (${firstIds(ids, total)})`;
}

function count(records: number): string {
  return records === 1 ? '1 record' : `${records} records`;
}

/** `ids 1, 2, 3, 4, 5, …`: the first of `total` ids. */
export function firstIds(ids: readonly RecordId[], total = ids.length): string {
  const shown = ids.slice(0, FIRST_IDS).join(', ');
  return `${total === 1 ? 'id' : 'ids'} ${shown}${total > FIRST_IDS ? ', …' : ''}`;
}
