// GET /v1/events (README: Events): the change feed. As a list it is paged like any list (http/pagination.ts) and holds
// only what the caller may read, oldest first; `after` older than what the feed keeps is a 410, never a silent gap.
// With `Accept: text/event-stream` the same path is a Server-Sent Events stream (events/event-streams.ts).

import type { RequestContext } from './context.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { isResumable, unresumableDetail } from '../feed/change-feed.ts';
import type { ChangeFeed } from '../feed/change-feed.ts';
import { readableBy } from '../events/event-access.ts';
import { eventJson } from '../events/event-json.ts';
import { feedWords, parseEventParameters } from '../events/event-query.ts';
import type { EventParameters } from '../events/event-query.ts';
import type { EventFilter } from '../feed/feed-event.ts';
import { eventFilter } from '../feed/feed-event.ts';
import { HttpError } from '../errors/errors.ts';
import { requireJsonAcceptable, wantsEventStream } from '../http/negotiation.ts';
import { linkHeader, linksAround, pageMeta, pair } from '../http/pagination.ts';
import type { Reply } from '../http/respond.ts';
import type { Actor } from '../auth/permissions.ts';
import type { Language } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { entityTag } from '../resources/representation.ts';

export function eventFeed(context: RequestContext, table: ResourceTable, language: Language): Reply | Promise<Reply> {
  const actor = context.actor as Actor;
  const { store, eventStreams, authenticator } = context.services;
  const feed = store.feed;
  if (feed === undefined || eventStreams === undefined)
    throw new HttpError('not_ready', 'this store keeps no change feed');
  const accept = context.req.headers.accept;
  const stream = wantsEventStream(accept);
  if (!stream) requireJsonAcceptable(accept);
  const lastEventId = stream ? context.req.headers['last-event-id'] : undefined;
  const parameters = parseEventParameters(
    context.queryString,
    typeof lastEventId === 'string' ? lastEventId : undefined,
    table,
    language,
    stream,
  );
  if (stream) {
    eventStreams.admit(actor);
    const request = {
      actor,
      expiresAt: authenticator.expiryOf(context.req.headers.authorization, context.store),
      language,
      ...parameters,
    };
    const window = feed.window();
    return window instanceof Promise
      ? window.then((ready) => eventStreams.reply(request, ready))
      : eventStreams.reply(request, window);
  }
  return eventList(
    context,
    feed,
    parameters,
    eventFilter(parameters.after ?? 0, readableBy(actor, table), parameters),
    table,
    language,
  );
}

async function eventList(
  context: RequestContext,
  feed: ChangeFeed,
  parameters: EventParameters,
  filter: EventFilter,
  table: ResourceTable,
  language: Language,
): Promise<Reply> {
  const window = await feed.window();
  if (parameters.after !== undefined && !isResumable(parameters.after, window)) {
    throw new HttpError('history_gone', unresumableDetail(parameters.after, window));
  }
  const { page, limit } = parameters;
  const { events, total } = await feed.page(filter, (page - 1) * limit, limit);
  const meta = pageMeta({ page, limit }, total);
  const { caches, basePath } = context.services.config;
  const links = linksAround(context.path, fixedParameters(parameters, table, language), feedWords(language), meta);
  const body =
    `{"data":[${events.map((event) => eventJson(event, table, language, caches, basePath)).join(',')}],` +
    `"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
  const etag = entityTag(body);
  // The same path answers a stream to Accept: text/event-stream: caches must tell the two apart.
  return { status: 200, headers: { Link: linkHeader(links), ETag: etag, Vary: 'Accept' }, body };
}

/** The filters a page's links keep, named in the path's language. */
function fixedParameters(parameters: EventParameters, table: ResourceTable, language: Language): string[] {
  const words = feedWords(language);
  const fixed: string[] = [];
  const definition = parameters.collection === undefined ? undefined : table.get(parameters.collection);
  if (definition !== undefined) fixed.push(pair(words.collection, vocabularyOf(definition, language).collection));
  if (parameters.type !== undefined) fixed.push(pair(words.type, parameters.type));
  if (parameters.after !== undefined) fixed.push(pair(words.after, String(parameters.after)));
  return fixed;
}
