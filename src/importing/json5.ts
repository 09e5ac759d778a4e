// JSON5 (json5.org, version 1.0.0), which json-server 1.x reads as db.json5: JSON plus comments, trailing commas,
// unquoted keys, single-quoted strings, hexadecimal numbers and a leading or trailing decimal point. Infinity and NaN
// are refused: no JSON value holds them. A parse failure names its line and column.

import type { JsonValue } from '../records/json.ts';

/** Deeper than this, a file is refused rather than parsed on the call stack. */
const MOST_DEPTH = 500;

export class Json5Error extends Error {}

export function parseJson5(text: string): JsonValue {
  const parser = new Parser(text);
  const value = parser.value(0);
  parser.skipSpace();
  if (!parser.atEnd()) parser.fail('something after the value');
  return value;
}

const IDENTIFIER_START = /[\p{L}\p{Nl}$_]/u;
const IDENTIFIER_PART = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_\u200c\u200d]/u;
const SPACE = /[\s\ufeff]/u;
const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

class Parser {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  atEnd(): boolean {
    return this.#at >= this.#text.length;
  }

  fail(what: string): never {
    const before = this.#text.slice(0, this.#at);
    const line = before.split('\n').length;
    const column = this.#at - before.lastIndexOf('\n');
    throw new Json5Error(`${what} at line ${line}, column ${column}`);
  }

  /** Whitespace and comments. */
  skipSpace(): void {
    for (;;) {
      const char = this.#text[this.#at];
      if (char !== undefined && SPACE.test(char)) this.#at++;
      else if (this.#text.startsWith('//', this.#at)) {
        const end = this.#text.slice(this.#at).search(/[\n\r\u2028\u2029]/);
        this.#at = end === -1 ? this.#text.length : this.#at + end;
      } else if (this.#text.startsWith('/*', this.#at)) {
        const end = this.#text.indexOf('*/', this.#at + 2);
        if (end === -1) this.fail('a comment that never ends');
        this.#at = end + 2;
      } else return;
    }
  }

  value(depth: number): JsonValue {
    if (depth > MOST_DEPTH) this.fail(`nesting deeper than ${MOST_DEPTH}`);
    this.skipSpace();
    const char = this.#text[this.#at];
    if (char === '{') return this.#object(depth);
    if (char === '[') return this.#array(depth);
    if (char === '"' || char === "'") return this.#string(char);
    for (const [word, meaning] of [
      ['null', null],
      ['true', true],
      ['false', false],
    ] as const) {
      if (this.#text.startsWith(word, this.#at)) {
        this.#at += word.length;
        return meaning;
      }
    }
    return this.#number();
  }

  #object(depth: number): JsonValue {
    this.#at++;
    const object: Record<string, JsonValue> = {};
    for (;;) {
      this.skipSpace();
      if (this.#text[this.#at] === '}') break;
      const key = this.#key();
      this.skipSpace();
      if (this.#text[this.#at] !== ':') this.fail('a ":" expected after a key');
      this.#at++;
      // Defined, not assigned: a key "__proto__" is a member like any other, as JSON.parse makes it.
      Object.defineProperty(object, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipSpace();
      if (this.#text[this.#at] === ',') this.#at++;
      else if (this.#text[this.#at] !== '}') this.fail('a "," or "}" expected');
    }
    this.#at++;
    return object;
  }

  #array(depth: number): JsonValue {
    this.#at++;
    const array: JsonValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.#text[this.#at] === ']') break;
      array.push(this.value(depth + 1));
      this.skipSpace();
      if (this.#text[this.#at] === ',') this.#at++;
      else if (this.#text[this.#at] !== ']') this.fail('a "," or "]" expected');
    }
    this.#at++;
    return array;
  }

  #key(): string {
    const char = this.#text[this.#at];
    if (char === '"' || char === "'") return this.#string(char);
    const start = this.#at;
    if (char === undefined || !IDENTIFIER_START.test(char)) this.fail('a key expected');
    this.#at++;
    while (this.#at < this.#text.length && IDENTIFIER_PART.test(this.#text[this.#at] as string)) this.#at++;
    return this.#text.slice(start, this.#at);
  }

  #string(quote: string): string {
    this.#at++;
    let result = '';
    for (;;) {
      const char = this.#text[this.#at];
      if (char === undefined || char === '\n' || char === '\r') this.fail('a string that never ends');
      this.#at++;
      if (char === quote) return result;
      if (char !== '\\') {
        result += char;
        continue;
      }
      const escaped = this.#text[this.#at++];
      if (escaped === undefined) this.fail('a string that never ends');
      if (escaped === '\r' && this.#text[this.#at] === '\n') this.#at++;
      if (/[\n\r\u2028\u2029]/.test(escaped)) continue; // a line continuation
      if (escaped === 'x' || escaped === 'u') {
        const digits = this.#text.slice(this.#at, this.#at + (escaped === 'x' ? 2 : 4));
        if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== (escaped === 'x' ? 2 : 4)) this.fail('a bad escape');
        result += String.fromCharCode(parseInt(digits, 16));
        this.#at += digits.length;
      } else if (escaped === '0') {
        if (/[0-9]/.test(this.#text[this.#at] ?? '')) this.fail('a bad escape');
        result += '\0';
      } else if (/[1-9]/.test(escaped)) this.fail('a bad escape');
      else result += ESCAPES[escaped] ?? escaped;
    }
  }

  #number(): number {
    const match = /^[+-]?(0[xX][0-9a-fA-F]+|Infinity|NaN|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)/.exec(
      this.#text.slice(this.#at, this.#at + 400),
    );
    if (match === null) this.fail('a value expected');
    const text = match[0];
    if (/Infinity|NaN/.test(text)) this.fail(`${text}, which no JSON value holds`);
    const digits = text.replace(/^[+-]/, '');
    const magnitude = /^0[xX]/.test(digits) ? parseInt(digits.slice(2), 16) : Number(digits);
    if (!Number.isFinite(magnitude)) this.fail(`${text}, a number too large for JSON`);
    this.#at += text.length;
    return text.startsWith('-') ? -magnitude : magnitude;
  }
}
