// The example strings the OpenAPI document gives a declared `pattern` (src/openapi/pattern-example.ts).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { patternExample } from '../src/openapi/pattern-example.ts';
import { LinearPattern } from '../src/patterns/linear-pattern.ts';

describe('pattern examples: the shortest string a declared pattern matches', () => {
  const cases: [string, string][] = [
    ['^[0-9]{13}$', '0000000000000'],
    ['^[A-Z]{2}$', 'AA'],
    ['^[a-z][a-z0-9-]*$', 'a'],
    ['^\\d{3}-\\d{4}$', '000-0000'],
    ['^(?:SKU|REF)-[0-9]{4,6}$', 'SKU-0000'],
    ['^v(?<major>\\d+)\\.(\\d+)$', 'v0.0'],
    ['^\\p{Lu}\\p{Ll}+$', 'Aa'],
    ['^[^a-z]+$', 'A'],
    ['^#[0-9a-fA-F]{6}$', '#aaaaaa'],
    ['^\\w+@\\w+\\.org$', 'a@a.org'],
    ['colou?r', 'color'],
  ];
  for (const [source, expected] of cases) {
    test(`/${source}/ → ${JSON.stringify(expected)}`, () => {
      const example = patternExample(new LinearPattern(source));
      assert.equal(example, expected);
      assert.match(example ?? '', new RegExp(source, 'u'));
    });
  }

  test('an open-ended repetition is written longer to reach a minLength; a maxLength it cannot meet gives undefined', () => {
    assert.equal(patternExample(new LinearPattern('^[a-z]+$'), 5), 'aaaaaa');
    assert.equal(patternExample(new LinearPattern('^[0-9]{4}$'), 0, 3), undefined);
  });

  test('characters none of the candidates match, or an example over 10,000 characters, give undefined (the declaration gives `examples`)', () => {
    assert.equal(patternExample(new LinearPattern('^[\\u0400-\\u04FF]+$')), undefined);
    assert.equal(patternExample(new LinearPattern('^(a+){100}$'), 200), undefined);
    assert.equal(patternExample(new LinearPattern('^(a+){10}$'), 200)?.length, 2010);
  });

  test('the first branch that can be written is taken', () => {
    assert.equal(patternExample(new LinearPattern('^([\\u0400-\\u04FF]|b)$')), 'b');
  });
});
