// json-server 0.17's reads (docs/json-server.md: Serving json-server's dialect): a list as a bare array, filtered,
// searched, sorted and sliced as its plural router does, with X-Total-Count and, for `_page`, its Link header; a
// record; a singular resource; `GET /db`. Each reads through the core's list and read handlers (core-calls.ts).

import type { Reply } from '../http/respond.ts';
import { MatchBudget } from '../patterns/linear-pattern.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import { jsonAnswer, notFound } from './answers.ts';
import type { DialectCollection, DialectCollections } from './collections.ts';
import { asInFile } from './collections.ts';
import type { CoreCalls } from './core-calls.ts';
import { corePath, everyRecord, listRange } from './core-calls.ts';
import { withRelated } from './related.ts';
import type { Parameters } from './list-filters.ts';
import { filtersOf, matchesText, passes, sortedBy } from './list-filters.ts';
import { conditionsOf, matchesWhere } from './where.ts';
import { pushedDown } from './push-down.ts';

/** What a read needs of the request besides its collection: its parameters and its URL as the client sent it. */
export interface ReadRequest {
  readonly parameters: Parameters;
  /** `http://host/path?query`, as json-server's links start from (get-full-url.js). */
  readonly fullUrl: string;
}

/** json-server's page size when `_page` comes without `_limit`. */
const DEFAULT_PAGE_SIZE = 10;

/** GET /<collection>: the records, as json-server's plural router lists them. */
export async function listRecords(
  calls: CoreCalls,
  collections: DialectCollections,
  collection: DialectCollection,
  request: ReadRequest,
): Promise<Reply> {
  const { parameters } = request;
  // An empty value is none, as json-server tests them.
  const first = (name: string): string | undefined => parameters.get(name)?.[0] || undefined;
  const path = corePath(collection.definition.collection);
  // Integer ids are in the file's order; the core's pages of other ids are in the order of their creation.
  const ordered = collection.definition.idKind === 'integer';
  const [start, end, page, limit, sort] = ['_start', '_end', '_page', '_limit', '_sort'].map(first);
  const headers: Record<string, string> = {};
  if (end !== undefined || limit !== undefined || page !== undefined)
    headers['Access-Control-Expose-Headers'] = `X-Total-Count${page === undefined ? '' : ', Link'}`;
  const perPage = first('_per_page');
  if (perPage !== undefined) {
    const all = (await everyRecord(calls, collection.definition)).map((record) => asInFile(collection, record));
    const kept = chosen(all, parameters, sort, first('_order'));
    return jsonAnswer(200, await pageObject(calls, collections, collection, kept, page, perPage, parameters));
  }
  const slice = sliceOf(start, end, page, limit);
  // Equality the core can apply is sent to it; what is left is worked out here on the records it gives.
  const { coreQuery, rest, plain } = pushedDown(parameters, collection);
  let records: JsonObject[];
  let total: number;
  if (plain && ordered && slice !== undefined && slice.from >= 0 && slice.to >= slice.from) {
    // Nothing left to filter or sort: the core's own pages hold the slice, in id order (json-server's for the file).
    const found = await listRange(calls, path, slice.from, slice.to, coreQuery);
    records = found.records.map((record) => asInFile(collection, record));
    total = found.total;
  } else {
    const found = await everyRecord(calls, collection.definition, coreQuery);
    records = chosen(
      found.map((record) => asInFile(collection, record)),
      rest,
      sort,
      first('_order'),
    );
    total = records.length;
    if (slice !== undefined) records = records.slice(slice.from, slice.to);
  }
  if (slice !== undefined) headers['X-Total-Count'] = String(total);
  if (page !== undefined && slice !== undefined)
    headers['Link'] = pageLinks(request.fullUrl, slice.page, slice.to - slice.from, total, records.length);
  const shown = await withRelated(calls, collections, collection, records, parameters);
  return jsonAnswer(200, shown, headers);
}

/**
 * json-server 1.x's page (`_per_page`): `{first, prev, next, last, pages, items, data}`, the page brought within the
 * pages there are.
 */
async function pageObject(
  calls: CoreCalls,
  collections: DialectCollections,
  collection: DialectCollection,
  records: readonly JsonObject[],
  page: string | undefined,
  perPage: string,
  parameters: Parameters,
): Promise<JsonObject> {
  const size = Math.max(1, Number.parseInt(perPage, 10) || 1);
  const pages = Math.max(1, Math.ceil(records.length / size));
  const current = Math.max(1, Math.min(Number.parseInt(page ?? '1', 10) || 1, pages));
  const data = records.slice((current - 1) * size, current * size);
  return {
    first: 1,
    prev: current > 1 ? current - 1 : null,
    next: current < pages ? current + 1 : null,
    last: pages,
    pages,
    items: records.length,
    data: await withRelated(calls, collections, collection, data, parameters),
  };
}

