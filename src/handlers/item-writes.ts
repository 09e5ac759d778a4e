// PUT, PATCH and DELETE on one record (README: Methods), each honouring If-Match and If-None-Match (RFC 9110 §13.1.1,
// §13.1.2). A PUT or PATCH that changes nothing writes nothing and keeps `updated_at`, so repeating it is harmless
// (idempotent, RFC 9110 §9.2.2); a PUT to a singleton not made yet, or to an absent record of string ids, makes it
// (201, §9.3.4). DELETE answers 204; a second, 404.

import { type Actor, authorize, requireBodyPermission } from '../auth/permissions.ts';
import { requireParentId, requireRecord, type RequestContext } from './context.ts';
import { JSON_MEDIA_TYPES, MERGE_PATCH_MEDIA_TYPES, readJsonBody } from '../http/body.ts';
import { requireCreatePreconditions, requireWritePreconditions } from '../http/conditional.ts';
import { rejectQueryParameters } from '../http/record-query.ts';
import type { Reply } from '../http/respond.ts';
import type { Fields, JsonObject, StoredRecord } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import type { ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { SINGLETON_ID } from '../resources/definition.ts';
import { represent, serializeWritten } from '../resources/representation.ts';
import { writeOnlyValues } from '../resources/validation.ts';
import type { WriteInput } from './write-record.ts';
import { deletionWithDependents, type MayTouch } from './delete-cascade.ts';
import { isAllowed } from '../auth/permissions.ts';
import { pathIdsOf } from '../resources/ownership.ts';
import { fieldsToStore, recordToStore, isUnchanged, hashedSecrets, preparedFields } from './write-record.ts';
import type { Decision } from '../store/store.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import { PROVIDER_IDENTITY } from '../declarations/built-in-users.ts';
import { HttpError } from '../errors/errors.ts';
import { representationReply } from './read-record.ts';

/** Checks the query, the permission and the record before the body is read, then writes what the body says. */
export function updateRecord(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  mode: 'replace' | 'patch',
): Promise<Reply> {
  rejectQueryParameters(context.queryString);
  // A PUT that makes a record of string ids asks create access, as a POST would (docs/resources.md: Ids).
  const actor = authorize(context, definition, makesRecord(context, definition, mode) ? 'create' : 'update');
  const firstRead = currentRecord(context, definition, mode);
  return updateFromBody(context, definition, vocabulary, mode, actor, firstRead);
}

/**
 * The record the path names, else 404; but a PUT to a singleton that is not made yet, or to an absent record of a
 * collection of string ids (its parents found), makes it: undefined.
 */
function currentRecord(
  context: RequestContext,
  definition: ResourceDefinition,
  mode: 'replace' | 'patch',
): StoredRecord | undefined {
  if (definition.singleton === true && mode === 'replace')
    return context.store.get(definition.collection, SINGLETON_ID);
  if (definition.idKind === 'string' && mode === 'replace') {
    if (context.store.get(definition.collection, pathId(context)) === undefined) {
      requireParentId(context, definition);
      return undefined;
    }
  }
  return requireRecord(context, definition);
}

/** True when the request is a PUT to an absent record of string ids, which makes it (a singleton's is an update). */
function makesRecord(context: RequestContext, definition: ResourceDefinition, mode: 'replace' | 'patch'): boolean {
  return (
    definition.idKind === 'string' &&
    mode === 'replace' &&
    context.store.get(definition.collection, pathId(context)) === undefined
  );
}

/** The id of the record the path names: its last. */
function pathId(context: RequestContext): RecordId {
  return context.ids[context.ids.length - 1] as RecordId;
}

/** A PUT's body for the record it makes: an `id` the path gives already is no field it sets (README: ids). */
function withoutPathId(body: JsonObject, vocabulary: Vocabulary, id: RecordId): JsonObject {
  const field = vocabulary.name('id');
  if (body[field] !== id) return body;
  const { [field]: _given, ...rest } = body;
  return rest;
}

async function updateFromBody(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  mode: 'replace' | 'patch',
  actor: Actor | undefined,
  firstRead: StoredRecord | undefined,
): Promise<Reply> {
  const { config } = context.services;
  const { store } = context;
  const representationOf = (record: StoredRecord) => represent(definition, record, vocabulary, config.caches);
  const mediaTypes = mode === 'patch' ? MERGE_PATCH_MEDIA_TYPES : JSON_MEDIA_TYPES;
  const body = await readJsonBody(context.req, mediaTypes, context.services.bodyLimits);
  const passwords = writeOnlyValues(definition.fields, body, vocabulary);
  context.valuesToRedact.push(...passwords);

  // Run inside the write (and before it, for a password's hash): the record as it is then, and its checks.
  const requireWriteInput = (): WriteInput => {
    const current = currentRecord(context, definition, mode);
    requireBodyPermission(actor, definition, body, vocabulary, current);
    if (current === undefined) {
      requireCreatePreconditions(context.req.headers);
      if (definition.singleton === true) return { definition, vocabulary, mode: 'create', body, store };
      // A record of string ids made by its PUT: as a POST would make it, under the same permission.
      const creator = authorize(context, definition, 'create');
      const parentId = requireParentId(context, definition);
      const given = withoutPathId(body, vocabulary, pathId(context));
      return {
        definition,
        vocabulary,
        mode: 'create',
        body: given,
        store,
        parentId,
        ...(creator === undefined ? {} : { creatorId: creator.id }),
      };
    }
    // Absent when the create access was checked: made meanwhile, it is replaced under the update access.
    if (firstRead === undefined && definition.singleton !== true) authorize(context, definition, 'update');
    requireWritePreconditions(context.req.headers, representationOf(current).etag);
    // A user an identity provider's token made signs in there (README: Provider tokens).
    if (current[PROVIDER_IDENTITY] !== undefined && passwords.length > 0)
      throw new HttpError('forbidden', 'this user signs in at the identity provider: they have no password here');
    const parentId = definition.parent === undefined ? undefined : context.ids[context.ids.length - 2];
    return { definition, vocabulary, mode, body, store, current, firstRead: firstRead ?? current, parentId };
  };
  // Only a body that carries a password waits here, for its hash (write-record.ts).
  const cost = context.services.config.passwordHashCost;
  const hashed = passwords.length === 0 ? undefined : await store.read(() => hashedSecrets(requireWriteInput(), cost));
  // A webhook's new URL is checked once its name is resolved (context.ts: WritePreparation).
  const preparation = context.services.preparations?.get(definition.collection);
  const prepared =
    preparation === undefined ? undefined : await store.read(() => preparedFields(requireWriteInput(), preparation));
  return store.write((): Decision<Reply> => {
    const input = requireWriteInput();
    const checked = fieldsToStore(input, hashed);
    const next = prepared === undefined ? checked : { ...checked, ...prepared };
    const current = input.current;
    if (current === undefined) {
      const id = definition.singleton === true ? SINGLETON_ID : pathId(context);
      return madeByPut(context.path, definition, vocabulary, next, id);
    }
    if (isUnchanged(definition, next, current))
      return { changes: [], result: representationReply(representationOf(current)) };
    const record = recordToStore(definition, next, current.id, current.created_at, isoTimestamp());
    const { stored, representation } = serializeWritten(definition, record, vocabulary);
    return {
      changes: [{ kind: 'put', collection: definition.collection, record, json: stored }],
      result: representationReply(representation),
    };
  });
}

/** A PUT that makes its record (a singleton's first, or a string id's): 201, its Location (the path) and ETag. */
function madeByPut(
  path: string,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  next: Fields,
  id: RecordId,
): Decision<Reply> {
  const now = isoTimestamp();
  const record = recordToStore(definition, next, id, now, now);
  const { stored, representation } = serializeWritten(definition, record, vocabulary);
  const { json, length, etag } = representation;
  return {
    changes: [{ kind: 'put', collection: definition.collection, record, json: stored, created: true }],
    result: { status: 201, headers: { Location: path, ETag: etag }, body: json, bodyLength: length },
  };
}

export function deleteRecord(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
): Promise<Reply> {
  rejectQueryParameters(context.queryString);
  return context.store.write((): Decision<Reply> => {
    authorize(context, definition, 'delete');
    const record = requireRecord(context, definition);
    requireWritePreconditions(
      context.req.headers,
      represent(definition, record, vocabulary, context.services.config.caches).etag,
    );
    // A record the deletion reaches through a reference asks its own permission of the caller; a property only an
    // administrator may change (x-admin-only) is cleared by an administrator's deletion only.
    const mayTouch: MayTouch = (target, touched, operation, field) =>
      isAllowed(context.actor, target, operation, pathIdsOf(target, touched, context.store), context.store) &&
      (field === undefined ||
        context.actor?.role === 'admin' ||
        target.fields.find((rule) => rule.name === field)?.access !== 'restricted');
    const updatedAt = isoTimestamp();
    return {
      changes: deletionWithDependents(context.store, definition, record, mayTouch, updatedAt),
      result: { status: 204 },
    };
  });
}
