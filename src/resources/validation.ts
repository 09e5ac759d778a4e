// Validation at the boundary (after it, types are trusted; README: Records, Errors): a request body arrives as parsed
// JSON and leaves as Fields keyed by internal names, or the request fails with one 422 that lists every offending field
// in the client's vocabulary. Only names from the resource declaration are ever copied, so a client-chosen key such as
// `__proto__` can never reach an object (it is reported as an unknown field).

import type { FieldError } from '../errors/errors.ts';
import { validationError } from '../errors/errors.ts';
import type { Fields, JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject, jsonEqual } from '../records/json.ts';
import { MatchBudget, MatchBudgetSpent } from '../patterns/linear-pattern.ts';
import type { FieldRule, Vocabulary } from './definition.ts';

/** create = POST, replace = PUT, patch = PATCH (RFC 7396 merge patch, `null` removes). */
export type WriteMode = 'create' | 'replace' | 'patch';

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

const externalNameCache = new WeakMap<readonly FieldRule[], WeakMap<Vocabulary, Map<string, FieldRule>>>();

/** The rules keyed by their client-facing names in the vocabulary, computed once per rule list. */
function rulesByExternalName(rules: readonly FieldRule[], vocabulary: Vocabulary): Map<string, FieldRule> {
  let byVocabulary = externalNameCache.get(rules);
  if (byVocabulary === undefined) {
    byVocabulary = new WeakMap();
    externalNameCache.set(rules, byVocabulary);
  }
  let byName = byVocabulary.get(vocabulary);
  if (byName === undefined) {
    byName = new Map(rules.map((rule) => [vocabulary.name(rule.name), rule]));
    byVocabulary.set(vocabulary, byName);
  }
  return byName;
}

/**
 * Checks a request body against the field rules. `current` is the stored record on
 * replace and patch: a server-owned field equal to its current value is accepted and
 * dropped. In patch mode a `null` means "remove" and is returned as null. Server-owned
 * members inside nested values are compared with the current record's value at the
 * same place, unless `keepNestedServerValues` (a hook computes them and compares itself).
 */
export function validateBody(
  rules: readonly FieldRule[],
  body: JsonObject,
  vocabulary: Vocabulary,
  mode: WriteMode,
  current?: JsonObject,
  keepNestedServerValues = false,
): Fields {
  const errors: FieldError[] = [];
  const fields = checkObject(rules, body, current, { vocabulary, mode, prefix: '', errors, keepNestedServerValues, matching: new MatchBudget() });
  if (errors.length > 0) throw validationError(errors);
  return fields;
}

/** The string values a body gives to write-only fields (passwords), to keep them out of error logs. */
export function writeOnlyValues(rules: readonly FieldRule[], body: JsonObject, vocabulary: Vocabulary): string[] {
  const values: string[] = [];
  for (const rule of rules) {
    if (rule.access !== 'write-only') continue;
    const value = body[vocabulary.name(rule.name)];
    if (typeof value === 'string') values.push(value);
  }
  return values;
}

interface CheckState {
  readonly vocabulary: Vocabulary;
  readonly mode: WriteMode;
  readonly prefix: string;
  readonly errors: FieldError[];
  readonly keepNestedServerValues: boolean;
  /** The pattern-matching work this request has left (README: Security). */
  readonly matching: MatchBudget;
}

/** `stored` is the stored value at this place (the record at the top level), when there is one. */
function checkObject(rules: readonly FieldRule[], body: JsonObject, stored: JsonValue | undefined, state: CheckState): Fields {
  const byName = rulesByExternalName(rules, state.vocabulary);
  const current = isJsonObject(stored) ? stored : undefined;
  const fields: Fields = {};
  const seen = new Set<FieldRule>();
  for (const key of Object.keys(body)) {
    const field = state.prefix + key;
    const rule = byName.get(key);
    if (rule === undefined) {
      state.errors.push({ field, code: 'unknown_field', message: 'is not a field of this resource' });
      continue;
    }
    seen.add(rule);
    const value = body[key] as JsonValue;
    if (rule.access === 'server') {
      checkServerField(rule, value, field, fields, current?.[rule.name], state);
      continue;
    }
    if (value === null && state.mode === 'patch' && state.prefix === '') {
      if (isRemovable(rule)) fields[rule.name] = null;
      else state.errors.push({ field, code: 'required', message: 'cannot be removed' });
      continue;
    }
    const checked = checkValue(rule, value, field, current?.[rule.name], state);
    if (checked !== undefined) fields[rule.name] = checked;
  }
  if (state.mode !== 'patch' || state.prefix !== '') {
    for (const rule of rules) {
      if (rule.required && !seen.has(rule)) {
        state.errors.push({ field: state.prefix + state.vocabulary.name(rule.name), code: 'required', message: 'is required' });
      }
    }
  }
  return fields;
}

