// Unit tests for JSON Merge Patch (src/records/merge-patch.ts) against the examples of
// RFC 7396 Appendix A, plus the prototype-pollution guard.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../src/records/json.ts';
import { applyMergePatch } from '../src/records/merge-patch.ts';

describe('merge patch: RFC 7396 Appendix A', () => {
  const examples: [JsonValue, JsonValue, JsonValue][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  examples.forEach(([target, patch, expected], index) => {
    test(`example ${index + 1}: ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(applyMergePatch(target, patch), expected);
    });
  });

  test('the target is not modified', () => {
    const target = { a: { b: 'c' } };
    applyMergePatch(target, { a: { b: 'd' } });
    assert.deepEqual(target, { a: { b: 'c' } });
  });

  test('a "__proto__" key becomes an own property, never the prototype', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as JsonValue;
    const result = applyMergePatch({}, patch) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.deepEqual(Object.keys(result), ['__proto__']);
  });
});
