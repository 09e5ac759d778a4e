// What json-server 1.x added to a list's query where 0.17 reads nothing (docs/json-server.md: Serving json-server's
// dialect): `field:op=value` (lt, lte, gt, gte, eq, ne, in, contains, startsWith, endsWith) and `_where`, a JSON
// object of such conditions by field (nested objects for nested fields, `or` for a list of alternatives).

import { HttpError } from '../errors/errors.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';

const OPERATORS = ['lt', 'lte', 'gt', 'gte', 'eq', 'ne', 'in', 'contains', 'startsWith', 'endsWith'] as const;
type Operator = (typeof OPERATORS)[number];

/** Whether a parameter is 1.x's: `views:gt`, or `_where`. */
export function isWhereParameter(name: string): boolean {
  return name === '_where' || name.includes(':');
}

/** The conditions of `parameters` as `_where` objects, each of which a record must match; none: an empty list. */
export function conditionsOf(parameters: ReadonlyMap<string, readonly string[]>): JsonObject[] {
  const fromOperators: Record<string, JsonValue> = {};
  const wheres: JsonObject[] = [];
  for (const [name, values] of parameters) {
    if (name === '_where') {
      for (const value of values) wheres.push(parsedWhere(value));
      continue;
    }
    const colon = name.lastIndexOf(':');
    if (colon === -1) continue;
    const operator = name.slice(colon + 1) || 'eq';
    if (!(OPERATORS as readonly string[]).includes(operator)) continue;
    const value = values[values.length - 1] as string;
    const given = operator === 'in' ? value.split(',').map(coerced) : coerced(value);
    setAt(fromOperators, [...name.slice(0, colon).split('.'), operator], given);
  }
  return Object.keys(fromOperators).length === 0 ? wheres : [fromOperators, ...wheres];
}

function parsedWhere(text: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isJsonObject(parsed as JsonValue))
    throw new HttpError('invalid_query', '_where must be a JSON object of conditions, such as {"views":{"gt":100}}', {
      errors: [{ field: '_where', code: 'invalid_value', message: 'a JSON object of conditions' }],
    });
  return parsed as JsonObject;
}

/** A query's value as 1.x reads it: true, false, null and numbers as such, else the text. */
function coerced(value: string): JsonValue {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  const number = Number(value);
  return Number.isFinite(number) && value.trim() !== '' ? number : value;
}

function setAt(root: Record<string, JsonValue>, steps: readonly string[], value: JsonValue): void {
  let here = root;
  for (const step of steps.slice(0, -1)) {
    if (!isJsonObject(here[step] ?? null)) here[step] = {};
    here = here[step] as Record<string, JsonValue>;
  }
  here[steps[steps.length - 1] as string] = value;
}

/** Whether `record` matches `where`, as json-server 1.x's matchesWhere decides. */
export function matchesWhere(record: JsonObject, where: JsonObject): boolean {
  for (const [key, condition] of Object.entries(where)) {
    if (key === 'or') {
      if (!Array.isArray(condition) || condition.length === 0) return false;
      if (!condition.some((each: JsonValue) => isJsonObject(each) && matchesWhere(record, each))) return false;
      continue;
    }
    const field = record[key];
    if (!isJsonObject(condition)) return false;
    const operators = OPERATORS.filter((operator) => Object.hasOwn(condition, operator));
    if (operators.length > 0) {
      if (field === undefined || !operators.every((operator) => holds(field, operator, condition[operator])))
        return false;
      continue;
    }
    if (!isJsonObject(field ?? null)) {
      if (hasOperator(condition)) return false;
      continue;
    }
    if (!matchesWhere(field as JsonObject, condition)) return false;
  }
  return true;
}

function hasOperator(value: JsonValue): boolean {
  if (!isJsonObject(value)) return false;
  return OPERATORS.some((operator) => Object.hasOwn(value, operator)) || Object.values(value).some(hasOperator);
}

/** JavaScript's comparisons, as 1.x makes them: strict equality, `<` and `>` of whatever the values are. */
function holds(field: JsonValue, operator: Operator, given: JsonValue | undefined): boolean {
  const a = field as unknown as string;
  const b = given as unknown as string;
  const text = (value: JsonValue | undefined): string => String(value).toLowerCase();
  switch (operator) {
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    case 'eq':
      return field === given;
    case 'ne':
      return field !== given;
    case 'in':
      return (Array.isArray(given) ? given : [given]).some((each: JsonValue) => each === field);
    case 'contains':
      return typeof field === 'string' && field.toLowerCase().includes(text(given));
    case 'startsWith':
      return typeof field === 'string' && field.toLowerCase().startsWith(text(given));
    case 'endsWith':
      return typeof field === 'string' && field.toLowerCase().endsWith(text(given));
  }
}
