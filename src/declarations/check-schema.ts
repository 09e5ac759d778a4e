// Checking one property's schema (README: Your own resources): each keyword of the table
// in keywords.ts with a value of its kind, the extensions where they may appear, and the
// rules that join keywords (`items` with arrays, `x-owner-may-set` with `x-admin-only`).

import { patternProblem } from '../patterns/pattern-problem.ts';
import { isKeyword, KEYWORDS, keywordsOfValue } from './keywords.ts';
import { isJsonObject as isObject } from '../records/json.ts';
import { child, type Json, type JsonObject, type Report } from './problems.ts';
import { declaredType, PROPERTY_TYPES as TYPES } from './declared-type.ts';
const FORMATS: ReadonlySet<string> = new Set(['email', 'date', 'date-time', 'uri', 'password']);
/** A longer `default` or `examples` is refused: the documents repeat them, and every record is given the default. */
export const MAX_EXAMPLE_LENGTH = 10_000;

/** A property's schema, and recursively its `items` and `properties`. */
export function checkSchema(
  schema: Json,
  pointer: string,
  collections: ReadonlySet<string>,
  problem: Report,
  topLevel: boolean,
): void {
  if (!isObject(schema)) {
    problem(pointer, 'must be a schema object');
    return;
  }
  // An unknown keyword is an error, so that a typo such as `maxLenght` is caught; an `x-`
  // keyword plainrest does not know passes, kept for the OpenAPI document.
  for (const keyword of Object.keys(schema)) {
    if (isKeyword(keyword) || keyword.startsWith('x-')) continue;
    problem(child(pointer, keyword), `unknown keyword "${keyword}"`);
  }
  const { type, nullable } = declaredType(schema['type']);
  const values = schema['enum'];
  if (schema['type'] !== undefined && (typeof type !== 'string' || !TYPES.has(type)))
    problem(
      child(pointer, 'type'),
      `must be one of ${[...TYPES].join(', ')}, or one of them and "null" in a list (["string", "null"])`,
    );
  if (schema['type'] === undefined && values === undefined) problem(pointer, 'needs a "type" or an "enum"');
  if (nullable && values !== undefined)
    problem(child(pointer, 'type'), '"null" goes with a "type"; an "enum" lists its values (null is not one)');
  if (
    values !== undefined &&
    (!Array.isArray(values) ||
      values.length === 0 ||
      new Set(values.map((value) => JSON.stringify(value))).size !== values.length)
  ) {
    problem(child(pointer, 'enum'), 'must be a non-empty array of distinct values');
  } else if (
    Array.isArray(values) &&
    !values.every(
      (value) =>
        typeof value === 'string' ||
        typeof value === 'boolean' ||
        (typeof value === 'number' && Number.isFinite(value)),
    )
  ) {
    problem(child(pointer, 'enum'), 'each value must be a string, a number or true/false');
  }
  for (const keyword of keywordsOfValue('whole number')) {
    const value = schema[keyword];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0))
      problem(child(pointer, keyword), 'must be a whole number ≥ 0');
  }
  for (const keyword of keywordsOfValue('number')) {
    const value = schema[keyword];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value)))
      problem(child(pointer, keyword), 'must be a number');
  }
  for (const keyword of keywordsOfValue('positive number')) {
    const value = schema[keyword];
    if (value !== undefined && !(typeof value === 'number' && value > 0 && Number.isFinite(value)))
      problem(child(pointer, keyword), 'must be a number > 0');
  }
  const format = schema['format'];
  if (format !== undefined && (typeof format !== 'string' || !FORMATS.has(format)))
    problem(child(pointer, 'format'), `must be one of ${[...FORMATS].join(', ')}`);
  const pattern = schema['pattern'];
  if (pattern !== undefined) {
    const reason = patternProblem(pattern);
    if (reason !== undefined) problem(child(pointer, 'pattern'), reason);
  }
  for (const keyword of keywordsOfValue('boolean')) {
    if (schema[keyword] !== undefined && typeof schema[keyword] !== 'boolean')
      problem(child(pointer, keyword), 'must be true or false');
  }
  for (const keyword of keywordsOfValue('string')) {
    if (schema[keyword] !== undefined && typeof schema[keyword] !== 'string')
      problem(child(pointer, keyword), 'must be a string');
  }
  for (const keyword of keywordsOfValue('array')) {
    if (schema[keyword] !== undefined && !Array.isArray(schema[keyword]))
      problem(child(pointer, keyword), 'must be an array');
  }

  if (schema['items'] !== undefined) {
    if (type !== 'array') problem(child(pointer, 'items'), 'belongs to "type": "array"');
    checkSchema(schema['items'], child(pointer, 'items'), collections, problem, false);
  } else if (type === 'array') {
    problem(pointer, 'an array needs "items"');
  }
  checkObjectMembers(schema, type as Json, pointer, collections, problem);
  checkReference(schema, pointer, collections, problem); // at any depth: an order item's product_id
  if (topLevel) checkExtensions(schema, type, pointer, problem);
  else
    for (const keyword of Object.keys(schema)) {
      if (isKeyword(keyword) && 'topLevelOnly' in KEYWORDS[keyword])
        problem(child(pointer, keyword), 'applies to a top-level property only');
    }
  if (
    schema['default'] !== undefined &&
    !(nullable && schema['default'] === null) &&
    !fitsKindOf(schema['default'], type as Json, values)
  )
    problem(child(pointer, 'default'), 'does not fit the schema');
  for (const keyword of ['default', 'examples'] as const) {
    const length = schema[keyword] === undefined ? 0 : JSON.stringify(schema[keyword]).length;
    if (length > MAX_EXAMPLE_LENGTH)
      problem(child(pointer, keyword), `is ${length} characters of JSON; it is limited to ${MAX_EXAMPLE_LENGTH}`);
  }
}

