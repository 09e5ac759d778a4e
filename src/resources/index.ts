// The resource table: every resource the API serves, in one list.

import type { CollectionName, ResourceDefinition } from './definition.js';
import { orders } from './orders.js';
import { products } from './products.js';
import { users } from './users.js';

export const RESOURCES: readonly ResourceDefinition[] = [users, products, orders];

export const RESOURCE_BY_COLLECTION: ReadonlyMap<CollectionName, ResourceDefinition> = new Map(
  RESOURCES.map((resource) => [resource.collection, resource]),
);

export const COLLECTIONS: readonly CollectionName[] = RESOURCES.map((resource) => resource.collection);

/** Resources whose records belong to a record of `collection` (deleted with it). */
export function childrenOf(collection: CollectionName): readonly ResourceDefinition[] {
  return RESOURCES.filter((resource) => resource.parent?.collection === collection);
}
