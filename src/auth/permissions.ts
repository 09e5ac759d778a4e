// Who may do what (README: Authentication and permissions), as one table. Admins may do everything. "owner" means
// the user named in the path: `/v1/users/{id}` and everything under it belongs to user
// {id}, so a user addressing another user's records gets 403 before anything is
// looked up, and whether those records exist is not revealed.

import type { RequestContext } from '../context.js';
import { HttpError } from '../http/errors.js';
import type { JsonObject } from '../json.js';
import type { CollectionName, ResourceDefinition } from '../resources/definition.js';
import type { Language } from '../vocabulary.js';
import { translate } from '../vocabulary.js';

export type Operation = 'list' | 'create' | 'read' | 'update' | 'delete';

/** Besides admins: any signed-in user, only the owner, or nobody else. */
export type Audience = 'anyone' | 'owner' | 'admin';

// prettier-ignore
export const PERMISSIONS: Readonly<Record<CollectionName, Readonly<Record<Operation, Audience>>>> = {
  users:    { list: 'admin',  create: 'admin', read: 'owner',  update: 'owner', delete: 'owner' },
  products: { list: 'anyone', create: 'admin', read: 'anyone', update: 'admin', delete: 'admin' },
  orders:   { list: 'owner',  create: 'owner', read: 'owner',  update: 'owner', delete: 'admin' },
};

export type Role = 'user' | 'admin';

/** The authenticated caller, read from the current user record on every request. */
export interface Actor {
  readonly id: number;
  readonly role: Role;
}

/** True when `actor` may perform `operation` on `collection` at a path owned by `ownerId`. */
export function isAllowed(actor: Actor, collection: CollectionName, operation: Operation, ownerId: number | undefined): boolean {
  if (actor.role === 'admin') return true;
  const audience = PERMISSIONS[collection][operation];
  if (audience === 'anyone') return true;
  return audience === 'owner' && ownerId !== undefined && ownerId === actor.id;
}

export function requirePermission(actor: Actor, collection: CollectionName, operation: Operation, ownerId: number | undefined): void {
  if (isAllowed(actor, collection, operation, ownerId)) return;
  const who = PERMISSIONS[collection][operation] === 'owner' ? 'the user they belong to, or an admin,' : 'an admin';
  throw new HttpError('forbidden', `only ${who} may ${operation} ${collection} here`);
}

/**
 * Permission that depends on the body (README: Authentication and permissions, Errors: checked after the body is read,
 * before validation): a restricted field (`role`, an order's `status`) may be changed
 * by an admin only, except to the values the owner may set (cancelling an order).
 * Sending the current value back is not a change.
 */
export function requireBodyPermission(
  actor: Actor,
  definition: ResourceDefinition,
  body: JsonObject,
  language: Language,
  current: JsonObject | undefined,
): void {
  if (actor.role === 'admin') return;
  for (const rule of definition.fields) {
    if (rule.access !== 'restricted') continue;
    const name = translate(rule.name, language);
    if (!Object.hasOwn(body, name)) continue;
    const value = body[name];
    const unchanged = value === (current === undefined ? rule.default : current[rule.name]);
    if (unchanged || (typeof value === 'string' && rule.ownerMaySet?.includes(value) === true)) continue;
    const allowed = rule.ownerMaySet === undefined ? '' : `; you may set it to ${rule.ownerMaySet.join(' or ')}`;
    throw new HttpError('forbidden', `only an admin may change ${name}${allowed}`);
  }
}

/** The user who owns the records a path names: `/v1/users/{id}…` belongs to user {id}. */
export function ownerFromPath(definition: ResourceDefinition, ids: readonly number[]): number | undefined {
  if (definition.owner === 'parent') return ids[0];
  if (definition.owner === 'self') return ids.length > 0 ? ids[ids.length - 1] : undefined;
  return undefined;
}

/** The path-level check of a resource handler (403 before any record is looked up). */
export function authorize(context: RequestContext, definition: ResourceDefinition, operation: Operation): Actor {
  const actor = context.actor;
  if (actor === undefined) throw new Error(`${definition.collection} handler reached without an authenticated caller`);
  requirePermission(actor, definition.collection, operation, ownerFromPath(definition, context.ids));
  return actor;
}