function checkObjectMembers(
  schema: JsonObject,
  type: Json,
  pointer: string,
  collections: ReadonlySet<string>,
  problem: Report,
): void {
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
  if (schema['required'] !== undefined)
    checkRequired(schema['required'], memberNames, child(pointer, 'required'), problem);
}

function checkReference(schema: JsonObject, pointer: string, collections: ReadonlySet<string>, problem: Report): void {
  const references = schema['x-references'];
  if (references === undefined) return;
  if (typeof references !== 'string' || !collections.has(references))
    problem(child(pointer, 'x-references'), 'names no declared collection');
  // Its type, the target's kind of id, is checked with the target's x-id (check-ids.ts).
}

function checkExtensions(schema: JsonObject, type: unknown, pointer: string, problem: Report): void {
  const onDelete = schema['x-on-delete'];
  if (onDelete !== undefined) {
    const at = child(pointer, 'x-on-delete');
    // An array of references (`x-references` on its items) takes it too: set-null takes the id out of the array.
    const items = schema['items'];
    const ofArray = isObject(items) && items['x-references'] !== undefined;
    if (schema['x-references'] === undefined && !ofArray) problem(at, 'goes with "x-references"');
    else if (onDelete !== 'restrict' && onDelete !== 'cascade' && onDelete !== 'set-null')
      problem(at, 'must be "restrict" (the default), "cascade" or "set-null"');
    else if (onDelete === 'set-null' && !ofArray && !declaredType(schema['type']).nullable)
      problem(at, '"set-null" needs a property that may hold null: "type": ["integer", "null"]');
    // Taking the id out could leave fewer items than the array's own schema allows.
    else if (onDelete === 'set-null' && typeof schema['minItems'] === 'number' && schema['minItems'] > 0)
      problem(at, '"set-null" on an array with "minItems" could leave it too short: use "restrict" or "cascade"');
  }
  const values = Array.isArray(schema['enum']) ? (schema['enum'] as Json[]) : undefined;
  const unique = schema['x-unique'];
  if (unique !== undefined && unique !== true && unique !== 'ignore-case')
    problem(child(pointer, 'x-unique'), 'must be true or "ignore-case"');
  if (unique === 'ignore-case' && type !== 'string')
    problem(child(pointer, 'x-unique'), '"ignore-case" applies to strings');

  if (schema['x-search'] === true && (type !== 'string' || schema['writeOnly'] === true))
    problem(child(pointer, 'x-search'), 'applies to a string property that is read');

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
          if (!states.has(target))
            problem(child(child(at, from), index), `${JSON.stringify(target)} is not one of the enum's states`);
        });
      }
    }
  }

  const initial = schema['x-initial'];
  if (initial !== undefined) {
    const at = child(pointer, 'x-initial');
    if (values === undefined) problem(at, 'applies to a property with an "enum"');
    else if (!Array.isArray(initial) || initial.length === 0) problem(at, 'must be a non-empty array of values');
    else {
      initial.forEach((value, index) => {
        if (!values.includes(value))
          problem(child(at, index), `${JSON.stringify(value)} is not one of the enum's values`);
      });
      // A create without the property gets the default, which must be a value a create may give.
      if (schema['default'] !== undefined && !initial.includes(schema['default']))
        problem(child(pointer, 'default'), "is not one of x-initial's values");
    }
  }

  const ownerMaySet = schema['x-owner-may-set'];
  if (ownerMaySet !== undefined) {
    const at = child(pointer, 'x-owner-may-set');
    if (schema['x-admin-only'] !== true) problem(at, 'goes with "x-admin-only": true');
    if (!Array.isArray(ownerMaySet)) problem(at, 'must be an array of values');
    else if (values !== undefined) {
      ownerMaySet.forEach((value, index) => {
        if (!values.includes(value))
          problem(child(at, index), `${JSON.stringify(value)} is not one of the enum's values`);
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

/** A `required` list: each a declared name, none twice. */
export function checkRequired(required: Json, declared: ReadonlySet<string>, pointer: string, problem: Report): void {
  if (required === undefined) return;
  if (!Array.isArray(required)) {
    problem(pointer, 'must be an array of property names');
    return;
  }
  required.forEach((name, index) => {
    if (typeof name !== 'string' || !declared.has(name))
      problem(child(pointer, index), `names no declared property${typeof name === 'string' ? ` ("${name}")` : ''}`);
  });
  if (new Set(required).size !== required.length) problem(pointer, 'names a property twice');
}
