// The operations of a collection path and an item path (README: Methods, Lists), in one
// vocabulary, read from the resource declaration: list and create, read, replace,
// patch and delete, each with its parameters, body, answers and examples. HEAD and
// OPTIONS are added for every path by document.ts.

import type { Operation, ResourceDefinition } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import type { RouteSpec } from '../routing/route-table.ts';
import { exampleRecord, listExample } from './examples.ts';
import { EXAMPLE_KEY_SECRET } from './written-examples.ts';
import { SUCCESS_HEADERS } from './headers.ts';
import { componentName, operationNouns, schemaReference as reference, withArticle } from '../resources/names.ts';
import {
  embedParameter,
  fieldsParameter,
  IF_MATCH,
  IF_NONE_MATCH,
  IF_NONE_MATCH_ON_WRITE,
  idempotencyKey,
  listParameters,
} from './parameters.ts';
import type { ErrorContext } from './responses.ts';
import { jsonContent, responses, success } from './responses.ts';
import type { BodyKind } from './schemas.ts';
import { exampleBody } from './schemas.ts';

type Json = Record<string, unknown>;

export type ResourceRoute = Extract<RouteSpec, { kind: 'collection' | 'item' }>;

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

/** The operations of one collection or item path; `path` is its concrete example path. */
export function resourceOperations(route: ResourceRoute, path: string): Json {
  const { definition, language } = route;
  const nouns = operationNouns(definition, language);
  const vocabulary = vocabularyOf(definition, language);
  const tag = vocabulary.collection;
  const a = withArticle(definition.singular);
  const unique = definition.fields.find((rule) => rule.unique !== undefined);
  const context = (readsBody: boolean, patch = false): ErrorContext => ({
    readsBody,
    patch,
    conflict: unique === undefined ? 'state' : 'duplicate',
  });
  const body = (kind: BodyKind, mediaTypes: readonly string[]): Json => {
    const media = {
      schema: reference(componentName(definition, language, bodySuffix(kind))),
      example: exampleBody(definition, language, kind),
    };
    return { required: true, content: Object.fromEntries(mediaTypes.map((type) => [type, media])) };
  };
  const record = exampleRecord(definition, language);
  const writtenAnswer = success(
    'the record',
    SUCCESS_HEADERS.etag,
    jsonContent(reference(componentName(definition, language)), record),
  );
  // With `fields`, a read answers only the properties named (README: Lists): the record or a selection of it.
  const readAnswer = success(
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
  );

  if (route.kind === 'collection') {
    // Secrets the server makes (an API key's) are in the 201 only, and no saved answer may hold them.
    const issued = definition.fields
      .filter((rule) => rule.issued !== undefined)
      .map((rule) => vocabulary.name(rule.name));
    const created =
      definition.createdFields === undefined
        ? { ...record, ...Object.fromEntries(issued.map((name) => [name, EXAMPLE_KEY_SECRET])) }
        : Object.fromEntries(
            definition.createdFields.map((name) => [vocabulary.name(name), record[vocabulary.name(name)] ?? null]),
          );
    const retries =
      issued.length === 0
        ? 'With an Idempotency-Key, a retry replays the first answer (Idempotent-Replayed: true) ' +
          'instead of creating another. '
        : `Its ${issued.join(' and ')} is in this answer only: plainrest keeps its hash. ` +
          `It takes no Idempotency-Key (a saved answer would hold the ${issued.join(' and ')}), ` +
          `and cannot be made with another API key. `;
    const filters = definition.fields.filter((rule) => rule.filter === true).map((rule) => vocabulary.name(rule.name));
    return {
      get: {
        operationId: `list${nouns.many}`,
        tags: [tag],
        summary: `List ${definition.collection}`,
        description:
          `A page of ${definition.collection}` +
          `${filters.length > 0 ? `, filtered by ${filters.join(' and ')} when given` : ''}, in the list envelope; ` +
          `the links to the other pages keep the filters and sort, and are also in the Link header (RFC 8288). ` +
          `${audienceText(definition, 'list')}`,
        parameters: [...listParameters(definition, language), IF_NONE_MATCH],
        responses: responses(
          {
            200: success(
              'a page of records',
              { ...SUCCESS_HEADERS.listEtag, ...SUCCESS_HEADERS.link },
              jsonContent(
                reference(componentName(definition, language, 'List')),
                listExample(definition, language, path),
              ),
            ),
            304: success('Not Modified: the page is as it was when its ETag was sent', SUCCESS_HEADERS.listEtag),
          },
          errorStatuses(definition, 'collection', 'list'),
          context(false),
        ),
      },
      post: {
        operationId: `create${nouns.one}`,
        tags: [tag],
        summary: `Create ${a}`,
        description:
          `Creates ${a} and answers 201 with ` +
          `${definition.createdFields === undefined ? 'it' : `its ${definition.createdFields.join(' and ')}`}, ` +
          `its Location and its ETag. ${retries}${audienceText(definition, 'create')}`,
        ...(issued.length === 0 ? { parameters: [idempotencyKey(`create${nouns.one}-example-1`)] } : {}),
        requestBody: body('create', ['application/json']),
        responses: responses(
          {
            201: success(
              'Created: the new record, which Location names',
              issued.length === 0 ? SUCCESS_HEADERS.created : SUCCESS_HEADERS.createdSecret,
              jsonContent(reference(componentName(definition, language, 'Created')), created),
            ),
          },
          errorStatuses(definition, 'collection', 'create'),
          context(true),
        ),
      },
    };
  }
  // What a PUT keeps when absent (handlers/write-record.ts: replaceFields): what only some may set, what has a default.
  const keptOnReplace = definition.fields
    .filter((rule) => rule.access === 'restricted' || rule.access === 'write-only' || rule.default !== undefined)
    .filter((rule) => rule.access !== 'server')
    .map((rule) => vocabulary.name(rule.name));
  const children = definition.children;
  const updated = (patch: boolean): Json =>
    responses({ 200: writtenAnswer }, errorStatuses(definition, 'item', 'update'), context(true, patch));
  // A string id is the client's: a PUT to an absent item's path makes it (README: Your own resources, ids).
  const madeByPut = success(
    'Created: no record had this id, and the PUT made it here (If-Match forbids that, If-None-Match: * asks it)',
    SUCCESS_HEADERS.created,
    jsonContent(reference(componentName(definition, language)), record),
  );
  const keptWhenAbsent =
    keptOnReplace.length > 0 ? `, and ${keptOnReplace.join(' and ')} stay as they are when absent` : '';
  const updates: Json =
    definition.immutable === true
      ? {}
      : {
          put: {
            operationId: `replace${nouns.one}`,
            tags: [tag],
            summary: `Replace ${a}`,
            description:
              `Replaces the fields a client writes: absent optional ones are removed, absent required ones are a 422` +
              `${keptWhenAbsent}. ` +
              `Repeating it changes nothing. ${audienceText(definition, 'update')}`,
            parameters: [IF_MATCH, IF_NONE_MATCH_ON_WRITE],
            requestBody: body('replace', ['application/json']),
            responses:
              definition.idKind === 'string'
                ? responses(
                    { 200: writtenAnswer, 201: madeByPut },
                    errorStatuses(definition, 'item', 'update'),
                    context(true, false),
                  )
                : updated(false),
          },
          patch: {
            operationId: `patch${nouns.one}`,
            tags: [tag],
            summary: `Change ${a} (JSON Merge Patch)`,
            description:
              `Changes the fields the body names (JSON Merge Patch, RFC 7396); null removes an optional field. ` +
              `${audienceText(definition, 'update')}`,
            parameters: [IF_MATCH, IF_NONE_MATCH_ON_WRITE],
            requestBody: body('patch', ['application/merge-patch+json', 'application/json']),
            responses: updated(true),
          },
        };
  return {
    get: {
      operationId: `read${nouns.one}`,
      tags: [tag],
      summary: `Read ${a}`,
      description:
        `The ${definition.singular} with this id and its ETag ` +
        `(with \`fields\`, only the properties named, and their own ETag); ` +
        `If-None-Match with that ETag answers 304. ${audienceText(definition, 'read')}`,
      parameters: [...embedParameter(definition, language), fieldsParameter(definition, language), IF_NONE_MATCH],
      responses: responses(
        {
          200: readAnswer,
          304: success('Not Modified: the record is as it was when its ETag was sent', SUCCESS_HEADERS.etag),
        },
        errorStatuses(definition, 'item', 'read'),
        context(false),
      ),
    },
    ...updates,
    delete: {
      operationId: `delete${nouns.one}`,
      tags: [tag],
      summary: `Delete ${a}`,
      description:
        `Deletes the ${definition.singular}` +
        `${children.length > 0 ? ` and its ${children.map((child) => child.collection).join(' and ')}` : ''}; ` +
        `a second DELETE of the same id is a 404. ${audienceText(definition, 'delete')}`,
      parameters: [IF_MATCH, IF_NONE_MATCH_ON_WRITE],
      responses: responses(
        { 204: success('Deleted: no body') },
        errorStatuses(definition, 'item', 'delete'),
        context(false),
      ),
    },
  };
}

export function bodySuffix(kind: BodyKind): string {
  return kind === 'create' ? 'Create' : kind === 'replace' ? 'Replace' : 'Patch';
}
