// Validation at the boundary (after it, types are trusted; README: Records, Errors): a request body arrives as parsed
// JSON and leaves as Fields keyed by internal names, or the request fails with one 422 that lists every offending field
// in the client's vocabulary. Only names from the resource declaration are ever copied, so a client-chosen key such as
// `__proto__` can never reach an object (it is reported as an unknown field).

import type { FieldError } from '../errors/errors.ts';
import { validationError } from '../errors/errors.ts';
import type { Fields, JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject, jsonEqual } from '../records/json.ts';
import { MatchBudget } from '../patterns/linear-pattern.ts';
import { checkNumber, checkString, type Fail } from './scalar-checks.ts';
import type { FieldRule, Vocabulary } from './definition.ts';
import { applyMergePatch } from '../records/merge-patch.ts';
import { externalValue } from './representation.ts';

/** create = POST, replace = PUT, patch = PATCH (RFC 7396 merge patch, `null` removes). */
export type WriteMode = 'create' | 'replace' | 'patch';

/** A memo a reader may skip: rulesByExternalName(…) reads as if made each time. */
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
  const fields = checkObject(rules, body, current, {
    vocabulary,
    mode,
    prefix: '',
    errors,
    keepNestedServerValues,
    matching: new MatchBudget(),
  });
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
function checkObject(
  rules: readonly FieldRule[],
  body: JsonObject,
  stored: JsonValue | undefined,
  state: CheckState,
): Fields {
  const byName = rulesByExternalName(rules, state.vocabulary);
  const current = isJsonObject(stored) ? stored : undefined;
  const fields: Fields = {};
  const seen = new Set<FieldRule>();
  for (const key of Object.keys(body)) {
    const field = state.prefix + key;
    const rule = byName.get(key);
    // A hidden field (a singleton's id) is no field a client knows.
    if (rule === undefined || rule.hidden === true) {
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
    const storedMember = current?.[rule.name];
    const checked = checkValue(rule, mergedWithStored(rule, value, storedMember, state), field, storedMember, state);
    if (checked !== undefined) fields[rule.name] = checked;
  }
  if (state.mode !== 'patch' || state.prefix !== '') {
    for (const rule of rules) {
      if (rule.required && !seen.has(rule)) {
        state.errors.push({
          field: state.prefix + state.vocabulary.name(rule.name),
          code: 'required',
          message: 'is required',
        });
      }
    }
  }
  return fields;
}

/**
 * A PATCH's object member merged into the stored one before it is checked, as RFC 7396 §2 merges at every depth (`null`
 * removes a member): the rules judge the result, not the patch. Arrays are replaced whole, as the RFC says.
 */
function mergedWithStored(rule: FieldRule, value: JsonValue, stored: JsonValue | undefined, state: CheckState) {
  if (state.mode !== 'patch' || state.prefix !== '' || rule.members === undefined || !isJsonObject(value)) return value;
  return applyMergePatch(stored === undefined ? undefined : externalValue(rule, stored, state.vocabulary), value);
}

/** Server fields (README: Records): any value on POST is a 422; on PUT/PATCH only a different one is. */
function checkServerField(
  rule: FieldRule,
  value: JsonValue,
  field: string,
  fields: Fields,
  current: JsonValue | undefined,
  state: CheckState,
): void {
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

/**
 * Optional, freely writable fields may be removed, and those that may hold null (a removed one reads as null, README:
 * Your own resources); required and defaulted ones, admin-only ones and passwords not.
 */
function isRemovable(rule: FieldRule): boolean {
  return rule.access === 'client' && (rule.nullable === true || (rule.required !== true && rule.default === undefined));
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

function checkValue(
  rule: FieldRule,
  value: JsonValue,
  field: string,
  stored: JsonValue | undefined,
  state: CheckState,
): JsonValue | undefined {
  const fail: Fail = (code, message) => {
    state.errors.push({ field, code, message });
    return undefined;
  };
  // A property declared `["…", "null"]` holds null (a PATCH's top-level null, which removes it, is read earlier).
  if (value === null && rule.nullable === true) return null;
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
      if (!(rule.values ?? []).some((allowed) => allowed === value))
        return fail('invalid_value', `must be one of: ${(rule.values ?? []).join(', ')}`);
      // `x-initial`: the values a POST may give; later states come through `x-transitions`.
      if (state.mode === 'create' && rule.initial !== undefined && !rule.initial.includes(value))
        return fail('invalid_value', `a new ${state.vocabulary.singular} starts as ${rule.initial.join(' or ')}`);
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
function checkNested(
  rules: readonly FieldRule[],
  value: JsonObject,
  prefix: string,
  stored: JsonValue | undefined,
  state: CheckState,
): JsonValue | undefined {
  const before = state.errors.length;
  const checked = checkObject(rules, value, stored, {
    ...state,
    prefix,
    mode: state.mode === 'create' ? 'create' : 'replace',
  });
  return state.errors.length === before ? checked : undefined;
}

function checkArray(
  rule: FieldRule,
  value: JsonValue,
  field: string,
  stored: JsonValue | undefined,
  state: CheckState,
  fail: Fail,
): JsonValue | undefined {
  if (!Array.isArray(value)) return fail('invalid_type', 'must be an array');
  const list = value as readonly JsonValue[];
  if (rule.minItems !== undefined && list.length < rule.minItems)
    return fail('too_few_items', `must have at least ${rule.minItems} item(s)`);
  if (rule.maxItems !== undefined && list.length > rule.maxItems)
    return fail('too_many_items', `must have at most ${rule.maxItems} items`);
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
