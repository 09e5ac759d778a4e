// The linear-time pattern matcher (src/patterns/linear-pattern.ts): it answers as
// JavaScript's RegExp does, its work grows with the value's length and never with the
// ways a backtracking engine could split it, and one request's budget of work is bounded.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  LinearPattern,
  MATCH_STEPS_PER_REQUEST,
  MatchBudget,
  MatchBudgetSpent,
} from '../src/patterns/linear-pattern.ts';
import { UnsupportedPattern } from '../src/patterns/parse-pattern.ts';
import { mulberry32 } from './random.ts';

/** The work `pattern` spends on `value`, in steps. */
function stepsFor(pattern: LinearPattern, value: string): number {
  const budget = new MatchBudget();
  pattern.test(value, budget);
  return MATCH_STEPS_PER_REQUEST - budget.steps;
}

/** Patterns that take exponential or high polynomial time in a backtracking engine (the probe's, and the common email one). */
const HOSTILE = [
  '(a|aa)+$',
  '(a|a?)+$',
  '(a?a?)+b',
  'a*a*a*a*a*a*a*a*a*a*b',
  '(.*){20}x',
  '^(a+)+$',
  '^([a-zA-Z0-9_\\-\\.]+)@([a-zA-Z0-9_\\-\\.]+)\\.([a-zA-Z]{2,5})$',
];

describe('a linear-time pattern answers as RegExp with the u flag does', () => {
  const patterns = [
    '^[0-9]{13}$',
    '^(\\d{3}-){2}\\d{4}$',
    '^[a-z]+(-[a-z]+)*$',
    '\\bfoo\\b',
    '\\Bo',
    '^$',
    'x|',
    '(?:ab|cd)*?e',
    '\\p{L}+$',
    '[^]',
    '[]',
    '^\\u{1F600}$',
    '^\\uD83D\\uDE00$',
    '^.$',
    '\\d{2,4}',
    '[\\-a]',
    '\\/',
    'a{0}b',
    'a{2,}',
    '(a*)*b',
    '(|a)+c',
    '[\\w.-]+@',
    '^(?<y>\\d{4})-(0[1-9]|1[0-2])$',
    '\\x41\\cJ?',
    '^\\P{Lu}*$',
    '[^\\s@]+@[^\\s@]+',
    '^\\0?\\t?$',
    '\\S\\W\\D',
    ...HOSTILE,
  ];
  /** Values short enough for RegExp to try every way of splitting them over the hostile patterns. */
  const SHORT = 5;
  const random = mulberry32(35);
  const alphabet = [
    'a',
    'b',
    'x',
    'A',
    'Z',
    '0',
    '7',
    '-',
    '.',
    '@',
    ' ',
    '\n',
    '\t',
    'é',
    'λ',
    '😀',
    '\ud83d',
    '\u0000',
    'foo',
    'e',
    'cd',
    '2024-',
    '12',
  ];
  const values = [
    '',
    'a',
    'aaaab',
    'foo bar',
    'xfoox',
    'ab-cd',
    '1234567890123',
    '123-456-7890',
    'john@doe.com',
    '😀',
    '\ud83d',
    '\n',
  ];
  for (let i = 0; i < 400; i++) {
    const length = Math.floor(random() * 8);
    values.push(Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
  }
  for (const source of patterns) {
    test(`/${source}/u`, () => {
      const native = new RegExp(source, 'u');
      const linear = new LinearPattern(source);
      for (const value of values) {
        if (HOSTILE.includes(source) && value.length > SHORT) continue;
        assert.equal(linear.test(value, new MatchBudget()), native.test(value), JSON.stringify(value));
      }
    });
  }
});

describe('its work grows linearly with the value, whatever the pattern', () => {
  for (const source of HOSTILE) {
    test(`/${source}/ on 64 and on 100,000 characters that almost match`, () => {
      const pattern = new LinearPattern(source);
      const short = stepsFor(pattern, `${'a'.repeat(64)}!`);
      const long = stepsFor(pattern, `${'a'.repeat(100_000)}!`);
      assert.ok(short > 0);
      // 1,563 times the characters: the work per character stays the same (the first few aside).
      assert.ok(long <= short * 1563 * 1.05, `${short} steps for 65 characters, ${long} for 100,001`);
    });
  }

  test('hostile patterns give the right answers on inputs built against them', () => {
    assert.equal(new LinearPattern('(a|aa)+$').test(`${'a'.repeat(64)}!`, new MatchBudget()), false);
    assert.equal(
      new LinearPattern('(a|a?)+$').test(`${'a'.repeat(64)}!`, new MatchBudget()),
      true,
      'an empty repetition matches at the end',
    );
    assert.equal(new LinearPattern('(a?a?)+b').test('a'.repeat(64), new MatchBudget()), false);
    assert.equal(new LinearPattern('(.*){20}x').test(`${'a'.repeat(64)}x`, new MatchBudget()), true);
  });
});

describe('one request has a bounded budget of matching work', () => {
  test(`a value that would need more than ${MATCH_STEPS_PER_REQUEST} steps is stopped there`, () => {
    const pattern = new LinearPattern('(.*){200}x');
    const budget = new MatchBudget();
    assert.throws(() => pattern.test('a'.repeat(100_000), budget), MatchBudgetSpent);
    assert.ok(budget.steps < 0);
    assert.throws(() => new LinearPattern('^a$').test('a', budget), MatchBudgetSpent, 'a spent budget stays spent');
    assert.equal(pattern.test('ax', new MatchBudget()), true, 'the pattern itself is unharmed');
  });

  test('an ordinary pattern checks a megabyte within the budget', () => {
    const pattern = new LinearPattern('^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$');
    const steps = stepsFor(pattern, `${'a'.repeat(1_000_000)}@example.org`);
    assert.ok(steps < MATCH_STEPS_PER_REQUEST / 2, `${steps} steps`);
  });
});

describe('what only a backtracking engine can run is refused', () => {
  const cases: [string, RegExp][] = [
    ['^(a)\\1$', /back-reference/],
    ['^(?<x>a)\\k<x>$', /back-reference/],
    ['(?=a)a', /lookahead or lookbehind/],
    ['(?!a)b', /lookahead or lookbehind/],
    ['(?<=a)b', /lookahead or lookbehind/],
    ['(?<!a)b', /lookahead or lookbehind/],
    ['a{3000}', /spells out 3001 states/],
  ];
  for (const [source, message] of cases) {
    test(source, () =>
      assert.throws(
        () => new LinearPattern(source),
        (error: unknown) => error instanceof UnsupportedPattern && message.test(error.message),
      ),
    );
  }
});
