// Checking one collection of a declaration (README: Your own resources): its name and
// singular, parent, access, properties (each schema by check-schema.ts), required list and
// vocabularies (`names`), with names that are safe as path segments and JSON members.

import { BUILT_IN_USER_PROPERTIES, builtInUserType } from './built-in-users.ts';
import { LIST_PARAMETER_WORDS } from '../resources/vocabulary.ts';
import { NAME } from '../resources/names.ts';
import { checkRequired, checkSchema } from './check-schema.ts';
import { reservedNameProblem } from './reserved-names.ts';
import { isJsonObject as isObject } from '../records/json.ts';
import { child, type Json, type Report } from './problems.ts';

/** Every record has these; a declaration may not. */
const RESERVED_PROPERTIES: ReadonlySet<string> = new Set(['id', 'created_at', 'updated_at']);
const OPERATIONS = ['list', 'read', 'create', 'update', 'delete'] as const;
const AUDIENCES: ReadonlySet<string> = new Set(['public', 'user', 'owner', 'admin']);
const LANGUAGE = /^[a-z]{2}$/;

const COLLECTION_MEMBERS: ReadonlySet<string> = new Set([
  'singular',
  'parent',
  'on-delete',
  'owned',
  'access',
  'properties',
  'required',
  'names',
  'description',
]);

/** A collection's declaration; `collections` are the names a parent or a reference may give. */
export function checkCollection(
  collection: string,
  body: Json,
  pointer: string,
  collections: ReadonlySet<string>,
  problem: Report,
): void {
  if (!NAME.test(collection))
    problem(
      pointer,
      `"${collection}" is not a collection name: lower-case letters, digits and _, starting with a letter`,
    );
  else {
    const reserved = reservedNameProblem(collection);
    if (reserved !== undefined) problem(pointer, reserved);
  }
  if (!isObject(body)) {
    problem(pointer, 'must be an object');
    return;
  }
  for (const member of Object.keys(body)) {
    if (!COLLECTION_MEMBERS.has(member) && !member.startsWith('x-')) problem(child(pointer, member), 'unknown member');
  }
  const singular = body['singular'];
  if (singular === undefined) problem(pointer, 'needs "singular", the name of one record');
  else if (typeof singular !== 'string' || !NAME.test(singular))
    problem(child(pointer, 'singular'), 'must be a name: lower-case letters, digits and _');

  const parent = body['parent'];
  if (parent !== undefined && (typeof parent !== 'string' || !collections.has(parent))) {
    problem(
      child(pointer, 'parent'),
      `names no declared collection${typeof parent === 'string' ? ` ("${parent}")` : ''}`,
    );
  }
  const onDelete = body['on-delete'];
  if (onDelete !== undefined && parent === undefined) problem(child(pointer, 'on-delete'), 'goes with "parent"');
  else if (onDelete !== undefined && onDelete !== 'cascade' && onDelete !== 'restrict')
    problem(child(pointer, 'on-delete'), 'must be "cascade" (the default) or "restrict"');
  if (body['owned'] !== undefined && typeof body['owned'] !== 'boolean')
    problem(child(pointer, 'owned'), 'must be true or false');
  checkAccess(body['access'], child(pointer, 'access'), problem);

  const properties = body['properties'];
  const declared = new Set<string>();
  // Where passwords' hashes are stored (compile-rule.ts: `<name>_hash`): no property may be declared there.
  const passwords = collection === 'users' ? ['password'] : [];
  if (isObject(properties))
    for (const [name, schema] of Object.entries(properties))
      if (isObject(schema) && schema['format'] === 'password' && schema['writeOnly'] === true) passwords.push(name);
  const hashNames = new Set(passwords.map((name) => `${name}_hash`));
  if (properties === undefined) {
    if (collection !== 'users') problem(pointer, 'needs "properties"');
  } else if (!isObject(properties)) {
    problem(child(pointer, 'properties'), 'must be an object of property schemas');
  } else {
    for (const [name, schema] of Object.entries(properties)) {
      declared.add(name);
      const at = child(child(pointer, 'properties'), name);
      if (!NAME.test(name))
        problem(at, `"${name}" is not a property name: lower-case letters, digits and _, starting with a letter`);
      else if (RESERVED_PROPERTIES.has(name)) problem(at, `every record has "${name}" already; it cannot be declared`);
      else if (name === 'owner_id' && body['owned'] === true)
        problem(at, 'an owned collection keeps its owner in "owner_id" itself');
      else if (hashNames.has(name)) problem(at, `plainrest keeps a password's hash in "${name}" itself`);
      if (isObject(schema) && schema['x-filter'] === true && LIST_PARAMETER_WORDS.has(name))
        problem(
          child(at, 'x-filter'),
          `"${name}" is also a list's query parameter, which a filter by it would be taken for; rename the property`,
        );
      const builtInType = collection === 'users' ? builtInUserType(name) : undefined;
      if (
        builtInType !== undefined &&
        isObject(schema) &&
        schema['type'] !== undefined &&
        schema['type'] !== builtInType
      ) {
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
    if (!(OPERATIONS as readonly string[]).includes(operation))
      problem(child(pointer, operation), `unknown operation; one of ${OPERATIONS.join(', ')}`);
    else if (typeof audience !== 'string' || !AUDIENCES.has(audience))
      problem(child(pointer, operation), 'must be one of public, user, owner, admin');
  }
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
        const reserved = typeof value === 'string' ? reservedNameProblem(value) : undefined;
        if (typeof value !== 'string' || !NAME.test(value))
          problem(child(at, member), 'must be a name: lower-case letters, digits and _');
        else if (member === 'collection' && reserved !== undefined) problem(child(at, member), reserved);
      } else if (member === 'properties') {
        checkTranslatedProperties(value, declared, child(at, member), problem);
      } else {
        problem(child(at, member), 'unknown member');
      }
    }
  }
}

function checkTranslatedProperties(
  properties: Json,
  declared: ReadonlySet<string>,
  pointer: string,
  problem: Report,
): void {
  if (!isObject(properties)) {
    problem(pointer, 'must be an object from property names to their names in this language');
    return;
  }
  const seen = new Set<string>();
  for (const [name, translated] of Object.entries(properties)) {
    if (!declared.has(name)) problem(child(pointer, name), `names no declared property ("${name}")`);
    if (typeof translated !== 'string' || !NAME.test(translated))
      problem(child(pointer, name), 'must be a name: lower-case letters, digits and _');
    else if (seen.has(translated))
      problem(child(pointer, name), `"${translated}" names two properties in this language`);
    else seen.add(translated);
  }
}
