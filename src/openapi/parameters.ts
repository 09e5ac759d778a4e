// The parameters the document describes, each with an example: a path's ids, a list's
// page, limit, sort, filters, range filters and operators (README: Lists), a field selection, the conditional headers
// (RFC 9110 §13.1), Idempotency-Key (IETF draft "The Idempotency-Key HTTP Header Field") and Last-Event-ID
// (WHATWG HTML §9.2.4), with which a change feed's stream resumes.

import { MAX_PAGE, MAX_PAGE_SIZE, searchFieldsOf } from '../http/list-query.ts';
import { takesRanges } from '../http/filter-operators.ts';
import type { FieldRule, Language, ResourceDefinition } from '../resources/definition.ts';
import { isShownOnRead, vocabularyOf } from '../resources/definition.ts';
import { resourceExamples } from './examples.ts';
import { EXAMPLE_STALE_ETAG } from './written-examples.ts';
import { embedNames } from '../http/embed-parameter.ts';
import { alwaysPresent } from './schemas.ts';
import { filterSchema, operatorParameters } from './filter-parameters.ts';

import { idSchema, type IdKind, type RecordId } from '../records/record-id.ts';

type Json = Record<string, unknown>;

/**
 * An id of `kind` in a path (README: Your own resources, ids); the router reads at most the safe integers
 * (routing/router.ts), a larger one is a 404.
 */
export function pathParameter(name: string, example: RecordId, kind: IdKind = 'integer'): Json {
  if (kind !== 'integer') {
    const description = kind === 'uuid' ? 'a uuid (lower-case)' : 'a string id';
    return { name, in: 'path', required: true, description, schema: idSchema(kind), example };
  }
  const schema = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
  return { name, in: 'path', required: true, description: 'a positive integer id', schema, example };
}

/**
 * Comma-separated names, each at most once (the server refuses a name twice, `price` and `-price` included, with a
 * 400): the names, after a negative lookahead that finds any entry again (ECMA-262 syntax, as JSON Schema 2020-12
 * §6.4 asks of a pattern).
 */
function eachOnce(names: readonly string[], signed: boolean): string {
  const sign = signed ? '-?' : '';
  const one = `${sign}(${names.join('|')})`;
  return `^(?!(?:[^,]*,)*${sign}([^,]+),(?:[^,]*,)*${sign}\\1(?:,|$))${one}(,${one})*$`;
}

export function listParameters(definition: ResourceDefinition, language: Language): Json[] {
  const query = resourceExamples(definition, language).query;
  const vocabulary = vocabularyOf(definition, language);
  const words = vocabulary.parameters;
  const sortable = definition.fields.filter((rule) => rule.sort === true).map((rule) => vocabulary.name(rule.name));
  const sortExample = (query['sort'] ?? 'id').replace(/[a-z_]+/g, (name) => vocabulary.name(name));
  const alias = (word: 'page' | 'limit'): string => {
    const all = [...new Set([...definition.vocabularies.values()].map((each) => each.parameters[word]))];
    return all.length > 1 ? ` (alias: ${all.join('/')})` : '';
  };
  const parameters: Json[] = [
    {
      name: words.page,
      in: 'query',
      description: `page number${alias('page')}`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
      example: 1,
    },
    {
      name: words.limit,
      in: 'query',
      description: `page size${alias('limit')}`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 },
      example: 20,
    },
    {
      name: words.sort,
      in: 'query',
      description: `comma-separated fields, "-" for descending, each once, ties by id: ${sortable.join(', ')}`,
      // Each field at most once, each with its "-": no longer than all of them listed.
      schema: {
        type: 'string',
        pattern: eachOnce(sortable, true),
        maxLength: sortable.reduce((length, name) => length + name.length + 2, -1),
      },
      example: sortExample,
    },
  ];
  for (const rule of definition.fields.filter((candidate) => candidate.filter === true)) {
    const text = query[rule.name];
    const example =
      text === undefined
        ? undefined
        : rule.type === 'number' || rule.type === 'integer'
          ? Number(text)
          : rule.type === 'boolean'
            ? text === 'true'
            : text;
    parameters.push({
      name: vocabulary.name(rule.name),
      in: 'query',
      description: 'equality filter',
      schema: filterSchema(rule),
      ...(example === undefined ? {} : { example }),
    });
  }
  const searched = searchFieldsOf(definition).map((field) => vocabulary.name(field));
  if (searched.length > 0) {
    parameters.push({
      name: 'q',
      in: 'query',
      description:
        `search: records whose ${searched.join(', ')} hold every word ` +
        `(whole words, ignoring case and accents; 1 to 10 words)`,
      schema: { type: 'string', minLength: 1, maxLength: 200, pattern: SEARCH_PATTERN },
      ...(query['q'] === undefined ? {} : { example: query['q'] }),
    });
  }
  for (const rule of definition.fields.filter(takesRanges))
    parameters.push(...rangeParameters(rule, vocabulary.name(rule.name)));
  parameters.push(...operatorParameters(definition, vocabulary, query));
  parameters.push(...embedParameter(definition, language), fieldsParameter(definition, language));
  return parameters;
}

