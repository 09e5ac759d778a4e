// List parameters in the query string, never in the path (README: Lists): `page`, `limit`, `sort`, `fields`
// (http/field-selection.ts), `embed` (handlers/related-records.ts), `q` (`x-search`), equality filters (`x-filter`),
// range filters (`price[gte]=10`) and sort keys (`x-sort`), under their names in any vocabulary (`pagina`, `ordenar`,
// …). Any other parameter, a repeated one or a bad value is a 400 that names it.

import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';
import type { Filter, RangeFilter, SortKey } from '../store/store.ts';
import type { FieldError } from '../errors/errors.ts';
import { queryError } from '../errors/errors.ts';
import type { Embed } from './embed-parameter.ts';
import { parseEmbed } from './embed-parameter.ts';
import { parseFieldSelection } from './field-selection.ts';
import { searchWords } from '../store/search-words.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
export const MAX_PAGE = 1_000_000_000;

export interface ListParameters {
  readonly page: number;
  readonly limit: number;
  /** As requested (internal names); empty when the client gave no sort. */
  readonly sort: readonly SortKey[];
  /** In the order of the resource's field declarations. */
  readonly filters: readonly Filter[];
  /** The properties each record shows (declared names, in declaration order); undefined: all. */
  readonly fields?: readonly string[];
  /** Range filters (`price[gte]=10`), in declaration order, then gt, gte, lt, lte. */
  readonly ranges?: readonly RangeFilter[];
  /** `q`: the text as sent (for links), its words (store/search-words.ts) and the properties they are looked for in. */
  readonly search?: { readonly text: string; readonly words: readonly string[]; readonly fields: readonly string[] };
  /** `embed`: related records added to each record (handlers/related-records.ts). */
  readonly embed?: readonly Embed[];
}

/** What a record's GET takes: `fields` and `embed` (undefined: none given). */
export interface RecordParameters {
  readonly fields?: readonly string[];
  readonly embed?: readonly Embed[];
}

/** A record's query: `fields` and `embed` only, each once; any other parameter is a 400. */
export function parseRecordParameters(definition: ResourceDefinition, search: string): RecordParameters {
  if (search === '') return {};
  const { internal } = listVocabularyOf(definition);
  const errors: FieldError[] = [];
  let fields: readonly string[] | undefined;
  let embed: readonly Embed[] | undefined;
  const seen = new Set<string>();
  for (const [name, value] of parameterPairs(search)) {
    const kind = internal.get(name);
    if (kind !== 'fields' && kind !== 'embed') {
      errors.push({ field: name, code: 'unknown_parameter', message: 'is not a parameter of a record; use fields or embed' });
    } else if (seen.has(kind)) {
      errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
    } else {
      seen.add(kind);
      if (kind === 'fields') fields = parseFieldSelection(definition, name, value, errors);
      else embed = parseEmbed(definition, name, value, errors);
    }
  }
  if (errors.length > 0) throw queryError(errors);
  return { ...(fields === undefined ? {} : { fields }), ...(embed === undefined ? {} : { embed }) };
}

const MAX_SEARCH_LENGTH = 200;
const MAX_SEARCH_WORDS = 10;

const RANGE_OPERATORS: readonly RangeFilter['op'][] = ['gt', 'gte', 'lt', 'lte'];
/** `price[gte]`: a property's name and a comparison. */
const RANGE_PARAMETER = /^(.+)\[(gt|gte|lt|lte)\]$/;

/** Properties that take range filters: timestamps always; numbers, integers, dates and date-times marked `x-filter`. */
export function takesRanges(rule: FieldRule): boolean {
  if (rule.type === 'timestamp') return true;
  if (rule.filter !== true) return false;
  return rule.type === 'number' || rule.type === 'integer' || (rule.type === 'string' && (rule.format === 'date' || rule.format === 'date-time'));
}

/** The `x-search` properties of a resource's lists (declared names). */
export function searchFieldsOf(definition: ResourceDefinition): readonly string[] {
  return listVocabularyOf(definition).searchFields;
}

/** Splits a raw query string into name/value pairs, percent-decoded (WHATWG URL rules). */
export function parameterPairs(search: string): [string, string][] {
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
  /** The `x-search` properties `q` looks in (none: `q` is refused). */
  readonly searchFields: readonly string[];
}

const listVocabularies = new WeakMap<ResourceDefinition, ListVocabulary>();

function listVocabularyOf(definition: ResourceDefinition): ListVocabulary {
  let list = listVocabularies.get(definition);
  if (list === undefined) {
    const filterRules = definition.fields.filter((rule) => rule.filter === true);
    const internal = new Map<string, string>();
    const words = ['page', 'limit', 'sort', 'fields', 'embed', 'q', ...definition.fields.filter((rule) => rule.filter === true || rule.sort === true).map((rule) => rule.name)];
    for (const vocabulary of definition.vocabularies.values()) {
      for (const word of words) internal.set(word, word);
      internal.set(vocabulary.parameters.page, 'page');
      internal.set(vocabulary.parameters.limit, 'limit');
      internal.set(vocabulary.parameters.sort, 'sort');
      internal.set(vocabulary.parameters.fields, 'fields');
      internal.set(vocabulary.parameters.embed, 'embed');
      for (const word of words.slice(6)) internal.set(vocabulary.name(word), word);
    }
    const searchFields = definition.fields.filter((rule) => rule.search === true).map((rule) => rule.name);
    const known = ['page', 'limit', 'sort', 'fields', 'embed', ...(searchFields.length > 0 ? ['q'] : []), ...filterRules.map((rule) => rule.name)];
    list = { filterRules, known, internal, searchFields };
    listVocabularies.set(definition, list);
  }
  return list;
}

