// The filter operators of a list (README: Lists, "Filter operators"): `status[in]=paid,sent`, `status[ne]=paid`,
// `name[contains]=tea`, `name[starts]=te`, `note[null]=true`, a repeated equality parameter read as `in`, and
// PostgREST's `or=(status.eq.paid,total.gt.100)`; each read as the property's type, which must take the operator.
// An `in` is split on the raw commas of the query string, so a value holding a comma sends it percent-encoded.

import type { FieldError } from '../errors/errors.ts';
import type { FieldRule, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import type { Condition, FilterValue, RangeFilter } from '../store/query.ts';
import { foldedText } from '../store/folded-text.ts';
import { parseBound, parseFilter } from './list-values.ts';
import { formDecoded } from './query-string.ts';
import { countCharacters } from '../resources/scalar-checks.ts';

export type Operator = Condition['op'];
/** The operators a parameter's brackets take (`price[gte]`); `eq` is the plain parameter (`price=10`). */
export const BRACKETED_OPERATORS: readonly Operator[] = [
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'ne',
  'contains',
  'starts',
  'null',
];
export const RANGE_OPERATORS: readonly RangeFilter['op'][] = ['gt', 'gte', 'lt', 'lte'];
/** Values an `in` holds at most, and conditions an `or` holds at most. */
export const MAX_VALUES = 100;
/** The longest text `contains` and `starts` look for. */
export const MAX_TEXT_LENGTH = 200;

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

/** Text properties marked `x-filter` (not enums): those `contains` and `starts` look in. */
export function takesText(rule: FieldRule): boolean {
  return rule.filter === true && rule.type === 'string';
}

/** Whether `rule`'s property takes `op`: ranges as takesRanges says, text operators on text, the rest on `x-filter`. */
export function takesOperator(rule: FieldRule, op: Operator): boolean {
  if ((RANGE_OPERATORS as readonly string[]).includes(op)) return takesRanges(rule);
  if (op === 'contains' || op === 'starts') return takesText(rule);
  return rule.filter === true;
}

/** Which properties take `op`, for the message refusing it elsewhere. */
export function propertiesTaking(definition: ResourceDefinition, op: Operator): string {
  const names = definition.fields.filter((rule) => takesOperator(rule, op)).map((rule) => rule.name);
  return names.length === 0 ? 'no property of this list' : names.join(', ');
}

/**
 * `rule`'s property compared by `op` with `raw` (the value as sent, before percent-decoding), named `name` in errors;
 * undefined, with an error pushed, when the value is not one the property's type can hold.
 */
export function parseCondition(
  rule: FieldRule,
  op: Operator,
  name: string,
  raw: string,
  errors: FieldError[],
  decode: (raw: string) => string = formDecoded,
): Condition | undefined {
  const given = { name, value: decode(raw) };
  const fail = (message: string): undefined => {
    errors.push({ field: name, code: 'invalid_value', message });
    return undefined;
  };
  switch (op) {
    case 'eq':
    case 'ne': {
      const filter = parseFilter(rule, given, errors);
      return filter === undefined ? undefined : { ...filter, op };
    }
    case 'in': {
      const values = parseValues(rule, name, raw.split(','), errors, decode);
      return values === undefined ? undefined : { field: rule.name, op, values, ...ignoringCase(rule) };
    }
    case 'contains':
    case 'starts': {
      const text = foldedText(given.value);
      if (text.length === 0 || countCharacters(given.value) > MAX_TEXT_LENGTH)
        return fail(`must be 1 to ${MAX_TEXT_LENGTH} characters, not only accents`);
      return { field: rule.name, op, text };
    }
    case 'null':
      if (given.value !== 'true' && given.value !== 'false') return fail('must be true or false');
      return { field: rule.name, op, isNull: given.value === 'true' };
    default: {
      const value = parseBound(rule, given, errors);
      return value === undefined ? undefined : { field: rule.name, op, value, ...asInstant(rule) };
    }
  }
}

/** The values of an `in` (or of a repeated equality), each read as the property's type, once each, at most 100. */
export function parseValues(
  rule: FieldRule,
  name: string,
  rawValues: readonly string[],
  errors: FieldError[],
  decode: (raw: string) => string = formDecoded,
): FilterValue[] | undefined {
  if (rawValues.length > MAX_VALUES) {
    errors.push({ field: name, code: 'invalid_value', message: `may hold at most ${MAX_VALUES} values` });
    return undefined;
  }
  const values: FilterValue[] = [];
  const before = errors.length;
  for (const raw of rawValues) {
    const value = parseFilter(rule, { name, value: decode(raw) }, errors)?.value;
    if (value !== undefined && !values.includes(value)) values.push(value);
  }
  return errors.length === before ? values : undefined;
}

/** `instant` for a bound on a declared date-time: compared as the instant it names, whatever its offset. */
export function asInstant(rule: FieldRule): { instant?: true } {
  return rule.type === 'string' && rule.format === 'date-time' ? { instant: true } : {};
}

/** `ignoreCase` for a property compared ignoring case (a unique email). */
export function ignoringCase(rule: FieldRule): { ignoreCase?: true } {
  return rule.unique === 'ignore-case' ? { ignoreCase: true } : {};
}

/**
 * `or=(status.eq.paid,total.gt.100,status.in.(a,b))`: conditions of at most one level, each `property.operator.value`,
 * separated by the commas outside an `in`'s parentheses; `declaredNames` reads any vocabulary's property names. Sent as
 * it is, its values are percent-decoded once split; sent percent-encoded whole (as URLSearchParams writes it), it is
 * decoded first, and then no value can hold a comma or a parenthesis.
 */
export function parseAnyOf(
  definition: ResourceDefinition,
  declaredNames: ReadonlyMap<string, string>,
  name: string,
  raw: string,
  errors: FieldError[],
): Condition[] | undefined {
  const fail = (message: string): undefined => {
    errors.push({ field: name, code: 'invalid_value', message });
    return undefined;
  };
  const encodedWhole = !raw.startsWith('(');
  const text = encodedWhole ? formDecoded(raw) : raw;
  const decode = encodedWhole ? (value: string): string => value : formDecoded;
  if (!text.startsWith('(') || !text.endsWith(')') || text.length === 2)
    return fail('must be conditions in parentheses: or=(status.eq.paid,total.gt.100)');
  const items = splitOutsideParentheses(text.slice(1, -1));
  if (items === undefined) return fail('has unbalanced parentheses');
  if (items.length > MAX_VALUES) return fail(`may hold at most ${MAX_VALUES} conditions`);
  const conditions: Condition[] = [];
  for (const item of items) {
    const [word = '', op = '', ...rest] = item.split('.');
    const value = rest.join('.');
    const field = declaredNames.get(decode(word)) ?? decode(word);
    const rule = definition.fields.find((candidate) => candidate.name === field);
    const shown = `(${decode(item)})`;
    if (op !== 'eq' && !(BRACKETED_OPERATORS as readonly string[]).includes(op))
      return fail(`${shown}: write each condition as property.operator.value, the operator one of eq, ${operators()}`);
    if (rule === undefined || !takesOperator(rule, op as Operator))
      return fail(`${shown}: ${op} applies to ${propertiesTaking(definition, op as Operator)}`);
    const inner: FieldError[] = [];
    const condition =
      op === 'in'
        ? inParentheses(rule, name, value, inner, decode)
        : parseCondition(rule, op as Operator, name, value, inner, decode);
    for (const error of inner) errors.push({ ...error, message: `${shown}: ${error.message}` });
    if (condition === undefined) return undefined;
    conditions.push(condition);
  }
  return conditions;
}

/** `in.(a,b)` inside an `or`. */
function inParentheses(
  rule: FieldRule,
  name: string,
  raw: string,
  errors: FieldError[],
  decode: (raw: string) => string,
): Condition | undefined {
  if (!raw.startsWith('(') || !raw.endsWith(')')) {
    errors.push({ field: name, code: 'invalid_value', message: 'in takes its values in parentheses: in.(a,b)' });
    return undefined;
  }
  const values = parseValues(rule, name, raw.slice(1, -1).split(','), errors, decode);
  return values === undefined ? undefined : { field: rule.name, op: 'in', values, ...ignoringCase(rule) };
}

/** `text` split on the commas outside parentheses; undefined when its parentheses do not balance. */
function splitOutsideParentheses(text: string): string[] | undefined {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '(') depth++;
    else if (character === ')' && --depth < 0) return undefined;
    else if (character === ',' && depth === 0) {
      items.push(text.slice(start, index));
      start = index + 1;
    }
  }
  items.push(text.slice(start));
  return depth === 0 ? items : undefined;
}

