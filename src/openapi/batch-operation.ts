// POST /v1/batches in the document (README: Batches; docs/batches.md): the batch's body (at most 100 writes, each with
// its method, path, body and preconditions, `$0.id` naming a record an earlier operation creates), its 200 with each
// operation's answer, and the refusals: one operation's, naming it, or the batch's own.

import type { JsonObject } from '../records/json.ts';
import type { ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { exampleBody } from './schemas.ts';
import { exampleRecord, resourceExamples } from './examples.ts';
import { SUCCESS_HEADERS } from './headers.ts';
import { idempotencyKey } from './parameters.ts';
import { MAX_TARGET_LENGTH } from './problem-schema.ts';
import { jsonContent, responses, success } from './responses.ts';

type Json = Record<string, unknown>;

/** handlers/batch-operations.ts: MAX_OPERATIONS (not imported: the document is built without the handlers). */
const MAX_OPERATIONS = 100;

const ENTITY_TAG = { type: 'string', pattern: '^"[A-Za-z0-9_-]*"$', maxLength: 64 };

/** An If-Match or If-None-Match value, as a header line could carry it (handlers/batch-operations.ts). */
const PRECONDITION = { type: 'string', pattern: '^[\\x20-\\x7e]*$', maxLength: 1024 };

const OPERATION_SCHEMA: Json = {
  type: 'object',
  required: ['method', 'path'],
  additionalProperties: false,
  properties: {
    method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'] },
    path: {
      type: 'string',
      pattern: '^/',
      maxLength: MAX_TARGET_LENGTH,
      description:
        "a resource's path under /v1, as a request would address it; a segment $<n>.id is the id of the record " +
        'operation n (an earlier POST) created',
    },
    body: {
      type: 'object',
      description:
        "the operation's body, as its own request would send it (not with DELETE); a string that is all $<n>.id " +
        'is the id of the record operation n created, as a number',
    },
    headers: {
      type: 'object',
      additionalProperties: false,
      description: "the operation's preconditions (RFC 9110 §13.1)",
      properties: { 'If-Match': PRECONDITION, 'If-None-Match': PRECONDITION },
    },
  },
};

const BATCH_SCHEMA: Json = {
  type: 'object',
  required: ['operations'],
  additionalProperties: false,
  properties: {
    operations: { type: 'array', minItems: 1, maxItems: MAX_OPERATIONS, items: OPERATION_SCHEMA },
  },
};

const RESULTS_SCHEMA: Json = {
  type: 'object',
  required: ['results'],
  additionalProperties: false,
  properties: {
    results: {
      type: 'array',
      description: "each operation's answer, in order",
      minItems: 1,
      maxItems: MAX_OPERATIONS,
      items: {
        type: 'object',
        required: ['status'],
        additionalProperties: false,
        properties: {
          status: { type: 'integer', enum: [200, 201, 204] },
          headers: {
            type: 'object',
            additionalProperties: false,
            properties: {
              Location: { type: 'string', format: 'uri-reference', maxLength: MAX_TARGET_LENGTH },
              ETag: ENTITY_TAG,
            },
          },
          body: { type: 'object', description: "the body the operation's own request would have been answered" },
        },
      },
    },
  },
};

/** The operation of the batch endpoint, its examples made from `resources`' first top-level collection. */
export function batchOperations(resources: ResourceTable): Json {
  const { request, answer } = batchExample(resources);
  return {
    post: {
      operationId: 'runBatch',
      tags: ['batches'],
      summary: 'Several writes, all or none',
      description:
        "Runs each operation as its own request would, with this request's token and in order, on the records as " +
        'the operations before it left them, then commits them all at once, each with its event in the change feed. ' +
        "If any is refused, nothing is written and the answer is that operation's, with its index as operation. A " +
        'malformed batch is a 422 naming each fault (operations[2].path) and the first operation at fault, before ' +
        "any runs: a path that is no resource's path under /v1 (or is this one), a method its path does not take, a " +
        'DELETE with a body, or a $<n>.id that names no earlier POST.',
      parameters: [idempotencyKey('batch-2026-01-20-1')],
      requestBody: { required: true, content: jsonContent(BATCH_SCHEMA, request) },
      responses: responses(
        { 200: success("every operation's answer", SUCCESS_HEADERS.batch, jsonContent(RESULTS_SCHEMA, answer)) },
        [400, 401, 403, 404, 406, 409, 412, 413, 415, 422, 429, 503],
        { readsBody: true },
      ),
    },
  };
}

/**
 * A create in a top-level collection other than the users (whose example email a run of every example has taken), then
 * a change to it through `$0.id`; with only singletons, a change to one.
 */
function batchExample(resources: ResourceTable): { request: JsonObject; answer: JsonObject } {
  const topLevel = resources.resources.filter((definition) => definition.parent === undefined);
  const collections = topLevel.filter((definition) => definition.singleton !== true);
  const created =
    collections.find((definition) => definition.collection !== 'users') ??
    collections[0] ??
    (topLevel[0] as ResourceDefinition);
  const name = vocabularyOf(created, 'en').collection;
  const record = exampleRecord(created, 'en');
  const patch = exampleBody(created, 'en', 'patch') as JsonObject;
  if (created.singleton === true) {
    return {
      request: { operations: [{ method: 'PATCH', path: `/v1/${name}`, body: patch }] },
      answer: { results: [{ status: 200, headers: { ETag: '"m_I3fVkb5mszKzp6w8Fq6wM7cXM"' }, body: record }] },
    };
  }
  const id = resourceExamples(created, 'en').createdId;
  return {
    request: {
      operations: [
        { method: 'POST', path: `/v1/${name}`, body: exampleBody(created, 'en', 'create') as JsonObject },
        { method: 'PATCH', path: `/v1/${name}/$0.id`, body: patch },
      ],
    },
    answer: {
      results: [
        {
          status: 201,
          headers: { Location: `/v1/${name}/${id}`, ETag: '"m_I3fVkb5mszKzp6w8Fq6wM7cXM"' },
          body: record,
        },
        { status: 200, headers: { ETag: '"3q1Cy0mTj5sEy8Cw3x3kUrWbd0E"' }, body: { ...record, ...patch } },
      ],
    },
  };
}
