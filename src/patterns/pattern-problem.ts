// Whether a declared `pattern` can be used (README: Security): it must compile as an
// ECMAScript regular expression with the `u` flag, stay within its bounds, and be one
// linear-pattern.ts can match in linear time.

import { LinearPattern } from './linear-pattern.ts';
import { UnsupportedPattern } from './parse-pattern.ts';

/** A longer `pattern` is refused: every write compiles and runs it. */
export const MAX_PATTERN_LENGTH = 1000;
/** Nor one nesting its groups deeper (a 5,000-deep one overflows the stack of any reader). */
export const MAX_PATTERN_GROUP_DEPTH = 16;

/**
 * Why a `pattern` cannot be used, or undefined. It must compile as a JavaScript regular
 * expression with the `u` flag (ECMA-262 is what OpenAPI 3.1's JSON Schema names), and
 * plainrest must be able to match it in linear time (patterns/linear-pattern.ts): no
 * back-references or lookarounds, and a bounded size once counted repetitions are
 * written out.
 */
export function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `is ${pattern.length} characters long; a pattern is limited to ${MAX_PATTERN_LENGTH}`;
  if (groupDepth(pattern) > MAX_PATTERN_GROUP_DEPTH)
    return `nests groups deeper than ${MAX_PATTERN_GROUP_DEPTH}; a pattern is limited to that depth`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'not a valid regular expression';
  }
  try {
    new LinearPattern(pattern);
  } catch (error) {
    if (error instanceof UnsupportedPattern) return error.message;
    throw error;
  }
  return undefined;
}

/** The deepest nesting of parentheses in `pattern`, counting none escaped or inside a character class. */
function groupDepth(pattern: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '\\') index++;
    else if (inClass) inClass = character !== ']';
    else if (character === '[') inClass = true;
    else if (character === '(') deepest = Math.max(deepest, ++depth);
    else if (character === ')') depth--;
  }
  return deepest;
}
