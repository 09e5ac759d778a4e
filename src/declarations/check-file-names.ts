// Checking `x-json-server` (docs/json-server.md), a collection's names in the json-server file it came from: the
// file's collection name (one path segment, no two collections served under one), and its members' names, each at a
// path of declared members (`author.first_name`), no two members of one object under one name.

import { isJsonObject as isObject } from '../records/json.ts';
import { BUILT_IN_USER_PROPERTIES } from './built-in-users.ts';
import { FILE_NAMES_MEMBER } from './file-names.ts';
import { child, type Json, type JsonObject, type Report } from './problems.ts';

/** Longest name taken, as a path segment's id is (README: Your own resources, ids). */
const MOST_NAME_LENGTH = 128;
/** Every record has these: a file's `createdAt` may name them. */
const RECORD_FIELDS = ['id', 'created_at', 'updated_at'];
/** Every user has these besides (a file's users' `role`). */
const USER_FIELDS = [...RECORD_FIELDS, ...Object.keys(BUILT_IN_USER_PROPERTIES)];

/** Every problem of the `x-json-server` members of `resources` (the declaration's `resources` object). */
export function checkFileNames(resources: JsonObject, problem: Report): void {
  const served = new Map<string, string>();
  for (const [collection, body] of Object.entries(resources)) {
    if (!isObject(body)) continue;
    const recorded = body[FILE_NAMES_MEMBER];
    const pointer = child(child('/resources', collection), FILE_NAMES_MEMBER);
    let name = collection;
    if (recorded !== undefined) {
      if (!isObject(recorded)) {
        problem(pointer, 'must be an object: {"name": <the collection\'s name in the file>, "properties": {…}}');
        continue;
      }
      for (const member of Object.keys(recorded))
        if (member !== 'name' && member !== 'properties' && member !== 'ids')
          problem(child(pointer, member), 'unknown member');
      const given = recorded['name'];
      if (!isFileName(given) || given.includes('/'))
        problem(child(pointer, 'name'), 'must be the collection\'s name in the file: 1 to 128 characters, no "/"');
      else name = given;
      const ids = recorded['ids'];
      const integer = body['x-id'] === undefined || body['x-id'] === 'integer';
      if (ids !== undefined && (ids !== 'text' || !integer || body['x-singleton'] === true))
        problem(child(pointer, 'ids'), 'must be "text" (the file writes integer ids as text), on integer ids only');
      const own = collection === 'users' ? USER_FIELDS : RECORD_FIELDS;
      checkProperties(recorded['properties'], body, own, child(pointer, 'properties'), problem);
    }
    const other = served.get(name);
    if (other !== undefined) problem(pointer, `"${name}" is also the file's name of ${other}`);
    else served.set(name, collection);
  }
}

function isFileName(name: Json): name is string {
  return (
    typeof name === 'string' && name.length >= 1 && name.length <= MOST_NAME_LENGTH && !/[\u0000-\u001f]/.test(name)
  );
}

/** Each path names a declared member; each name is one; no two members of one object share a name. */
function checkProperties(
  properties: Json,
  body: JsonObject,
  own: readonly string[],
  pointer: string,
  problem: Report,
): void {
  if (properties === undefined) return;
  if (!isObject(properties)) {
    problem(pointer, 'must be an object from members\' paths ("author.first_name") to their names in the file');
    return;
  }
  /** By the path of an object (`` at the top), the names its members are served under. */
  const taken = new Map<string, Map<string, string>>();
  for (const [path, file] of Object.entries(properties)) {
    const at = child(pointer, path);
    if (!isFileName(file)) {
      problem(at, 'must be a name: 1 to 128 characters');
      continue;
    }
    const steps = path.split('.');
    if (!declares(body, steps, own)) {
      problem(at, `names no declared property ("${path}")`);
      continue;
    }
    const parent = steps.slice(0, -1).join('.');
    if (!taken.has(parent)) taken.set(parent, new Map());
    const names = taken.get(parent) as Map<string, string>;
    const earlier = names.get(file);
    if (earlier !== undefined) problem(at, `"${file}" names ${earlier} too`);
    else names.set(file, path);
  }
  // A member named in the file as another member is declared would be read as both.
  for (const [parent, names] of taken)
    for (const [file, path] of names)
      if (file !== path.split('.').pop() && declares(body, [...(parent === '' ? [] : parent.split('.')), file], own))
        problem(child(pointer, path), `"${file}" is also a declared member's name there`);
}

/** Whether `steps` lead through the collection's declared properties (an array's items are no step), or to `own`. */
function declares(body: JsonObject, steps: readonly string[], own: readonly string[]): boolean {
  if (steps.length === 1 && own.includes(steps[0] as string)) return true;
  let members: Json = body['properties'];
  for (const step of steps) {
    if (!isObject(members) || !Object.hasOwn(members, step)) return false;
    let schema: Json = members[step];
    while (isObject(schema) && schema['type'] === 'array') schema = schema['items'];
    members = isObject(schema) ? schema['properties'] : undefined;
  }
  return true;
}
