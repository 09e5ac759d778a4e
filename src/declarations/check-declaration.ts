// Checking a resource declaration (the declared-resources work): a file whose
// properties are JSON Schema as OpenAPI 3.1 uses it, plus plainrest's `x-`
// extensions. Every problem is found at once, each as a JSON pointer (RFC 6901) into
// the file and a message, so a start can refuse with one line per problem. Unknown
// keywords are errors, so that a typo such as `maxLenght` is caught; `x-` keywords
// plainrest does not know pass (they are kept for the OpenAPI document).
//
// compile-declaration.ts compiles a declaration this module found no problem in;
// data/example/resources.json is the example domain in this format.

import type { Audience, Operation } from '../resources/definition.ts';
import { LinearPattern } from '../patterns/linear-pattern.ts';
import { UnsupportedPattern } from '../patterns/parse-pattern.ts';
import { checkSatisfiable } from './check-satisfiable.ts';
import { child, type DeclarationProblem, type Report } from './problems.ts';
import { AUDIENCE_RANK, BUILT_IN_USER_ACCESS, BUILT_IN_USER_PROPERTIES, BUILT_IN_USERS, builtInUserType } from './built-in-users.ts';

export type { DeclarationProblem } from './problems.ts';

/** Collection and property names: what a path segment and a JSON member may safely be. */
const NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** Path segments plainrest serves itself under /v1. */
const RESERVED_COLLECTIONS: ReadonlySet<string> = new Set(['tokens', 'openapi', 'events', 'idempotency_keys']);
/** Every record has these; a declaration may not. */
const RESERVED_PROPERTIES: ReadonlySet<string> = new Set(['id', 'created_at', 'updated_at']);
const OPERATIONS = ['list', 'read', 'create', 'update', 'delete'] as const;
const AUDIENCES: ReadonlySet<string> = new Set(['public', 'user', 'owner', 'admin']);
const TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean', 'array', 'object']);
const FORMATS: ReadonlySet<string> = new Set(['email', 'date', 'date-time', 'uri', 'password']);
const LANGUAGE = /^[a-z]{2}$/;

const COLLECTION_MEMBERS: ReadonlySet<string> = new Set(['singular', 'parent', 'owned', 'access', 'properties', 'required', 'names', 'description']);
/** The schema keywords §11 accepts, plus plainrest's own extensions. */
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'type', 'enum', 'default', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'items', 'minItems', 'maxItems', 'properties',
  'required', 'readOnly', 'writeOnly', 'description', 'examples',
  'x-filter', 'x-sort', 'x-search', 'x-unique', 'x-references', 'x-transitions', 'x-admin-only', 'x-owner-may-set',
]);

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A longer `pattern` is refused: every write compiles and runs it. */
export const MAX_PATTERN_LENGTH = 1000;
/** Nor one nesting its groups deeper (a 5,000-deep one overflows the stack of any reader). */
export const MAX_PATTERN_GROUP_DEPTH = 16;
/** How many collections a path may nest: /v1/a/1/b/2/… at most this many deep. */
export const MAX_NESTING = 8;
/** How deep a declaration's JSON may nest: a schema five objects deep is about twenty. */
export const MAX_DECLARATION_DEPTH = 64;
/** How many JSON values (objects, arrays, strings, numbers…) a declaration may hold in all. */
export const MAX_DECLARATION_VALUES = 100_000;
/** A longer `default` or `examples` is refused: the documents repeat them, and every record is given the default. */
export const MAX_EXAMPLE_LENGTH = 10_000;
/** How many collections a declaration may serve: each adds its paths to the OpenAPI document and the home page. */
export const MAX_COLLECTIONS = 100;
/** How many properties a declaration may have in all (members of nested objects counted): each adds to every document. */
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
    if (++values > MAX_DECLARATION_VALUES) return { pointer: '', message: `holds more than ${MAX_DECLARATION_VALUES} JSON values; a declaration is limited to that many` };
    if (typeof value !== 'object' || value === null) continue;
    if (depth === MAX_DECLARATION_DEPTH) return { pointer, message: `nests deeper than ${MAX_DECLARATION_DEPTH} levels; a declaration is limited to that depth` };
    const entries: [string | number, Json][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
    for (const [member, inner] of entries) pending.push({ value: inner, pointer: child(pointer, member), depth: depth + 1 });
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
  for (const member of Object.keys(declaration)) if (member !== 'resources' && !member.startsWith('x-')) problem(child('', member), 'unknown member');
  const resources = declaration['resources'];
  if (!isObject(resources)) {
    problem('/resources', 'must be an object of collections');
    return problems;
  }
  const collections = Object.keys(resources).length;
  if (collections > MAX_COLLECTIONS) problem('/resources', `declares ${collections} collections; at most ${MAX_COLLECTIONS} may be declared`);
  const properties = Object.values(resources).reduce((sum: number, body) => sum + (isObject(body) ? propertyCount(body) : 0), 0);
  if (properties > MAX_PROPERTIES) problem('/resources', `declares ${properties} properties in all; at most ${MAX_PROPERTIES} may be declared`);
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
  if (problems.length === 0) checkSatisfiable(resources, problem);
  return problems;
}


