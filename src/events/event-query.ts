// The change feed's query (README: Events): `collection`, `type` and `after` filter it, `page` and `limit` page the
// list form as any list (http/list-query.ts); the stream takes the same filters and no page, and resumes after
// `Last-Event-ID` (WHATWG HTML §9.2.4), which wins over `after` because a reconnecting EventSource sends both.
// Anything else is a 400 naming the parameter.

import type { ResourceTable } from '../resources/definition.ts';
import type { FieldError } from '../errors/errors.ts';
import { queryError } from '../errors/errors.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from '../http/list-query.ts';
import { parameterPairs } from '../http/query-string.ts';
import { jsonNumber, parseBoundedInteger } from '../http/list-values.ts';
import type { Language } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import type { EventType } from '../feed/feed-event.ts';
import { EVENT_TYPES } from '../feed/feed-event.ts';
import { feedWords } from '../resources/vocabulary.ts';

// The feed's words live with the vocabularies, beside the other words plainrest itself puts in one.
export { feedWords, type FeedWords } from '../resources/vocabulary.ts';

export interface EventParameters {
  readonly collection?: string;
  readonly type?: EventType;
  /** `after`, or the Last-Event-ID of a stream. */
  readonly after?: number;
  readonly page: number;
  readonly limit: number;
}

const POSITION = /^(0|[1-9][0-9]{0,15})$/;

export function parseEventParameters(
  queryString: string,
  lastEventId: string | undefined,
  table: ResourceTable,
  language: Language,
  stream: boolean,
): EventParameters {
  const words = feedWords(language);
  const known = stream
    ? [words.collection, words.type, words.after]
    : [words.collection, words.type, words.after, words.page, words.limit];
  const errors: FieldError[] = [];
  const given = new Map<string, { name: string; value: string }>();
  for (const [name, value] of parameterPairs(queryString)) {
    if (!known.includes(name)) {
      const use = stream && (name === words.page || name === words.limit) ? 'a stream is not paged; ' : '';
      errors.push({
        field: name,
        code: 'unknown_parameter',
        message: `is not a parameter of the change feed; ${use}use ${known.join(', ')}`,
      });
    } else if (given.has(name)) errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
    else given.set(name, { name, value });
  }
  const collection = parseCollection(given.get(words.collection), table, language, errors);
  const type = given.get(words.type);
  if (type !== undefined && !(EVENT_TYPES as readonly string[]).includes(type.value)) {
    errors.push({ field: type.name, code: 'invalid_value', message: `must be one of ${EVENT_TYPES.join(', ')}` });
  }
  const after =
    lastEventId === undefined
      ? parsePosition(given.get(words.after), jsonNumber, errors)
      : parsePosition({ name: 'Last-Event-ID', value: lastEventId.trim() }, idLine, errors);
  const page = parseBoundedInteger(given.get(words.page), 1, 1, MAX_PAGE, errors);
  const limit = parseBoundedInteger(given.get(words.limit), DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE, errors);
  if (errors.length > 0) throw queryError(errors);
  return {
    ...(collection === undefined ? {} : { collection }),
    ...(type === undefined ? {} : { type: type.value as EventType }),
    ...(after === undefined ? {} : { after }),
    page,
    limit,
  };
}

/**
 * A collection by its name in the path's language (or its declared name); the feed names its events' collections the
 * same way.
 */
function parseCollection(
  given: { name: string; value: string } | undefined,
  table: ResourceTable,
  language: Language,
  errors: FieldError[],
): string | undefined {
  if (given === undefined) return undefined;
  const names = table.resources.map((definition) => vocabularyOf(definition, language).collection);
  const found = table.resources.find(
    (definition) =>
      vocabularyOf(definition, language).collection === given.value || definition.collection === given.value,
  );
  if (found === undefined)
    errors.push({ field: given.name, code: 'invalid_value', message: `must be one of ${names.join(', ')}` });
  return found?.collection;
}

/** Last-Event-ID: the text of an `id:` line the stream sent (WHATWG HTML §9.2.6), a decimal integer, or NaN. */
function idLine(text: string): number {
  return POSITION.test(text) ? Number(text) : Number.NaN;
}

/** `after` (a query integer: any JSON number's text, as `page` takes) or Last-Event-ID, read by `read`. */
function parsePosition(
  given: { name: string; value: string } | undefined,
  read: (text: string) => number,
  errors: FieldError[],
): number | undefined {
  if (given === undefined) return undefined;
  const position = read(given.value);
  if (Number.isSafeInteger(position) && position >= 0) return position;
  errors.push({ field: given.name, code: 'invalid_value', message: 'must be an event id: an integer from 0' });
  return undefined;
}