function operators(): string {
  return BRACKETED_OPERATORS.join(', ');
}

/**
 * A condition as a link writes it back (http/pagination.ts), in `vocabulary`: a `name[op]=value` pair, percent-encoded
 * but for an `in`'s separating commas.
 */
export function conditionPair(condition: Condition, vocabulary: Vocabulary): string {
  const name = encodeURIComponent(`${vocabulary.name(condition.field)}[${condition.op}]`);
  return `${name}=${conditionValue(condition)}`;
}

/** `or=(…)` as a link writes it back, in `vocabulary`. */
export function anyOfPair(conditions: readonly Condition[], vocabulary: Vocabulary): string {
  const items = conditions.map((condition) => {
    const value = condition.op === 'in' ? `(${conditionValue(condition)})` : conditionValue(condition);
    return `${encodedValue(vocabulary.name(condition.field))}.${condition.op}.${value}`;
  });
  return `or=(${items.join(',')})`;
}

function conditionValue(condition: Condition): string {
  switch (condition.op) {
    case 'in':
      return condition.values.map((value) => encodedValue(String(value))).join(',');
    case 'contains':
    case 'starts':
      return encodedValue(condition.text);
    case 'null':
      return String(condition.isNull);
    default:
      return encodedValue(String(condition.value));
  }
}

/** A value percent-encoded, parentheses too, so that only the separators of `in` and `or` stay as they are. */
function encodedValue(value: string): string {
  return encodeURIComponent(value).replace(/\(/g, '%28').replace(/\)/g, '%29');
}
