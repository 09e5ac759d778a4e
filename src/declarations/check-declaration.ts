// Checking a resource declaration (README: Your own resources): the file's bounds, each
// collection (check-collection.ts), and what joins them: parent chains, owner access, path
// names, singletons (check-singletons.ts). Every problem is found at once, each at a JSON
// pointer into the file (RFC 6901); compile-declaration.ts compiles a declaration with none.

import type { Audience, Operation } from '../resources/definition.ts';
import { AUDIENCE_RANK, BUILT_IN_USER_ACCESS, BUILT_IN_USERS, builtInUserType } from './built-in-users.ts';
import { API_KEYS, BUILT_IN_KEYS } from './built-in-keys.ts';
import { checkCollection } from './check-collection.ts';
import type { CollectionDeclaration } from './declaration.ts';
import { checkSatisfiable } from './check-satisfiable.ts';
import { checkSingletons } from './check-singletons.ts';
import { checkIds } from './check-ids.ts';
import { checkFileNames } from './check-file-names.ts';
import { isJsonObject as isObject } from '../records/json.ts';
import { child, type DeclarationProblem, type Json, type JsonObject, type Report } from './problems.ts';

export type { DeclarationProblem } from './problems.ts';

/** How many collections a path may nest: /v1/a/1/b/2/… at most this many deep. */
export const MAX_NESTING = 8;
/** How deep a declaration's JSON may nest: a schema five objects deep is about twenty. */
export const MAX_DECLARATION_DEPTH = 64;
/** How many JSON values (objects, arrays, strings, numbers…) a declaration may hold in all. */
export const MAX_DECLARATION_VALUES = 100_000;
/** How many collections a declaration may serve: each adds its paths to the OpenAPI document and the home page. */
export const MAX_COLLECTIONS = 100;
/**
 * How many properties a declaration may have in all (members of nested objects counted): each adds to every document.
 */
export const MAX_PROPERTIES = 2_000;

/**
 * Whether a declaration is too deep or too large to be checked at all, at the pointer
 * where the first bound is crossed. Walked with a stack of its own, so that no depth of
 * nesting can overflow the call stack (the checks below recurse, bounded by this one).
 */
export function declarationSizeProblem(declaration: Json): DeclarationProblem | undefined {
  const pending: { value: Json; pointer: string; depth: number }[] = [{ value: declaration, pointer: '', depth: 0 }];
  let values = 0;
  while (pending.length > 0) {
    const { value, pointer, depth } = pending.pop() as { value: Json; pointer: string; depth: number };
    if (++values > MAX_DECLARATION_VALUES)
      return {
        pointer: '',
        message: `holds more than ${MAX_DECLARATION_VALUES} JSON values; a declaration is limited to that many`,
      };
    if (typeof value !== 'object' || value === null) continue;
    if (depth === MAX_DECLARATION_DEPTH)
      return {
        pointer,
        message: `nests deeper than ${MAX_DECLARATION_DEPTH} levels; a declaration is limited to that depth`,
      };
    const entries: [string | number, Json][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [member, inner] of entries)
      pending.push({ value: inner, pointer: child(pointer, member), depth: depth + 1 });
  }
  return undefined;
}

