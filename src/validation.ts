// Validation at the boundary (after it, types are trusted): a request body arrives as parsed JSON and
// leaves as Fields keyed by internal names, or the request fails with one 422 that
// lists every offending field in the client's vocabulary (README: Records, Errors).
// Only names from the resource declaration are ever copied, so a client-chosen key
// such as `__proto__` can never reach an object (it is reported as an unknown field).

import type { FieldError } from './http/errors.js';
import { validationError } from './http/errors.js';
import type { Fields, JsonObject, JsonValue } from './json.js';
import { isJsonObject, jsonEqual } from './json.js';
import type { FieldRule } from './resources/definition.js';
import type { Language } from './vocabulary.js';
import { translate } from './vocabulary.js';

/** create = POST, replace = PUT, patch = PATCH (RFC 7396 merge patch, `null` removes). */
export type WriteMode = 'create' | 'replace' | 'patch';

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

const externalNameCache = new WeakMap<readonly FieldRule[], Map<Language, Map<string, FieldRule>>>();

/** The rules keyed by their client-facing names in `language`, computed once per rule list. */
function rulesByExternalName(rules: readonly FieldRule[], language: Language): Map<string, FieldRule> {
  let byLanguage = externalNameCache.get(rules);
  if (byLanguage === undefined) {
    byLanguage = new Map();
    externalNameCache.set(rules, byLanguage);
  }
  let byName = byLanguage.get(language);
  if (byName === undefined) {
    byName = new Map(rules.map((rule) => [translate(rule.name, language), rule]));
    byLanguage.set(language, byName);
  }
  return byName;
}

/**
 * Checks a request body against the field rules. `current` is the stored record on
 * replace and patch: a server-owned field equal to its current value is accepted and
 * dropped. In patch mode a `null` means "remove" and is returned as null.
 */
export function validateBody(
  rules: readonly FieldRule[],
  body: JsonObject,
  language: Language,
  mode: WriteMode,
  current?: JsonObject,
): Fields {
  const errors: FieldError[] = [];
  const fields = checkObject(rules, body, { language, mode, current, prefix: '', errors });
  if (errors.length > 0) throw validationError(errors);
  return fields;
}

/** The string values a body gives to write-only fields (passwords), to keep them out of error logs. */
export function writeOnlyValues(rules: readonly FieldRule[], body: JsonObject, language: Language): string[] {
  const values: string[] = [];
  for (const rule of rules) {
    if (rule.access !== 'write-only') continue;
    const value = body[translate(rule.name, language)];
    if (typeof value === 'string') values.push(value);
  }
  return values;
}

/** Renames the internal names in a field path such as `items[0].product_id` into `language`. */
export function translatePath(path: string, language: Language): string {
  return language === 'en' ? path : path.replace(/[a-z_]+/g, (word) => translate(word, language));
}

interface CheckState {
  readonly language: Language;
  readonly mode: WriteMode;
  /** The stored record, for top-level server fields; undefined inside list elements. */
  readonly current: JsonObject | undefined;
  readonly prefix: string;
  readonly errors: FieldError[];
}

function checkObject(rules: readonly FieldRule[], body: JsonObject, state: CheckState): Fields {
  const byName = rulesByExternalName(rules, state.language);
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
      checkServerField(rule, value, field, fields, state);
      continue;
    }
    if (value === null && state.mode === 'patch' && state.prefix === '') {
      if (isRemovable(rule)) fields[rule.name] = null;
      else state.errors.push({ field, code: 'required', message: 'cannot be removed' });
      continue;
    }
    const checked = checkValue(rule, value, field, state);
    if (checked !== undefined) fields[rule.name] = checked;
  }
  if (state.mode !== 'patch' || state.prefix !== '') {
    for (const rule of rules) {
      if (rule.required && !seen.has(rule)) {
        state.errors.push({ field: state.prefix + translate(rule.name, state.language), code: 'required', message: 'is required' });
      }
    }
  }
  return fields;
}

