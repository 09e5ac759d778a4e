// An example string for a declared `pattern` (JSON Schema 2020-12 §6.3.3 as OpenAPI 3.1
// uses it), so that the examples the OpenAPI document shows fit their schemas. It reads
// the pattern's source and writes the shortest string it describes: each repeated atom the
// fewest times its quantifier allows, the first branch of an alternation, and for a class
// or an escape the first of a few common characters that the atom matches (found by
// asking the atom itself, so every class, escape and Unicode property works). Patterns it
// cannot follow — lookarounds, back-references — give undefined, as does a result the
// pattern or the length bounds refuse; a declaration gives `examples` for those
// (README: Your own resources).

/** Characters tried, in order, for a class, an escape or `.`. */
const CANDIDATES = [...'aeoxzAEXZ0123456789', ...'-_.@:/+ ,!#*=~', ...'éçÅλ中'];

class Unsupported extends Error {}

/** The shortest string `pattern` matches that has `minLength`..`maxLength` characters, or undefined. */
export function patternExample(pattern: RegExp, minLength = 0, maxLength = Infinity): string | undefined {
  for (const extra of [0, minLength]) {
    let text: string;
    try {
      text = new PatternWriter(pattern.source, extra).whole();
    } catch (error) {
      if (error instanceof Unsupported) return undefined;
      throw error;
    }
    const length = [...text].length;
    if (pattern.test(text) && length >= minLength && length <= maxLength) return text;
  }
  return undefined;
}

class PatternWriter {
  private at = 0;
  private readonly source: string;
  private readonly extra: number;

  /** `extra`: how many more times than its minimum an open-ended repetition is written (to reach a minLength). */
  constructor(source: string, extra: number) {
    this.source = source;
    this.extra = extra;
  }

  whole(): string {
    const text = this.alternation();
    if (this.at < this.source.length) throw new Unsupported();
    return text;
  }

  private alternation(): string {
    const first = this.sequence();
    while (this.source[this.at] === '|') {
      this.at++;
      this.sequence();
    }
    return first;
  }

  private sequence(): string {
    let text = '';
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const atom = this.atom();
      const [least, most] = this.quantifier();
      const times = most === least ? least : Math.min(most, least + this.extra);
      text += atom.repeat(times);
    }
    return text;
  }

  private atom(): string {
    const start = this.at;
    const char = this.source[this.at++] as string;
    switch (char) {
      case '^':
      case '$':
        return '';
      case '(': {
        if (this.source.startsWith('?=', this.at) || this.source.startsWith('?!', this.at) || this.source.startsWith('?<=', this.at) || this.source.startsWith('?<!', this.at)) {
          throw new Unsupported();
        }
        if (this.source.startsWith('?:', this.at)) this.at += 2;
        else if (this.source.startsWith('?<', this.at)) this.at = this.source.indexOf('>', this.at) + 1;
        const text = this.alternation();
        if (this.source[this.at++] !== ')') throw new Unsupported();
        return text;
      }
      case '[':
        this.skipClass();
        return matchingCharacter(this.source.slice(start, this.at));
      case '\\':
        return this.escape(start);
      case '.':
        return matchingCharacter('.');
      default:
        // A character outside the Basic Multilingual Plane is two code units.
        if (/[\uD800-\uDBFF]/.test(char)) this.at++;
        return this.source.slice(start, this.at);
    }
  }

  private escape(start: number): string {
    const next = this.source[this.at++];
    if (next === undefined || /[1-9k]/.test(next)) throw new Unsupported();
    if (next === 'b' || next === 'B') return '';
    if (next === 'p' || next === 'P' || next === 'u' && this.source[this.at] === '{') this.at = this.source.indexOf('}', this.at) + 1;
    else if (next === 'u') this.at += 4;
    else if (next === 'x') this.at += 2;
    else if (next === 'c') this.at += 1;
    return matchingCharacter(this.source.slice(start, this.at));
  }

  private skipClass(): void {
    while (this.at < this.source.length && this.source[this.at] !== ']') this.at += this.source[this.at] === '\\' ? 2 : 1;
    if (this.source[this.at++] !== ']') throw new Unsupported();
  }

  /** The fewest and most times the atom just read repeats. */
  private quantifier(): [number, number] {
    const char = this.source[this.at];
    let bounds: [number, number] = [1, 1];
    if (char === '?') bounds = [0, 1];
    else if (char === '*') bounds = [0, Infinity];
    else if (char === '+') bounds = [1, Infinity];
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (match === null) return bounds;
      const least = Number(match[1]);
      bounds = [least, match[2] === undefined ? least : match[3] === '' ? Infinity : Number(match[3])];
      this.at += match[0].length - 1;
    } else return bounds;
    this.at++;
    if (this.source[this.at] === '?') this.at++;
    return bounds;
  }
}

/** The first candidate character the one-character pattern `atom` matches. */
function matchingCharacter(atom: string): string {
  const single = new RegExp(`^(?:${atom})$`, 'u');
  const found = CANDIDATES.find((candidate) => single.test(candidate));
  if (found === undefined) throw new Unsupported();
  return found;
}
