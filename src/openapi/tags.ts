// The words the OpenAPI document gives what it describes (README: The OpenAPI document): a tag per collection and
// vocabulary, the tags of the service endpoints and of the change feed, and the document's own description.

import type { Language, ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { exampleResources } from '../declarations/example-domain.ts';
import { LANGUAGE_NAMES } from '../resources/names.ts';

type Json = Record<string, unknown>;

/** A collection's tag, in one vocabulary: its records, where they sit, and their language. */
export function tagOf(definition: ResourceDefinition, language: Language): Json {
  const name = vocabularyOf(definition, language).collection;
  const parent = definition.parent?.definition;
  const nested = parent === undefined ? '' : `, under the ${parent.singular} they belong to`;
  const words = LANGUAGE_NAMES[language] ?? `"${language}"`;
  const records =
    definition.singleton === true ? `one ${definition.singular} record` : `${definition.singular} records`;
  const description =
    language === 'en'
      ? `The ${records}${nested}, with English paths and field names.`
      : `The same ${records}${nested}, with ${words} paths and field names.`;
  const declared = definition.declared['description'];
  return {
    name,
    description: typeof declared === 'string' && language === 'en' ? `${declared} ${description}` : description,
  };
}

/** The tags of the endpoints every server has. */
export const SERVICE_TAGS: readonly Json[] = [
  { name: 'service', description: 'The home page, the API index and this document; no token needed.' },
  { name: 'health', description: 'Liveness and readiness, for supervisors and load balancers; no token needed.' },
  { name: 'tokens', description: 'Exchange an email and password for a bearer token.' },
  { name: 'batches', description: 'Several writes in one request, all applied or none.' },
];

/** The change feed's tag. */
export const EVENTS_TAG: Json = {
  name: 'events',
  description:
    'The change feed: every change to the records you may read, as a paged list or a stream of Server-Sent Events ' +
    'that resumes where it stopped.',
};

/** What holds for every operation: a query's numbers and integers are any JSON number's text (http/list-values.ts). */
const CONVENTIONS =
  'A number or integer in a query is written as JSON writes one (RFC 8259 §6: 1000, 1e3 and 1000.0 are the same). ' +
  'Errors are RFC 9457 problem details.';

/** The document's description: the example domain's, or the declared collections and vocabularies. */
export function describeResources(resources: ResourceTable): string {
  if (resources === exampleResources())
    return `Users, their orders and products, in English and Portuguese vocabularies. ${CONVENTIONS}`;
  const collections = resources.resources.map((definition) => definition.collection).join(', ');
  const languages = resources.languages.map((language) => LANGUAGE_NAMES[language] ?? language).join(' and ');
  return `Declared resources: ${collections}, in ${languages} vocabularies. ${CONVENTIONS}`;
}
