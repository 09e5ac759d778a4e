// Stored data against a changed declaration (README: Your own resources, Troubleshooting):
// after the data directory is loaded, a collection the declaration no longer has but
// that still holds records, and records lacking a property the declaration now
// requires, stop the start. Each problem names the collection, the property, how many
// records and the first ids, so the fix (a default, a migration, the old declaration)
// is clear; nothing is changed. Fields that do not fit their declared kind are found
// record by record while loading (stored-fields.ts).

import type { ResourceTable } from '../declarations/compile-declaration.js';
import type { CollectionState } from './collection-state.js';
import type { StoredCollection } from './store.js';
import { IDEMPOTENCY_COLLECTION } from './store.js';

const FIRST_IDS = 5;

/** One line per problem; empty when the stored data fits. */
export function declarationFitProblems(table: ResourceTable, collections: ReadonlyMap<StoredCollection, CollectionState>): string[] {
  const problems: string[] = [];
  for (const [collection, state] of collections) {
    if (collection === IDEMPOTENCY_COLLECTION || state.records.size === 0) continue;
    const definition = table.get(collection);
    if (definition === undefined) {
      problems.push(`${collection}: ${count(state.records.size)} (${firstIds([...state.records.keys()])}) but the declaration has no collection ${collection}; declare it again, or remove its snapshot file and journal entries`);
      continue;
    }
    for (const rule of definition.fields) {
      if (rule.required !== true) continue;
      const name = rule.storedAs ?? rule.name;
      const lacking: number[] = [];
      for (const record of state.records.values()) if (record[name] === undefined) lacking.push(record.id);
      if (lacking.length === 0) continue;
      problems.push(`${collection}: ${count(lacking.length)} (${firstIds(lacking)}) lack "${rule.name}", which the declaration requires; give it a "default" and make it optional, or set it in those records first`);
    }
  }
  return problems;
}

function count(records: number): string {
  return records === 1 ? '1 record' : `${records} records`;
}

function firstIds(ids: readonly number[]): string {
  const shown = ids.slice(0, FIRST_IDS).join(', ');
  return `${ids.length === 1 ? 'id' : 'ids'} ${shown}${ids.length > FIRST_IDS ? ', …' : ''}`;
}