/** How many properties `schema` declares, its members' members and its items' counted. */
function propertyCount(schema: JsonObject): number {
  const properties = isObject(schema['properties']) ? Object.values(schema['properties']) : [];
  const items = isObject(schema['items']) ? propertyCount(schema['items']) : 0;
  return properties.reduce((sum: number, member) => sum + 1 + (isObject(member) ? propertyCount(member) : 0), items);
}

/** `users` is who logs in: top level, not owned, access no looser, and what it adds must not stop the administrator being created. */
function checkUsers(users: Json, problem: Report): void {
  if (!isObject(users)) return;
  const pointer = '/resources/users';
  if (users['parent'] !== undefined) problem(child(pointer, 'parent'), 'users are always a top-level collection');
  if (users['owned'] !== undefined) problem(child(pointer, 'owned'), 'a user owns their own record; users cannot be "owned"');
  if (users['singular'] !== undefined && users['singular'] !== 'user') problem(child(pointer, 'singular'), 'the singular of users is "user"');
  const access = users['access'];
  if (isObject(access)) {
    for (const [operation, audience] of Object.entries(access)) {
      const builtIn = Object.hasOwn(BUILT_IN_USER_ACCESS, operation) ? BUILT_IN_USER_ACCESS[operation as Operation] : undefined;
      if (builtIn === undefined || typeof audience !== 'string' || !Object.hasOwn(AUDIENCE_RANK, audience)) continue;
      if (AUDIENCE_RANK[audience as Audience] < AUDIENCE_RANK[builtIn]) problem(child(child(pointer, 'access'), operation), `users' ${operation} may only be made stricter than "${builtIn}"`);
    }
  }
  const properties = isObject(users['properties']) ? users['properties'] : {};
  const required = Array.isArray(users['required']) ? users['required'] : [];
  required.forEach((name, index) => {
    if (typeof name !== 'string' || builtInUserType(name) !== undefined) return;
    const schema = properties[name];
    if (isObject(schema) && schema['default'] === undefined) {
      problem(child(child(pointer, 'required'), index), `a required property of users needs a "default": the administrator is created without "${name}"`);
    }
  });
}

/** Whether records of `collection` have an owner: users, anything under users, owned ones and anything under an owned one. */
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
        problem(child(child(child('/resources', collection), 'access'), operation), `"owner" needs records with an owner: make ${collection} "owned", or nest it under users or an owned collection`);
      }
    }
  }
}

/** `users` and its names in the built-in vocabularies (`usuarios`). */
function builtInUserSegments(): string[] {
  return ['users', ...Object.values(BUILT_IN_USERS.names ?? {}).flatMap((vocabulary) => (vocabulary.collection === undefined ? [] : [vocabulary.collection]))];
}

/** Two collections under the same parent may not share a path segment in any vocabulary (nor one collection's name in one vocabulary be another's in another). */
function checkPathNames(resources: JsonObject, problem: Report): void {
  // The built-in users' segments are taken whether or not users are declared.
  const taken = new Map<string, string>(builtInUserSegments().map((name) => [`/${name}`, 'users']));
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
      if (holder !== undefined && holder !== collection) problem(child('/resources', collection), `its path segment "${name}" is also ${holder}'s`);
      else taken.set(key, collection);
    }
  }
}

