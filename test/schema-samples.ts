// Values drawn at random, from a seeded generator, that a JSON Schema (2020-12, as OpenAPI 3.1 uses it) allows: the
// subset the OpenAPI document uses (type, enum, const, bounds, lengths, simple patterns, required and optional
// members, arrays, nested objects, the formats date-time, date, email and uri). For openapi-conformance.test.ts;
// every value is checked against its schema by Ajv there, so a sampler mistake shows as a failure of its own.

export type Json = null | boolean | number | string | Json[] | { [member: string]: Json };
export type Schema = { readonly [keyword: string]: unknown };

export interface Sampling {
  readonly random: () => number;
  /** The schema a `$ref` names (a local one: `#/components/…`). */
  readonly resolve: (reference: string) => Schema;
  /** For a request: readOnly members are left out (OpenAPI 3.1 §4.8.25.2: the server sets them). */
  readonly request: boolean;
  /** An id of a record that exists, for an integer whose description says it names an existing one; else undefined. */
  readonly existingId?: (schema: Schema) => number | undefined;
}

/** A value `schema` allows. */
export function sample(schema: Schema, sampling: Sampling): Json {
  const node = dereferenced(schema, sampling);
  const { random } = sampling;
  if ('const' in node) return node['const'] as Json;
  if (Array.isArray(node['enum'])) return pick(node['enum'] as Json[], random);
  if (Array.isArray(node['anyOf'])) return sample(pick(node['anyOf'] as Schema[], random), sampling);
  const types = Array.isArray(node['type']) ? (node['type'] as string[]) : [node['type'] as string];
  // A nullable member (type: [t, "null"]): null now and then, to remove it (RFC 7396 in a merge patch).
  const type = types.length > 1 && types.includes('null') && random() < 0.2 ? 'null' : types.find((t) => t !== 'null');
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return random() < 0.5;
    case 'integer':
      return sampling.existingId?.(node) ?? sampleInteger(node, random);
    case 'number':
      return sampleNumber(node, random);
    case 'string':
      return sampleString(node, random);
    case 'array':
      return sampleArray(node, sampling);
    case 'object':
      return sampleObject(node, sampling);
    default:
      throw new Error(`no sampler for the schema ${JSON.stringify(node).slice(0, 200)}`);
  }
}

function dereferenced(schema: Schema, sampling: Sampling): Schema {
  let node = schema;
  while (typeof node['$ref'] === 'string') node = sampling.resolve(node['$ref']);
  return node;
}

export function pick<T>(values: readonly T[], random: () => number): T {
  if (values.length === 0) throw new Error('nothing to pick from');
  return values[Math.floor(random() * values.length)] as T;
}

/** An integer in [low, high], often at or near an end (where off-by-one mistakes live). */
function between(low: number, high: number, random: () => number): number {
  const roll = random();
  if (roll < 0.15) return low;
  if (roll < 0.25) return high;
  if (roll < 0.6) return Math.min(high, low + Math.floor(random() * 10));
  // Anywhere, evenly on a logarithmic scale, so that a range up to 2^53 is not all huge numbers.
  const span = high - low;
  const offset = Math.floor(Math.exp(random() * Math.log(span + 1))) - 1;
  return Math.min(high, low + Math.max(0, offset));
}

/** Bounds when the schema gives none: wide enough to find a limit the document does not state. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function integerBounds(node: Schema): [number, number] {
  let low = typeof node['minimum'] === 'number' ? Math.ceil(node['minimum']) : -UNBOUNDED;
  let high = typeof node['maximum'] === 'number' ? Math.floor(node['maximum']) : UNBOUNDED;
  if (typeof node['exclusiveMinimum'] === 'number') low = Math.max(low, Math.floor(node['exclusiveMinimum']) + 1);
  if (typeof node['exclusiveMaximum'] === 'number') high = Math.min(high, Math.ceil(node['exclusiveMaximum']) - 1);
  return [low, high];
}

function sampleInteger(node: Schema, random: () => number): number {
  const [low, high] = integerBounds(node);
  // Without a lower bound, mostly non-negative numbers, and negative ones now and then.
  if (low === -UNBOUNDED) return random() < 0.2 ? -between(0, UNBOUNDED, random) : between(0, high, random);
  return between(low, high, random);
}

function sampleNumber(node: Schema, random: () => number): number {
  const places = typeof node['x-max-decimal-places'] === 'number' ? node['x-max-decimal-places'] : 6;
  const [low, high] = integerBounds(node);
  const whole =
    low === -UNBOUNDED && random() < 0.2 ? -between(0, 1e9, random) : between(Math.max(low, 0), high, random);
  const scale = 10 ** Math.floor(random() * (places + 1));
  const value = Number((whole + Math.floor(random() * scale) / scale).toFixed(places));
  const above = typeof node['minimum'] === 'number' ? Math.max(value, node['minimum']) : value;
  return typeof node['maximum'] === 'number' ? Math.min(above, node['maximum']) : above;
}

/** Letters a word is made of: ASCII, accented, another script, and a character beyond the BMP (two UTF-16 units). */
const WORD_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éçãüß漢字😀'];

