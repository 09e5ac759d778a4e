// The example strings the OpenAPI document gives a declared `pattern` (src/openapi/pattern-example.ts).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { patternExample } from '../src/openapi/pattern-example.ts';

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
      const example = patternExample(new RegExp(source, 'u'));
      assert.equal(example, expected);
      assert.match(example ?? '', new RegExp(source, 'u'));
    });
  }

  test('an open-ended repetition is written longer to reach a minLength; a maxLength it cannot meet gives undefined', () => {
    assert.equal(patternExample(/^[a-z]+$/u, 5), 'aaaaaa');
    assert.equal(patternExample(/^[0-9]{4}$/u, 0, 3), undefined);
  });

  test('lookarounds, back-references and characters none of the candidates match give undefined (the declaration gives `examples`)', () => {
    assert.equal(patternExample(/^(?=.*\d)[a-z\d]{8}$/u), undefined);
    assert.equal(patternExample(/^(a)\1$/u), undefined);
    assert.equal(patternExample(/^[\u0400-\u04FF]+$/u), undefined);
  });
});
