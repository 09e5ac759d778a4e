// How things are named: what a collection or property name may be; in the document, schema components (`Order`,
// `OrderCreate_pt`), the nouns of operationIds (`listUserOrders`, `readUserOrderPt`, `getEventsPt`), the article
// before a noun in a summary ("Create an order"), and the languages of vocabularies ("Portuguese").

import type { ResourceDefinition } from './definition.ts';
import type { Language } from './definition.ts';

/** What the OpenAPI document and the home page call the languages vocabularies are most often in; others by code. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  pt: 'Portuguese',
  es: 'Spanish',
  fr: 'French',
  de: 'German',
  it: 'Italian',
};

/** A collection or property name: lower-case letters, digits and _, from a letter; safe as a path segment, a JSON
 * member, a file name and a column. */
export const NAME = /^[a-z][a-z0-9_]{0,62}$/;

const capitalized = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `a user`, `an order`: "an" before a vowel sound; a "u" read as "you" (user, unit) takes "a". */
export function withArticle(noun: string): string {
  return /^(?:[aeio]|u(?![b-df-hj-np-tv-z][aeiouy]))/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** The declarations from the root down to `definition` (an order: users, orders). */
function lineage(definition: ResourceDefinition): ResourceDefinition[] {
  const parent = definition.parent?.definition;
  return parent === undefined ? [definition] : [...lineage(parent), definition];
}

/** What ends an operationId in `language`: nothing in English, `Pt` in Portuguese. */
export function languageSuffix(language: Language): string {
  return language === 'en' ? '' : capitalized(language);
}

/** The nouns of operationIds: `User` and `Users`, `UserOrder` and `UserOrders`; `Pt` ends the Portuguese ones. */
export function operationNouns(definition: ResourceDefinition, language: Language): { one: string; many: string } {
  const ancestors = lineage(definition)
    .slice(0, -1)
    .map((ancestor) => capitalized(ancestor.singular))
    .join('');
  const suffix = languageSuffix(language);
  return {
    one: `${ancestors}${capitalized(definition.singular)}${suffix}`,
    many: `${ancestors}${capitalized(definition.collection)}${suffix}`,
  };
}

export function componentName(definition: ResourceDefinition, language: Language, suffix = ''): string {
  return `${capitalized(definition.singular)}${suffix}${language === 'en' ? '' : `_${language}`}`;
}

/** A reference to a schema component. */
export function schemaReference(name: string): Record<string, unknown> {
  return { $ref: `#/components/schemas/${name}` };
}
