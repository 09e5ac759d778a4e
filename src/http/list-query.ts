// List parameters in the query string, never in the path (README: Lists): `page`, `limit`, `sort`, `fields`
// (http/field-selection.ts), `embed` (handlers/related-records.ts), `q` (`x-search`), equality filters (`x-filter`),
// range filters (`price[gte]=10`) and sort keys (`x-sort`), under their names in any vocabulary (`pagina`, `ordenar`,
// …). Any other parameter, a repeated one or a bad value is a 400 that names it.

import { LIST_PARAMETERS } from '../resources/vocabulary.ts';
import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';
import { searchableFields } from '../resources/definition.ts';
import type { Filter, RangeFilter, SortKey } from '../store/query.ts';
import type { FieldError } from '../errors/errors.ts';
import { queryError } from '../errors/errors.ts';
import type { Embed } from './embed-parameter.ts';
import { parameterPairs } from './query-string.ts';
import { parseEmbed } from './embed-parameter.ts';
import { parseFieldSelection } from './field-selection.ts';
import { parseBound, parseBoundedInteger, parseFilter, parseSearch, parseSort, type Search } from './list-values.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
export const MAX_PAGE = 1_000_000_000;

export interface ListParameters {
  readonly page: number;
  readonly limit: number;
  /** As requested (declared names); empty when the client gave no sort. */
  readonly sort: readonly SortKey[];
  /** In the order of the resource's field declarations. */
  readonly filters: readonly Filter[];
  /** The properties each record shows (declared names, in declaration order); undefined: all. */
  readonly fields?: readonly string[];
  /** Range filters (`price[gte]=10`), in declaration order, then gt, gte, lt, lte. */
  readonly ranges?: readonly RangeFilter[];
  /** `q`, when given. */
  readonly search?: Search;
  /** `embed`: related records added to each record (handlers/related-records.ts). */
  readonly embed?: readonly Embed[];
}

const RANGE_OPERATORS: readonly RangeFilter['op'][] = ['gt', 'gte', 'lt', 'lte'];
/** `price[gte]`: a property's name and a comparison. */
const RANGE_PARAMETER = /^(.+)\[(gt|gte|lt|lte)\]$/;

/** Properties that take range filters: timestamps always; numbers, integers, dates and date-times marked `x-filter`. */
export function takesRanges(rule: FieldRule): boolean {
  if (rule.type === 'timestamp') return true;
  if (rule.filter !== true) return false;
  return (
    rule.type === 'number' ||
    rule.type === 'integer' ||
    (rule.type === 'string' && (rule.format === 'date' || rule.format === 'date-time'))
  );
}

/** The `x-search` properties of a resource's lists (declared names). */
export function searchFieldsOf(definition: ResourceDefinition): readonly string[] {
  return listVocabularyOf(definition).searchFields;
}

/** Any vocabulary's name of a list parameter or of a filtered or sorted property → its declared name. */
export function declaredParameterNames(definition: ResourceDefinition): ReadonlyMap<string, string> {
  return listVocabularyOf(definition).declaredNames;
}

/** What a resource's lists understand. */
interface ListVocabulary {
  readonly filterRules: readonly FieldRule[];
  /** The declared names, for the message naming what is understood. */
  readonly known: readonly string[];
  /** Any vocabulary's name of a parameter or a sort key → its declared name. */
  readonly declaredNames: ReadonlyMap<string, string>;
  /** The `x-search` properties `q` looks in (none: `q` is refused). */
  readonly searchFields: readonly string[];
}

/**
 * Made the first time a resource's list is asked for, then kept: it depends on the declaration alone. A memo a reader
 * may skip: listVocabularyOf(definition) reads as if made each time.
 */
const listVocabularies = new WeakMap<ResourceDefinition, ListVocabulary>();