/** Every problem of `declaration` (the parsed file); an empty list means it is well formed. */
export function checkDeclaration(declaration: Json): DeclarationProblem[] {
  const tooLarge = declarationSizeProblem(declaration);
  if (tooLarge !== undefined) return [tooLarge];
  const problems: DeclarationProblem[] = [];
  const problem = (pointer: string, message: string): void => {
    problems.push({ pointer, message });
  };
  if (!isObject(declaration)) {
    problem('', 'must be a JSON object with a "resources" member');
    return problems;
  }
  for (const member of Object.keys(declaration))
    if (member !== 'resources' && !member.startsWith('x-')) problem(child('', member), 'unknown member');
  const resources = declaration['resources'];
  if (!isObject(resources)) {
    problem('/resources', 'must be an object of collections');
    return problems;
  }
  const collections = Object.keys(resources).length;
  if (collections > MAX_COLLECTIONS)
    problem('/resources', `declares ${collections} collections; at most ${MAX_COLLECTIONS} may be declared`);
  const properties = Object.values(resources).reduce(
    (sum: number, body) => sum + (isObject(body) ? propertyCount(body) : 0),
    0,
  );
  if (properties > MAX_PROPERTIES)
    problem('/resources', `declares ${properties} properties in all; at most ${MAX_PROPERTIES} may be declared`);
  if (problems.length > 0) return problems;
  // Users are always served (built-in-users.ts): a parent or a reference may name them undeclared.
  const names = new Set([...Object.keys(resources), 'users']);
  for (const [collection, body] of Object.entries(resources)) {
    checkCollection(collection, body, child('/resources', collection), names, problem);
  }
  checkParentChains(resources, problem);
  checkUsers(resources['users'], problem);
  checkOwnerAccess(resources, problem);
  checkPathNames(resources, problem);
  checkSingletons(resources, problem);
  checkIds(resources, problem);
  checkFileNames(resources, problem);
  if (problems.length === 0) checkSatisfiable(resources, problem);
  return problems;
}

/** How many properties `schema` declares, its members' members and its items' counted. */
function propertyCount(schema: JsonObject): number {
  const properties = isObject(schema['properties']) ? Object.values(schema['properties']) : [];
  const items = isObject(schema['items']) ? propertyCount(schema['items']) : 0;
  return properties.reduce((sum: number, member) => sum + 1 + (isObject(member) ? propertyCount(member) : 0), items);
}

/**
 * `users` is who logs in: top level, not owned, access no looser, and what it adds must not stop the administrator
 * being created.
 */
function checkUsers(users: Json, problem: Report): void {
  if (!isObject(users)) return;
  const pointer = '/resources/users';
  if (users['parent'] !== undefined) problem(child(pointer, 'parent'), 'users are always a top-level collection');
  if (users['owned'] !== undefined)
    problem(child(pointer, 'owned'), 'a user owns their own record; users cannot be "owned"');
  if (users['singular'] !== undefined && users['singular'] !== 'user')
    problem(child(pointer, 'singular'), 'the singular of users is "user"');
  const access = users['access'];
  if (isObject(access)) {
    for (const [operation, audience] of Object.entries(access)) {
      const builtIn = Object.hasOwn(BUILT_IN_USER_ACCESS, operation)
        ? BUILT_IN_USER_ACCESS[operation as Operation]
        : undefined;
      if (builtIn === undefined || typeof audience !== 'string' || !Object.hasOwn(AUDIENCE_RANK, audience)) continue;
      if (AUDIENCE_RANK[audience as Audience] < AUDIENCE_RANK[builtIn])
        problem(
          child(child(pointer, 'access'), operation),
          `users' ${operation} may only be made stricter than "${builtIn}"`,
        );
    }
  }
  const properties = isObject(users['properties']) ? users['properties'] : {};
  const required = Array.isArray(users['required']) ? users['required'] : [];
  required.forEach((name, index) => {
    if (typeof name !== 'string' || builtInUserType(name) !== undefined) return;
    const schema = properties[name];
    if (isObject(schema) && schema['default'] === undefined) {
      problem(
        child(child(pointer, 'required'), index),
        `a required property of users needs a "default": the administrator is created without "${name}"`,
      );
    }
  });
}

/**
 * Whether records of `collection` have an owner: users, anything under users, owned ones and anything under an owned
 * one.
 */
function hasOwner(resources: JsonObject, collection: string, seen: Set<string> = new Set()): boolean {
  if (collection === 'users') return true;
  const body = resources[collection];
  if (!isObject(body) || seen.has(collection)) return false;
  seen.add(collection);
  if (body['owned'] === true) return true;
  const parent = body['parent'];
  return typeof parent === 'string' && parent in resources ? hasOwner(resources, parent, seen) : parent === 'users';
}

