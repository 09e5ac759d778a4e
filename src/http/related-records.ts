// Embedding related records (CONTRACT §13): `embed=orders` on a user, or on a list of
// users, adds under `_embedded.orders` the first page of that child collection (records,
// meta and links, as its own list answers it); `embed=author_id` adds under
// `_embedded.author_id` the record that reference names. One level deep; several names
// separated by commas; names in any vocabulary of the resource (the parameter: `embed`, or
// `incluir` in Portuguese). Only what the caller may read: a child list or a referenced
// record the caller could not fetch themselves is left out. An unknown name is a 400.

import type { RequestContext } from '../server/context.ts';
import { isAllowed } from '../auth/permissions.ts';
import type { StoredRecord } from '../records/json.ts';
import type { Language, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { represent } from '../records/representation.ts';
import type { FieldError } from './errors.ts';
import { DEFAULT_PAGE_SIZE } from './list-query.ts';
import type { ListParameters } from './list-query.ts';
import { pageLinks, pageMeta } from './pagination.ts';

/** One name of `embed`: a child collection, or a top-level reference to a collection that is not nested. */
export type Embed =
  | { readonly kind: 'children'; readonly definition: ResourceDefinition }
  | { readonly kind: 'reference'; readonly field: string; readonly definition: ResourceDefinition };

/** What a resource can embed, and each by every vocabulary's name of it; made once per resource. */
interface Embeddable {
  readonly embeds: readonly Embed[];
  readonly byName: ReadonlyMap<string, Embed>;
}

const embeddables = new WeakMap<ResourceDefinition, Embeddable>();

function embeddableOf(definition: ResourceDefinition): Embeddable {
  let embeddable = embeddables.get(definition);
  if (embeddable === undefined) {
    const embeds: Embed[] = definition.children.map((child) => ({ kind: 'children', definition: child }));
    for (const { field, definition: target } of definition.referencing) {
      // A nested record is read under its parent's path, which a reference does not give.
      if (target.parent === undefined) embeds.push({ kind: 'reference', field, definition: target });
    }
    const byName = new Map<string, Embed>();
    for (const embed of embeds) {
      byName.set(declaredName(embed), embed);
      for (const vocabulary of definition.vocabularies.values()) byName.set(embedName(embed, vocabulary), embed);
    }
    embeddable = { embeds, byName };
    embeddables.set(definition, embeddable);
  }
  return embeddable;
}

/** The names `embed` may take on `definition` in `language` (for the OpenAPI document). */
export function embedNames(definition: ResourceDefinition, language: Language): string[] {
  return embeddableOf(definition).embeds.map((embed) => embedName(embed, vocabularyOf(definition, language)));
}

/** An embed's name where the embedding resource speaks `vocabulary`: the child collection's, or the reference property's. */
export function embedName(embed: Embed, vocabulary: Vocabulary): string {
  return embed.kind === 'children' ? vocabularyOf(embed.definition, vocabulary.language).collection : vocabulary.name(embed.field);
}

function declaredName(embed: Embed): string {
  return embed.kind === 'children' ? embed.definition.collection : embed.field;
}

/** The embeds `value` names, each once; pushes an error naming `parameter` instead when one is unknown. */
export function parseEmbed(definition: ResourceDefinition, parameter: string, value: string, errors: FieldError[]): readonly Embed[] | undefined {
  const { embeds, byName } = embeddableOf(definition);
  const chosen: Embed[] = [];
  for (const word of value.split(',')) {
    const embed = byName.get(word);
    if (embed === undefined || chosen.includes(embed)) {
      const offered = embeds.map(declaredName);
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
    const name = JSON.stringify(embedName(embed, vocabulary));
    if (embed.kind === 'children') {
      const child = embed.definition;
      if (!isAllowed(context.actor, child, 'list', ids, context.store)) continue;
      const childVocabulary = vocabularyOf(child, vocabulary.language);
      const parameters: ListParameters = { page: 1, limit: DEFAULT_PAGE_SIZE, sort: [], filters: [] };
      const { records, total } = context.store.query(child.collection, {
        filters: [{ field: (child.parent as { field: string }).field, value: record.id }],
        sort: [],
        offset: 0,
        limit: parameters.limit,
      });
      const meta = pageMeta(parameters, total);
      const links = pageLinks(`${path}/${childVocabulary.collection}`, childVocabulary, parameters, meta);
      const data = records.map((each) => represent(child, each, childVocabulary).json).join(',');
      parts.push(`${name}:{"data":[${data}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`);
    } else {
      const id = record[embed.field];
      if (typeof id !== 'number' || !isAllowed(context.actor, embed.definition, 'read', [id], context.store)) continue;
      const target = context.store.get(embed.definition.collection, id);
      if (target === undefined) continue;
      parts.push(`${name}:${represent(embed.definition, target, vocabularyOf(embed.definition, vocabulary.language)).json}`);
    }
  }
  if (parts.length === 0) return json;
  return `${json.slice(0, -1)}${json === '{}' ? '' : ','}"_embedded":{${parts.join(',')}}}`;
}
