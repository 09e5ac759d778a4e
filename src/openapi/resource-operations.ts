// The operations of a collection path and an item path (README: Methods, Lists), in one
// vocabulary, read from the resource declaration: list and create, read, replace,
// patch and delete, each with its parameters, body, answers and examples. HEAD and
// OPTIONS are added for every path by document.ts.

import { vocabularyOf } from '../resources/definition.ts';
import type { RouteSpec } from '../routing/route-table.ts';
import { listExample } from './examples.ts';
import { EXAMPLE_KEY_SECRET, EXAMPLE_WEBHOOK_SECRET } from './written-examples.ts';
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
import { audienceText, errorStatuses, recordParts } from './operation-parts.ts';
import { jsonContent, responses, success } from './responses.ts';

type Json = Record<string, unknown>;

export type ResourceRoute = Extract<RouteSpec, { kind: 'collection' | 'item' }>;

/** The operations of one collection or item path; `path` is its concrete example path. */
export function resourceOperations(route: ResourceRoute, path: string): Json {
  const { definition, language } = route;
  const nouns = operationNouns(definition, language);
  const vocabulary = vocabularyOf(definition, language);
  const tag = vocabulary.collection;
  const a = withArticle(definition.singular);
  const { context, body, record, writtenAnswer, readAnswer, keptWhenAbsent } = recordParts(definition, language);

  if (route.kind === 'collection') {
    // Secrets the server makes (an API key's, a webhook's) are in the 201 only, and no saved answer may hold them.
    const issuedRules = definition.fields.filter((rule) => rule.issued !== undefined);
    const issued = issuedRules.map((rule) => vocabulary.name(rule.name));
    const isKey = issuedRules.some((rule) => rule.issued === 'api-key');
    const exampleSecrets = issuedRules.map((rule) => [
      vocabulary.name(rule.name),
      rule.issued === 'api-key' ? EXAMPLE_KEY_SECRET : EXAMPLE_WEBHOOK_SECRET,
    ]);
    const created =
      definition.createdFields === undefined
        ? { ...record, ...Object.fromEntries(exampleSecrets) }
        : Object.fromEntries(
            definition.createdFields.map((name) => [vocabulary.name(name), record[vocabulary.name(name)] ?? null]),
          );
    const retries =
      issued.length === 0
        ? 'With an Idempotency-Key, a retry replays the first answer (Idempotent-Replayed: true) ' +
          'instead of creating another. '
        : `Its ${issued.join(' and ')} is in this answer only: ` +
          `${isKey ? 'plainrest keeps its hash' : 'plainrest keeps it to sign with, and never shows it again'}. ` +
          `It takes no Idempotency-Key (a saved answer would hold the ${issued.join(' and ')})` +
          `${isKey ? ', and cannot be made with another API key' : ''}. `;
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
  const children = definition.children;
  const updated = (patch: boolean): Json =>
    responses({ 200: writtenAnswer }, errorStatuses(definition, 'item', 'update'), context(true, patch));
  // A string id is the client's: a PUT to an absent item's path makes it (README: Your own resources, ids).
  const madeByPut = success(
    'Created: no record had this id, and the PUT made it here (If-Match forbids that, If-None-Match: * asks it)',
    SUCCESS_HEADERS.created,
    jsonContent(reference(componentName(definition, language)), record),
  );
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