/** `owner` access needs someone to own the records. */
function checkOwnerAccess(resources: JsonObject, problem: Report): void {
  for (const [collection, body] of Object.entries(resources)) {
    if (!isObject(body) || !isObject(body['access']) || hasOwner(resources, collection)) continue;
    for (const [operation, audience] of Object.entries(body['access'])) {
      if (audience === 'owner') {
        problem(
          child(child(child('/resources', collection), 'access'), operation),
          `"owner" needs records with an owner: make ${collection} "owned", ` +
            'or nest it under users or an owned collection',
        );
      }
    }
  }
}

/** `users` and its names in the built-in vocabularies (`usuarios`). */
function builtInUserSegments(): string[] {
  return ['users', ...translatedSegments(BUILT_IN_USERS)];
}

/** `keys` and its names in the built-in vocabularies (`chaves`). */
function builtInKeySegments(): string[] {
  return [API_KEYS, ...translatedSegments(BUILT_IN_KEYS)];
}

function translatedSegments(collection: CollectionDeclaration): string[] {
  return Object.values(collection.names ?? {}).flatMap((vocabulary) =>
    vocabulary.collection === undefined ? [] : [vocabulary.collection],
  );
}

/**
 * Two collections under the same parent may not share a path segment in any vocabulary (nor one collection's name in
 * one vocabulary be another's in another).
 */
function checkPathNames(resources: JsonObject, problem: Report): void {
  // The built-in users' segments are taken whether or not users are declared, and so are their keys'.
  const taken = new Map<string, string>(builtInUserSegments().map((name) => [`/${name}`, 'users']));
  for (const name of builtInKeySegments()) taken.set(`users/${name}`, API_KEYS);
  for (const [collection, body] of Object.entries(resources)) {
    if (!isObject(body)) continue;
    const parent = typeof body['parent'] === 'string' ? body['parent'] : '';
    const names = new Set([collection]);
    if (isObject(body['names'])) {
      for (const vocabulary of Object.values(body['names'])) {
        if (isObject(vocabulary) && typeof vocabulary['collection'] === 'string') names.add(vocabulary['collection']);
      }
    }
    for (const name of names) {
      const key = `${parent}/${name}`;
      const holder = taken.get(key);
      if (holder !== undefined && holder !== collection)
        problem(child('/resources', collection), `its path segment "${name}" is also ${holder}'s`);
      else taken.set(key, collection);
    }
  }
}

/** Cycles in `parent` (a → b → a): every collection must reach a top-level one. */
function checkParentChains(resources: JsonObject, problem: Report): void {
  for (const start of Object.keys(resources)) {
    const seen = new Set<string>([start]);
    let top = start;
    let current = parentOf(resources, start);
    while (current !== undefined) {
      if (seen.has(current)) {
        problem(
          child(child('/resources', start), 'parent'),
          `the parent chain comes back to "${current}": ${[...seen, current].join(' → ')}`,
        );
        break;
      }
      seen.add(current);
      top = current;
      current = parentOf(resources, current);
    }
    if (current !== undefined) continue; // a cycle, reported above
    // Under users left undeclared, a chain is one longer than its declared collections.
    const depth = seen.size + (namedParent(resources, top) === 'users' && !Object.hasOwn(resources, 'users') ? 1 : 0);
    if (depth > MAX_NESTING)
      problem(
        child(child('/resources', start), 'parent'),
        `nests ${start} ${depth} collections deep; at most ${MAX_NESTING} may nest`,
      );
  }
}

/** The `parent` member of a collection, whatever it holds. */
function namedParent(resources: JsonObject, collection: string): unknown {
  const body = resources[collection];
  return isObject(body) ? body['parent'] : undefined;
}

/** The declared collection a collection is nested under. */
function parentOf(resources: JsonObject, collection: string): string | undefined {
  const parent = namedParent(resources, collection);
  return typeof parent === 'string' && Object.hasOwn(resources, parent) ? parent : undefined;
}