/**
 * Text of whole words between single spaces, `length` code points long (JSON Schema counts lengths in code points:
 * 2020-12 validation §6.3.1). Never more than ten words: the document's searches say "1 to 10 words".
 */
function words(length: number, random: () => number): string {
  const characters: string[] = [];
  let spaces = 0;
  while (characters.length < length) {
    const last = characters.at(-1);
    const room = characters.length > 0 && characters.length < length - 1 && last !== ' ' && spaces < 9;
    if (room && random() < 0.12) {
      characters.push(' ');
      spaces += 1;
    } else characters.push(pick(WORD_CHARACTERS, random));
  }
  return characters.join('');
}

function sampleString(node: Schema, random: () => number): string {
  const format = node['format'];
  if (format === 'date-time') return dateTime(random);
  if (format === 'date') return dateTime(random).slice(0, 10);
  if (format === 'email') return email(node, random);
  // An address of RFC 5737's for documentation (public, needing no name resolved, reaching nothing: a webhook's url),
  // its path's words percent-encoded (a URI holds no space).
  if (format === 'uri' || format === 'uri-reference')
    return `https://203.0.113.${between(1, 254, random)}/${encodeURIComponent(words(4, random))}`;
  const minLength = typeof node['minLength'] === 'number' ? node['minLength'] : 0;
  const maxLength = typeof node['maxLength'] === 'number' ? node['maxLength'] : minLength + 40;
  if (typeof node['pattern'] === 'string') return patterned(node, node['pattern'], minLength, maxLength, random);
  return words(between(minLength, Math.min(maxLength, minLength + 40), random), random);
}

function patterned(node: Schema, pattern: string, minLength: number, maxLength: number, random: () => number): string {
  const expression = new RegExp(pattern, 'u');
  // "each once" in a description (a `fields` or `embed` list) where the pattern does not say it: honoured too.
  const eachOnce = typeof node['description'] === 'string' && /\beach (at most )?once\b/.test(node['description']);
  for (let attempt = 0; attempt < 200; attempt++) {
    let text = patternSample(pattern, random);
    if (text === undefined) break;
    if (eachOnce) text = [...new Set(text.split(','))].join(',');
    const length = [...text].length;
    if (length >= minLength && length <= maxLength && expression.test(text)) return text;
  }
  const examples = [node['example'], ...(Array.isArray(node['examples']) ? node['examples'] : [])];
  const known = examples.find((example): example is string => typeof example === 'string');
  if (known === undefined) throw new Error(`cannot sample the pattern ${pattern}, and the schema has no example`);
  return known;
}

/** RFC 3339 §5.6: any year from 0001 to 9999 now and then, mostly years around now, with a Z or an offset. */
function dateTime(random: () => number): string {
  const roll = random();
  const year =
    roll < 0.2 ? between(1, 9999, random) : roll < 0.6 ? between(1990, 2025, random) : between(2027, 2200, random);
  const month = between(1, 12, random);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const two = (value: number): string => String(value).padStart(2, '0');
  const date = `${String(year).padStart(4, '0')}-${two(month)}-${two(between(1, days, random))}`;
  const time = `${two(between(0, 23, random))}:${two(between(0, 59, random))}:${two(between(0, 59, random))}`;
  const fraction = random() < 0.3 ? `.${String(between(0, 999, random)).padStart(3, '0')}` : '';
  const offset =
    random() < 0.7
      ? 'Z'
      : `${random() < 0.5 ? '+' : '-'}${two(between(0, 14, random))}:${pick(['00', '30', '45'], random)}`;
  return `${date}T${time}${fraction}${offset}`;
}

