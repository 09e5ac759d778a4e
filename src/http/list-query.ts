// List parameters in the query string, never in the path (README: Lists): `page`, `limit`,
// `sort`, `fields` (http/field-selection.ts) and equality filters (`x-filter`) and sort keys (`x-sort`). Names are accepted
// in every vocabulary on every path (`pagina`, `limite`, `ordenar`, `categoria`, …). Any
// other parameter, a repeated one or a bad value is a 400 that names it. Paths that are
// not lists take no parameters.

import type { FieldRule, ResourceDefinition } from '../resources/definition.js';
import type { Filter, SortKey } from '../store/store.js';
import type { FieldError } from './errors.js';
import { queryError } from './errors.js';
import { parseFieldSelection } from './field-selection.js';

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
  /** The properties each record shows (declared names, in declaration order); undefined: all. */
  readonly fields?: readonly string[];
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

/** What a resource's lists understand, computed once per resource. */
interface ListVocabulary {
  readonly filterRules: readonly FieldRule[];
  /** The declared names, for the message naming what is understood. */
  readonly known: readonly string[];
  /** Any vocabulary's name of a parameter or a sort key → its declared name. */
  readonly internal: ReadonlyMap<string, string>;
}

const listVocabularies = new WeakMap<ResourceDefinition, ListVocabulary>();

function listVocabularyOf(definition: ResourceDefinition): ListVocabulary {
  let list = listVocabularies.get(definition);
  if (list === undefined) {
    const filterRules = definition.fields.filter((rule) => rule.filter === true);
    const internal = new Map<string, string>();
    const words = ['page', 'limit', 'sort', 'fields', ...definition.fields.filter((rule) => rule.filter === true || rule.sort === true).map((rule) => rule.name)];
    for (const vocabulary of definition.vocabularies.values()) {
      for (const word of words) internal.set(word, word);
      internal.set(vocabulary.parameters.page, 'page');
      internal.set(vocabulary.parameters.limit, 'limit');
      internal.set(vocabulary.parameters.sort, 'sort');
      internal.set(vocabulary.parameters.fields, 'fields');
      for (const word of words.slice(4)) internal.set(vocabulary.name(word), word);
    }
    list = { filterRules, known: ['page', 'limit', 'sort', 'fields', ...filterRules.map((rule) => rule.name)], internal };
    listVocabularies.set(definition, list);
  }
  return list;
}

export function parseListParameters(definition: ResourceDefinition, search: string): ListParameters {
  const { filterRules, known, internal } = listVocabularyOf(definition);
  const errors: FieldError[] = [];
  const values = new Map<string, { name: string; value: string }>();
  for (const [name, value] of parameterPairs(search)) {
    const canonical = internal.get(name) ?? name;
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
  const sort = parseSort(definition, internal, values.get('sort'), errors);
  const filters: Filter[] = [];
  for (const rule of filterRules) {
    const given = values.get(rule.name);
    const filter = given === undefined ? undefined : parseFilter(rule, given, errors);
    if (filter !== undefined) filters.push(filter);
  }
  const selection = values.get('fields');
  const fields = selection === undefined ? undefined : parseFieldSelection(definition, selection.name, selection.value, errors);
  if (errors.length > 0) throw queryError(errors);
  return fields === undefined ? { page, limit, sort, filters } : { page, limit, sort, filters, fields };
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
function parseSort(
  definition: ResourceDefinition,
  internal: ReadonlyMap<string, string>,
  given: { name: string; value: string } | undefined,
  errors: FieldError[],
): SortKey[] {
  if (given === undefined) return [];
  const sortable = definition.fields.filter((rule) => rule.sort === true).map((rule) => rule.name);
  const keys: SortKey[] = [];
  for (const part of given.value.split(',')) {
    const descending = part.startsWith('-');
    const word = descending ? part.slice(1) : part;
    const field = internal.get(word) ?? word;
    if (!sortable.includes(field) || keys.some((key) => key.field === field)) {
      const message = `must list distinct fields among ${sortable.join(', ')}, each optionally prefixed by "-"`;
      errors.push({ field: given.name, code: 'invalid_value', message });
      return [];
    }
    keys.push({ field, descending });
  }
  return keys;
}

/** A filter's value, read as the field's type: `?in_stock=true`, `?year=1999`, `?status=open`. */
function parseFilter(rule: FieldRule, given: { name: string; value: string }, errors: FieldError[]): Filter | undefined {
  const text = given.value;
  const fail = (message: string): undefined => {
    errors.push({ field: given.name, code: 'invalid_value', message });
    return undefined;
  };
  switch (rule.type) {
    case 'enum': {
      const value = rule.values?.find((allowed) => String(allowed) === text);
      if (value === undefined || value === null || typeof value === 'object') return fail(`must be one of: ${(rule.values ?? []).join(', ')}`);
      return { field: rule.name, value };
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') return fail('must be true or false');
      return { field: rule.name, value: text === 'true' };
    case 'integer':
    case 'number': {
      const value = /^-?[0-9]+(\.[0-9]+)?$/.test(text) && text.length <= 20 ? Number(text) : NaN;
      if (!Number.isFinite(value) || (rule.type === 'integer' && !Number.isSafeInteger(value))) return fail(`must be ${rule.type === 'integer' ? 'an integer' : 'a number'}`);
      return { field: rule.name, value };
    }
    default:
      if (text.length === 0 || (rule.maxLength !== undefined && text.length > rule.maxLength)) {
        return fail(`must be 1 to ${rule.maxLength ?? 'any number of'} characters`);
      }
      return { field: rule.name, value: text, ignoreCase: rule.unique === 'ignore-case' };
  }
}
