// List parameters in the query string, never in the path (README: Lists): `page`, `limit`, `sort`, `fields`
// (http/field-selection.ts), `embed` (handlers/related-records.ts), `q` (`x-search`), equality filters (`x-filter`),
// range filters (`price[gte]=10`) and sort keys (`x-sort`), under their names in any vocabulary (`pagina`, `ordenar`,
// …). Any other parameter, a repeated one or a bad value is a 400 that names it.

import { LIST_PARAMETERS } from '../resources/vocabulary.ts';
import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';
import { searchableFields } from '../resources/definition.ts';
import type { Condition, Filter, RangeFilter, SortKey } from '../store/query.ts';
import type { FieldError } from '../errors/errors.ts';
import { queryError } from '../errors/errors.ts';
import type { Embed } from './embed-parameter.ts';
import { formDecoded, rawParameterPairs } from './query-string.ts';
import { parseEmbed } from './embed-parameter.ts';
import { parseFieldSelection } from './field-selection.ts';
import { parseBound, parseBoundedInteger, parseFilter, parseSearch, parseSort, type Search } from './list-values.ts';
import type { Operator } from './filter-operators.ts';
import {
  asInstant,
  BRACKETED_OPERATORS,
  ignoringCase,
  parseAnyOf,
  parseCondition,
  parseValues,
  propertiesTaking,
  RANGE_OPERATORS,
  takesOperator,
  takesRanges,
} from './filter-operators.ts';

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
  /** The other operators (`status[in]=a,b`, `name[contains]=te`), as given. */
  readonly conditions?: readonly Condition[];
  /** Equality parameters given more than once (`status=a&status=b`), each an `in`; links write them as they came. */
  readonly repeated?: readonly Condition[];
  /** `or=(…)`: each record meets one of these at least. */
  readonly anyOf?: readonly Condition[];
  /** `q`, when given. */
  readonly search?: Search;
  /** `embed`: related records added to each record (handlers/related-records.ts). */
  readonly embed?: readonly Embed[];
}

/** `price[gte]`: a property's name and an operator. */
const OPERATOR_PARAMETER = /^(.+)\[([a-z]+)\]$/;

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
      ...(filterRules.length > 0 ? ['or'] : []),
      ...filterRules.map((rule) => rule.name),
    ];
    list = { filterRules, known, declaredNames, searchFields };
    listVocabularies.set(definition, list);
  }
  return list;
}

/**
 * The list parameters `queryString` gives, under their declared names; else a 400 (`invalid_query`, README: Errors)
 * naming every unknown, repeated or bad parameter at once. An equality filter given more than once is an `in`.
 */
export function parseListParameters(definition: ResourceDefinition, queryString: string): ListParameters {
  const { filterRules, known, declaredNames, searchFields } = listVocabularyOf(definition);
  const errors: FieldError[] = [];
  const values = new Map<string, { name: string; value: string; raws: string[] }>();
  const bounds = new Map<string, { name: string; value: string; rule: FieldRule; op: RangeFilter['op'] }>();
  const conditions: Condition[] = [];
  const repeated: Condition[] = [];
  const operatorsSeen = new Set<string>();
  for (const [name, raw] of rawParameterPairs(queryString)) {
    const operator = OPERATOR_PARAMETER.exec(name);
    if (operator !== null) {
      const field = declaredNames.get(operator[1] as string) ?? (operator[1] as string);
      const op = operator[2] as Operator;
      const rule = definition.fields.find((candidate) => candidate.name === field);
      const key = `${field}[${op}]`;
      if (rule === undefined || !BRACKETED_OPERATORS.includes(op) || (rule.filter !== true && !takesRanges(rule))) {
        errors.push({ field: name, code: 'unknown_parameter', message: unknownOperatorMessage(definition) });
      } else if (!takesOperator(rule, op)) {
        const message = `${op} applies to ${propertiesTaking(definition, op)}`;
        errors.push({ field: name, code: 'unsupported_operator', message });
      } else if (operatorsSeen.has(key)) {
        errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
      } else if ((RANGE_OPERATORS as readonly string[]).includes(op)) {
        operatorsSeen.add(key);
        bounds.set(key, { name, value: formDecoded(raw), rule, op: op as RangeFilter['op'] });
      } else {
        operatorsSeen.add(key);
        const condition = parseCondition(rule, op, name, raw, errors);
        if (condition !== undefined) conditions.push(condition);
      }
      continue;
    }
    const declared = declaredNames.get(name) ?? name;
    const earlier = values.get(declared);
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
    } else if (earlier !== undefined && filterRules.some((rule) => rule.name === declared)) {
      earlier.raws.push(raw);
    } else if (earlier !== undefined) {
      errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
    } else {
      values.set(declared, { name, value: formDecoded(raw), raws: [raw] });
    }
  }
  const page = parseBoundedInteger(values.get('page'), 1, 1, MAX_PAGE, errors);
  const limit = parseBoundedInteger(values.get('limit'), DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE, errors);
  const sort = parseSort(definition, declaredNames, values.get('sort'), errors);
  const filters: Filter[] = [];
  for (const rule of filterRules) {
    const given = values.get(rule.name);
    if (given !== undefined && given.raws.length > 1) {
      const oneOf = parseValues(rule, given.name, given.raws, errors);
      if (oneOf !== undefined) repeated.push({ field: rule.name, op: 'in', values: oneOf, ...ignoringCase(rule) });
      continue;
    }
    const filter = given === undefined ? undefined : parseFilter(rule, given, errors);
    if (filter !== undefined) filters.push(filter);
  }
  const alternatives = values.get('or');
  const anyOf =
    alternatives === undefined
      ? undefined
      : parseAnyOf(definition, declaredNames, alternatives.name, alternatives.raws[0] as string, errors);
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
      if (value !== undefined) ranges.push({ field: rule.name, op, value, ...asInstant(rule) });
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
    ...(conditions.length === 0 ? {} : { conditions }),
    ...(repeated.length === 0 ? {} : { repeated }),
    ...(anyOf === undefined ? {} : { anyOf }),
    ...(text === undefined ? {} : { search: text }),
    ...(embed === undefined ? {} : { embed }),
  };
}

/** Which properties take which operators, for a parameter naming none of them. */
function unknownOperatorMessage(definition: ResourceDefinition): string {
  const ranged = definition.fields.filter(takesRanges).map((rule) => rule.name);
  const filtered = definition.fields.filter((rule) => rule.filter === true).map((rule) => rule.name);
  return (
    `is not a parameter of this list; ranges ([gt], [gte], [lt], [lte]) apply to ${ranged.join(', ')}` +
    (filtered.length === 0 ? '' : `; [in], [ne], [null] (and on text, [contains], [starts]) to ${filtered.join(', ')}`)
  );
}
