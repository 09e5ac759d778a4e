// Reads a declared `pattern` (an ECMAScript regular expression with the `u` flag, as
// JSON Schema 2020-12 §6.3.3 and OpenAPI 3.1 use it) into a tree that linear-pattern.ts
// matches in linear time. Everything a regular language needs is kept; back-references,
// lookarounds and inline modifiers, which only a backtracking engine can run, are refused.

/** One part of a pattern. Character atoms other than plain literals keep their source. */
export type PatternNode =
  | { readonly kind: 'character'; readonly codePoint: number }
  | { readonly kind: 'class'; readonly source: string }
  | { readonly kind: 'assertion'; readonly which: '^' | '$' | 'b' | 'B' }
  | { readonly kind: 'sequence'; readonly items: readonly PatternNode[] }
  | { readonly kind: 'choice'; readonly branches: readonly PatternNode[] }
  | { readonly kind: 'repeat'; readonly node: PatternNode; readonly least: number; readonly most: number };

/** A construct the linear-time matcher cannot run; its message completes "the pattern …". */
export class UnsupportedPattern extends Error {}

/** Characters that stand for themselves when escaped (`\.`, `\(`, `\/`, `\-`). */
const SYNTAX_CHARACTERS = '^$\\.*+?()[]{}|/-';

/**
 * The tree of `source`, which must already compile as `new RegExp(source, 'u')`: the
 * reader relies on that for well-formed classes, quantifiers and escapes.
 */
export function parsePattern(source: string): PatternNode {
  return new PatternReader(source).whole();
}

class PatternReader {
  private at = 0;
  private readonly source: string;

  constructor(source: string) {
    this.source = source;
  }

  whole(): PatternNode {
    const node = this.choice();
    if (this.at < this.source.length) throw new UnsupportedPattern(`has an unmatched ')' at character ${this.at + 1}`);
    return node;
  }

  private choice(): PatternNode {
    const branches = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at++;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? (branches[0] as PatternNode) : { kind: 'choice', branches };
  }

  private sequence(): PatternNode {
    const items: PatternNode[] = [];
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? (items[0] as PatternNode) : { kind: 'sequence', items };
  }

  private atom(): PatternNode {
    const start = this.at;
    const character = this.source[this.at++];
    switch (character) {
      case '^':
      case '$':
        return { kind: 'assertion', which: character };
      case '(':
        return this.group();
      case '[':
        this.at = classEnd(this.source, start);
        return { kind: 'class', source: this.source.slice(start, this.at) };
      case '.':
        return { kind: 'class', source: '.' };
      case '\\':
        return this.escape(start);
      default: {
        const codePoint = this.source.codePointAt(start) as number;
        this.at = start + (codePoint > 0xffff ? 2 : 1);
        return { kind: 'character', codePoint };
      }
    }
  }

  private group(): PatternNode {
    if (this.source[this.at] === '?') {
      if (this.source.startsWith('?:', this.at)) this.at += 2;
      else if (/^\?<[^=!]/.test(this.source.slice(this.at, this.at + 3)))
        this.at = this.source.indexOf('>', this.at) + 1;
      else if (/^\?(=|!|<=|<!)/.test(this.source.slice(this.at, this.at + 3)))
        throw new UnsupportedPattern('uses a lookahead or lookbehind, which cannot be matched in linear time');
      else throw new UnsupportedPattern('uses an inline modifier such as (?i:…), which plainrest does not support');
    }
    const node = this.choice();
    this.at++; // the closing ')'
    return node;
  }

  private escape(start: number): PatternNode {
    const next = this.source[this.at++] as string;
    if (next === 'b' || next === 'B') return { kind: 'assertion', which: next };
    if (/[1-9]/.test(next) || next === 'k')
      throw new UnsupportedPattern('uses a back-reference, which cannot be matched in linear time');
    if (SYNTAX_CHARACTERS.includes(next)) return { kind: 'character', codePoint: next.codePointAt(0) as number };
    if (next === 'p' || next === 'P' || (next === 'u' && this.source[this.at] === '{'))
      this.at = this.source.indexOf('}', this.at) + 1;
    else if (next === 'u')
      this.at += /^[dD][89abAB]..\\u[dD][c-fC-F]/.test(this.source.slice(this.at, this.at + 10)) ? 10 : 4;
    else if (next === 'x') this.at += 2;
    else if (next === 'c') this.at += 1;
    return { kind: 'class', source: this.source.slice(start, this.at) };
  }

  /** `atom` with the quantifier that follows it, if any (a lazy `?` after it changes nothing here). */
  private quantified(atom: PatternNode): PatternNode {
    QUANTIFIER.lastIndex = this.at;
    const quantifier = QUANTIFIER.exec(this.source);
    if (quantifier === null) return atom;
    this.at += quantifier[0].length;
    const [text, least, comma, most] = quantifier;
    if (text.startsWith('*')) return { kind: 'repeat', node: atom, least: 0, most: Infinity };
    if (text.startsWith('+')) return { kind: 'repeat', node: atom, least: 1, most: Infinity };
    if (text.startsWith('?')) return { kind: 'repeat', node: atom, least: 0, most: 1 };
    const fewest = Number(least);
    return {
      kind: 'repeat',
      node: atom,
      least: fewest,
      most: comma === undefined ? fewest : most === '' ? Infinity : Number(most),
    };
  }
}

/** A quantifier, read where the last atom ended: `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy. */
const QUANTIFIER = /(?:[*+?]|\{(\d+)(,(\d*))?\})\??/y;

/** Where the class that opens at `start` ends: after the first unescaped `]` (`[]` is an empty class in ECMAScript). */
function classEnd(source: string, start: number): number {
  let index = start + 1;
  if (source[index] === '^') index++;
  while (index < source.length && source[index] !== ']') index += source[index] === '\\' ? 2 : 1;
  return index + 1;
}