function checkCollection(collection: string, body: Json, pointer: string, collections: ReadonlySet<string>, problem: Report): void {
  if (!NAME.test(collection)) problem(pointer, `"${collection}" is not a collection name: lower-case letters, digits and _, starting with a letter`);
  else if (RESERVED_COLLECTIONS.has(collection)) problem(pointer, `"${collection}" is reserved: plainrest serves /v1/${collection} itself`);
  if (!isObject(body)) {
    problem(pointer, 'must be an object');
    return;
  }
  for (const member of Object.keys(body)) {
    if (!COLLECTION_MEMBERS.has(member) && !member.startsWith('x-')) problem(child(pointer, member), 'unknown member');
  }
  const singular = body['singular'];
  if (singular === undefined) problem(pointer, 'needs "singular", the name of one record');
  else if (typeof singular !== 'string' || !NAME.test(singular)) problem(child(pointer, 'singular'), 'must be a name: lower-case letters, digits and _');

  const parent = body['parent'];
  if (parent !== undefined && (typeof parent !== 'string' || !collections.has(parent))) {
    problem(child(pointer, 'parent'), `names no declared collection${typeof parent === 'string' ? ` ("${parent}")` : ''}`);
  }
  if (body['owned'] !== undefined && typeof body['owned'] !== 'boolean') problem(child(pointer, 'owned'), 'must be true or false');
  checkAccess(body['access'], child(pointer, 'access'), problem);

  const properties = body['properties'];
  const declared = new Set<string>();
  if (properties === undefined) {
    if (collection !== 'users') problem(pointer, 'needs "properties"');
  } else if (!isObject(properties)) {
    problem(child(pointer, 'properties'), 'must be an object of property schemas');
  } else {
    for (const [name, schema] of Object.entries(properties)) {
      declared.add(name);
      const at = child(child(pointer, 'properties'), name);
      if (!NAME.test(name)) problem(at, `"${name}" is not a property name: lower-case letters, digits and _, starting with a letter`);
      else if (RESERVED_PROPERTIES.has(name)) problem(at, `every record has "${name}" already; it cannot be declared`);
      else if (name === 'owner_id' && body['owned'] === true) problem(at, 'an owned collection keeps its owner in "owner_id" itself');
      const builtInType = collection === 'users' ? builtInUserType(name) : undefined;
      if (builtInType !== undefined && isObject(schema) && schema['type'] !== undefined && schema['type'] !== builtInType) {
        problem(child(at, 'type'), `users' built-in "${name}" is a ${builtInType} and cannot be retyped`);
      }
      checkSchema(schema, at, collections, problem, true);
    }
  }
  checkRequired(body['required'], declared, child(pointer, 'required'), problem);
  // A vocabulary may name the built-in fields of users and the members of nested objects too.
  const translatable = new Set(declared);
  if (collection === 'users') for (const name of Object.keys(BUILT_IN_USER_PROPERTIES)) translatable.add(name);
  if (isObject(properties)) for (const schema of Object.values(properties)) addMemberNames(schema, translatable);
  checkNames(body['names'], translatable, child(pointer, 'names'), problem);
}

/** The member names of the objects inside a schema (an array's items, an object's properties), at any depth. */
function addMemberNames(schema: Json, names: Set<string>): void {
  if (!isObject(schema)) return;
  addMemberNames(schema['items'], names);
  const members = schema['properties'];
  if (!isObject(members)) return;
  for (const [name, member] of Object.entries(members)) {
    names.add(name);
    addMemberNames(member, names);
  }
}

function checkAccess(access: Json, pointer: string, problem: Report): void {
  if (access === undefined) return;
  if (!isObject(access)) {
    problem(pointer, 'must be an object naming who may list, read, create, update and delete');
    return;
  }
  for (const [operation, audience] of Object.entries(access)) {
    if (!(OPERATIONS as readonly string[]).includes(operation)) problem(child(pointer, operation), `unknown operation; one of ${OPERATIONS.join(', ')}`);
    else if (typeof audience !== 'string' || !AUDIENCES.has(audience)) problem(child(pointer, operation), 'must be one of public, user, owner, admin');
  }
}

