// json-server 0.17's cascade (docs/json-server.md: Serving json-server's dialect): deleting a post deletes the
// records whose `postId` names it, and those naming them in turn (json-server leaves those for a later deletion;
// plainrest keeps no reference to nothing). All go in batches (README: Batches), the deepest first, found again when
// a record naming one was made meanwhile.

import { HttpError } from '../errors/errors.ts';
import type { JsonObject } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import { API_PREFIX } from '../routing/route-table.ts';
import type { DialectCollection, DialectCollections } from './collections.ts';
import { asInFile, fileName, referenceTo } from './collections.ts';
import type { CoreCalls } from './core-calls.ts';
import { corePath, everyRecord } from './core-calls.ts';

/** The most operations one batch holds (README: Batches). */
const BATCH_SIZE = 100;

/** How many times the records naming a deleted one are found again when one was made while they were deleted. */
const MOST_TRIES = 5;

/**
 * Deletes `record` of `collection` with every record that names it, at any depth, through a restrict reference. A
 * record made meanwhile that names one of them (a comment posted to the post) stops the batch holding it (409): the
 * batches before it are done, so the records are found again and the rest deleted.
 */
export async function deleteWithDependents(
  calls: CoreCalls,
  collections: DialectCollections,
  collection: DialectCollection,
  record: JsonObject,
): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await deleteOnce(calls, collections, collection, record);
    } catch (error) {
      const referenced = error instanceof HttpError && error.code === 'still_referenced';
      if (!referenced || tries === MOST_TRIES) throw error;
    }
  }
}

async function deleteOnce(
  calls: CoreCalls,
  collections: DialectCollections,
  collection: DialectCollection,
  record: JsonObject,
): Promise<void> {
  const order: string[] = [];
  const seen = new Set<string>();
  const lists = new Map<DialectCollection, Promise<JsonObject[]>>();
  const records = (collection: DialectCollection): Promise<JsonObject[]> => {
    let list = lists.get(collection);
    if (list === undefined) lists.set(collection, (list = everyRecord(calls, collection.definition)));
    return list;
  };
  const visit = async (target: DialectCollection, id: RecordId): Promise<void> => {
    const path = corePath(target.definition.collection, id);
    if (seen.has(path)) return;
    seen.add(path);
    const member = referenceTo(target);
    for (const dependent of collections.all()) {
      if (member === undefined) break;
      const holds = dependent.definition.fields.some((rule) => fileName(dependent, rule.name) === member);
      if (dependent.definition.singleton === true || !holds) continue;
      for (const each of await records(dependent)) {
        const named = asInFile(dependent, each)[member];
        // json-server finds the record a `postId` names by its id as text (lodash-id's getById).
        if (named !== undefined && named !== null && String(named) === String(id))
          await visit(dependent, each['id'] as RecordId);
      }
    }
    order.push(path);
  };
  await visit(collection, record['id'] as RecordId);
  if (order.length === 1) {
    await calls.call('DELETE', order[0] as string);
    return;
  }
  if (calls.context.actor === undefined) requireTokenless(calls, order);
  for (let start = 0; start < order.length; start += BATCH_SIZE) {
    const operations = order.slice(start, start + BATCH_SIZE).map((path) => ({ method: 'DELETE', path }));
    await calls.call('POST', `${API_PREFIX}/batches`, '', { operations }, { tokenChecked: true });
  }
}

/** Without a token, every deletion must be one its route lets anyone make: a batch itself always needs one. */
function requireTokenless(calls: CoreCalls, paths: readonly string[]): void {
  for (const path of paths)
    if (!calls.isTokenless('DELETE', path))
      throw new HttpError('unauthenticated', `deleting ${path} needs a bearer token (from POST /v1/tokens)`, {
        headers: { 'WWW-Authenticate': 'Bearer realm="plainrest"' },
      });
}