/** A mailbox (RFC 5321 §4.1.2) of letters, digits, dots and hyphens, within the schema's maxLength. */
function email(node: Schema, random: () => number): string {
  const label = (length: number): string =>
    Array.from({ length }, () => pick([...'abcdefghijklmnopqrstuvwxyz0123456789'], random)).join('');
  const local = `${label(between(1, 12, random))}${random() < 0.3 ? `.${label(3)}` : ''}`;
  const address = `${local}@${label(between(1, 10, random))}.example`;
  const maxLength = typeof node['maxLength'] === 'number' ? node['maxLength'] : 254;
  return address.length <= maxLength ? address : address.slice(address.length - maxLength);
}

function sampleArray(node: Schema, sampling: Sampling): Json[] {
  const minItems = typeof node['minItems'] === 'number' ? node['minItems'] : 0;
  const maxItems = typeof node['maxItems'] === 'number' ? node['maxItems'] : minItems + 4;
  const length = between(minItems, Math.min(maxItems, minItems + 4), sampling.random);
  const items = (node['items'] ?? {}) as Schema;
  return Array.from({ length }, () => sample(items, sampling));
}

function sampleObject(node: Schema, sampling: Sampling): { [member: string]: Json } {
  const required = new Set(Array.isArray(node['required']) ? (node['required'] as string[]) : []);
  const object: { [member: string]: Json } = {};
  for (const [name, member] of Object.entries((node['properties'] ?? {}) as Record<string, Schema>)) {
    const property = dereferenced(member, sampling);
    if (sampling.request && property['readOnly'] === true) continue;
    if (!sampling.request && property['writeOnly'] === true) continue;
    if (required.has(name) || sampling.random() < 0.5) object[name] = sample(property, sampling);
  }
  return object;
}

// A pattern's sample: regular expressions of literals, escapes (\d \w \s \xHH \uHHHH and escaped punctuation),
// classes ([a-z0-9._-], [^ ]), the dot, groups with alternatives, anchors and the quantifiers ? * + {n} {n,} {n,m}.
// Anything else (lookaround, backreferences) gives undefined: the schema's example is used instead.

type Node =
  | { readonly kind: 'characters'; readonly choices: readonly string[] }
  | { readonly kind: 'alternatives'; readonly options: readonly Node[][] }
  | { readonly kind: 'repeat'; readonly node: Node; readonly min: number; readonly max: number };

/** Printable ASCII: what the dot and a negated class choose from. */
const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, index) => String.fromCharCode(0x20 + index));
const DIGITS = [...'0123456789'];
const WORD = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'];
/** The most an unbounded quantifier repeats here. */
const MOST_REPEATS = 4;

class Unsupported extends Error {}