/** The records json-server keeps of `all`: `q`, then each filter, then the sort. */
function chosen(
  all: readonly JsonObject[],
  parameters: Parameters,
  sort: string | undefined,
  order: string | undefined,
): JsonObject[] {
  const filters = filtersOf(parameters, all);
  const budget = new MatchBudget();
  const text = parameters.get('q')?.[0]?.toLowerCase();
  let records = text === undefined ? [...all] : all.filter((record) => matchesText(record, text));
  for (const filter of filters) records = records.filter((record) => passes(record, filter, budget));
  for (const where of conditionsOf(parameters)) records = records.filter((record) => matchesWhere(record, where));
  if (sort === undefined) return records;
  const orders = (order ?? '').split(',').map((each) => each.toLowerCase());
  return sortedBy(records, sort.split(','), orders);
}

/** The records `_page` (with `_limit`), else `_end` (from `_start`), else `_limit` (from `_start`) keep. */
function sliceOf(
  start: string | undefined,
  end: string | undefined,
  page: string | undefined,
  limit: string | undefined,
): { from: number; to: number; page: number } | undefined {
  const whole = (text: string | undefined): number => {
    const number = Number.parseInt(text ?? '', 10);
    return Number.isNaN(number) ? 0 : number;
  };
  if (page !== undefined) {
    const current = Math.max(1, whole(page));
    const size = whole(limit) || DEFAULT_PAGE_SIZE;
    return { from: (current - 1) * size, to: current * size, page: current };
  }
  if (end !== undefined) return { from: whole(start), to: whole(end), page: 0 };
  if (limit !== undefined) return { from: whole(start), to: whole(start) + whole(limit), page: 0 };
  return undefined;
}

/**
 * json-server's Link header for page `page` of `size` (utils.js getPage): first, prev, next and last, each the URL with
 * `page=<n>` in place of `page=<page>`; empty when the page is empty or holds every record.
 */
function pageLinks(fullUrl: string, page: number, size: number, total: number, shown: number): string {
  if (shown === 0) return '';
  const links: [string, number][] = [];
  const whole = shown === total;
  if (!whole) links.push(['first', 1]);
  if (page > 1) links.push(['prev', page - 1]);
  if (page * size < total) links.push(['next', page + 1]);
  if (!whole) links.push(['last', Math.ceil(total / size)]);
  return links
    .map(([rel, number]) => `<${whole ? fullUrl : fullUrl.replace(`page=${page}`, `page=${number}`)}>; rel="${rel}"`)
    .join(', ');
}

/** GET /<collection>/<id>: the record, with `_embed` and `_expand`; 404 `{}` when there is none. */
export async function readRecord(
  calls: CoreCalls,
  collections: DialectCollections,
  collection: DialectCollection,
  id: string,
  parameters: Parameters,
): Promise<Reply> {
  const answer = await calls.call('GET', corePath(collection.definition.collection, id));
  const [shown] = await withRelated(
    calls,
    collections,
    collection,
    [asInFile(collection, answer.body ?? {})],
    parameters,
  );
  return shown === undefined ? notFound() : jsonAnswer(200, shown);
}

/** GET /<singular>: the one record. */
export async function readSingular(calls: CoreCalls, collection: DialectCollection): Promise<Reply> {
  const answer = await calls.call('GET', corePath(collection.definition.collection));
  return jsonAnswer(200, asInFile(collection, answer.body ?? {}));
}

/** GET /db: every collection and singular resource the caller may read, as the file holds them. */
export async function wholeDatabase(calls: CoreCalls, collections: DialectCollections): Promise<Reply> {
  const database: Record<string, JsonValue> = {};
  for (const collection of collections.all()) {
    const path = corePath(collection.definition.collection);
    try {
      database[collection.name] =
        collection.definition.singleton === true
          ? asInFile(collection, (await calls.call('GET', path)).body ?? {})
          : (await everyRecord(calls, collection.definition)).map((record) => asInFile(collection, record));
    } catch {
      // What the caller may not read (or a singleton not made yet) is left out.
    }
  }
  return jsonAnswer(200, database);
}
