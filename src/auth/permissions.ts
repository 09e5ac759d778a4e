// Who may do what (README: Authentication and permissions, Your own resources): each resource declares, per
// operation, `public` (no token needed), `user` (any signed-in user), `owner` (the record's owner) or `admin`; admins
// may do everything. A user addressing someone else's record gets 403 whether or not it exists, so existence is not
// revealed.

import { HttpError } from '../errors/errors.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import type { Audience, Operation, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { ownerOf } from '../resources/ownership.ts';
import type { RecordReads } from '../store/store.ts';
import type { RecordId } from '../records/record-id.ts';

export type { Audience, Operation };

export type Role = 'user' | 'admin';

/** The authenticated caller, read from the current user record on every request. */
export interface Actor {
  readonly id: number;
  readonly role: Role;
  /** The API key the caller came with (README: API keys); a read-only one may not write. */
  readonly key?: { readonly id: number; readonly readOnly: boolean };
}

/** The operations that write. */
const WRITES: ReadonlySet<Operation> = new Set(['create', 'update', 'delete']);

/** Operations on the collection path; the others address one record. */
const COLLECTION_OPERATIONS: ReadonlySet<Operation> = new Set(['list', 'create']);

/**
 * True when `actor` owns what an operation at this path addresses: the record for
 * read, update and delete; the parent record for list and create in a nested
 * collection. In a top-level owned collection anyone signed in may create (and owns
 * what they create) and list (and sees only their own records: listsOwnRecordsOnly).
 * The owner (resources/ownership.ts) is the user at the root of the path (`/v1/users/{id}/…`), known before anything
 * is looked up, or in an `owned` collection the user who created the record (its `owner_id`), which is looked up.
 */
function ownsTarget(
  actor: Actor,
  definition: ResourceDefinition,
  operation: Operation,
  ids: readonly RecordId[],
  store: RecordReads,
): boolean {
  if (!COLLECTION_OPERATIONS.has(operation)) return ownerOf(definition, ids, store) === actor.id;
  const parent = definition.parent?.definition;
  if (parent !== undefined) return ownerOf(parent, ids, store) === actor.id;
  return definition.ownership === 'owned';
}

/** True when `actor` (undefined: no token) may perform `operation` at a path with these ids. */
export function isAllowed(
  actor: Actor | undefined,
  definition: ResourceDefinition,
  operation: Operation,
  ids: readonly RecordId[],
  store: RecordReads,
): boolean {
  const audience = definition.access[operation];
  if (audience === 'public') return true;
  if (actor === undefined) return false;
  if (actor.role === 'admin' || audience === 'user') return true;
  return audience === 'owner' && ownsTarget(actor, definition, operation, ids, store);
}

/** A list a non-admin sees only their own records of: `list: owner` on a top-level owned collection. */
export function listsOwnRecordsOnly(actor: Actor | undefined, definition: ResourceDefinition): actor is Actor {
  return (
    actor !== undefined &&
    actor.role !== 'admin' &&
    definition.access.list === 'owner' &&
    definition.parent === undefined &&
    definition.ownership === 'owned'
  );
}

/** Who asks, for which ids of a path, through which store: what a permission check needs of a request. */
export interface Asking {
  readonly actor: Actor | undefined;
  readonly ids: readonly RecordId[];
  readonly store: RecordReads;
}

/**
 * The path-level check of a resource handler: 403 before the body is read, and before the record is looked for (404),
 * so a caller may not learn whether a record it may not touch exists. An `owner` check in an `owned` collection reads
 * the record for its owner; an absent one has none, and is a 403 too.
 */
export function authorize(request: Asking, definition: ResourceDefinition, operation: Operation): Actor | undefined {
  const actor = request.actor;
  if (actor?.key?.readOnly === true && WRITES.has(operation))
    throw new HttpError('forbidden', 'this API key is read-only: it may not create, change or delete anything');
  if (isAllowed(actor, definition, operation, request.ids, request.store)) return actor;
  if (actor === undefined) throw new Error(`${definition.collection} handler reached without an authenticated caller`);
  const who = definition.access[operation] === 'owner' ? 'the user they belong to, or an admin,' : 'an admin';
  throw new HttpError('forbidden', `only ${who} may ${operation} ${definition.collection} here`);
}

/**
 * Permission that depends on the body (README: Errors: checked after the body is read,
 * before validation): an admin-only field (`role`, an order's `status`) may be changed
 * by an admin only, except to the values an owner may set (cancelling an order).
 * Sending the current value back is not a change.
 */
export function requireBodyPermission(
  actor: Actor | undefined,
  definition: ResourceDefinition,
  body: JsonObject,
  vocabulary: Vocabulary,
  current: JsonObject | undefined,
): void {
  // A key stands for a program: a password it set would let whoever holds the key sign in, and make keys.
  if (actor?.key !== undefined)
    for (const rule of definition.fields) {
      const name = vocabulary.name(rule.name);
      if (rule.access === 'write-only' && Object.hasOwn(body, name))
        throw new HttpError('forbidden', `an API key cannot set ${name}: sign in with a password or your provider`);
    }
  if (actor?.role === 'admin') return;
  for (const rule of definition.fields) {
    if (rule.access !== 'restricted') continue;
    const name = vocabulary.name(rule.name);
    if (!Object.hasOwn(body, name)) continue;
    const value = body[name] as JsonValue;
    const unchanged = value === (current === undefined ? rule.default : current[rule.name]);
    if (unchanged || rule.ownerMaySet?.includes(value) === true) continue;
    const allowed = rule.ownerMaySet === undefined ? '' : `; you may set it to ${rule.ownerMaySet.join(' or ')}`;
    throw new HttpError('forbidden', `only an admin may change ${name}${allowed}`);
  }
}
