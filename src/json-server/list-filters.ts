// json-server 0.17's list parameters (docs/json-server.md: Serving json-server's dialect), read from a query and
// applied to records in the file's names as its plural router applies them: equality on any property or nested path
// (repeated: one of), `_gte`, `_lte`, `_ne`, `_like` (a pattern run in linear time: like-pattern.ts), `q` (any value
// containing the text), and `_sort`/`_order` as lodash's orderBy sorts.

import type { JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import { MatchBudget } from '../patterns/linear-pattern.ts';
import { likePattern, type LikePattern } from './like-pattern.ts';
import { isWhereParameter } from './where.ts';

/** The parameters json-server reads itself; any other is a filter. */
export const LIST_PARAMETERS = [
  'q',
  '_start',
  '_end',
  '_page',
  '_sort',
  '_order',
  '_limit',
  '_embed',
  '_expand',
  '_per_page',
];
/** Parameters json-server ignores: JSONP's and jQuery's cache breaker, and `_delay` (its delay middleware's). */
const IGNORED = new Set(['callback', '_', '_delay']);

type Operator = 'eq' | 'ne' | 'gte' | 'lte' | 'like';

/** One filter: a path in the file's names (`author.name`), an operator and the values given. */
export interface Filter {
  readonly path: string;
  readonly operator: Operator;
  readonly values: readonly string[];
  /** For `like`: each value's pattern. */
  readonly patterns?: readonly LikePattern[];
}

/** A list's parameters, each as given (repeated ones in order). */
export type Parameters = ReadonlyMap<string, readonly string[]>;

/** The query's parameters by name, repeated ones together, as express's parser gives them. */
export function parametersOf(queryString: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(queryString)) {
    const values = found.get(name);
    if (values === undefined) found.set(name, [value]);
    else values.push(value);
  }
  return found;
}

/**
 * The filters of `parameters` on `records`: a plain name no record holds is dropped, as json-server drops it; one
 * ending in an operator is kept (a record without the property then matches none of its values).
 */
export function filtersOf(parameters: Parameters, records: readonly JsonObject[]): Filter[] {
  const filters: Filter[] = [];
  for (const [name, values] of parameters) {
    if (LIST_PARAMETERS.includes(name) || IGNORED.has(name) || isWhereParameter(name)) continue;
    const suffix = /_(lte|gte|ne|like)$/.exec(name);
    if (suffix === null) {
      if (!records.some((record) => holds(record, name.split('.')))) continue;
      filters.push({ path: name, operator: 'eq', values });
      continue;
    }
    const operator = suffix[1] as Operator;
    const path = name.slice(0, -suffix[0].length);
    filters.push({
      path,
      operator,
      values,
      ...(operator === 'like' ? { patterns: values.map((value) => likePattern(value, name)) } : {}),
    });
  }
  return filters;
}

/** lodash's `_.has(record, path)`: every step an own member. */
function holds(record: JsonValue, steps: readonly string[]): boolean {
  let value: JsonValue | undefined = record;
  for (const step of steps) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, step)) return false;
    value = (value as JsonObject)[step];
  }
  return true;
}

/** lodash's `_.get(record, path)`: undefined where a step is missing. */
export function valueAt(record: JsonValue, path: string): JsonValue | undefined {
  let value: JsonValue | undefined = record;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = Object.hasOwn(value, step) ? (value as Record<string, JsonValue>)[step] : undefined;
  }
  return value;
}

/** Whether `record` passes `filter` as json-server decides: any value (every one for `_ne`). */
export function passes(record: JsonObject, filter: Filter, budget: MatchBudget): boolean {
  const value = valueAt(record, filter.path);
  if (value === undefined || value === null) return false;
  const text = String(value);
  const loose = value as unknown as string;
  const each = (given: string, index: number): boolean => {
    switch (filter.operator) {
      case 'eq':
        return given === text;
      case 'ne':
        return given !== text;
      // JavaScript's own comparison, as json-server makes it: a number against a number, else text against text.
      case 'gte':
        return given <= loose;
      case 'lte':
        return given >= loose;
      case 'like':
        return (filter.patterns?.[index] as LikePattern).test(text, budget);
    }
  };
  return filter.operator === 'ne' ? filter.values.every(each) : filter.values.some(each);
}

/** json-server's `q`: some value of the record, at any depth, contains the text, ignoring case. */
export function matchesText(value: JsonValue | undefined, text: string): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '' || text === '')
    return false;
  if (Array.isArray(value)) return value.some((item: JsonValue) => matchesText(item, text));
  if (isJsonObject(value)) return Object.values(value).some((member) => matchesText(member, text));
  return String(value).toLowerCase().includes(text);
}

/**
 * lodash's orderBy on `paths`, each ascending unless its `orders` entry is `desc` (or, as json-server 1.x writes it,
 * the path starts with `-` and no order is given); stable.
 */
export function sortedBy(
  records: readonly JsonObject[],
  given: readonly string[],
  orders: readonly string[],
): JsonObject[] {
  const descending = given.map((path, index) => orders[index] === 'desc' || (path.startsWith('-') && !orders[index]));
  const paths = given.map((path) => (path.startsWith('-') ? path.slice(1) : path));
  const keyed = records.map((record, index) => ({ record, index, keys: paths.map((path) => valueAt(record, path)) }));
  keyed.sort((a, b) => {
    for (let at = 0; at < paths.length; at++) {
      const order = compareAscending(a.keys[at], b.keys[at]);
      if (order !== 0) return descending[at] === true ? -order : order;
    }
    return a.index - b.index;
  });
  return keyed.map((each) => each.record);
}

/** lodash's compareAscending: JavaScript's `<` and `>`, with undefined last and null after defined values. */
function compareAscending(value: JsonValue | undefined, other: JsonValue | undefined): number {
  if (value === other) return 0;
  const a = value as unknown as string;
  const b = other as unknown as string;
  const valueDefined = value !== undefined;
  const otherDefined = other !== undefined;
  if ((other !== null && a > b) || (value === null && otherDefined) || !valueDefined) return 1;
  if ((value !== null && a < b) || (other === null && valueDefined) || !otherDefined) return -1;
  return 0;
}