function checkRequired(required: Json, declared: ReadonlySet<string>, pointer: string, problem: Report): void {
  if (required === undefined) return;
  if (!Array.isArray(required)) {
    problem(pointer, 'must be an array of property names');
    return;
  }
  required.forEach((name, index) => {
    if (typeof name !== 'string' || !declared.has(name)) problem(child(pointer, index), `names no declared property${typeof name === 'string' ? ` ("${name}")` : ''}`);
  });
  if (new Set(required).size !== required.length) problem(pointer, 'names a property twice');
}

function checkNames(names: Json, declared: ReadonlySet<string>, pointer: string, problem: Report): void {
  if (names === undefined) return;
  if (!isObject(names)) {
    problem(pointer, 'must be an object of languages');
    return;
  }
  for (const [language, vocabulary] of Object.entries(names)) {
    const at = child(pointer, language);
    if (!LANGUAGE.test(language)) problem(at, 'must be a two-letter language code (ISO 639-1), such as "pt"');
    if (!isObject(vocabulary)) {
      problem(at, 'must be an object with "collection", "singular" and "properties"');
      continue;
    }
    for (const [member, value] of Object.entries(vocabulary)) {
      if (member === 'collection' || member === 'singular') {
        if (typeof value !== 'string' || !NAME.test(value)) problem(child(at, member), 'must be a name: lower-case letters, digits and _');
        else if (member === 'collection' && RESERVED_COLLECTIONS.has(value)) problem(child(at, member), `"${value}" is reserved: plainrest serves /v1/${value} itself`);
      } else if (member === 'properties') {
        checkTranslatedProperties(value, declared, child(at, member), problem);
      } else {
        problem(child(at, member), 'unknown member');
      }
    }
  }
}

function checkTranslatedProperties(properties: Json, declared: ReadonlySet<string>, pointer: string, problem: Report): void {
  if (!isObject(properties)) {
    problem(pointer, 'must be an object from property names to their names in this language');
    return;
  }
  const seen = new Set<string>();
  for (const [name, translated] of Object.entries(properties)) {
    if (!declared.has(name)) problem(child(pointer, name), `names no declared property ("${name}")`);
    if (typeof translated !== 'string' || !NAME.test(translated)) problem(child(pointer, name), 'must be a name: lower-case letters, digits and _');
    else if (seen.has(translated)) problem(child(pointer, name), `"${translated}" names two properties in this language`);
    else seen.add(translated);
  }
}

