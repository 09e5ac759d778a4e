// The file's own names of a collection (docs/json-server.md), recorded in its declaration's `x-json-server` so that
// json-server's dialect and `plainrest export` speak them: the collection's name as the file has it (`blog-posts`),
// and each member whose declared name differs (`post_id` ← `postId`, `author.first_name` ← `firstName`).

import type { PropertySchema } from '../declarations/declaration.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { Source } from './file-collections.ts';
import { rawIdOf } from './record-ids.ts';
import { MOST_DEPTH } from './infer-schema.ts';
import { snakeCase } from './names.ts';

/** The record's own timestamps, which a file's `createdAt` and `updatedAt` become. */
const TIMESTAMPS = ['created_at', 'updated_at'];

/**
 * `x-json-server` for `source`, whose declared properties are `properties`; undefined when the file's names are the
 * declared ones and its ids are written as plainrest writes them. A timestamp the file had, and a built-in member
 * `builtIn` names (a user's `role`), is recorded under its own name too: a file without it gets none back.
 */
export function originalNames(
  source: Source,
  properties: Readonly<Record<string, PropertySchema>>,
  timestamps: readonly string[],
  builtIn: readonly string[] = [],
): JsonObject | undefined {
  const found = new Map<string, string>();
  const asIs = [...TIMESTAMPS, ...builtIn];
  for (const record of source.records) collect(record, '', found, 0, asIs);
  const kept: Record<string, string> = {};
  for (const [path, file] of found) {
    const steps = path.split('.');
    const top = steps[0] as string;
    const own = steps.length === 1 && TIMESTAMPS.includes(top);
    const declared = own ? timestamps.includes(top) : builtIn.includes(path) || declares(properties, steps);
    if (declared) kept[path] = file;
  }
  const textIds =
    source.singleton !== true &&
    source.ids.kind === 'integer' &&
    source.records.length > 0 &&
    source.records.every((record) => typeof rawIdOf(record) === 'string');
  if (source.key === source.name && Object.keys(kept).length === 0 && !textIds) return undefined;
  return {
    name: source.key,
    ...(Object.keys(kept).length > 0 ? { properties: kept } : {}),
    ...(textIds ? { ids: 'text' } : {}),
  };
}

/**
 * Each member of `value` at `path` whose snake_case name differs (or, at the top, is one of `asIs`), by its path, the
 * first name the file gives it.
 */
function collect(
  value: JsonValue,
  path: string,
  found: Map<string, string>,
  depth: number,
  asIs: readonly string[],
): void {
  if (depth > MOST_DEPTH + 1) return;
  if (Array.isArray(value)) {
    for (const item of value as readonly JsonValue[]) collect(item, path, found, depth + 1, asIs);
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, member] of Object.entries(value)) {
    const name = snakeCase(key);
    // A record's `id` (or `Id`, `ID`) is its id, served as `id`.
    if (path === '' && name === 'id') continue;
    const inner = path === '' ? name : `${path}.${name}`;
    if ((name !== key || (path === '' && asIs.includes(name))) && !found.has(inner)) found.set(inner, key);
    collect(member, inner, found, depth + 1, asIs);
  }
}

/** Whether `steps` lead through `properties` (an array's items are no step). */
function declares(properties: Readonly<Record<string, PropertySchema>> | undefined, steps: readonly string[]): boolean {
  let members = properties;
  for (const step of steps) {
    if (members === undefined || !Object.hasOwn(members, step)) return false;
    let schema = members[step] as PropertySchema;
    while (schema.type === 'array' && schema.items !== undefined) schema = schema.items;
    members = schema.properties;
  }
  return true;
}
