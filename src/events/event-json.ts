// An event as a client reads it (README: Events): `{ id, type, collection, record_id, path,
// at, record }`, in the vocabulary of the path it was asked at — the collection's name,
// the record's path (under the base path, http/base-path.ts) and the record itself as that caller reads them at that
// version (resources/representation.ts: no write-only field). `record` is absent from a deletion.

import type { ResourceTable } from '../resources/definition.ts';
import type { Language, ResourceDefinition } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { represent } from '../resources/representation.ts';
import type { FeedEvent } from '../feed/feed-event.ts';
import { RecentlyUsed } from '../store/recently-used.ts';

/**
 * `useCaches`: the record's representation kept for its version (README: Caches), as `represent` keeps it; `basePath`
 * begins the record's path.
 */
export function eventJson(
  event: FeedEvent,
  table: ResourceTable,
  language: Language,
  useCaches: boolean,
  basePath: string,
): string {
  const definition = table.get(event.collection);
  if (definition === undefined) throw new Error(`an event of ${event.collection}, which is not declared`);
  const vocabulary = vocabularyOf(definition, language);
  const collection = JSON.stringify(vocabulary.collection);
  const path = JSON.stringify(basePath + recordPath(definition, event, language));
  const head =
    `{"id":${event.id},"type":"${event.type}","collection":${collection},` +
    `"record_id":${JSON.stringify(event.recordId)},` +
    `"path":${path},"at":"${event.at}"`;
  return event.record === undefined
    ? `${head}}`
    : `${head},"record":${represent(definition, event.record, vocabulary, useCaches).json}}`;
}

/**
 * Events whose blocks are kept, per base path and language: more than a fan-out's batch holds under load, so each
 * block is encoded once however many streams send it, and streams catching up from a recent id share them; but a
 * bounded number, so the blocks of the events the feed keeps for resuming (up to 100,000) do not stay in memory after
 * their streams closed.
 */
const BLOCKS_KEPT = 4096;
/** Each event's Server-Sent Events block, per base path and language. */
const blocks = new Map<string, Map<Language, RecentlyUsed<FeedEvent, Buffer>>>();

/**
 * `id: 42\nevent: updated\ndata: {…}\n\n` (WHATWG HTML §9.2.6), as the UTF-8 bytes a stream writes; kept when
 * `useCaches` (README: Caches), else made afresh.
 */
export function eventBlock(
  event: FeedEvent,
  table: ResourceTable,
  language: Language,
  useCaches: boolean,
  basePath: string,
): Buffer {
  if (!useCaches) return blockOf(event, table, language, false, basePath);
  let byLanguage = blocks.get(basePath);
  if (byLanguage === undefined) {
    byLanguage = new Map();
    blocks.set(basePath, byLanguage);
  }
  let cache = byLanguage.get(language);
  if (cache === undefined) {
    cache = new RecentlyUsed(BLOCKS_KEPT);
    byLanguage.set(language, cache);
  }
  let kept = cache.get(event);
  if (kept === undefined) {
    kept = blockOf(event, table, language, true, basePath);
    cache.set(event, kept);
  }
  return kept;
}

/** The block of `event`, made now. */
function blockOf(
  event: FeedEvent,
  table: ResourceTable,
  language: Language,
  useCaches: boolean,
  basePath: string,
): Buffer {
  const json = eventJson(event, table, language, useCaches, basePath);
  return Buffer.from(`id: ${event.id}\nevent: ${event.type}\ndata: ${json}\n\n`);
}

/** `/v1/users/5/orders/7` (`/v1/usuarios/5/pedidos/7` in Portuguese); a singleton's, `/v1/profile`, has no id. */
function recordPath(definition: ResourceDefinition, event: FeedEvent, language: Language): string {
  if (definition.singleton === true) return `/v1/${vocabularyOf(definition, language).collection}`;
  const segments: string[] = [];
  let level: ResourceDefinition | undefined = definition;
  const ids = [...event.under, event.recordId];
  for (let index = ids.length - 1; level !== undefined && index >= 0; index--) {
    segments.unshift(`${vocabularyOf(level, language).collection}/${ids[index] as number}`);
    level = level.parent?.definition;
  }
  return `/v1/${segments.join('/')}`;
}
