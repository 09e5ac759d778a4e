// The JSON5 reader of `plainrest import` (src/importing/json5.ts, json5.org 1.0.0): what JSON5 adds to JSON, JSON
// itself read as JSON.parse reads it, what no JSON value holds refused, and failures naming their line and column.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Json5Error, parseJson5 } from '../src/importing/json5.ts';

describe('JSON5', () => {
  test('what it adds to JSON: comments, trailing commas, unquoted keys, single quotes, hex, dots and plus signs', () => {
    const text = `// json-server 1.x's db.json5
{
  posts: [
    { id: '1', title: 'it\\'s "quoted"', views: 0x10, }, /* a comment */
    { id: "2", $weird_key: .5, other: 5., signed: +3, negative: -0x1, },
  ],
  'quoted key': 'line \\
continued',
  escapes: '\\x41\\u00e9\\0\\t\\v',
}`;
    assert.deepEqual(parseJson5(text), {
      posts: [
        { id: '1', title: `it's "quoted"`, views: 16 },
        { id: '2', $weird_key: 0.5, other: 5, signed: 3, negative: -1 },
      ],
      'quoted key': 'line continued',
      escapes: 'A\u00e9\0\t\v',
    });
  });

  test('JSON is JSON5: the same values as JSON.parse', () => {
    const json = JSON.stringify({ a: [1, -2.5e-3, 'x\n\u2028', null, true, false, { b: {} }], 'c d': '\\' });
    assert.deepEqual(parseJson5(json), JSON.parse(json));
  });

  test('a "__proto__" key is a member, as JSON.parse makes it, not the prototype', () => {
    const parsed = parseJson5('{ "__proto__": { "polluted": true }, constructor: 1 }') as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['__proto__', 'constructor']);
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  test('refused, naming the line and column: Infinity, NaN, numbers too large, unfinished values, stray text, depth', () => {
    const cases: [string, string][] = [
      ['{ a: Infinity }', 'Infinity, which no JSON value holds at line 1, column 6'],
      ['[\n  -NaN ]', '-NaN, which no JSON value holds at line 2, column 3'],
      ['[1e999]', '1e999, a number too large for JSON at line 1, column 2'],
      ["{ a: 'open", 'a string that never ends at line 1, column 11'],
      ['{ a: 1 /* open', 'a comment that never ends at line 1, column 8'],
      ['{ a 1 }', 'a ":" expected after a key at line 1, column 5'],
      ['[1 2]', 'a "," or "]" expected at line 1, column 4'],
      ['{ 1a: 2 }', 'a key expected at line 1, column 3'],
      ['{} x', 'something after the value at line 1, column 4'],
      ["'\\1'", 'a bad escape at line 1, column 4'],
      ['['.repeat(600), 'nesting deeper than 500 at line 1, column 502'],
    ];
    for (const [text, message] of cases) assert.throws(() => parseJson5(text), new Json5Error(message), text);
  });
});
