// Embedding related records (README: Lists): `embed=orders` on a user, or on a list of users, adds under
// `_embedded.orders` the first page of that child collection, as its own list answers it; `embed=author_id` adds the
// record that reference names, `embed=tag_ids` the records an array of references names, in its order (http/embed-
// parameter.ts reads the names). Only what the caller could fetch themselves.

import { isAllowed } from '../auth/permissions.ts';
import type { RequestContext } from './context.ts';
import type { StoredRecord } from '../records/json.ts';
import type { Vocabulary } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { represent } from '../resources/representation.ts';
import { embedName, type Embed } from '../http/embed-parameter.ts';
import { DEFAULT_PAGE_SIZE } from '../http/list-query.ts';
import type { ListParameters } from '../http/list-query.ts';
import { pageLinks, pageMeta } from '../http/pagination.ts';
import type { RecordId } from '../records/record-id.ts';

/** A record as a read shows it, where `_embedded` is to go. */
export interface ShownRecord {
  readonly record: StoredRecord;
  /** Its representation, or the fields selected of it. */
  readonly json: string;
  /** Its own path, and the ids it stands under (its own included). */
  readonly path: string;
  readonly ids: readonly RecordId[];
}

/** The record's `json` with `_embedded` added: each embed the caller may read, in the order asked. */
export function withEmbedded(
  context: Pick<RequestContext, 'actor' | 'store' | 'services'>,
  { record, json, path, ids }: ShownRecord,
  embeds: readonly Embed[],
  vocabulary: Vocabulary,
): string {
  const useCaches = context.services.config.caches;
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
      const data = records.map((each) => represent(child, each, childVocabulary, useCaches).json).join(',');
      parts.push(`${name}:{"data":[${data}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`);
    } else if (embed.many) {
      const held = record[embed.field];
      const targetVocabulary = vocabularyOf(embed.definition, vocabulary.language);
      const shown: string[] = [];
      for (const id of Array.isArray(held) ? held : []) {
        if (typeof id !== 'number' && typeof id !== 'string') continue;
        if (!isAllowed(context.actor, embed.definition, 'read', [id], context.store)) continue;
        const target = context.store.get(embed.definition.collection, id);
        if (target !== undefined) shown.push(represent(embed.definition, target, targetVocabulary, useCaches).json);
      }
      parts.push(`${name}:[${shown.join(',')}]`);
    } else {
      const id = record[embed.field];
      if (typeof id !== 'number' && typeof id !== 'string') continue;
      if (!isAllowed(context.actor, embed.definition, 'read', [id], context.store)) continue;
      const target = context.store.get(embed.definition.collection, id);
      if (target === undefined) continue;
      const targetVocabulary = vocabularyOf(embed.definition, vocabulary.language);
      parts.push(`${name}:${represent(embed.definition, target, targetVocabulary, useCaches).json}`);
    }
  }
  if (parts.length === 0) return json;
  return `${json.slice(0, -1)}${json === '{}' ? '' : ','}"_embedded":{${parts.join(',')}}}`;
}