/** Server fields (README: Records): any value on POST is a 422; on PUT/PATCH only a different one is. */
function checkServerField(rule: FieldRule, value: JsonValue, field: string, fields: Fields, current: JsonValue | undefined, state: CheckState): void {
  if (state.mode === 'create') {
    state.errors.push({ field, code: 'server_field', message: 'is set by the server' });
    return;
  }
  if (state.prefix !== '' && state.keepNestedServerValues) {
    // Inside a nested value (an item's unit_price): the resource's hook compares it once
    // it has computed the value, so keep it.
    fields[rule.name] = value;
    return;
  }
  if (!jsonEqual(value, current)) {
    const message = current === undefined ? 'is set by the server' : 'is set by the server and cannot be changed';
    state.errors.push({ field, code: 'server_field', message });
    return;
  }
  if (state.prefix !== '') fields[rule.name] = value;
}

/** Optional, freely writable fields may be removed; required ones, admin-only ones and passwords may not. */
function isRemovable(rule: FieldRule): boolean {
  return rule.access === 'client' && rule.required !== true;
}

type Fail = (code: string, message: string) => undefined;

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

function checkValue(rule: FieldRule, value: JsonValue, field: string, stored: JsonValue | undefined, state: CheckState): JsonValue | undefined {
  const fail: Fail = (code, message) => {
    state.errors.push({ field, code, message });
    return undefined;
  };
  switch (rule.type) {
    case 'string':
      if (typeof value !== 'string') return fail('invalid_type', 'must be a string');
      return checkString(rule, value, state.matching, fail) ? value : undefined;
    case 'number':
      if (typeof value !== 'number') return fail('invalid_type', 'must be a number');
      return checkNumber(rule, value, fail) ? value : undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail('invalid_type', 'must be an integer');
      return checkNumber(rule, value, fail) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : fail('invalid_type', 'must be true or false');
    case 'enum':
      if (!(rule.values ?? []).some((allowed) => allowed === value)) return fail('invalid_value', `must be one of: ${(rule.values ?? []).join(', ')}`);
      return value;
    case 'array':
      return checkArray(rule, value, field, stored, state, fail);
    case 'object':
      if (!isJsonObject(value)) return fail('invalid_type', `must be ${TYPE_NAMES['object']}`);
      return checkNested(rule.members ?? [], value, `${field}.`, stored, state);
    case 'id':
    case 'timestamp':
      return fail('server_field', 'is set by the server');
  }
}

/** An object inside the body (a member or an array's element): its members, with no removal by null. */
function checkNested(rules: readonly FieldRule[], value: JsonObject, prefix: string, stored: JsonValue | undefined, state: CheckState): JsonValue | undefined {
  const before = state.errors.length;
  const checked = checkObject(rules, value, stored, { ...state, prefix, mode: state.mode === 'create' ? 'create' : 'replace' });
  return state.errors.length === before ? checked : undefined;
}

function checkString(rule: FieldRule, value: string, matching: MatchBudget, fail: Fail): boolean {
  if (rule.minLength !== undefined || rule.maxLength !== undefined) {
    const length = countCharacters(value);
    if (rule.minLength !== undefined && length < rule.minLength) {
      fail('too_short', rule.minLength === 1 ? 'must not be empty' : `must be at least ${rule.minLength} characters long`);
      return false;
    }
    if (rule.maxLength !== undefined && length > rule.maxLength) {
      fail('too_long', `must be at most ${rule.maxLength} characters long`);
      return false;
    }
  }
  if (rule.format !== undefined && !FORMAT_CHECKS[rule.format].test(value)) {
    fail('invalid_format', FORMAT_MESSAGES[rule.format]);
    return false;
  }
  // Once a value has spent the request's matching budget, the request is refused for it
  // and later values are not matched.
  if (rule.pattern !== undefined && matching.steps >= 0) {
    let matches: boolean;
    try {
      matches = rule.pattern.test(value, matching);
    } catch (error) {
      if (!(error instanceof MatchBudgetSpent)) throw error;
      fail('pattern_too_costly', 'is too long to check against its pattern in one request; send shorter values');
      return false;
    }
    if (!matches) {
      fail('pattern_mismatch', `must match the pattern ${rule.pattern.source}`);
      return false;
    }
  }
  return true;
}

