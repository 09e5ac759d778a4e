// The id a new record gets (README: Your own resources, ids): the collection's next integer, a new uuid (RFC 9562
// §5.4, lower-case, from `crypto.randomUUID`), or, for string ids, the one the client chose: `id` in a POST's body or
// the path of a PUT that makes the record. A chosen id already taken is a 409.

import { randomUUID } from 'node:crypto';
import type { FieldError } from '../errors/errors.ts';
import { HttpError, validationError } from '../errors/errors.ts';
import type { JsonObject } from '../records/json.ts';
import { isStringId, STRING_ID_PATTERN, type RecordId } from '../records/record-id.ts';
import type { ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import type { RecordReads, RequestStore } from '../store/store.ts';

/** A POST's body split into the id it chooses (string ids only) and the rest, with the id's problem if it has one. */
export interface ChosenId {
  readonly id: string | undefined;
  readonly body: JsonObject;
  readonly error: FieldError | undefined;
}

/** The `id` a POST's body gives a collection of string ids: required, and of the pattern string ids follow. */
export function chosenId(definition: ResourceDefinition, body: JsonObject, vocabulary: Vocabulary): ChosenId {
  if (definition.idKind !== 'string') return { id: undefined, body, error: undefined };
  const field = vocabulary.name('id');
  const { [field]: given, ...rest } = body;
  if (given === undefined)
    return { id: undefined, body: rest, error: { field, code: 'required', message: 'is required: you choose it' } };
  if (!isStringId(given))
    return {
      id: undefined,
      body: rest,
      error: { field, code: 'invalid_format', message: `must be a string matching ${STRING_ID_PATTERN}` },
    };
  return { id: given, body: rest, error: undefined };
}

/** `decide()`, with the chosen id's problem, if any, named in its 422 beside the body's (one 422 names every field). */
export function withIdChecked<T>(chosen: ChosenId, decide: () => T): T {
  const idError = chosen.error;
  if (idError === undefined) return decide();
  try {
    decide();
  } catch (error) {
    if (error instanceof HttpError && error.status === 422 && error.errors !== undefined)
      throw validationError([idError, ...error.errors]);
    throw error;
  }
  throw validationError([idError]);
}

/**
 * The id a new record will have, taken before its write is decided (a store may decide twice, and must make the same
 * record): the chosen one, or a new uuid; undefined for integer ids, which the decision takes (newRecordId).
 */
export function idBeforeWrite(definition: ResourceDefinition, chosen: ChosenId): string | undefined {
  return definition.idKind === 'uuid' ? randomUUID() : chosen.id;
}

/** Inside the write: the id taken before it (a chosen one: 409 when taken), else the collection's next integer. */
export function newRecordId(definition: ResourceDefinition, store: RequestStore, before: string | undefined): RecordId {
  if (before === undefined) return store.allocateId(definition.collection);
  if (definition.idKind === 'string') requireFreeId(definition, store, before);
  return before;
}

/** 409 `duplicate_value` when a record of the collection has `id` already. */
export function requireFreeId(definition: ResourceDefinition, store: RecordReads, id: RecordId): void {
  if (store.get(definition.collection, id) !== undefined)
    throw new HttpError('duplicate_value', `another ${definition.singular} already has the id ${JSON.stringify(id)}`);
}
