// The keywords a declared property's schema may hold (README: Your own resources): JSON
// Schema's, as OpenAPI 3.1 uses them, and plainrest's `x-` extensions. The checker, the
// compiler and the OpenAPI document read this one table: a new keyword is a row here and
// its behaviour where it acts.

import type { PropertySchema } from './declaration.ts';

/** What a keyword's value must be; `checked apart` keywords have a check of their own in check-schema.ts. */
export type KeywordValue =
  'whole number' | 'number' | 'positive number' | 'boolean' | 'string' | 'array' | 'checked apart';

export interface Keyword {
  readonly value: KeywordValue;
  /** Only on a collection's own properties, not on an array's items or an object's members. */
  readonly topLevelOnly?: true;
  /** A bound copied as it is into the compiled rule (resources/definition.ts FieldRule). */
  readonly bound?: true;
}

/** PropertySchema's named members, without its `x-…` index signature: the table must have a row for each. */
type NamedKeyword = keyof {
  [K in keyof PropertySchema as string extends K ? never : `x-${string}` extends K ? never : K]: unknown;
};

export const KEYWORDS = {
  type: { value: 'checked apart' },
  enum: { value: 'checked apart' },
  default: { value: 'checked apart' },
  minLength: { value: 'whole number', bound: true },
  maxLength: { value: 'whole number', bound: true },
  pattern: { value: 'checked apart' },
  format: { value: 'checked apart' },
  minimum: { value: 'number', bound: true },
  maximum: { value: 'number', bound: true },
  exclusiveMinimum: { value: 'number', bound: true },
  exclusiveMaximum: { value: 'number', bound: true },
  multipleOf: { value: 'positive number', bound: true },
  items: { value: 'checked apart' },
  minItems: { value: 'whole number', bound: true },
  maxItems: { value: 'whole number', bound: true },
  properties: { value: 'checked apart' },
  required: { value: 'checked apart' },
  readOnly: { value: 'boolean' },
  writeOnly: { value: 'boolean' },
  description: { value: 'string' },
  examples: { value: 'array' },
  'x-filter': { value: 'boolean', topLevelOnly: true },
  'x-sort': { value: 'boolean', topLevelOnly: true },
  'x-search': { value: 'boolean', topLevelOnly: true },
  'x-unique': { value: 'checked apart', topLevelOnly: true },
  'x-references': { value: 'checked apart' },
  'x-on-delete': { value: 'checked apart', topLevelOnly: true },
  'x-transitions': { value: 'checked apart', topLevelOnly: true },
  'x-admin-only': { value: 'boolean', topLevelOnly: true },
  'x-owner-may-set': { value: 'checked apart', topLevelOnly: true },
  'x-initial': { value: 'checked apart', topLevelOnly: true },
} as const satisfies { readonly [K in NamedKeyword]: Keyword };

export type KeywordName = keyof typeof KEYWORDS;

/** The keywords that bound a value and are copied into its rule as they are. */
export type BoundKeyword = {
  [K in KeywordName]: (typeof KEYWORDS)[K] extends { bound: true } ? K : never;
}[KeywordName];

export const KEYWORD_NAMES = Object.keys(KEYWORDS) as KeywordName[];

export const BOUND_KEYWORDS = KEYWORD_NAMES.filter((name): name is BoundKeyword => 'bound' in KEYWORDS[name]);

/**
 * The `x-` keywords plainrest acts on; any other `x-` keyword passes the checker and is kept in the OpenAPI document.
 */
export const KNOWN_EXTENSIONS: ReadonlySet<string> = new Set(KEYWORD_NAMES.filter((name) => name.startsWith('x-')));

/** Whether `keyword` is one of the table's. */
export function isKeyword(keyword: string): keyword is KeywordName {
  return Object.hasOwn(KEYWORDS, keyword);
}

const KEYWORDS_BY_VALUE = new Map<KeywordValue, KeywordName[]>();
for (const name of KEYWORD_NAMES) {
  const value = KEYWORDS[name].value;
  KEYWORDS_BY_VALUE.set(value, [...(KEYWORDS_BY_VALUE.get(value) ?? []), name]);
}

/** The keywords whose value must be `value`. */
export function keywordsOfValue(value: KeywordValue): readonly KeywordName[] {
  return KEYWORDS_BY_VALUE.get(value) ?? [];
}
