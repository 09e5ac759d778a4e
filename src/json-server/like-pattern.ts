// json-server's `_like`: a regular expression, matched ignoring case (docs/json-server.md: Serving json-server's
// dialect). Run here in linear time, as declared patterns are (patterns/linear-pattern.ts): the value and the
// pattern's own letters are compared in lower case; a pattern that needs backtracking is a 400 naming it.

import { HttpError } from '../errors/errors.ts';
import type { MatchBudget } from '../patterns/linear-pattern.ts';
import { LinearPattern, MatchBudgetSpent } from '../patterns/linear-pattern.ts';
import { patternProblem } from '../patterns/pattern-problem.ts';

/** A `_like` value, ready to test values. */
export interface LikePattern {
  test(value: string, budget: MatchBudget): boolean;
}

/** `source` (the value of the parameter `name`) as a pattern, or a 400 saying why it cannot be one. */
export function likePattern(source: string, name: string): LikePattern {
  const lowered = lowerCaseLetters(source);
  const problem = patternProblem(lowered);
  if (problem !== undefined)
    throw new HttpError('invalid_query', `${name}: the pattern ${JSON.stringify(source)} ${problem}`, {
      errors: [{ field: name, code: 'invalid_pattern', message: `${problem}: a pattern is matched in linear time` }],
    });
  const pattern = new LinearPattern(lowered);
  return {
    test: (value, budget) => {
      try {
        return pattern.test(value.toLowerCase(), budget);
      } catch (error) {
        if (!(error instanceof MatchBudgetSpent)) throw error;
        throw new HttpError('invalid_query', `${name}: the pattern took more work than one request may spend`);
      }
    },
  };
}

/**
 * `source` with its literal letters in lower case, escapes as they are (`\D`, `\u00C9`, `\p{Lu}`): matched against a
 * value in lower case, as `new RegExp(source, 'i')` matches ignoring case.
 */
function lowerCaseLetters(source: string): string {
  let result = '';
  for (let index = 0; index < source.length; index++) {
    const character = source[index] as string;
    if (character !== '\\') {
      result += character.toLowerCase();
      continue;
    }
    const next = source[index + 1] ?? '';
    // An escape keeps its letter, and a braced argument (`\u{1F600}`, `\p{Lu}`) is kept whole.
    const braced = (next === 'u' || next === 'p' || next === 'P') && source[index + 2] === '{';
    const end = braced ? source.indexOf('}', index) + 1 || source.length : index + 2;
    result += source.slice(index, end);
    index = end - 1;
  }
  return result;
}