/** Server fields (README: Records): any value on POST is a 422; on PUT/PATCH only a different one is. */
function checkServerField(rule: FieldRule, value: JsonValue, field: string, fields: Fields, state: CheckState): void {
  if (state.mode === 'create') {
    state.errors.push({ field, code: 'server_field', message: 'is set by the server' });
    return;
  }
  if (state.prefix !== '') {
    // Inside a list element (an item's unit_price): the resource compares it once it
    // has computed the value, so keep it.
    fields[rule.name] = value;
    return;
  }
  if (!jsonEqual(value, state.current?.[rule.name])) {
    state.errors.push({ field, code: 'server_field', message: 'is set by the server and cannot be changed' });
  }
}

/** Optional, freely writable fields may be removed; required ones, role, status and the password may not. */
function isRemovable(rule: FieldRule): boolean {
  return rule.access === 'client' && rule.required !== true;
}

function checkValue(rule: FieldRule, value: JsonValue, field: string, state: CheckState): JsonValue | undefined {
  const fail = (code: string, message: string): undefined => {
    state.errors.push({ field, code, message });
    return undefined;
  };
  switch (rule.type) {
    case 'string':
    case 'password':
    case 'email':
      if (typeof value !== 'string') return fail('invalid_type', 'must be a string');
      return checkLength(rule, value, fail) ? value : undefined;
    case 'money':
      if (typeof value !== 'number') return fail('invalid_type', 'must be a number');
      if (Number(value.toFixed(2)) !== value) return fail('invalid_format', 'must have at most two decimals');
      return checkRange(rule, value, fail) ? value : undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail('invalid_type', 'must be an integer');
      return checkRange(rule, value, fail) ? value : undefined;
    case 'enum':
      if (typeof value !== 'string' || !(rule.values ?? []).includes(value)) {
        return fail('invalid_value', `must be one of: ${(rule.values ?? []).join(', ')}`);
      }
      return value;
    case 'list':
      return checkList(rule, value, field, state, fail);
    case 'id':
    case 'timestamp':
      return fail('server_field', 'is set by the server');
  }
}

type Fail = (code: string, message: string) => undefined;

function checkLength(rule: FieldRule, value: string, fail: Fail): boolean {
  const length = countCharacters(value);
  if (rule.min !== undefined && length < rule.min) {
    fail('too_short', rule.min === 1 ? 'must not be empty' : `must be at least ${rule.min} characters long`);
    return false;
  }
  if (rule.max !== undefined && length > rule.max) {
    fail('too_long', `must be at most ${rule.max} characters long`);
    return false;
  }
  if (rule.type === 'email' && !EMAIL_PATTERN.test(value)) {
    fail('invalid_format', 'must be a valid email address');
    return false;
  }
  return true;
}

function checkRange(rule: FieldRule, value: number, fail: Fail): boolean {
  if (rule.min !== undefined && value < rule.min) {
    fail('too_small', `must be at least ${rule.min}`);
    return false;
  }
  if (rule.max !== undefined && value > rule.max) {
    fail('too_large', `must be at most ${rule.max}`);
    return false;
  }
  return true;
}

function checkList(rule: FieldRule, value: JsonValue, field: string, state: CheckState, fail: Fail): JsonValue | undefined {
  if (!Array.isArray(value)) return fail('invalid_type', 'must be an array');
  const list = value as readonly JsonValue[];
  if (rule.min !== undefined && list.length < rule.min) return fail('too_few_items', `must have at least ${rule.min} item(s)`);
  if (rule.max !== undefined && list.length > rule.max) return fail('too_many_items', `must have at most ${rule.max} items`);
  const before = state.errors.length;
  const elements = list.map((element, index) => {
    const prefix = `${field}[${index}].`;
    if (!isJsonObject(element)) {
      state.errors.push({ field: `${field}[${index}]`, code: 'invalid_type', message: 'must be an object' });
      return {};
    }
    return checkObject(rule.of ?? [], element, { ...state, current: undefined, prefix });
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