/**
 * A `q` the server takes (http/list-values.ts: parseSearch): 1 to 10 words. Said here for ASCII text, where a word is a
 * run of letters and digits between other printable characters; other letters are words too (the description says so).
 */
const ASCII_SEPARATORS = '[ -/:-@\\[-`{-~]';
const SEARCH_PATTERN = `^${ASCII_SEPARATORS}*([A-Za-z0-9]+${ASCII_SEPARATORS}+){0,9}[A-Za-z0-9]+${ASCII_SEPARATORS}*$`;

/**
 * `embed=orders`: related records added under `_embedded` (handlers/related-records.ts); none when there is nothing to
 * embed.
 */
export function embedParameter(definition: ResourceDefinition, language: Language): Json[] {
  const names = embedNames(definition, language);
  if (names.length === 0) return [];
  return [
    {
      name: vocabularyOf(definition, language).parameters.embed,
      in: 'query',
      description:
        `related records to add under _embedded, comma-separated, each once ` +
        `(only those the caller may read): ${names.join(', ')}`,
      schema: { type: 'string', pattern: eachOnce(names, false) },
      example: names[0],
    },
  ];
}

const RANGE_WORDS = { gt: '>', gte: '≥', lt: '<', lte: '≤' } as const;

/** `price[gte]` and the three others: bounds on a number, a date or a timestamp (http/list-query.ts). */
function rangeParameters(rule: FieldRule, name: string): Json[] {
  const numeric = rule.type === 'number' || rule.type === 'integer';
  const date = rule.type === 'string' && rule.format === 'date';
  const schema = numeric ? { type: rule.type } : { type: 'string', format: date ? 'date' : 'date-time' };
  const low = numeric ? 0 : date ? '2026-01-01' : '2026-01-01T00:00:00Z';
  const high = numeric ? 1_000_000 : date ? '2100-01-01' : '2100-01-01T00:00:00Z';
  return (['gt', 'gte', 'lt', 'lte'] as const).map((op) => ({
    name: `${name}[${op}]`,
    in: 'query',
    description: `${name} ${RANGE_WORDS[op]} this`,
    schema,
    example: op.startsWith('g') ? low : high,
  }));
}

/** `fields=id,name`: the properties to answer with (http/field-selection.ts). */
export function fieldsParameter(definition: ResourceDefinition, language: Language): Json {
  const vocabulary = vocabularyOf(definition, language);
  const readable = definition.fields.filter(isShownOnRead).map((rule) => vocabulary.name(rule.name));
  return {
    name: vocabulary.parameters.fields,
    in: 'query',
    description:
      `only these properties, each once, comma-separated, shown in the declared order ` +
      `(the ETag follows the selection): ${readable.join(', ')}`,
    schema: {
      type: 'string',
      pattern: eachOnce(readable, false),
      maxLength: readable.reduce((length, name) => length + name.length + 1, -1),
    },
    // The properties a read always has: the example's answer still fits the record's schema.
    example: definition.fields
      .filter((rule) => isShownOnRead(rule) && alwaysPresent(rule))
      .map((rule) => vocabulary.name(rule.name))
      .join(','),
  };
}

export const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  description: 'answer 304 without a body while an ETag you hold still matches (RFC 9110 §13.1.2)',
  schema: { type: 'string' },
  example: EXAMPLE_STALE_ETAG,
};
/** If-None-Match on a write (RFC 9110 §13.1.2): 412 where a read would be 304. */
export const IF_NONE_MATCH_ON_WRITE = {
  name: 'If-None-Match',
  in: 'header',
  description:
    "refuse with 412 when the record's current ETag matches one you send (weak comparison, RFC 9110 §13.1.2); " +
    '* refuses whenever the record exists',
  schema: { type: 'string' },
  example: EXAMPLE_STALE_ETAG,
};
export const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  description:
    "refuse with 412 unless the record's current ETag matches (RFC 9110 §13.1.1); * matches any current record",
  schema: { type: 'string' },
  example: '*',
};

/** What a reconnecting EventSource sends (events/event-query.ts reads it, trimmed, on a stream only). */
export const LAST_EVENT_ID = {
  name: 'Last-Event-ID',
  in: 'header',
  description:
    'on a stream (Accept: text/event-stream): resume after this event, the last id: line received; ' +
    'wins over after. The list ignores it',
  schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$', maxLength: 15 },
  example: '0',
};

export function idempotencyKey(example: string): Json {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    description:
      'a retry with the same key and body within 24 hours replays the first answer instead of creating again; ' +
      'the same key with another body is a 422',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    example,
  };
}
