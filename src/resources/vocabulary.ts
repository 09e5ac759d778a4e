// Localized vocabularies (README: Paths, Your own resources): the same resources under other paths, with other
// property names in bodies, errors, filters, sort keys, Location headers and links, as a declaration's
// `names.<language>` gives them (else the declared name). Applied at the boundary (validation in, representation out),
// so handlers only ever see the declared names. Values (an order's state) are not translated.

import type { Language, Vocabulary } from './definition.ts';

export type { Language, Vocabulary };

/**
 * The words plainrest itself puts in a vocabulary: list parameters and the timestamps every
 * record has. Maps, not objects: a property named `constructor` finds no word of Object.prototype's.
 */
const BUILT_IN_WORDS: ReadonlyMap<Language, ReadonlyMap<string, string>> = new Map([
  [
    'pt',
    new Map([
      ['page', 'pagina'],
      ['limit', 'limite'],
      ['sort', 'ordenar'],
      ['fields', 'campos'],
      ['embed', 'incluir'],
      ['created_at', 'criado_em'],
      ['updated_at', 'atualizado_em'],
    ]),
  ],
]);

/** The change feed's words in a language (README: Events): its path segment under /v1 and its parameters. */
export interface FeedWords {
  readonly path: string;
  readonly collection: string;
  readonly type: string;
  readonly after: string;
  readonly page: string;
  readonly limit: string;
}

const FEED_WORDS: ReadonlyMap<Language, FeedWords> = new Map([
  ['en', { path: 'events', collection: 'collection', type: 'type', after: 'after', page: 'page', limit: 'limit' }],
  ['pt', { path: 'eventos', collection: 'colecao', type: 'tipo', after: 'apos', page: 'pagina', limit: 'limite' }],
]);

/** The languages plainrest has words of its own in (the feed's path differs in each), `en` first. */
export const WORDED_LANGUAGES: readonly Language[] = [...FEED_WORDS.keys()];

/** The feed's words in `language`; a language plainrest has no words for uses the English ones. */
export function feedWords(language: Language): FeedWords {
  return FEED_WORDS.get(language) ?? (FEED_WORDS.get('en') as FeedWords);
}

/** A list's query parameters, as English names them (README: Lists). */
export const LIST_PARAMETERS = ['page', 'limit', 'sort', 'fields', 'embed', 'q'] as const;

/**
 * The query parameters of a list in every vocabulary, and `or` (http/filter-operators.ts, in no vocabulary of its
 * own): a property filtered by one of these names could not be.
 */
export const LIST_PARAMETER_WORDS: ReadonlySet<string> = new Set([
  ...LIST_PARAMETERS,
  'or',
  ...[...BUILT_IN_WORDS.values()].flatMap((words) => LIST_PARAMETERS.map((word) => words.get(word) ?? word)),
]);

export interface VocabularyNames {
  readonly language: Language;
  readonly collection: string;
  readonly singular: string;
  /** Declared name → name in this language, for the properties the declaration translates (at any depth). */
  readonly properties: ReadonlyMap<string, string>;
  /**
   * Every declared name a record of the resource may carry, at any depth (ids, timestamps, members of nested objects).
   */
  readonly known: ReadonlySet<string>;
}

/** Builds the two-way name table of one resource in one language. */
export function buildVocabulary(names: VocabularyNames): Vocabulary {
  const builtIn = BUILT_IN_WORDS.get(names.language) ?? new Map<string, string>();
  const outward = new Map<string, string>();
  for (const name of names.known) {
    const translated = names.properties.get(name) ?? builtIn.get(name);
    if (translated !== undefined && translated !== name) outward.set(name, translated);
  }
  const inward = new Map<string, string>();
  for (const name of names.known) inward.set(outward.get(name) ?? name, name);
  const word = (name: string): string => builtIn.get(name) ?? name;
  return {
    language: names.language,
    collection: names.collection,
    singular: names.singular,
    name: (internal) => outward.get(internal) ?? internal,
    internal: (external) => inward.get(external),
    parameters: {
      page: word('page'),
      limit: word('limit'),
      sort: word('sort'),
      fields: word('fields'),
      embed: word('embed'),
    },
  };
}

/** Renames the declared names in a field path such as `items[0].product_id` into the vocabulary's. */
export function translatePath(path: string, vocabulary: Vocabulary): string {
  return vocabulary.language === 'en' ? path : path.replace(/[a-z][a-z0-9_]*/g, (word) => vocabulary.name(word));
}