function listVocabularyOf(definition: ResourceDefinition): ListVocabulary {
  let list = listVocabularies.get(definition);
  if (list === undefined) {
    const filterRules = definition.fields.filter((rule) => rule.filter === true);
    const declaredNames = new Map<string, string>();
    const properties = definition.fields
      .filter((rule) => rule.filter === true || rule.sort === true)
      .map((rule) => rule.name);
    const words = [...LIST_PARAMETERS, ...properties];
    for (const vocabulary of definition.vocabularies.values()) {
      for (const word of words) declaredNames.set(word, word);
      declaredNames.set(vocabulary.parameters.page, 'page');
      declaredNames.set(vocabulary.parameters.limit, 'limit');
      declaredNames.set(vocabulary.parameters.sort, 'sort');
      declaredNames.set(vocabulary.parameters.fields, 'fields');
      declaredNames.set(vocabulary.parameters.embed, 'embed');
      for (const property of properties) declaredNames.set(vocabulary.name(property), property);
    }
    const searchFields = searchableFields(definition);
    const known = [
      'page',
      'limit',
      'sort',
      'fields',
      'embed',
      ...(searchFields.length > 0 ? ['q'] : []),
      ...filterRules.map((rule) => rule.name),
    ];
    list = { filterRules, known, declaredNames, searchFields };
    listVocabularies.set(definition, list);
  }
  return list;
}

/**
 * The list parameters `queryString` gives, under their declared names; else a 400 (`invalid_query`, README: Errors)
 * naming every unknown, repeated or bad parameter at once.
 */
export function parseListParameters(definition: ResourceDefinition, queryString: string): ListParameters {
  const { filterRules, known, declaredNames, searchFields } = listVocabularyOf(definition);
  const errors: FieldError[] = [];
  const values = new Map<string, { name: string; value: string }>();
  const bounds = new Map<string, { name: string; value: string; rule: FieldRule; op: RangeFilter['op'] }>();
  for (const [name, value] of parameterPairs(queryString)) {
    const range = RANGE_PARAMETER.exec(name);
    if (range !== null) {
      const field = declaredNames.get(range[1] as string) ?? range[1];
      const rule = definition.fields.find((candidate) => candidate.name === field && takesRanges(candidate));
      const key = `${field}[${range[2]}]`;
      if (rule === undefined) {
        const ranged = definition.fields.filter(takesRanges).map((candidate) => candidate.name);
        errors.push({
          field: name,
          code: 'unknown_parameter',
          message: `is not a parameter of this list; ranges ([gt], [gte], [lt], [lte]) apply to ${ranged.join(', ')}`,
        });
      } else if (bounds.has(key)) {
        errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
      } else {
        bounds.set(key, { name, value, rule, op: range[2] as RangeFilter['op'] });
      }
      continue;
    }
    const declared = declaredNames.get(name) ?? name;
    if (declared === 'q' && !known.includes('q')) {
      errors.push({
        field: name,
        code: 'unknown_parameter',
        message: 'this list has no searchable properties (x-search)',
      });
    } else if (!known.includes(declared)) {
      errors.push({
        field: name,
        code: 'unknown_parameter',
        message: `is not a parameter of this list; use ${known.join(', ')}`,
      });
    } else if (values.has(declared)) {
      errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
    } else {
      values.set(declared, { name, value });
    }
  }
  const page = parseBoundedInteger(values.get('page'), 1, 1, MAX_PAGE, errors);
  const limit = parseBoundedInteger(values.get('limit'), DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE, errors);
  const sort = parseSort(definition, declaredNames, values.get('sort'), errors);
  const filters: Filter[] = [];
  for (const rule of filterRules) {
    const given = values.get(rule.name);
    const filter = given === undefined ? undefined : parseFilter(rule, given, errors);
    if (filter !== undefined) filters.push(filter);
  }
  const selection = values.get('fields');
  const fields =
    selection === undefined ? undefined : parseFieldSelection(definition, selection.name, selection.value, errors);
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
  return {
    page,
    limit,
    sort,
    filters,
    ...(fields === undefined ? {} : { fields }),
    ...(ranges.length === 0 ? {} : { ranges }),
    ...(text === undefined ? {} : { search: text }),
    ...(embed === undefined ? {} : { embed }),
  };
}
