// Embedding related records (CONTRACT §13): `embed=orders` on a user, or on a list of
// users, adds under `_embedded.orders` the first page of that child collection (records,
// meta and links, as its own list answers it); `embed=author_id` adds under
// `_embedded.author_id` the record that reference names. One level deep; several names
// separated by commas; names in any vocabulary of the resource (the parameter: `embed`, or
// `incluir` in Portuguese). Only what the caller may read: a child list or a referenced
// record the caller could not fetch themselves is left out. An unknown name is a 400.

import type { RequestContext } from '../context.js';
import { isAllowed } from '../auth/permissions.js';
import type { StoredRecord } from '../json.js';
import type { ResourceDefinition, Vocabulary } from '../resources/definition.js';
import { vocabularyOf } from '../resources/definition.js';
import { represent } from '../representation.js';
import type { FieldError } from './errors.js';
import { DEFAULT_PAGE_SIZE } from './list-query.js';
import type { ListParameters } from './list-query.js';
import { pageLinks, pageMeta } from './pagination.js';

/** One name of `embed`: a child collection, or a top-level reference to a collection that is not nested. */
export type Embed =
  | { readonly kind: 'children'; readonly definition: ResourceDefinition }
  | { readonly kind: 'reference'; readonly field: string; readonly definition: ResourceDefinition };

/** What `definition` can embed, by every vocabulary's name of it. */
function embeddable(definition: ResourceDefinition): Map<string, Embed> {
  const names = new Map<string, Embed>();
  for (const child of definition.children) {
    const embed: Embed = { kind: 'children', definition: child };
    names.set(child.collection, embed);
    for (const vocabulary of child.vocabularies.values()) names.set(vocabulary.collection, embed);
  }
  for (const { field, definition: target } of definition.referencing) {
    if (target.parent !== undefined) continue; // a nested record is read under its parent's path, which a reference does not give
    const embed: Embed = { kind: 'reference', field, definition: target };
    names.set(field, embed);
    for (const vocabulary of definition.vocabularies.values()) names.set(vocabulary.name(field), embed);
  }
  return names;
}

/** True for the parameter's name in any of the resource's vocabularies. */
export function isEmbedParameter(definition: ResourceDefinition, name: string): boolean {
  if (name === 'embed') return true;
  for (const vocabulary of definition.vocabularies.values()) if (vocabulary.parameters.embed === name) return true;
  return false;
}

/** The embeds `value` names, each once; pushes an error naming `parameter` instead when one is unknown. */
export function parseEmbed(definition: ResourceDefinition, parameter: string, value: string, errors: FieldError[]): readonly Embed[] | undefined {
  const names = embeddable(definition);
  const chosen: Embed[] = [];
  for (const word of value.split(',')) {
    const embed = names.get(word);
    if (embed === undefined || chosen.includes(embed)) {
      const offered = [...new Set([...names.values()].map((each) => (each.kind === 'children' ? each.definition.collection : each.field)))];
      const message = offered.length === 0 ? 'this resource has nothing to embed' : `must list distinct names among ${offered.join(', ')}, separated by commas`;
      errors.push({ field: parameter, code: 'invalid_value', message });
      return undefined;
    }
    chosen.push(embed);
  }
  return chosen;
}

/** `json` (a record's representation) with `_embedded` added; `path` is the record's own path, `ids` the ids it stands under. */
export function withEmbedded(context: RequestContext, record: StoredRecord, json: string, path: string, ids: readonly number[], embeds: readonly Embed[], vocabulary: Vocabulary): string {
  const parts: string[] = [];
  for (const embed of embeds) {
    if (embed.kind === 'children') {
      const child = embed.definition;
      if (!isAllowed(context.actor, child, 'list', ids, context.store)) continue;
      const childVocabulary = vocabularyOf(child, vocabulary.language);
      const parameters: ListParameters = { page: 1, limit: DEFAULT_PAGE_SIZE, sort: [], filters: [] };
      const { records, total } = context.store.query(child.collection, {
        filters: [{ field: (child.parent as { field: string }).field, value: record.id }],
        sort: [],
        offset: 0,
        limit: DEFAULT_PAGE_SIZE,
      });
      const meta = pageMeta(parameters, total);
      const links = pageLinks(`${path}/${childVocabulary.collection}`, childVocabulary, parameters, meta);
      const data = records.map((each) => represent(child, each, childVocabulary).json).join(',');
      parts.push(`${JSON.stringify(childVocabulary.collection)}:{"data":[${data}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`);
    } else {
      const id = record[embed.field];
      if (typeof id !== 'number' || !isAllowed(context.actor, embed.definition, 'read', [id], context.store)) continue;
      const target = context.store.get(embed.definition.collection, id);
      if (target === undefined) continue;
      parts.push(`${JSON.stringify(vocabulary.name(embed.field))}:${represent(embed.definition, target, vocabularyOf(embed.definition, vocabulary.language)).json}`);
    }
  }
  if (parts.length === 0) return json;
  return `${json.slice(0, -1)}${json === '{}' ? '' : ','}"_embedded":{${parts.join(',')}}}`;
}
