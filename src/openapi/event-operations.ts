// The change feed in the document (README: Events): GET /v1/events (and /v1/eventos in Portuguese) as a paged list
// (README: Lists) or, with `Accept: text/event-stream`, as Server-Sent Events (WHATWG HTML §9.2). Its parameters in
// the path's vocabulary (events/event-query.ts), an event's schema and the list envelope in each vocabulary, the two
// media types of its 200, its 304, and the refusals particular to it.

import type { ResourceTable } from '../resources/definition.ts';
import { feedWords } from '../events/event-query.ts';
import { EVENT_TYPES } from '../feed/feed-event.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from '../http/list-query.ts';
import type { JsonObject } from '../records/json.ts';
import type { Language, ResourceDefinition } from '../resources/definition.ts';
import { recordedResources, vocabularyOf } from '../resources/definition.ts';
import type { RouteSpec } from '../routing/route-table.ts';
import { exampleRecord, resourceExamples } from './examples.ts';
import { EXAMPLE_TIME } from './written-examples.ts';
import { SUCCESS_HEADERS } from './headers.ts';
import { languageSuffix, schemaReference } from '../resources/names.ts';
import { IF_NONE_MATCH, LAST_EVENT_ID } from './parameters.ts';
import { responses, success } from './responses.ts';
import type { Schema } from './schemas.ts';
import { listSchema } from './list-schema.ts';
import { idSchema } from '../records/record-id.ts';
import { MAX_TARGET_LENGTH } from './problem-schema.ts';
import { literalPattern } from '../http/base-path.ts';

type Json = Record<string, unknown>;

export type EventRoute = Extract<RouteSpec, { kind: 'events' }>;

const EVENT_ID = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
const POSITION = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

/**
 * An event's `record_id`: the id of its record, of its collection's kind (README: Your own resources, ids), so an
 * integer, or also a string where a collection declares uuid or string ids.
 */
function recordIdSchema(table: ResourceTable): Schema {
  const kinds = new Set(recordedResources(table).map((definition) => definition.idKind));
  const schemas = [...kinds].map((kind) => (kind === 'integer' ? EVENT_ID : idSchema(kind)));
  return schemas.length === 1 ? (schemas[0] as Schema) : { anyOf: schemas };
}

/** `ChangeEvent`, `ChangeEventList_pt`: named apart from any declared resource's `Event`. */
export function eventComponent(language: Language, suffix = ''): string {
  return `ChangeEvent${suffix}${language === 'en' ? '' : `_${language}`}`;
}

/** The record an example event is about: a top-level collection other than the users (products), else the first. */
function exampleResource(table: ResourceTable): ResourceDefinition {
  const topLevel = recordedResources(table).filter((definition) => definition.parent === undefined);
  return topLevel.find((definition) => definition.collection !== 'users') ?? (topLevel[0] as ResourceDefinition);
}

/** The creation of the record a collection's create example makes (examples.ts), as event 14. */
export function exampleEvent(table: ResourceTable, language: Language): JsonObject {
  const definition = exampleResource(table);
  const name = vocabularyOf(definition, language).collection;
  const id = resourceExamples(definition, language).createdId;
  return {
    id: 14,
    type: 'created',
    collection: name,
    record_id: id,
    path: `/v1/${name}/${id}`,
    at: EXAMPLE_TIME,
    record: exampleRecord(definition, language),
  };
}

/**
 * An event as eventJson (events/event-json.ts) writes it, in `language`: its record is
 * one of that vocabulary's records, whose schema components `recordComponent` names; its path is under `basePath`.
 */
export function eventSchema(
  table: ResourceTable,
  language: Language,
  recordComponent: (definition: ResourceDefinition) => string,
  basePath: string,
): Schema {
  return {
    type: 'object',
    description:
      'One change of a record: its id is its place in the feed, to resume after (after, or Last-Event-ID on a stream).',
    required: ['id', 'type', 'collection', 'record_id', 'path', 'at'],
    additionalProperties: false,
    properties: {
      id: {
        ...EVENT_ID,
        description: "the event's number: increasing, one history for the whole server, kept across restarts",
      },
      type: { type: 'string', enum: [...EVENT_TYPES] },
      collection: {
        type: 'string',
        enum: recordedResources(table).map((definition) => vocabularyOf(definition, language).collection),
        description: "the record's collection, named in this path's vocabulary",
      },
      record_id: recordIdSchema(table),
      path: {
        type: 'string',
        format: 'uri-reference',
        pattern: `^${literalPattern(basePath)}/v1/`,
        maxLength: MAX_TARGET_LENGTH,
        description: "the record's address, in this path's vocabulary",
      },
      at: { type: 'string', format: 'date-time', maxLength: 32, description: 'when the change was stored (UTC)' },
      record: {
        description:
          'the record as the caller reads it at this version (GET on path, without embed); absent from a deletion',
        anyOf: recordedResources(table).map((definition) => schemaReference(recordComponent(definition))),
      },
    },
  };
}

/** The list envelope around events (README: Lists). */
export function eventListSchema(language: Language): Schema {
  return listSchema(schemaReference(eventComponent(language)));
}

function listExample(route: EventRoute): JsonObject {
  const words = feedWords(route.language);
  const page = `${route.pattern}?${words.page}=1&${words.limit}=${DEFAULT_PAGE_SIZE}`;
  return {
    data: [exampleEvent(route.resources, route.language)],
    meta: { page: 1, limit: DEFAULT_PAGE_SIZE, total: 1, pages: 1 },
    links: { self: page, first: page, prev: null, next: null, last: page },
  };
}