/** A property's schema, and recursively its `items` and `properties`. */
function checkSchema(schema: Json, pointer: string, collections: ReadonlySet<string>, problem: Report, topLevel: boolean): void {
  if (!isObject(schema)) {
    problem(pointer, 'must be a schema object');
    return;
  }
  for (const keyword of Object.keys(schema)) {
    if (SCHEMA_KEYWORDS.has(keyword) || keyword.startsWith('x-')) continue;
    problem(child(pointer, keyword), `unknown keyword "${keyword}"`);
  }
  const type = schema['type'];
  const values = schema['enum'];
  if (type !== undefined && (typeof type !== 'string' || !TYPES.has(type))) problem(child(pointer, 'type'), `must be one of ${[...TYPES].join(', ')}`);
  if (type === undefined && values === undefined) problem(pointer, 'needs a "type" or an "enum"');
  if (values !== undefined && (!Array.isArray(values) || values.length === 0 || new Set(values.map((value) => JSON.stringify(value))).size !== values.length)) {
    problem(child(pointer, 'enum'), 'must be a non-empty array of distinct values');
  } else if (Array.isArray(values) && !values.every((value) => typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) {
    problem(child(pointer, 'enum'), 'each value must be a string, a number or true/false');
  }
  for (const keyword of ['minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    const value = schema[keyword];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) problem(child(pointer, keyword), 'must be a whole number ≥ 0');
  }
  for (const keyword of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const value = schema[keyword];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) problem(child(pointer, keyword), 'must be a number');
  }
  const multipleOf = schema['multipleOf'];
  if (multipleOf !== undefined && !(typeof multipleOf === 'number' && multipleOf > 0 && Number.isFinite(multipleOf))) problem(child(pointer, 'multipleOf'), 'must be a number > 0');
  const format = schema['format'];
  if (format !== undefined && (typeof format !== 'string' || !FORMATS.has(format))) problem(child(pointer, 'format'), `must be one of ${[...FORMATS].join(', ')}`);
  const pattern = schema['pattern'];
  if (pattern !== undefined) {
    const reason = patternProblem(pattern);
    if (reason !== undefined) problem(child(pointer, 'pattern'), reason);
  }
  for (const keyword of ['readOnly', 'writeOnly', 'x-filter', 'x-sort', 'x-search', 'x-admin-only'] as const) {
    if (schema[keyword] !== undefined && typeof schema[keyword] !== 'boolean') problem(child(pointer, keyword), 'must be true or false');
  }
  if (schema['description'] !== undefined && typeof schema['description'] !== 'string') problem(child(pointer, 'description'), 'must be a string');
  if (schema['examples'] !== undefined && !Array.isArray(schema['examples'])) problem(child(pointer, 'examples'), 'must be an array');

  if (schema['items'] !== undefined) {
    if (type !== 'array') problem(child(pointer, 'items'), 'belongs to "type": "array"');
    checkSchema(schema['items'], child(pointer, 'items'), collections, problem, false);
  } else if (type === 'array') {
    problem(pointer, 'an array needs "items"');
  }
  checkObjectMembers(schema, type, pointer, collections, problem);
  checkReference(schema, pointer, collections, problem); // at any depth: an order item's product_id
  if (topLevel) checkExtensions(schema, pointer, problem);
  else for (const extension of ['x-filter', 'x-sort', 'x-search', 'x-unique', 'x-transitions', 'x-admin-only', 'x-owner-may-set']) {
    if (schema[extension] !== undefined) problem(child(pointer, extension), 'applies to a top-level property only');
  }
  if (schema['default'] !== undefined && !fitsKindOf(schema['default'], type, values)) problem(child(pointer, 'default'), 'does not fit the schema');
  for (const keyword of ['default', 'examples'] as const) {
    const length = schema[keyword] === undefined ? 0 : JSON.stringify(schema[keyword]).length;
    if (length > MAX_EXAMPLE_LENGTH) problem(child(pointer, keyword), `is ${length} characters of JSON; it is limited to ${MAX_EXAMPLE_LENGTH}`);
  }
}

function checkObjectMembers(schema: JsonObject, type: Json, pointer: string, collections: ReadonlySet<string>, problem: Report): void {
  const members = schema['properties'];
  const memberNames = new Set<string>();
  if (members !== undefined) {
    if (type !== 'object') problem(child(pointer, 'properties'), 'belongs to "type": "object"');
    if (!isObject(members)) problem(child(pointer, 'properties'), 'must be an object of member schemas');
    else {
      for (const [name, member] of Object.entries(members)) {
        memberNames.add(name);
        checkSchema(member, child(child(pointer, 'properties'), name), collections, problem, false);
      }
    }
  } else if (type === 'object') {
    problem(pointer, 'an object needs "properties" (members not declared are refused)');
  }
  if (schema['required'] !== undefined) checkRequired(schema['required'], memberNames, child(pointer, 'required'), problem);
}

function checkReference(schema: JsonObject, pointer: string, collections: ReadonlySet<string>, problem: Report): void {
  const references = schema['x-references'];
  if (references === undefined) return;
  if (typeof references !== 'string' || !collections.has(references)) problem(child(pointer, 'x-references'), 'names no declared collection');
  if (schema['type'] !== 'integer') problem(child(pointer, 'x-references'), 'a reference is an id: "type": "integer"');
}

function checkExtensions(schema: JsonObject, pointer: string, problem: Report): void {
  const type = schema['type'];
  const values = Array.isArray(schema['enum']) ? (schema['enum'] as Json[]) : undefined;
  const unique = schema['x-unique'];
  if (unique !== undefined && unique !== true && unique !== 'ignore-case') problem(child(pointer, 'x-unique'), 'must be true or "ignore-case"');
  if (unique === 'ignore-case' && type !== 'string') problem(child(pointer, 'x-unique'), '"ignore-case" applies to strings');

  if (schema['x-search'] === true && (type !== 'string' || schema['writeOnly'] === true)) problem(child(pointer, 'x-search'), 'applies to a string property that is read');

  const transitions = schema['x-transitions'];
  if (transitions !== undefined) {
    const at = child(pointer, 'x-transitions');
    if (values === undefined) problem(at, 'applies to a property with an "enum"');
    else if (!isObject(transitions)) problem(at, 'must be an object from each state to the states it may move to');
    else {
      const states = new Set<unknown>(Array.isArray(values) ? values : []); // a Set: no quadratic time for a long enum
      for (const [from, targets] of Object.entries(transitions)) {
        if (!states.has(from)) problem(child(at, from), `"${from}" is not one of the enum's states`);
        if (!Array.isArray(targets)) {
          problem(child(at, from), 'must be an array of states');
          continue;
        }
        targets.forEach((target, index) => {
          if (!states.has(target)) problem(child(child(at, from), index), `${JSON.stringify(target)} is not one of the enum's states`);
        });
      }
    }
  }

  const ownerMaySet = schema['x-owner-may-set'];
  if (ownerMaySet !== undefined) {
    const at = child(pointer, 'x-owner-may-set');
    if (schema['x-admin-only'] !== true) problem(at, 'goes with "x-admin-only": true');
    if (!Array.isArray(ownerMaySet)) problem(at, 'must be an array of values');
    else if (values !== undefined) {
      ownerMaySet.forEach((value, index) => {
        if (!values.includes(value)) problem(child(at, index), `${JSON.stringify(value)} is not one of the enum's values`);
      });
    }
  }
}

/** Whether `value` is of the declared type (or one of the enum's values). Bounds are not checked here. */
function fitsKindOf(value: Json, type: Json, values: Json): boolean {
  if (Array.isArray(values)) return values.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value));
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

