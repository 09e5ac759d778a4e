// One string or number against its rule (README: Your own resources): lengths in
// characters, `format`, `pattern` (matched in linear time, within the request's budget),
// bounds and multiples. A refusal is passed to `fail` with its code and message.

import { MatchBudgetSpent, type MatchBudget } from '../patterns/linear-pattern.ts';
import type { FieldRule } from './definition.ts';

/** How a check reports a refusal: its code (`too_long`) and message. */
export type Fail = (code: string, message: string) => undefined;

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function checkString(rule: FieldRule, value: string, matching: MatchBudget, fail: Fail): boolean {
  if (rule.minLength !== undefined || rule.maxLength !== undefined) {
    const length = countCharacters(value);
    if (rule.minLength !== undefined && length < rule.minLength) {
      fail(
        'too_short',
        rule.minLength === 1 ? 'must not be empty' : `must be at least ${rule.minLength} characters long`,
      );
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
    test: (value) =>
      /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/.test(value) &&
      isRealDate(value.slice(0, 10)) &&
      Number(value.slice(11, 13)) < 24 &&
      Number(value.slice(14, 16)) < 60 &&
      Number(value.slice(17, 19)) < 61, // 60: a leap second (RFC 3339 §5.6)
  },
  uri: { test: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(value) && URL.canParse(value) },
  password: { test: () => true },
};

/** Whether `value` is of `format` as validation checks it (an import infers formats with it). */
export function hasFormat(format: NonNullable<FieldRule['format']>, value: string): boolean {
  return FORMAT_CHECKS[format].test(value);
}

const FORMAT_MESSAGES: Readonly<Record<NonNullable<FieldRule['format']>, string>> = {
  email: 'must be a valid email address',
  date: 'must be a date: YYYY-MM-DD',
  'date-time': 'must be a date and time as RFC 3339 writes them: 2026-01-20T10:00:00Z',
  uri: 'must be an absolute URI such as https://example.com/',
  password: '',
};

/** `2026-02-30` is the right shape and no date. Years 0000 to 0099 are themselves (Date.UTC would add 1900). */
function isRealDate(value: string): boolean {
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const PLACES_IN_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six'];

export function checkNumber(rule: FieldRule, value: number, fail: Fail): boolean {
  if (rule.decimalPlaces !== undefined) {
    if (Number(value.toFixed(rule.decimalPlaces)) !== value) {
      fail('invalid_format', `must have at most ${PLACES_IN_WORDS[rule.decimalPlaces] ?? rule.decimalPlaces} decimals`);
      return false;
    }
  } else if (rule.multipleOf !== undefined && !isMultiple(value, rule.multipleOf)) {
    fail('not_multiple', `must be a multiple of ${rule.multipleOf}`);
    return false;
  }
  if (rule.minimum !== undefined && value < rule.minimum)
    return fail('too_small', `must be at least ${rule.minimum}`) ?? false;
  if (rule.exclusiveMinimum !== undefined && value <= rule.exclusiveMinimum)
    return fail('too_small', `must be greater than ${rule.exclusiveMinimum}`) ?? false;
  if (rule.maximum !== undefined && value > rule.maximum)
    return fail('too_large', `must be at most ${rule.maximum}`) ?? false;
  if (rule.exclusiveMaximum !== undefined && value >= rule.exclusiveMaximum)
    return fail('too_large', `must be less than ${rule.exclusiveMaximum}`) ?? false;
  return true;
}

/** Exact for whole divisors; within a rounding error of the quotient otherwise (0.25). */
function isMultiple(value: number, divisor: number): boolean {
  const quotient = value / divisor;
  return Number.isFinite(quotient) && Math.abs(quotient - Math.round(quotient)) < 1e-9;
}

/** Length in characters (Unicode code points, as JSON Schema counts them), not UTF-16 units, so "ção" is 3. */
export function countCharacters(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff) count++;
  }
  return count;
}