/** What each `format` accepts (a password is any string). */
const FORMAT_CHECKS: Readonly<Record<NonNullable<FieldRule['format']>, { test(value: string): boolean }>> = {
  email: EMAIL_PATTERN,
  date: { test: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && isRealDate(value) },
  'date-time': {
    test: (value) => /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) && isRealDate(value.slice(0, 10)) && Number(value.slice(11, 13)) < 24 && Number(value.slice(14, 16)) < 60 && Number(value.slice(17, 19)) < 61,
  },
  uri: { test: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(value) && URL.canParse(value) },
  password: { test: () => true },
};

const FORMAT_MESSAGES: Readonly<Record<NonNullable<FieldRule['format']>, string>> = {
  email: 'must be a valid email address',
  date: 'must be a date: YYYY-MM-DD',
  'date-time': 'must be a date and time as RFC 3339 writes them: 2026-01-20T10:00:00Z',
  uri: 'must be an absolute URI such as https://example.com/',
  password: '',
};

/** `2026-02-30` is the right shape and no date. */
function isRealDate(value: string): boolean {
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const PLACES_IN_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six'];

function checkNumber(rule: FieldRule, value: number, fail: Fail): boolean {
  if (rule.decimalPlaces !== undefined) {
    if (Number(value.toFixed(rule.decimalPlaces)) !== value) {
      fail('invalid_format', `must have at most ${PLACES_IN_WORDS[rule.decimalPlaces] ?? rule.decimalPlaces} decimals`);
      return false;
    }
  } else if (rule.multipleOf !== undefined && !isMultiple(value, rule.multipleOf)) {
    fail('not_multiple', `must be a multiple of ${rule.multipleOf}`);
    return false;
  }
  if (rule.minimum !== undefined && value < rule.minimum) return fail('too_small', `must be at least ${rule.minimum}`) ?? false;
  if (rule.exclusiveMinimum !== undefined && value <= rule.exclusiveMinimum) return fail('too_small', `must be greater than ${rule.exclusiveMinimum}`) ?? false;
  if (rule.maximum !== undefined && value > rule.maximum) return fail('too_large', `must be at most ${rule.maximum}`) ?? false;
  if (rule.exclusiveMaximum !== undefined && value >= rule.exclusiveMaximum) return fail('too_large', `must be less than ${rule.exclusiveMaximum}`) ?? false;
  return true;
}

/** Exact for whole divisors; within a rounding error of the quotient otherwise (0.25). */
function isMultiple(value: number, divisor: number): boolean {
  const quotient = value / divisor;
  return Number.isFinite(quotient) && Math.abs(quotient - Math.round(quotient)) < 1e-9;
}

function checkArray(rule: FieldRule, value: JsonValue, field: string, stored: JsonValue | undefined, state: CheckState, fail: Fail): JsonValue | undefined {
  if (!Array.isArray(value)) return fail('invalid_type', 'must be an array');
  const list = value as readonly JsonValue[];
  if (rule.minItems !== undefined && list.length < rule.minItems) return fail('too_few_items', `must have at least ${rule.minItems} item(s)`);
  if (rule.maxItems !== undefined && list.length > rule.maxItems) return fail('too_many_items', `must have at most ${rule.maxItems} items`);
  const element = rule.items;
  if (element === undefined) return list;
  const current = Array.isArray(stored) ? (stored as readonly JsonValue[]) : undefined;
  const before = state.errors.length;
  const elements = list.map((item, index) => {
    const path = `${field}[${index}]`;
    const checked = checkValue(element, item, path, current?.[index], { ...state, prefix: `${path}.` });
    return checked === undefined ? null : checked;
  });
  return state.errors.length === before ? elements : undefined;
}

/** Length in characters (Unicode code points), not UTF-16 units, so "ção" is 3. */
function countCharacters(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff) count++;
  }
  return count;
}
