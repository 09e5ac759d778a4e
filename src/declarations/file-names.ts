// A collection's names in the json-server file it was imported from (docs/json-server.md): `plainrest import` records
// them under `x-json-server` (`{ "name": "blog-posts", "properties": { "post_id": "postId" } }`), and json-server's
// dialect and `plainrest export` read them here to speak the file's names where the declaration has its own.

import type { JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';

/** The collection's member that holds its names in the file. */
export const FILE_NAMES_MEMBER = 'x-json-server';

/** What `x-json-server` records of one collection; a collection without it keeps its declared names. */
export interface FileNames {
  /** The collection's name in the file (`blog-posts`); its declared name when none is recorded. */
  readonly collection: string;
  /**
   * The file's name of each member whose declared name differs, by the member's path in declared names:
   * `post_id` → `postId`, `author.first_name` → `firstName` (an array's items are no step of a path).
   */
  readonly properties: ReadonlyMap<string, string>;
  /** The file wrote this integer collection's ids as text (`"1"`, as json-server 1.x writes them). */
  readonly idsAsText: boolean;
}

/** The names recorded for `collection` in `declared` (its `x-json-server` member: CollectionDeclaration's, or a
 * ResourceDefinition's `declared`), as checked by check-file-names.ts; none recorded: the declared names. */
export function fileNamesOf(collection: string, declared: unknown): FileNames {
  const recorded = isJsonObject(declared as JsonValue) ? (declared as JsonObject) : {};
  const name = recorded['name'];
  const properties = isJsonObject(recorded['properties'] ?? null) ? (recorded['properties'] as JsonObject) : {};
  return {
    collection: typeof name === 'string' ? name : collection,
    properties: new Map(
      Object.entries(properties).flatMap(([path, file]) => (typeof file === 'string' ? [[path, file]] : [])),
    ),
    idsAsText: recorded['ids'] === 'text',
  };
}

/** `value` (a record, or a value at `path` inside one) with the file's member names, at every depth. */
export function toFileNames(value: JsonValue, names: FileNames, path = ''): JsonValue {
  if (names.properties.size === 0) return value;
  if (Array.isArray(value)) return value.map((item: JsonValue) => toFileNames(item, names, path));
  if (!isJsonObject(value)) return value;
  const result: Record<string, JsonValue> = {};
  for (const [key, member] of Object.entries(value)) {
    const inner = path === '' ? key : `${path}.${key}`;
    result[names.properties.get(inner) ?? key] = toFileNames(member, names, inner);
  }
  return result;
}

/** The declared names' side of `names`: by the declared path of an object, each file name → its declared name. */
export type DeclaredNames = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** The reverse of `names.properties`, for reading what speaks the file's names. */
export function declaredNamesOf(names: FileNames): DeclaredNames {
  const reverse = new Map<string, Map<string, string>>();
  for (const [path, file] of names.properties) {
    const dot = path.lastIndexOf('.');
    const parent = dot === -1 ? '' : path.slice(0, dot);
    if (!reverse.has(parent)) reverse.set(parent, new Map());
    reverse.get(parent)?.set(file, path.slice(dot + 1));
  }
  return reverse;
}

/** `value` (in the file's names, at `path`) with the declared member names, at every depth. */
export function toDeclaredNames(value: JsonValue, declared: DeclaredNames, path = ''): JsonValue {
  if (declared.size === 0) return value;
  if (Array.isArray(value)) return value.map((item: JsonValue) => toDeclaredNames(item, declared, path));
  if (!isJsonObject(value)) return value;
  const here = declared.get(path);
  const result: Record<string, JsonValue> = {};
  for (const [key, member] of Object.entries(value)) {
    const name = here?.get(key) ?? key;
    result[name] = toDeclaredNames(member, declared, path === '' ? name : `${path}.${name}`);
  }
  return result;
}

/** A dotted path in the file's names (`author.firstName`, as a json-server query names it) in declared names. */
export function declaredPath(filePath: string, declared: DeclaredNames): string {
  let path = '';
  for (const step of filePath.split('.')) {
    const name = declared.get(path)?.get(step) ?? step;
    path = path === '' ? name : `${path}.${name}`;
  }
  return path;
}
