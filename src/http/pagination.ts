// The list envelope's paging metadata and links (README: Lists), also sent as a Link header (RFC 8288 §3). Links keep
// the request's filters, operators, search, ranges, sort, embeds and field selection, are relative references to the
// same path, and use the path's vocabulary for parameter names.

import type { Vocabulary } from '../resources/definition.ts';
import type { ListParameters } from './list-query.ts';
import { embedName } from './embed-parameter.ts';
import { anyOfPair, conditionPair } from './filter-operators.ts';

export interface PageMeta {
  readonly page: number;
  readonly limit: number;
  readonly total: number;
  readonly pages: number;
}

export interface PageLinks {
  readonly self: string;
  readonly first: string;
  readonly prev: string | null;
  readonly next: string | null;
  readonly last: string;
}

/** A list page as it is sent: the envelope's JSON text, its length in bytes, its weak ETag and its Link header. */
export interface ListPage {
  readonly body: string;
  /** The body's length in bytes (UTF-8). */
  readonly length: number;
  /** Weak, from the body's bytes (RFC 9110 §8.8.1). */
  readonly etag: string;
  readonly link: string;
}

export function pageMeta(parameters: Pick<ListParameters, 'page' | 'limit'>, total: number): PageMeta {
  return { page: parameters.page, limit: parameters.limit, total, pages: Math.ceil(total / parameters.limit) };
}

export function pageLinks(path: string, vocabulary: Vocabulary, parameters: ListParameters, meta: PageMeta): PageLinks {
  const fixed: string[] = [];
  for (const filter of parameters.filters) fixed.push(pair(vocabulary.name(filter.field), String(filter.value)));
  if (parameters.search !== undefined) fixed.push(pair('q', parameters.search.text));
  for (const range of parameters.ranges ?? [])
    fixed.push(pair(`${vocabulary.name(range.field)}[${range.op}]`, String(range.value)));
  for (const condition of parameters.conditions ?? []) fixed.push(conditionPair(condition, vocabulary));
  for (const oneOf of parameters.repeated ?? [])
    if (oneOf.op === 'in')
      for (const value of oneOf.values) fixed.push(pair(vocabulary.name(oneOf.field), String(value)));
  if (parameters.anyOf !== undefined) fixed.push(anyOfPair(parameters.anyOf, vocabulary));
  if (parameters.sort.length > 0) {
    const sort = parameters.sort.map((key) => (key.descending ? '-' : '') + vocabulary.name(key.field)).join(',');
    fixed.push(pair(vocabulary.parameters.sort, sort));
  }
  if (parameters.embed !== undefined)
    fixed.push(
      pair(vocabulary.parameters.embed, parameters.embed.map((embed) => embedName(embed, vocabulary)).join(',')),
    );
  if (parameters.fields !== undefined)
    fixed.push(pair(vocabulary.parameters.fields, parameters.fields.map((field) => vocabulary.name(field)).join(',')));
  return linksAround(path, fixed, { page: vocabulary.parameters.page, limit: vocabulary.parameters.limit }, meta);
}

/**
 * The links of page `meta.page` of a list at `path`, each with the `fixed` parameters (`name=value`, encoded) before
 * its page and limit.
 */
export function linksAround(
  path: string,
  fixed: readonly string[],
  names: { readonly page: string; readonly limit: string },
  meta: PageMeta,
): PageLinks {
  const limitPair = pair(names.limit, String(meta.limit));
  const at = (page: number): string => `${path}?${[...fixed, pair(names.page, String(page)), limitPair].join('&')}`;

  const lastPage = Math.max(meta.pages, 1);
  const page = meta.page;
  return {
    self: at(page),
    first: at(1),
    prev: page > 1 ? at(Math.min(page - 1, lastPage)) : null,
    next: page < meta.pages ? at(page + 1) : null,
    last: at(lastPage),
  };
}

/** `<…>; rel="self", <…>; rel="first", …` — relations with no target are left out. */
export function linkHeader(links: PageLinks): string {
  const parts: string[] = [];
  for (const [relation, target] of Object.entries(links)) {
    if (target !== null) parts.push(`<${target}>; rel="${relation}"`);
  }
  return parts.join(', ');
}

export function pair(name: string, value: string): string {
  return `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
}