/**
 * What a stream sends (WHATWG HTML §9.2): `retry:`, then each event as an `id:`/`event:`/`data:` block, and comments
 * between them as heartbeats; a client resumes after Last-Event-ID (§9.2.4).
 */
function streamExample(route: EventRoute): string {
  const created = exampleEvent(route.resources, route.language);
  const { record: _record, ...rest } = created;
  const deleted = { ...rest, id: 15, type: 'deleted' };
  return [
    'retry: 1000',
    '',
    `id: ${created['id'] as number}`,
    'event: created',
    `data: ${JSON.stringify(created)}`,
    '',
    ': keep-alive',
    '',
    `id: ${deleted.id}`,
    'event: deleted',
    `data: ${JSON.stringify(deleted)}`,
    '',
    '',
  ].join('\n');
}

const STREAM_DESCRIPTION =
  'Server-Sent Events (WHATWG HTML §9.2), UTF-8: first `retry: 1000`, ' +
  'then each event as `id:` (its number), `event:` (its type) and `data:` (its JSON, as in the list), ' +
  'each block ended by an empty line. ' +
  'A comment line `: keep-alive` comes every 15 s (by default), ' +
  'followed by `id:` when events the caller may not see went by. ' +
  'Other events: `reset` (data {reason: "history_gone", detail, latest}) ' +
  'when the position asked for is no longer kept, after which the stream goes on from the newest event; ' +
  "`notice` (data {reason, detail}) saying why the caller's last stream was cut; " +
  '`closed` (data {reason, detail}; reason token_expired, user_deleted, key_deleted (the API key of the stream), ' +
  'shutting_down, ' +
  'or events_missed when the server lost its place for longer than the history is kept) ' +
  'just before the server ends the stream.';

/**
 * The stream's body, a component of its own (`ChangeEventStream`, in every vocabulary): a typed client names the list
 * by its media type (the 200's `application/json`: `ChangeEventList`) and the stream by this one.
 */
export const EVENT_STREAM_COMPONENT = eventComponent('en', 'Stream');
export const EVENT_STREAM_SCHEMA: Schema = { type: 'string', description: STREAM_DESCRIPTION };

function parameters(route: EventRoute): Json[] {
  const words = feedWords(route.language);
  const { resources, language } = route;
  const names = recordedResources(resources).map((definition) => vocabularyOf(definition, language).collection);
  const declared = recordedResources(resources)
    .map((definition) => definition.collection)
    .filter((name) => !names.includes(name));
  return [
    {
      name: words.collection,
      in: 'query',
      description:
        `only the events of this collection` + `${declared.length === 0 ? '' : ' (its English name is taken too)'}`,
      schema: { type: 'string', enum: [...names, ...declared] },
      example: vocabularyOf(exampleResource(resources), language).collection,
    },
    {
      name: words.type,
      in: 'query',
      description: 'only the events of this type',
      schema: { type: 'string', enum: [...EVENT_TYPES] },
      example: 'created',
    },
    {
      name: words.after,
      in: 'query',
      description:
        'only the events after this one (the id of the last event you have); one older than the history the feed ' +
        'keeps is a 410 (a `reset` on a stream). On a stream, Last-Event-ID wins over it',
      schema: POSITION,
      example: 0,
    },
    {
      name: words.page,
      in: 'query',
      description: 'page number (the list only: a stream is not paged, and a 400 names it there)',
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
      example: 1,
    },
    {
      name: words.limit,
      in: 'query',
      description: 'page size (the list only: a stream is not paged, and a 400 names it there)',
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
      example: DEFAULT_PAGE_SIZE,
    },
    IF_NONE_MATCH,
    LAST_EVENT_ID,
  ];
}

const DESCRIPTION =
  'Every change to a record the caller may read, oldest first: ' +
  'created, updated or deleted, with the record as it was then. ' +
  'As application/json, a page of events, filtered by collection, type and after. ' +
  'With Accept: text/event-stream, the same path is a stream that sends the missed events, ' +
  'then each new one as it is stored; a client that reconnects sends Last-Event-ID and misses nothing. ' +
  'A position older than the history kept (by default at least the last 10,000 events or 24 hours) is a 410, ' +
  'never a silent gap. Streams are limited per user and in all (429, with Retry-After). ' +
  'Who: any logged-in user; each sees the events of the records they may read ' +
  '(an admin every one, a user their own and those of the collections everyone may read).';

/** GET on the feed (HEAD and OPTIONS are added as for every path). */
export function eventOperations(route: EventRoute): Json {
  const content = {
    'application/json': {
      schema: schemaReference(eventComponent(route.language, 'List')),
      example: listExample(route),
    },
    'text/event-stream': { schema: schemaReference(EVENT_STREAM_COMPONENT), example: streamExample(route) },
  };
  return {
    get: {
      tags: ['events'],
      security: [{ bearer: [] }],
      operationId: `getEvents${languageSuffix(route.language)}`,
      summary: 'The change feed: a page of events, or a stream of them',
      description: DESCRIPTION,
      parameters: parameters(route),
      responses: responses(
        {
          200: success(
            'a page of events (application/json, the default), or with Accept: text/event-stream the stream',
            SUCCESS_HEADERS.feed,
            content,
          ),
          304: success('Not Modified: your copy of this page is current', {
            ...SUCCESS_HEADERS.etag,
            Vary: SUCCESS_HEADERS.feed.Vary,
          }),
        },
        // Particular to the feed: 410 for a position it no longer keeps (RFC 9110 §15.5.11), 429 for too many streams
        // (RFC 6585 §4).
        [400, 401, 406, 410, 429, 503],
        { readsBody: false, feed: true },
      ),
    },
  };
}
