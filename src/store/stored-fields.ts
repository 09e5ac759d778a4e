// What a stored record of each resource may hold, read from the resource declarations: its declared fields (a
// write-only one under its `storedAs` name, such as `password_hash`), each a JSON value of its declared kind.
// plainrest neither shows nor keeps anything else, so loading the data directory (data-directory.ts) refuses a record
// that does not fit rather than lose part of it (README: Storage and durability, Troubleshooting).

import type { JsonObject, JsonValue, StoredRecord } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import { isIdOfKind } from '../records/record-id.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { FieldRule } from '../resources/definition.ts';
import type { StoredCollection } from './store.ts';

/** A field of a stored record that its declaration does not allow, and what to say about it. */
export interface Misfit {
  /** The field's path, quoted as JSON so that any name stays on one line: `"colour"`, `"items[0].gift"`. */
  readonly field: string;
  /** What is wrong and what to do, following the field's name: `, which products do not declare; …`. */
  readonly problem: string;
}

/** The fields one level of a record may have, by stored name; computed once per resource. */
type Shape = ReadonlyMap<string, FieldRule>;

/** Each declared collection's shape, by collection name, computed once per resource table. */
const shapesByTable = new WeakMap<ResourceTable, ReadonlyMap<string, Shape>>();

function shapesOf(table: ResourceTable): ReadonlyMap<string, Shape> {
  let shapes = shapesByTable.get(table);
  if (shapes === undefined) {
    shapes = new Map(table.resources.map((resource) => [resource.collection, shapeOf(resource.fields)]));
    shapesByTable.set(table, shapes);
  }
  return shapes;
}

function shapeOf(rules: readonly FieldRule[]): Shape {
  return new Map(rules.map((rule) => [rule.storedAs ?? rule.name, rule]));
}

/** The shapes of nested objects (an order item, an object property), built the first time a record has one. */
const MEMBER_SHAPES = new WeakMap<readonly FieldRule[], Shape>();

/**
 * The first field of `record` that its collection's declaration does not allow, or
 * undefined when it fits (or the collection is not a declared resource, such as the
 * idempotency keys, whose records only the server writes). One Map lookup and a type
 * test per field, so a start spends far less on this than on parsing the files.
 */
export function storedRecordMisfit(
  table: ResourceTable,
  collection: StoredCollection,
  record: StoredRecord,
): Misfit | undefined {
  const shape = shapesOf(table).get(collection);
  if (shape === undefined || fits(record, shape)) return undefined;
  return objectMisfit(record, shape, collection, '');
}

/**
 * Whether every field of `object` is declared and of its kind: the common answer, found
 * without building a field's path or a message (half the cost at start of objectMisfit's).
 */
function fits(object: JsonObject, shape: Shape): boolean {
  for (const name in object) {
    const rule = shape.get(name);
    if (rule === undefined) return false;
    const value = object[name] as JsonValue;
    if (expectedKind(rule, value) !== undefined) return false;
    if ((rule.members !== undefined || rule.items !== undefined) && nestedMisfit(rule, value, '', name) !== undefined)
      return false;
  }
  return true;
}

function objectMisfit(object: JsonObject, shape: Shape, plural: string, prefix: string): Misfit | undefined {
  for (const name in object) {
    const field = prefix + name;
    const rule = shape.get(name);
    if (rule === undefined) {
      return {
        field: JSON.stringify(field),
        problem: `, which ${plural} do not declare; remove the field or declare it`,
      };
    }
    const value = object[name] as JsonValue;
    const expected = expectedKind(rule, value);
    if (expected !== undefined) {
      return {
        field: JSON.stringify(field),
        problem:
          ` holding ${describe(value)} where ${plural} declare ${expected}; ` + `correct the value or the declaration`,
      };
    }
    const misfit = nestedMisfit(rule, value, plural, field);
    if (misfit !== undefined) return misfit;
  }
  return undefined;
}

/** Inside an object or an array value: its members, or its elements, at any depth. */
function nestedMisfit(rule: FieldRule, value: JsonValue, plural: string, field: string): Misfit | undefined {
  if (rule.members !== undefined && isJsonObject(value))
    return objectMisfit(value, memberShape(rule.members), plural, `${field}.`);
  const element = rule.items;
  if (element === undefined || !Array.isArray(value)) return undefined;
  for (const [index, item] of (value as readonly JsonValue[]).entries()) {
    const path = `${field}[${index}]`;
    const expected = expectedKind(element, item);
    if (expected !== undefined) {
      return {
        field: JSON.stringify(path),
        problem: ` holding ${describe(item)} where ${plural} declare ${expected}; correct the value or the declaration`,
      };
    }
    const misfit = nestedMisfit(element, item, plural, path);
    if (misfit !== undefined) return misfit;
  }
  return undefined;
}

function memberShape(rules: readonly FieldRule[]): Shape {
  let shape = MEMBER_SHAPES.get(rules);
  if (shape === undefined) {
    shape = shapeOf(rules);
    MEMBER_SHAPES.set(rules, shape);
  }
  return shape;
}

/**
 * What the declaration wants, when `value` is not of that kind; undefined when it is. Bounds and formats are not
 * checked: they judge what clients send, and a record written under an earlier declaration, or by the server itself
 * (an ADMIN_EMAIL such as `admin@localhost`), must still load.
 */
function expectedKind(rule: FieldRule, value: JsonValue): string | undefined {
  if (value === null && rule.nullable === true) return undefined;
  switch (rule.type) {
    case 'id':
      if (isIdOfKind(value, rule.idKind ?? 'integer')) return undefined;
      return rule.idKind === undefined ? 'a positive integer' : rule.idKind === 'uuid' ? 'a uuid' : 'a string id';
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'an integer';
    case 'number':
      return typeof value === 'number' ? undefined : 'a number';
    case 'string':
    case 'timestamp':
      return typeof value === 'string' ? undefined : 'a string';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'true or false';
    case 'enum':
      return (rule.values ?? []).includes(value) ? undefined : `one of ${(rule.values ?? []).join(', ')}`;
    case 'array':
      return Array.isArray(value) ? undefined : 'a list';
    case 'object':
      return isJsonObject(value) ? undefined : 'an object';
  }
}

/** A stored value in a message: short scalars as JSON (one line), anything else by its kind. */
function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'a list';
  if (isJsonObject(value)) return 'an object';
  const text = JSON.stringify(value);
  return text.length <= 40 ? text : `a ${typeof value}`;
}
