// The shape of a resource declaration (resources are data). Each resource
// is declared once in its own file; routing, validation, representation, lists and,
// later, the OpenAPI document all read the declaration (who may do what is the one
// table in auth/permissions.ts).

import type { Fields, StoredRecord } from '../json.js';
import type { Store } from '../store/store.js';

export type CollectionName = 'users' | 'products' | 'orders';

/**
 * Who may write a field (README: Records, Methods):
 * - `client`: taken from request bodies; PUT removes it when absent (unless required).
 * - `restricted`: only some callers may set it (`role`, an order's `status`); PUT leaves it when absent.
 * - `write-only`: accepted, never returned (`password`); PUT leaves it when absent.
 * - `server`: never taken from a body; on POST any value is a 422, on PUT/PATCH a value
 *   different from the current one is a 422 and the current value is harmless.
 */
export type FieldAccess = 'client' | 'restricted' | 'write-only' | 'server';

export type FieldType =
  | 'id'
  | 'string'
  | 'email'
  | 'money'
  | 'integer'
  | 'enum'
  | 'password'
  | 'timestamp'
  | 'list';

export interface FieldRule {
  /** Internal (English) name; the Portuguese one comes from vocabulary.ts. */
  readonly name: string;
  readonly type: FieldType;
  readonly access: FieldAccess;
  /** Must be present on create and replace. */
  readonly required?: boolean;
  /** Bounds: characters for strings, value for numbers, elements for lists. */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values of an `enum`. */
  readonly values?: readonly string[];
  /** For a `restricted` field: the values a non-admin owner may still set (cancelling an order). */
  readonly ownerMaySet?: readonly string[];
  /** Value given on create when the body has none. */
  readonly default?: string;
  /** Fields of each element of a `list`. */
  readonly of?: readonly FieldRule[];
  /** Unique across the collection, compared ignoring case. */
  readonly uniqueIgnoringCase?: boolean;
  /** Where a write-only secret's hash is kept in the stored record. */
  readonly storedAs?: string;
  /** Offered as an equality filter in lists (README: Lists). */
  readonly filter?: boolean;
  /** Offered as a sort key in lists. */
  readonly sort?: boolean;
}

/** What a resource may add to a write beyond its field rules (an order's prices and states). */
export interface WriteContext {
  readonly next: Fields;
  readonly current: StoredRecord | undefined;
  readonly store: Store;
}

export interface ResourceDefinition {
  readonly collection: CollectionName;
  /** Singular noun used in messages: "user". */
  readonly singular: string;
  /** A nested resource names its parent collection and the field holding the parent's id. */
  readonly parent?: { readonly collection: CollectionName; readonly field: string };
  /**
   * Whose records these are, for permissions (README: Authentication and permissions): a user owns their own
   * record (`self`) and the records nested under it (`parent`).
   */
  readonly owner?: 'self' | 'parent';
  /** In representation order. */
  readonly fields: readonly FieldRule[];
  /** Fields of the 201 body when it is not the whole record (a new user answers `{id, name}`). */
  readonly createdFields?: readonly string[];
  /** Computes server-owned fields and checks state rules; throws 409/422. Synchronous by design. */
  readonly completeWrite?: (context: WriteContext) => Fields;
}

export const ID_FIELD: FieldRule = { name: 'id', type: 'id', access: 'server', sort: true };
export const CREATED_AT_FIELD: FieldRule = { name: 'created_at', type: 'timestamp', access: 'server', sort: true };
export const UPDATED_AT_FIELD: FieldRule = { name: 'updated_at', type: 'timestamp', access: 'server', sort: true };