export function parseListParameters(definition: ResourceDefinition, search: string): ListParameters {
  const { filterRules, known, internal, searchFields } = listVocabularyOf(definition);
  const errors: FieldError[] = [];
  const values = new Map<string, { name: string; value: string }>();
  const bounds = new Map<string, { name: string; value: string; rule: FieldRule; op: RangeFilter['op'] }>();
  for (const [name, value] of parameterPairs(search)) {
    const range = RANGE_PARAMETER.exec(name);
    if (range !== null) {
      const field = internal.get(range[1] as string) ?? range[1];
      const rule = definition.fields.find((candidate) => candidate.name === field && takesRanges(candidate));
      const key = `${field}[${range[2]}]`;
      if (rule === undefined) {
        const ranged = definition.fields.filter(takesRanges).map((candidate) => candidate.name);
        errors.push({ field: name, code: 'unknown_parameter', message: `is not a parameter of this list; ranges ([gt], [gte], [lt], [lte]) apply to ${ranged.join(', ')}` });
      } else if (bounds.has(key)) {
        errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
      } else {
        bounds.set(key, { name, value, rule, op: range[2] as RangeFilter['op'] });
      }
      continue;
    }
    const canonical = internal.get(name) ?? name;
    if (canonical === 'q' && !known.includes('q')) {
      errors.push({ field: name, code: 'unknown_parameter', message: 'this list has no searchable properties (x-search)' });
    } else if (!known.includes(canonical)) {
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
  const text = parseSearch(values.get('q'), searchFields, errors);
  const embedding = values.get('embed');
  const embed = embedding === undefined ? undefined : parseEmbed(definition, embedding.name, embedding.value, errors);
  const ranges: RangeFilter[] = [];
  for (const rule of definition.fields) {
    for (const op of RANGE_OPERATORS) {
      const bound = bounds.get(`${rule.name}[${op}]`);
      const value = bound === undefined ? undefined : parseBound(bound.rule, bound, errors);
      if (value !== undefined) ranges.push({ field: rule.name, op, value });
    }
  }
  if (errors.length > 0) throw queryError(errors);
  return { page, limit, sort, filters, ...(fields === undefined ? {} : { fields }), ...(ranges.length === 0 ? {} : { ranges }), ...(text === undefined ? {} : { search: text }), ...(embed === undefined ? {} : { embed }) };
}

/** `q=café crème`: one to ten words, at most 200 characters. */
function parseSearch(given: { name: string; value: string } | undefined, fields: readonly string[], errors: FieldError[]): ListParameters['search'] {
  if (given === undefined) return undefined;
  const words = [...new Set(searchWords(given.value))];
  if (given.value.length <= MAX_SEARCH_LENGTH && words.length >= 1 && words.length <= MAX_SEARCH_WORDS) return { text: given.value, words, fields };
  errors.push({ field: given.name, code: 'invalid_value', message: `must hold 1 to ${MAX_SEARCH_WORDS} words (letters or digits), at most ${MAX_SEARCH_LENGTH} characters` });
  return undefined;
}

/** A decimal number as a query writes it (`-3`, `19.99`; at most 20 characters), or NaN. */
function decimal(text: string): number {
  return /^-?[0-9]+(\.[0-9]+)?$/.test(text) && text.length <= 20 ? Number(text) : NaN;
}

/** A bound read as the property's type: a number, or a date (`2026-11-24`) or a date-time (any offset; compared in UTC). */
function parseBound(rule: FieldRule, given: { name: string; value: string }, errors: FieldError[]): number | string | undefined {
  const text = given.value;
  if (rule.type === 'number' || rule.type === 'integer') {
    const value = decimal(text);
    if (Number.isFinite(value)) return value;
    errors.push({ field: given.name, code: 'invalid_value', message: 'must be a number' });
    return undefined;
  }
  if (rule.type === 'string' && rule.format === 'date') {
    if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`))) return text;
    errors.push({ field: given.name, code: 'invalid_value', message: 'must be a date such as 2026-11-24' });
    return undefined;
  }
  const time = /^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$/.test(text) ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text) : NaN;
  if (!Number.isNaN(time)) return new Date(time).toISOString();
  errors.push({ field: given.name, code: 'invalid_value', message: 'must be a date-time such as 2026-11-24T09:30:00Z, or a date' });
  return undefined;
}

export function parseBoundedInteger(
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
  const choices = `${sortable.join(', ')} (each optionally prefixed by "-" for descending)`;
  const fail = (message: string): SortKey[] => {
    errors.push({ field: given.name, code: 'invalid_value', message });
    return [];
  };
  const keys: SortKey[] = [];
  for (const part of given.value.split(',')) {
    const descending = part.startsWith('-');
    const word = descending ? part.slice(1) : part;
    const field = internal.get(word) ?? word;
    if (word === '') return fail(`has an empty entry; list sortable fields separated by commas: ${choices}`);
    if (!sortable.includes(field)) return fail(`cannot sort by ${quoted(word)}; the sortable fields are ${choices}`);
    if (keys.some((key) => key.field === field)) return fail(`names ${quoted(word)} more than once; give each field once`);
    keys.push({ field, descending });
  }
  return keys;
}

/** A client's word in a message: as JSON, cut at 64 characters. */
function quoted(word: string): string {
  return JSON.stringify(word.length > 64 ? `${word.slice(0, 64)}…` : word);
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
      const value = decimal(text);
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
