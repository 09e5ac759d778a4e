// json-server's `_embed` and `_expand` (docs/json-server.md: Serving json-server's dialect): `_embed=comments` adds
// to each post the comments whose `postId` is its id (an empty list when none, or no such collection), `_expand=post`
// adds to each comment the post its `postId` names. Read through the core's lists and reads, each collection once.

import type { JsonObject, JsonValue } from '../records/json.ts';
import type { DialectCollection, DialectCollections } from './collections.ts';
import { asInFile, foreignKeyOf } from './collections.ts';
import type { CoreCalls } from './core-calls.ts';
import { corePath, everyRecord } from './core-calls.ts';
import { HttpError } from '../errors/errors.ts';
import { isNotFound } from './answers.ts';
import type { Parameters } from './list-filters.ts';

/** `records` (in the file's names) with what `_embed` and `_expand` ask added to each. */
export async function withRelated(
  calls: CoreCalls,
  collections: DialectCollections,
  collection: DialectCollection,
  records: readonly JsonObject[],
  parameters: Parameters,
): Promise<JsonObject[]> {
  const embeds = parameters.get('_embed') ?? [];
  const expands = parameters.get('_expand') ?? [];
  if (records.length === 0 || (embeds.length === 0 && expands.length === 0)) return [...records];
  const added = records.map((record) => ({ ...record }) as Record<string, JsonValue>);
  for (const name of embeds) {
    const children = await childrenByParent(calls, collections, collection, name);
    for (const record of added) record[name] = children.get(key(record['id'])) ?? [];
  }
  for (const inner of expands) {
    const expansion = collections.expansion(inner);
    if (expansion === undefined) continue;
    const found = new Map<string, JsonObject | undefined>();
    for (const record of added) {
      const id = record[expansion.member];
      if (id === undefined || id === null) continue;
      const text = String(id);
      if (!found.has(text)) found.set(text, await readOrNothing(calls, expansion.target, text));
      const target = found.get(text);
      if (target !== undefined) record[inner] = target;
    }
  }
  return added;
}

/**
 * The records of the collection the file calls `name` (in the file's names) by the id their `<parent's singular>Id`
 * holds (`postId` for posts), compared strictly as json-server's filter compares them; none for an unknown name.
 */
async function childrenByParent(
  calls: CoreCalls,
  collections: DialectCollections,
  parent: DialectCollection,
  name: string,
): Promise<Map<string, JsonObject[]>> {
  const grouped = new Map<string, JsonObject[]>();
  const child = collections.named(name);
  if (child === undefined || child.definition.singleton === true) return grouped;
  const member = foreignKeyOf(parent.name);
  for (const record of await everyRecord(calls, child.definition)) {
    const shown = asInFile(child, record);
    const parentId = shown[member];
    if (parentId === undefined || parentId === null) continue;
    const group = grouped.get(key(parentId));
    if (group === undefined) grouped.set(key(parentId), [shown]);
    else group.push(shown);
  }
  return grouped;
}

/** The record of `collection` with `id` as the file has it, or undefined when there is none. */
async function readOrNothing(
  calls: CoreCalls,
  collection: DialectCollection,
  id: string,
): Promise<JsonObject | undefined> {
  try {
    const answer = await calls.call('GET', corePath(collection.definition.collection, id));
    return asInFile(collection, answer.body ?? {});
  } catch (error) {
    // What json-server would find and plainrest does not show this caller is left out, as a record not found.
    if (isNotFound(error) || (error instanceof HttpError && error.status === 403)) return undefined;
    throw error;
  }
}

/** A key for an id: `1` and `"1"` apart, as json-server's strict comparison keeps them. */
function key(id: JsonValue | undefined): string {
  return JSON.stringify(id ?? null);
}
