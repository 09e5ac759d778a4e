// Checking `x-singleton` (README: Your own resources, singletons): one record at `/v1/<name>`, read, replaced and
// patched. It stands alone: no parent, no children, named by no reference (a path holds no id of it), belongs to
// nobody, and has no list to filter, sort or search, so declaring any of them is a problem at its JSON pointer.

import { isJsonObject as isObject } from '../records/json.ts';
import { child, type Json, type JsonObject, type Report } from './problems.ts';

/** The operations a singleton has no use for: it is never listed, created by POST or deleted. */
const LIST_CREATE_DELETE = ['list', 'create', 'delete'] as const;
/** The keywords of a list, which a singleton has not. */
const LIST_KEYWORDS = ['x-filter', 'x-sort', 'x-search'] as const;

/** Every problem of the singletons of `resources` (the declaration's `resources` object). */
export function checkSingletons(resources: JsonObject, problem: Report): void {
  const singletons = new Set<string>();
  for (const [collection, body] of Object.entries(resources)) {
    if (!isObject(body) || body['x-singleton'] === undefined) continue;
    const at = child(child('/resources', collection), 'x-singleton');
    if (typeof body['x-singleton'] !== 'boolean') problem(at, 'must be true or false');
    else if (body['x-singleton']) {
      if (collection === 'users') problem(at, 'users are a collection; they cannot be a singleton');
      else singletons.add(collection);
    }
  }
  if (singletons.size === 0) return;
  for (const collection of singletons) checkAlone(collection, resources[collection] as JsonObject, problem);
  for (const [collection, body] of Object.entries(resources)) {
    if (!isObject(body)) continue;
    const pointer = child('/resources', collection);
    const parent = body['parent'];
    if (typeof parent === 'string' && singletons.has(parent))
      problem(child(pointer, 'parent'), `"${parent}" is a singleton, which has no records to nest under`);
    const properties = body['properties'];
    if (!isObject(properties)) continue;
    for (const [name, schema] of Object.entries(properties))
      checkReferences(schema, child(child(pointer, 'properties'), name), singletons, problem);
  }
}

/** A singleton's own declaration: top level, nobody's, no list, and never deleted with another record. */
function checkAlone(collection: string, body: JsonObject, problem: Report): void {
  const pointer = child('/resources', collection);
  if (body['parent'] !== undefined)
    problem(child(pointer, 'parent'), 'a singleton is served at the top level, /v1/<name>: it has no parent');
  if (body['owned'] === true)
    problem(child(pointer, 'owned'), 'a singleton belongs to nobody; its access says who may read and change it');
  const access = body['access'];
  if (isObject(access)) {
    for (const operation of LIST_CREATE_DELETE) {
      if (access[operation] !== undefined)
        problem(
          child(child(pointer, 'access'), operation),
          `a singleton is only read and updated (GET, PUT, PATCH): "${operation}" does not apply`,
        );
    }
  }
  const properties = body['properties'];
  if (!isObject(properties)) return;
  for (const [name, schema] of Object.entries(properties)) {
    if (!isObject(schema)) continue;
    const at = child(child(pointer, 'properties'), name);
    for (const keyword of LIST_KEYWORDS)
      if (schema[keyword] !== undefined)
        problem(child(at, keyword), 'a singleton has no list to filter, sort or search');
    if (schema['x-on-delete'] === 'cascade')
      problem(child(at, 'x-on-delete'), 'deleting the record it names would delete the singleton; use restrict');
  }
}

/** An `x-references` naming a singleton, at any depth of `schema` (an array's items, an object's members). */
function checkReferences(schema: Json, pointer: string, singletons: ReadonlySet<string>, problem: Report): void {
  if (!isObject(schema)) return;
  const references = schema['x-references'];
  if (typeof references === 'string' && singletons.has(references))
    problem(child(pointer, 'x-references'), `"${references}" is a singleton: its one record has no id to name`);
  checkReferences(schema['items'], child(pointer, 'items'), singletons, problem);
  const members = schema['properties'];
  if (!isObject(members)) return;
  for (const [name, member] of Object.entries(members))
    checkReferences(member, child(child(pointer, 'properties'), name), singletons, problem);
}