export function patternSample(pattern: string, random: () => number): string | undefined {
  let parsed: Node[][];
  try {
    parsed = new PatternParser(pattern).parse();
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  const out: string[] = [];
  const emit = (node: Node): void => {
    if (node.kind === 'characters') out.push(pick(node.choices, random));
    else if (node.kind === 'alternatives') pick(node.options, random).forEach(emit);
    else {
      const times = node.min + Math.floor(random() * (node.max - node.min + 1));
      for (let i = 0; i < times; i++) emit(node.node);
    }
  };
  pick(parsed, random).forEach(emit);
  return out.join('');
}

class PatternParser {
  #at = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  parse(): Node[][] {
    const options = this.#alternatives();
    if (this.#at < this.#text.length) throw new Unsupported(`unexpected ${this.#text[this.#at]}`);
    return options;
  }

  #alternatives(): Node[][] {
    const options: Node[][] = [this.#sequence()];
    while (this.#text[this.#at] === '|') {
      this.#at += 1;
      options.push(this.#sequence());
    }
    return options;
  }

  #sequence(): Node[] {
    const nodes: Node[] = [];
    for (;;) {
      const next = this.#text[this.#at];
      if (next === undefined || next === '|' || next === ')') return nodes;
      if (next === '^' || next === '$') {
        this.#at += 1;
        continue;
      }
      nodes.push(this.#quantified(this.#atom()));
    }
  }

  #atom(): Node {
    const next = this.#text[this.#at] as string;
    this.#at += 1;
    if (next === '(') {
      if (/^\?<?[=!]/.test(this.#text.slice(this.#at))) return this.#skipLookaround();
      if (this.#text[this.#at] === '?') {
        if (this.#text.slice(this.#at, this.#at + 2) !== '?:') throw new Unsupported('a named group');
        this.#at += 2;
      }
      const options = this.#alternatives();
      if (this.#text[this.#at] !== ')') throw new Unsupported('unclosed group');
      this.#at += 1;
      return { kind: 'alternatives', options };
    }
    if (next === '[') return this.#class();
    if (next === '.') return { kind: 'characters', choices: PRINTABLE };
    if (next === '\\') return { kind: 'characters', choices: this.#escape() };
    if ('*+?{'.includes(next)) throw new Unsupported('a quantifier with nothing before it');
    return { kind: 'characters', choices: [next] };
  }

  #escape(): string[] {
    const next = this.#text[this.#at] as string;
    this.#at += 1;
    if (next === 'd') return DIGITS;
    if (next === 'w') return WORD;
    if (next === 's') return [' '];
    if (next === 'x' || next === 'u') {
      const width = next === 'x' ? 2 : 4;
      const hex = this.#text.slice(this.#at, this.#at + width);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) throw new Unsupported('escape');
      this.#at += width;
      return [String.fromCharCode(Number.parseInt(hex, 16))];
    }
    if (/[A-Za-z0-9]/.test(next)) throw new Unsupported(`\\${next}`);
    return [next];
  }

  /**
   * A lookahead or lookbehind (a rule such as "each name at most once") matches no characters: it is passed over
   * here, and what it refuses is refused by testing each sample against the whole pattern.
   */
  #skipLookaround(): Node {
    let depth = 1;
    let inClass = false;
    while (depth > 0) {
      const next = this.#text[this.#at];
      if (next === undefined) throw new Unsupported('unclosed lookaround');
      this.#at += next === '\\' ? 2 : 1;
      if (next === '[') inClass = true;
      else if (next === ']') inClass = false;
      else if (!inClass && next === '(') depth += 1;
      else if (!inClass && next === ')') depth -= 1;
    }
    return { kind: 'alternatives', options: [[]] };
  }

  #class(): Node {
    const negated = this.#text[this.#at] === '^';
    if (negated) this.#at += 1;
    const members = new Set<string>();
    let first = true;
    while (this.#text[this.#at] !== ']' || first) {
      first = false;
      const start = this.#classCharacter();
      if (this.#text[this.#at] === '-' && this.#text[this.#at + 1] !== ']' && start.length === 1) {
        this.#at += 1;
        const end = this.#classCharacter();
        if (end.length !== 1) throw new Unsupported('range');
        for (let code = (start[0] as string).charCodeAt(0); code <= (end[0] as string).charCodeAt(0); code++)
          members.add(String.fromCharCode(code));
      } else start.forEach((character) => members.add(character));
      if (this.#at >= this.#text.length) throw new Unsupported('unclosed class');
    }
    this.#at += 1;
    const choices = negated ? PRINTABLE.filter((character) => !members.has(character)) : [...members];
    return { kind: 'characters', choices };
  }

  #classCharacter(): string[] {
    const next = this.#text[this.#at] as string;
    this.#at += 1;
    return next === '\\' ? this.#escape() : [next];
  }

  #quantified(node: Node): Node {
    const next = this.#text[this.#at];
    if (next === '?' || next === '*' || next === '+') {
      this.#at += 1;
      const min = next === '+' ? 1 : 0;
      return { kind: 'repeat', node, min, max: next === '?' ? 1 : MOST_REPEATS };
    }
    if (next !== '{') return node;
    const bounds = /^\{(\d+)(,(\d*))?\}/.exec(this.#text.slice(this.#at));
    if (bounds === null) throw new Unsupported('quantifier');
    this.#at += bounds[0].length;
    const min = Number(bounds[1]);
    const max = bounds[2] === undefined ? min : bounds[3] === '' ? min + MOST_REPEATS : Number(bounds[3]);
    return { kind: 'repeat', node, min, max };
  }
}
