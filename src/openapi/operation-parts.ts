// What the operations of a collection, an item and a singleton path share (README: Methods, Errors): who may call
// them, in words; the error statuses each can answer; the request body of a create, replace or patch; and the
// record's answers to a read (with `fields`, a selection, README: Lists) and to a write.

import type { Language, Operation, ResourceDefinition } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { componentName, schemaReference as reference } from '../resources/names.ts';
import { exampleRecord } from './examples.ts';
import { SUCCESS_HEADERS } from './headers.ts';
import type { ErrorContext } from './responses.ts';
import { jsonContent, success } from './responses.ts';
import type { BodyKind } from './schemas.ts';
import { exampleBody } from './schemas.ts';

type Json = Record<string, unknown>;

/** Who may call an operation (the permission table, auth/permissions.ts), in words. */
export function audienceText(definition: ResourceDefinition, operation: Operation): string {
  const audience = definition.access[operation];
  if (audience === 'admin') return 'Who: an admin only.';
  if (audience === 'user') return 'Who: any logged-in user.';
  if (audience === 'public') return 'Who: anyone, without a token.';
  return `Who: the user the ${definition.ownership === 'self' ? 'record is' : 'records belong to'}, or an admin.`;
}

/**
 * The error statuses an operation can answer (README: Errors), derived from what the
 * resource declares: 403 only where someone may be refused, 404 for items and nested
 * collections, 409 where a unique field or a state machine can conflict, and the body
 * statuses (413, 415, 422, and 503 when the server holds too many bodies) only for
 * writes with a body.
 */
export function errorStatuses(
  definition: ResourceDefinition,
  kind: 'collection' | 'item',
  operation: Operation,
): number[] {
  const statuses = [400, 401, 406, 429];
  const restricted = definition.fields.some((rule) => rule.access === 'restricted');
  const audience = definition.access[operation];
  // Any write may be a 403 whoever may make it: a read-only API key's (README: API keys).
  if ((audience !== 'user' && audience !== 'public') || (operation !== 'list' && operation !== 'read')) {
    statuses.push(403);
  }
  if (kind === 'item' || definition.parent !== undefined) statuses.push(404);
  const unique = definition.fields.some((rule) => rule.unique !== undefined);
  const chosenId = definition.idKind === 'string';
  // A chosen id another record has is a 409 too (README: Your own resources, ids).
  if ((operation === 'create' || operation === 'update') && (unique || (operation === 'create' && chosenId)))
    statuses.push(409);
  if (
    operation === 'update' &&
    ((definition.hook !== undefined && restricted) || definition.fields.some((rule) => rule.transitions !== undefined))
  )
    statuses.push(409);
  if (operation === 'delete' && referencedAtAnyDepth(definition)) statuses.push(409);
  if (operation === 'update' || operation === 'delete') statuses.push(412);
  if (operation === 'create' || operation === 'update') statuses.push(413, 415, 422, 503);
  return [...new Set(statuses)].sort((a, b) => a - b);
}

/**
 * A deletion takes the records nested under it (handlers/delete-cascade.ts): a 409 when any of them is referenced, or
 * has children that hold it (`"on-delete": "restrict"`).
 */
function referencedAtAnyDepth(definition: ResourceDefinition): boolean {
  return (
    definition.referencedBy.length > 0 ||
    definition.children.some((child) => child.parent?.onDelete === 'restrict' || referencedAtAnyDepth(child))
  );
}

export function bodySuffix(kind: BodyKind): string {
  return kind === 'create' ? 'Create' : kind === 'replace' ? 'Replace' : 'Patch';
}

/** The parts of a record's operations (an item's or a singleton's), in one vocabulary. */
export interface RecordParts {
  /** The error context of an operation that reads a body (or not), as a merge patch (or not). */
  readonly context: (readsBody: boolean, patch?: boolean) => ErrorContext;
  /** A required request body of `kind`, the same schema and example under each media type. */
  readonly body: (kind: BodyKind, mediaTypes: readonly string[]) => Json;
  /** The example record. */
  readonly record: Json;
  /** A write's 200: the record and its ETag. */
  readonly writtenAnswer: Json;
  /** A read's 200: the record, or with `fields` a selection of it, and its ETag. */
  readonly readAnswer: Json;
  /** What a PUT keeps when absent (handlers/write-record.ts: replaceFields), as the end of a sentence, or ''. */
  readonly keptWhenAbsent: string;
}

export function recordParts(definition: ResourceDefinition, language: Language): RecordParts {
  const vocabulary = vocabularyOf(definition, language);
  const unique = definition.fields.some((rule) => rule.unique !== undefined);
  const record = exampleRecord(definition, language);
  const recordContent = jsonContent(reference(componentName(definition, language)), record);
  // What only some may set, and what has a default, stay as they are when a PUT leaves them out.
  const kept = definition.fields
    .filter((rule) => rule.access === 'restricted' || rule.access === 'write-only' || rule.default !== undefined)
    .filter((rule) => rule.access !== 'server')
    .map((rule) => vocabulary.name(rule.name));
  return {
    context: (readsBody, patch = false) => ({ readsBody, patch, conflict: unique ? 'duplicate' : 'state' }),
    body: (kind, mediaTypes) => {
      const media = {
        schema: reference(componentName(definition, language, bodySuffix(kind))),
        example: exampleBody(definition, language, kind),
      };
      return { required: true, content: Object.fromEntries(mediaTypes.map((type) => [type, media])) };
    },
    record,
    writtenAnswer: success('the record', SUCCESS_HEADERS.etag, recordContent),
    readAnswer: success(
      'the record, or with fields only the properties named',
      SUCCESS_HEADERS.etag,
      jsonContent(
        {
          anyOf: [
            reference(componentName(definition, language)),
            reference(componentName(definition, language, 'Selection')),
          ],
        },
        record,
      ),
    ),
    keptWhenAbsent: kept.length > 0 ? `, and ${kept.join(' and ')} stay as they are when absent` : '',
  };
}
