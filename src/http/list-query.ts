// List parameters in the query string, never in the path (README: Lists): `page`, `limit`,
// `sort` and equality filters. Names are accepted in either vocabulary on every path
// (`pagina`, `limite`, `ordenar`, `categoria`, …). Any other parameter, a repeated one
// or a bad value is a 400 that names it. Paths that are not lists take no parameters.

import type { FieldRule, ResourceDefinition } from '../resources/definition.js';
import type { Filter, SortKey } from '../store/store.js';
import { toEnglish } from '../vocabulary.js';
import type { FieldError } from './errors.js';
import { queryError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 1_000_000_000;

export interface ListParameters {
  readonly page: number;
  readonly limit: number;
  /** As requested (internal names); empty when the client gave no sort. */
  readonly sort: readonly SortKey[];
  /** In the order of the resource's field declarations. */
  readonly filters: readonly Filter[];
}

/** Splits a raw query string into name/value pairs, percent-decoded (WHATWG URL rules). */
function parameterPairs(search: string): [string, string][] {
  return search === '' ? [] : [...new URLSearchParams(search)];
}

/** For paths that are not lists: any parameter at all is a 400. */
export function rejectQueryParameters(search: string): void {
  if (search === '') return;
  const names = [...new Set(parameterPairs(search).map(([name]) => name))];
  if (names.length === 0) return;
  throw queryError(names.map((name) => ({ field: name, code: 'unknown_parameter', message: 'this path takes no query parameters' })));
}

export function parseListParameters(definition: ResourceDefinition, search: string): ListParameters {
  const filterRules = definition.fields.filter((rule) => rule.filter === true);
  const known = ['page', 'limit', 'sort', ...filterRules.map((rule) => rule.name)];
  const errors: FieldError[] = [];
  const values = new Map<string, { name: string; value: string }>();
  for (const [name, value] of parameterPairs(search)) {
    const canonical = toEnglish(name);
    if (!known.includes(canonical)) {
      errors.push({ field: name, code: 'unknown_parameter', message: `is not a parameter of this list; use ${known.join(', ')}` });
    } else if (values.has(canonical)) {
      errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
    } else {
      values.set(canonical, { name, value });
    }
  }
  const page = parseBoundedInteger(values.get('page'), 1, 1, MAX_PAGE, errors);
  const limit = parseBoundedInteger(values.get('limit'), DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE, errors);
  const sort = parseSort(definition, values.get('sort'), errors);
  const filters: Filter[] = [];
  for (const rule of filterRules) {
    const given = values.get(rule.name);
    const filter = given === undefined ? undefined : parseFilter(rule, given, errors);
    if (filter !== undefined) filters.push(filter);
  }
  if (errors.length > 0) throw queryError(errors);
  return { page, limit, sort, filters };
}

function parseBoundedInteger(
  given: { name: string; value: string } | undefined,
  fallback: number,
  min: number,
  max: number,
  errors: FieldError[],
): number {
  if (given === undefined) return fallback;
  const number = /^[0-9]{1,10}$/.test(given.value) ? Number(given.value) : NaN;
  if (number >= min && number <= max) return number;
  errors.push({ field: given.name, code: 'invalid_value', message: `must be an integer from ${min} to ${max}` });
  return fallback;
}

/** `sort=-price,name`: comma-separated sortable fields, `-` for descending, each once. */
function parseSort(definition: ResourceDefinition, given: { name: string; value: string } | undefined, errors: FieldError[]): SortKey[] {
  if (given === undefined) return [];
  const sortable = definition.fields.filter((rule) => rule.sort === true).map((rule) => rule.name);
  const keys: SortKey[] = [];
  for (const part of given.value.split(',')) {
    const descending = part.startsWith('-');
    const field = toEnglish(descending ? part.slice(1) : part);
    if (!sortable.includes(field) || keys.some((key) => key.field === field)) {
      const message = `must list distinct fields among ${sortable.join(', ')}, each optionally prefixed by "-"`;
      errors.push({ field: given.name, code: 'invalid_value', message });
      return [];
    }
    keys.push({ field, descending });
  }
  return keys;
}

function parseFilter(rule: FieldRule, given: { name: string; value: string }, errors: FieldError[]): Filter | undefined {
  const value = given.value;
  if (rule.values !== undefined && !rule.values.includes(value)) {
    errors.push({ field: given.name, code: 'invalid_value', message: `must be one of: ${rule.values.join(', ')}` });
    return undefined;
  }
  if (value.length === 0 || (rule.max !== undefined && value.length > rule.max)) {
    errors.push({ field: given.name, code: 'invalid_value', message: `must be 1 to ${rule.max ?? 'any number of'} characters` });
    return undefined;
  }
  return { field: rule.name, value, ignoreCase: rule.uniqueIgnoringCase === true };
}
