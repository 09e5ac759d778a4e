// A resource's examples for the OpenAPI document: the hand-written ones of the example domain (written-examples.ts),
// else ones made from its declaration (generated-examples.ts); its keys in either vocabulary, the record as a read
// shows it, and the first page of a list holding it.

import type { JsonObject, JsonValue } from '../records/json.ts';
import { exampleId, type RecordId } from '../records/record-id.ts';
import type { Language, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { exampleResources } from '../declarations/example-domain.ts';
import { generatedExamples } from './generated-examples.ts';
import type { ResourceExamples } from './written-examples.ts';
import { EXAMPLE_PARENT_ID, EXAMPLE_TIME, EXAMPLES } from './written-examples.ts';

/**
 * The examples of a resource: the hand-written ones for the example domain (written-examples.ts), and
 * for a declared resource ones made from its declaration (generatedExamples).
 */
export function resourceExamples(definition: ResourceDefinition, language: Language): ResourceExamples {
  const written = EXAMPLES[language]?.[definition.collection];
  if (written !== undefined && exampleResources().get(definition.collection) === definition) return written;
  let generated = generatedByDefinition.get(definition);
  if (generated === undefined) {
    generated = generatedExamples(definition);
    generatedByDefinition.set(definition, generated);
  }
  return generated;
}

const generatedByDefinition = new WeakMap<ResourceDefinition, ResourceExamples>();

/**
 * `{ product_id: 1 }` → `{ produto_id: 1 }` in Portuguese, at every depth; values are not translated (README: Paths).
 */
export function translateKeys(value: JsonValue, vocabulary: Vocabulary): JsonValue {
  if (Array.isArray(value)) return value.map((element) => translateKeys(element, vocabulary));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [vocabulary.name(key), translateKeys(member, vocabulary)]),
  );
}

/** The example record as a read shows it, in the vocabulary's names and the declaration's order. */
export function exampleRecord(definition: ResourceDefinition, language: Language): JsonObject {
  const examples = resourceExamples(definition, language);
  const record: Record<string, JsonObject[string]> = {};
  for (const rule of definition.fields) {
    if (rule.hidden === true) continue;
    if (rule.name === 'id') record['id'] = examples.createdId;
    else if (rule.name === definition.parent?.field) record[rule.name] = exampleParentId(definition);
    else if (rule.type === 'timestamp') record[rule.name] = EXAMPLE_TIME;
    else if (examples.record[rule.name] !== undefined)
      record[rule.name] = examples.record[rule.name] as JsonObject[string];
  }
  return translateKeys(record, vocabularyOf(definition, language)) as JsonObject;
}

/** The id of the parent the examples of a nested resource are made under: Alice (user 1), or one of its kind. */
export function exampleParentId(definition: ResourceDefinition): RecordId {
  const parent = definition.parent?.definition;
  return parent === undefined || parent.idKind === 'integer' ? EXAMPLE_PARENT_ID : exampleId(parent.idKind);
}

/** The first page of a list holding the example record. */
export function listExample(definition: ResourceDefinition, language: Language, path: string): JsonObject {
  const { parameters } = vocabularyOf(definition, language);
  const page = `${path}?${parameters.page}=1&${parameters.limit}=20`;
  return {
    data: [exampleRecord(definition, language)],
    meta: { page: 1, limit: 20, total: 1, pages: 1 },
    links: { self: page, first: page, prev: null, next: null, last: page },
  };
}
