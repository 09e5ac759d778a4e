// GET on a collection (README: Lists): a page of records in the list envelope, with its Link header (RFC 8288) and a
// weak ETag; with caches on, a page built once is kept for its caller until a collection it shows changes (keptPage).

import { authorize, listsOwnRecordsOnly } from '../auth/permissions.ts';
import { requireParentId, type RequestContext } from './context.ts';
import { parseListParameters } from '../http/list-query.ts';
import { withEmbedded } from './related-records.ts';
import { linkHeader, pageLinks, pageMeta, type ListPage } from '../http/pagination.ts';
import type { PageCache } from '../http/page-cache.ts';
import type { Reply } from '../http/respond.ts';
import type { ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { OWNER_FIELD_NAME } from '../resources/definition.ts';
import { entityTag, represent, fieldsJson } from '../resources/representation.ts';
import type { RecordReads } from '../store/store.ts';
import type { Filter } from '../store/query.ts';

export function listRecords(context: RequestContext, definition: ResourceDefinition, vocabulary: Vocabulary): Reply {
  const pageCache = context.services.pageCache;
  const page =
    pageCache === undefined
      ? checkedPage(context, definition, vocabulary)
      : keptPage(context, pageCache, definition, vocabulary);
  return {
    status: 200,
    headers: { Link: page.link, ETag: page.etag },
    body: page.body,
    bodyLength: page.length,
    bodyOwner: page,
  };
}

/**
 * The page the request asks for, checked then built now: its query (400), the caller's permission (403) and the
 * parent in the path (404), then its records found, represented and wrapped in the list envelope.
 */
function checkedPage(context: RequestContext, definition: ResourceDefinition, vocabulary: Vocabulary): ListPage {
  const parameters = parseListParameters(definition, context.queryString);
  const actor = authorize(context, definition, 'list');
  const parentId = requireParentId(context, definition);
  const filters: Filter[] = [...parameters.filters];
  if (definition.parent !== undefined && parentId !== undefined)
    filters.unshift({ field: definition.parent.field, value: parentId });
  if (listsOwnRecordsOnly(actor, definition)) filters.unshift({ field: OWNER_FIELD_NAME, value: actor.id });

  const { records, total } = context.store.query(definition.collection, {
    filters,
    ...(parameters.ranges === undefined ? {} : { ranges: parameters.ranges }),
    ...(parameters.conditions === undefined && parameters.repeated === undefined
      ? {}
      : { conditions: [...(parameters.conditions ?? []), ...(parameters.repeated ?? [])] }),
    ...(parameters.anyOf === undefined ? {} : { anyOf: parameters.anyOf }),
    ...(parameters.search === undefined ? {} : { search: parameters.search }),
    // A list asking for no order gets its collection's (deliveries: newest first), else by id.
    sort: parameters.sort.length > 0 ? parameters.sort : (definition.defaultSort ?? []),
    offset: (parameters.page - 1) * parameters.limit,
    limit: parameters.limit,
  });
  const meta = pageMeta(parameters, total);
  const links = pageLinks(context.path, vocabulary, parameters, meta);
  const { fields: selection, embed } = parameters;
  const data = records
    .map((record) => {
      const json =
        selection === undefined
          ? represent(definition, record, vocabulary, context.services.config.caches).json
          : fieldsJson(definition, record, vocabulary, selection);
      return embed === undefined
        ? json
        : withEmbedded(
            context,
            { record, json, path: `${context.path}/${record.id}`, ids: [...context.ids, record.id] },
            embed,
            vocabulary,
          );
    })
    .join(',');
  const body = `{"data":[${data}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
  // A list has no stable identity, so its validator is weak (RFC 9110 §8.8.1): equal
  // bodies, equal tags. If-None-Match uses the weak comparison anyway (§13.1.2).
  return { body, length: Buffer.byteLength(body), etag: `W/${entityTag(body)}`, link: linkHeader(links) };
}

// The page cache. A reader may skip it: keptPage(…) is checkedPage(…), built earlier for the same caller and target.

/**
 * The page this caller was given last for this target, while every collection it shows is unchanged; else a new one,
 * kept (http/page-cache.ts says what that saves).
 */
function keptPage(
  context: RequestContext,
  pageCache: PageCache,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
): ListPage {
  const version = pageVersion(context.store, definition);
  // A store that cannot tell its versions (Store.version: NaN, as PostgreSQL's) has no page worth keeping.
  if (Number.isNaN(version)) return checkedPage(context, definition, vocabulary);
  const key = pageKey(context);
  // A hit skips checkedPage's checks (400, 403, 404), safely: only pages answered 200 are kept, the key names the
  // caller and the target, and the version covers the collections above the page (http/page-cache.ts).
  return pageCache.get(key, version) ?? pageCache.keep(key, version, checkedPage(context, definition, vocabulary));
}

/**
 * Everything besides the records that decides a page's bytes: the request target (the path also fixes the vocabulary)
 * and the caller, whose identity and role decide which records are listed (one's own) and which embedded (what they may
 * read). So one caller's page never reaches another, whatever the declaration.
 */
function pageKey({ actor, path, queryString }: RequestContext): string {
  const caller = actor === undefined ? 'anyone' : `${actor.role} ${actor.id}`;
  return `${caller} ${path}?${queryString}`;
}

/**
 * Which versions of the records a page was built from: those of its collection, of the collections above it on its
 * path (whose owners decide who may list it), of its children and of the collections it references (whose records it
 * may embed, handlers/related-records.ts). Versions only grow, so their sum changes whenever one does.
 */
function pageVersion(store: RecordReads, definition: ResourceDefinition): number {
  let version = store.version(definition.collection);
  for (let above = definition.parent; above !== undefined; above = above.definition.parent)
    version += store.version(above.definition.collection);
  for (const child of definition.children) version += store.version(child.collection);
  for (const { definition: target } of definition.referencing) version += store.version(target.collection);
  return version;
}
