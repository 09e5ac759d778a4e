// json-server 0.17's writes (docs/json-server.md: Serving json-server's dialect), each through the core's handlers:
// POST (201, Location, a client's id where ids are the client's, a made one where none is sent), PUT and PATCH (a
// shallow merge, as lodash's assign: read, merged, replaced on the record as read, If-Match), DELETE (200 `{}`, its
// dependents first: cascade.ts), a singular resource's PUT, PATCH and POST, and a nested POST (`/posts/1/comments`).

import { randomBytes } from 'node:crypto';
import type { Reply } from '../http/respond.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import type { FieldRule } from '../resources/definition.ts';
import { jsonAnswer } from './answers.ts';
import { deleteWithDependents } from './cascade.ts';
import type { DialectCollection, DialectCollections } from './collections.ts';
import { asDeclared, asInFile, fileName, foreignKeyOf } from './collections.ts';
import type { CoreAnswer, CoreCalls } from './core-calls.ts';
import { corePath } from './core-calls.ts';
import { HttpError } from '../errors/errors.ts';
import { requestBody } from './request-body.ts';

/** The member a nested route's parent id goes in (`postId`), and its declared field when the collection has one. */
export interface NestedField {
  /** Its name in the file: json-server's `<parent's singular>Id`. */
  readonly name: string;
  readonly field: FieldRule | undefined;
}

/** The member `/<parent>/<id>/<child>` filters by or sets: `postId` for `/posts/1/comments`, as json-server says. */
export function nestedParent(parent: string, child: DialectCollection): NestedField {
  const name = foreignKeyOf(parent);
  return { name, field: child.definition.fields.find((rule) => fileName(child, rule.name) === name) };
}

/** A value from a path (`"1"`) in the type of `rule`: a number where it holds numbers. */
function typed(value: string, rule: FieldRule | undefined): JsonValue {
  const number = Number(value);
  return (rule?.type === 'integer' || rule?.type === 'number') && value !== '' && Number.isFinite(number)
    ? number
    : value;
}

/** json-server's made ids where none is given (nanoid(7), as its createId makes them for text ids). */
function madeId(): string {
  return randomBytes(6).toString('base64url').slice(0, 7);
}

/** POST /<collection> (or /<parent>/<id>/<collection>): 201 with the record and its Location. */
export async function createRecord(
  calls: CoreCalls,
  collection: DialectCollection,
  fullUrl: string,
  parent?: { readonly nested: NestedField; readonly id: string },
): Promise<Reply> {
  const body = await requestBody(calls.context, collection);
  const declared: Record<string, JsonValue> = { ...asDeclared(collection, body) };
  // The parent's id from the path, in the type the field holds (json-server stores the text of the path).
  if (parent !== undefined)
    declared[parent.nested.field?.name ?? parent.nested.name] = typed(parent.id, parent.nested.field);
  if (collection.definition.idKind === 'string') {
    const id = declared['id'];
    if (id === undefined || id === null || id === '') declared['id'] = madeId();
    else if (typeof id === 'number') declared['id'] = String(id);
  }
  const answer = await calls.call('POST', corePath(collection.definition.collection), '', declared);
  const record = asInFile(collection, answer.body ?? {});
  return jsonAnswer(201, record, {
    'Access-Control-Expose-Headers': 'Location',
    Location: `${fullUrl}/${String(record['id'])}`,
  });
}

/** PUT or PATCH /<collection>/<id>: 200 with the record; 404 `{}` when there is none. */
export async function updateRecord(
  calls: CoreCalls,
  collection: DialectCollection,
  id: string,
  method: 'PUT' | 'PATCH',
): Promise<Reply> {
  const path = corePath(collection.definition.collection, id);
  const given: Record<string, JsonValue> = { ...asDeclared(collection, await requestBody(calls.context, collection)) };
  // json-server keeps the record's id whatever the body says.
  delete given['id'];
  // The record must be there: a PUT to an absent string id would make it, where json-server answers 404.
  const answer = await replacedAsRead(calls, path, (current) =>
    method === 'PUT' ? given : { ...withoutServerFields(current), ...given },
  );
  return jsonAnswer(200, asInFile(collection, answer.body ?? {}));
}

/** How many times a write made on the record as read is tried again when another write came first. */
const MOST_TRIES = 10;

/**
 * The record at `path` read, then replaced by what `replacement` makes of it, only as it was read (If-Match): a write
 * that came between (another PATCH, a deletion) is read again, never overwritten with what was read before it.
 */
async function replacedAsRead(
  calls: CoreCalls,
  path: string,
  replacement: (current: JsonObject) => JsonObject,
): Promise<CoreAnswer> {
  for (let tries = 1; ; tries++) {
    const read = await calls.call('GET', path);
    const etag = read.headers['ETag'];
    try {
      return await calls.call('PUT', path, '', replacement(read.body as JsonObject), {
        ...(typeof etag === 'string' ? { ifMatch: etag } : {}),
      });
    } catch (error) {
      if (!(error instanceof HttpError && error.status === 412) || tries === MOST_TRIES) throw error;
    }
  }
}

/** A record as read, without the members the server sets: what a PUT gives back to keep everything else. */
function withoutServerFields(record: JsonObject): JsonObject {
  const { id: _id, created_at: _created, updated_at: _updated, ...rest } = record;
  return rest;
}

/** DELETE /<collection>/<id>: 200 `{}`, the records naming it deleted with it; 404 `{}` when there is none. */
export async function deleteRecord(
  calls: CoreCalls,
  collections: DialectCollections,
  collection: DialectCollection,
  id: string,
): Promise<Reply> {
  const record = (await calls.call('GET', corePath(collection.definition.collection, id))).body as JsonObject;
  await deleteWithDependents(calls, collections, collection, record);
  return jsonAnswer(200, {});
}

/** PUT, PATCH or POST /<singular>: the record replaced (PUT, POST) or merged (PATCH); POST answers 201. */
export async function writeSingular(
  calls: CoreCalls,
  collection: DialectCollection,
  method: string,
  fullUrl: string,
): Promise<Reply> {
  const path = corePath(collection.definition.collection);
  const given = asDeclared(collection, await requestBody(calls.context, collection));
  const answer =
    method === 'PATCH'
      ? await replacedAsRead(calls, path, (current) => ({ ...withoutServerFields(current), ...given }))
      : await calls.call('PUT', path, '', given);
  const record = asInFile(collection, answer.body ?? {});
  if (method !== 'POST') return jsonAnswer(200, record);
  return jsonAnswer(201, record, { 'Access-Control-Expose-Headers': 'Location', Location: fullUrl });
}
