// The operations of a singleton's path (README: Your own resources, singletons), `/v1/<name>` without an id: read,
// replace (whose first call may make the record: 201, RFC 9110 §9.3.4) and patch (RFC 7396). No list, create or
// delete: the router answers those 405. HEAD and OPTIONS are added by document.ts.

import { vocabularyOf } from '../resources/definition.ts';
import type { RouteSpec } from '../routing/route-table.ts';
import { SUCCESS_HEADERS } from './headers.ts';
import { componentName, operationNouns, schemaReference as reference } from '../resources/names.ts';
import { embedParameter, fieldsParameter, IF_MATCH, IF_NONE_MATCH, IF_NONE_MATCH_ON_WRITE } from './parameters.ts';
import { audienceText, bodySuffix, errorStatuses, recordParts } from './operation-parts.ts';
import { jsonContent, responses, success } from './responses.ts';
import type { Schema } from './schemas.ts';
import { bodySchema, recordSchema, selectionSchema } from './schemas.ts';

type Json = Record<string, unknown>;

export type SingletonRoute = Extract<RouteSpec, { kind: 'singleton' }>;

/** GET, PUT and PATCH of a singleton's path, in its route's vocabulary. */
export function singletonOperations(route: SingletonRoute): Json {
  const { definition, language } = route;
  const nouns = operationNouns(definition, language);
  const vocabulary = vocabularyOf(definition, language);
  const tag = vocabulary.collection;
  const the = `the ${definition.singular}`;
  const { context, body, record, writtenAnswer, readAnswer, keptWhenAbsent } = recordParts(definition, language);
  const made = success(
    `Created: this PUT made ${the}, which had no record yet; Location is this path`,
    { Location: SUCCESS_HEADERS.created.Location, ...SUCCESS_HEADERS.etag },
    jsonContent(reference(componentName(definition, language)), record),
  );
  const absent =
    `Until ${the} is made (at the start, from its defaults; by the first PUT when a required property has none), ` +
    'a GET and a PATCH are 404.';
  return {
    get: {
      operationId: `read${nouns.one}`,
      tags: [tag],
      summary: `Read ${the}`,
      description:
        `The one ${definition.singular} record, at this path without an id, and its ETag ` +
        `(with \`fields\`, only the properties named, and their own ETag); ` +
        `If-None-Match with that ETag answers 304. ${absent} ${audienceText(definition, 'read')}`,
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
    put: {
      operationId: `replace${nouns.one}`,
      tags: [tag],
      summary: `Replace ${the}`,
      description:
        `Replaces the fields a client writes: absent optional ones are removed, absent required ones are a 422` +
        `${keptWhenAbsent}. Makes ${the} when it has no record yet (201, with the defaults of what is absent; ` +
        `If-Match is then a 412). ` +
        `Repeating it changes nothing. ${audienceText(definition, 'update')}`,
      parameters: [IF_MATCH, IF_NONE_MATCH_ON_WRITE],
      requestBody: body('replace', ['application/json']),
      responses: responses(
        { 200: writtenAnswer, 201: made },
        errorStatuses(definition, 'item', 'update'),
        context(true),
      ),
    },
    patch: {
      operationId: `patch${nouns.one}`,
      tags: [tag],
      summary: `Change ${the} (JSON Merge Patch)`,
      description:
        `Changes the fields the body names (JSON Merge Patch, RFC 7396); null removes an optional field. ` +
        `${audienceText(definition, 'update')}`,
      parameters: [IF_MATCH, IF_NONE_MATCH_ON_WRITE],
      requestBody: body('patch', ['application/merge-patch+json', 'application/json']),
      responses: responses({ 200: writtenAnswer }, errorStatuses(definition, 'item', 'update'), context(true, true)),
    },
  };
}

/** The schemas a singleton's operations name: its record, a `fields=` selection of it, a PUT's and a PATCH's body. */
export function singletonSchemas(route: SingletonRoute): Record<string, Schema> {
  const { definition, language } = route;
  const schemas: Record<string, Schema> = {
    [componentName(definition, language)]: recordSchema(definition, language),
    [componentName(definition, language, 'Selection')]: selectionSchema(definition, language),
  };
  for (const kind of ['replace', 'patch'] as const)
    schemas[componentName(definition, language, bodySuffix(kind))] = bodySchema(definition, language, kind);
  return schemas;
}
