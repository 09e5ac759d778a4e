// One list parameter's value read as what it names (README: Lists): a search's words, a
// filter or a range bound in the property's type, a sort, a page number. Each problem is
// pushed as a FieldError naming the parameter as the client wrote it.

import type { FieldError } from '../errors/errors.ts';
import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';
import { searchWords } from '../store/search-words.ts';
import type { Filter, SortKey } from '../store/query.ts';
import { countCharacters } from '../resources/scalar-checks.ts';

/** `q`: the text as sent (for links), its words (store/search-words.ts) and the properties they are looked for in. */
export interface Search {
  readonly text: string;
  readonly words: readonly string[];
  readonly fields: readonly string[];
}

const MAX_SEARCH_LENGTH = 200;
const MAX_SEARCH_WORDS = 10;

/** `q=café crème`: one to ten words, at most 200 characters. */
export function parseSearch(
  given: { name: string; value: string } | undefined,
  fields: readonly string[],
  errors: FieldError[],
): Search | undefined {
  if (given === undefined) return undefined;
  const words = [...new Set(searchWords(given.value))];
  if (given.value.length <= MAX_SEARCH_LENGTH && words.length >= 1 && words.length <= MAX_SEARCH_WORDS)
    return { text: given.value, words, fields };
  errors.push({
    field: given.name,
    code: 'invalid_value',
    message: `must hold 1 to ${MAX_SEARCH_WORDS} words (letters or digits), at most ${MAX_SEARCH_LENGTH} characters`,
  });
  return undefined;
}

/**
 * A number as JSON writes it (RFC 8259 §6: `-3`, `19.99`, `1e3`, `2.5E-1`), the text the document's `type: number` and
 * `type: integer` parameters promise (README: Lists); leading zeros are read too (`007`). Anything else is NaN.
 */
export function jsonNumber(text: string): number {
  return /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text) ? Number(text) : NaN;
}

/**
 * A bound read as the property's type: a number, or a date (`2026-11-24`) or a date-time (any offset; compared in UTC).
 */
export function parseBound(
  rule: FieldRule,
  given: { name: string; value: string },
  errors: FieldError[],
): number | string | undefined {
  const text = given.value;
  if (rule.type === 'number' || rule.type === 'integer') {
    const value = jsonNumber(text);
    if (Number.isFinite(value)) return value;
    errors.push({ field: given.name, code: 'invalid_value', message: 'must be a number' });
    return undefined;
  }
  if (rule.type === 'string' && rule.format === 'date') {
    if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`))) return text;
    errors.push({ field: given.name, code: 'invalid_value', message: 'must be a date such as 2026-11-24' });
    return undefined;
  }
  const time =
    /^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$/.test(text)
      ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text)
      : NaN;
  if (!Number.isNaN(time)) return new Date(time).toISOString();
  errors.push({
    field: given.name,
    code: 'invalid_value',
    message: 'must be a date-time such as 2026-11-24T09:30:00Z, or a date',
  });
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
  const number = jsonNumber(given.value);
  if (Number.isInteger(number) && number >= min && number <= max) return number;
  errors.push({ field: given.name, code: 'invalid_value', message: `must be an integer from ${min} to ${max}` });
  return fallback;
}

/**
 * `sort=-price,name`: comma-separated sortable fields, `-` for descending, each once; `declaredNames` maps any
 * vocabulary's name of a property to its declared one (`preco` to `price`).
 */
export function parseSort(
  definition: ResourceDefinition,
  declaredNames: ReadonlyMap<string, string>,
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
    const field = declaredNames.get(word) ?? word;
    if (word === '') return fail(`has an empty entry; list sortable fields separated by commas: ${choices}`);
    if (!sortable.includes(field)) return fail(`cannot sort by ${quoted(word)}; the sortable fields are ${choices}`);
    if (keys.some((key) => key.field === field))
      return fail(`names ${quoted(word)} more than once; give each field once`);
    keys.push({ field, descending });
  }
  return keys;
}

/** A client's word in a message: as JSON, cut at 64 characters. */
function quoted(word: string): string {
  return JSON.stringify(word.length > 64 ? `${word.slice(0, 64)}…` : word);
}

/** A filter's value, read as the field's type: `?in_stock=true`, `?year=1999`, `?status=open`. */
export function parseFilter(
  rule: FieldRule,
  given: { name: string; value: string },
  errors: FieldError[],
): Filter | undefined {
  const text = given.value;
  const fail = (message: string): undefined => {
    errors.push({ field: given.name, code: 'invalid_value', message });
    return undefined;
  };
  switch (rule.type) {
    case 'enum': {
      const value = rule.values?.find((allowed) => String(allowed) === text);
      if (value === undefined || value === null || typeof value === 'object')
        return fail(`must be one of: ${(rule.values ?? []).join(', ')}`);
      return { field: rule.name, value };
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') return fail('must be true or false');
      return { field: rule.name, value: text === 'true' };
    case 'integer':
    case 'number': {
      const value = jsonNumber(text);
      if (!Number.isFinite(value) || (rule.type === 'integer' && !Number.isSafeInteger(value)))
        return fail(`must be ${rule.type === 'integer' ? 'an integer' : 'a number'}`);
      return { field: rule.name, value };
    }
    default:
      if (text.length === 0 || (rule.maxLength !== undefined && countCharacters(text) > rule.maxLength)) {
        return fail(`must be 1 to ${rule.maxLength ?? 'any number of'} characters`);
      }
      return { field: rule.name, value: text, ignoreCase: rule.unique === 'ignore-case' };
  }
}