/**
 * Why a `pattern` cannot be used, or undefined. It must compile as a JavaScript regular
 * expression with the `u` flag (ECMA-262 is what OpenAPI 3.1's JSON Schema names), and
 * plainrest must be able to match it in linear time (patterns/linear-pattern.ts): no
 * back-references or lookarounds, and a bounded size once counted repetitions are
 * written out.
 */
export function patternProblem(pattern: Json): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern.length > MAX_PATTERN_LENGTH) return `is ${pattern.length} characters long; a pattern is limited to ${MAX_PATTERN_LENGTH}`;
  if (groupDepth(pattern) > MAX_PATTERN_GROUP_DEPTH) return `nests groups deeper than ${MAX_PATTERN_GROUP_DEPTH}; a pattern is limited to that depth`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'not a valid regular expression';
  }
  try {
    new LinearPattern(pattern);
  } catch (error) {
    if (error instanceof UnsupportedPattern) return error.message;
    throw error;
  }
  return undefined;
}

/** The deepest nesting of parentheses in `pattern`, counting none escaped or inside a character class. */
function groupDepth(pattern: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '\\') index++;
    else if (inClass) inClass = character !== ']';
    else if (character === '[') inClass = true;
    else if (character === '(') deepest = Math.max(deepest, ++depth);
    else if (character === ')') depth--;
  }
  return deepest;
}

/** Cycles in `parent` (a → b → a): every collection must reach a top-level one. */
function checkParentChains(resources: JsonObject, problem: Report): void {
  for (const start of Object.keys(resources)) {
    const seen = new Set<string>([start]);
    let top = start;
    let current = parentOf(resources, start);
    while (current !== undefined) {
      if (seen.has(current)) {
        problem(child(child('/resources', start), 'parent'), `the parent chain comes back to "${current}": ${[...seen, current].join(' → ')}`);
        break;
      }
      seen.add(current);
      top = current;
      current = parentOf(resources, current);
    }
    if (current !== undefined) continue; // a cycle, reported above
    // Under users left undeclared, a chain is one longer than its declared collections.
    const depth = seen.size + (namedParent(resources, top) === 'users' && !Object.hasOwn(resources, 'users') ? 1 : 0);
    if (depth > MAX_NESTING) problem(child(child('/resources', start), 'parent'), `nests ${start} ${depth} collections deep; at most ${MAX_NESTING} may nest`);
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
