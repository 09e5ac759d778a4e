// The answers an operation documents: successes as the operation gives them, and each error status as a shared
// component (components/responses): a problem-details body (RFC 9457) in either media type, with an example, plus the
// headers every answer carries (headers.ts). Each error component has a twin without content, for HEAD (RFC 9110
// §9.3.2).

import { STATUS_TITLES } from '../errors/errors.ts';
import { EXAMPLE_REQUEST_ID } from './written-examples.ts';
import { errorHeaders, everyAnswerHeaders } from './headers.ts';
import { VARIANTS, WHEN, type ProblemVariant } from './problem-variants.ts';

type Json = Record<string, unknown>;

/**
 * Which variant of an error an operation meets: about its body or its query, a login or a token, a duplicate or a
 * state.
 */
export interface ErrorContext {
  /** Nothing but the request line and headers is read (OPTIONS): a 400 is about them. */
  readonly requestOnly?: boolean;
  readonly readsBody: boolean;
  readonly login?: boolean;
  readonly conflict?: 'duplicate' | 'state';
  /** PATCH: a 415 names the patch media types in Accept-Patch. */
  readonly patch?: boolean;
  /** The change feed: a 400 about its parameters, a 429 also for too many streams. */
  readonly feed?: boolean;
}

function problemResponse(variant: ProblemVariant, withBody: boolean): Json {
  const { name: _name, status, headers: _headers, when, ...problem } = variant;
  const title = STATUS_TITLES[status] ?? 'Error';
  const example = {
    type: 'about:blank',
    title,
    status,
    code: problem.code,
    detail: problem.detail,
    instance: problem.instance,
    request_id: EXAMPLE_REQUEST_ID,
    ...(problem.errors === undefined ? {} : { errors: problem.errors }),
  };
  const media = { schema: { $ref: '#/components/schemas/Problem' }, example };
  const description =
    status === 500
      ? 'Any other status, as problem details: 500 when the server failed (the body says only that, with the ' +
        'request_id its log line carries), or 408, 414, 417 or 431 for a request it could not read'
      : `${title}: ${when ?? WHEN[status] ?? 'see the problem details'}`;
  return {
    description,
    headers: { ...everyAnswerHeaders(), ...errorHeaders(status), ...variant.headers },
    ...(withBody ? { content: { 'application/json': media, 'application/problem+json': media } } : {}),
  };
}

const WITHOUT_BODY = 'WithoutBody';

/** components/responses: the error answers `paths` refers to (each has a twin without a body, for HEAD). */
export function problemResponseComponents(paths: unknown): Record<string, Json> {
  const used = new Set(
    [...JSON.stringify(paths).matchAll(/#\/components\/responses\/([A-Za-z]+)/g)].map((match) => match[1]),
  );
  const components: Record<string, Json> = {};
  for (const variant of VARIANTS) if (used.has(variant.name)) components[variant.name] = problemResponse(variant, true);
  for (const variant of VARIANTS) {
    const name = `${variant.name}${WITHOUT_BODY}`;
    if (used.has(name)) components[name] = problemResponse(variant, false);
  }
  return components;
}

function variantFor(status: number, context: ErrorContext): string {
  switch (status) {
    case 400:
      if (context.requestOnly === true) return 'MalformedRequest';
      if (context.feed === true) return 'BadFeedQuery';
      return context.readsBody ? 'MalformedBody' : 'BadQuery';
    case 401:
      return context.login === true ? 'InvalidCredentials' : 'Unauthenticated';
    case 409:
      return context.conflict === 'state' ? 'InvalidTransition' : 'Duplicate';
    case 429:
      return context.feed === true ? 'TooManyStreams' : 'RateLimited';
    case 415:
      return context.patch === true ? 'UnsupportedPatchMediaType' : 'UnsupportedMediaType';
    default: {
      const variant = VARIANTS.find((candidate) => candidate.status === status);
      if (variant === undefined) throw new Error(`no problem response is described for status ${status}`);
      return variant.name;
    }
  }
}

const responseReference = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/** A body in one media type, with its schema and an example. */
export function jsonContent(schema: Json, example: unknown): Json {
  return { 'application/json': { schema, example } };
}

/** A success answer: its description, its own headers after those every answer carries, and its body if it has one. */
export function success(description: string, headers: Json = {}, content?: Json): Json {
  return {
    description,
    headers: { ...everyAnswerHeaders(), ...headers },
    ...(content === undefined ? {} : { content }),
  };
}

/**
 * The successes, then each error status the operation can answer, then `default`: a 500
 * (a failure no correct request can cause, so none is listed on its own: each listed
 * status is one the tests make the server answer) and what a request can meet before it
 * is routed (408, 414, 417, 431).
 */
export function responses(
  successes: Readonly<Record<number, Json>>,
  errors: readonly number[],
  context: ErrorContext,
): Json {
  const all: Json = { ...successes };
  for (const status of errors) all[String(status)] = responseReference(variantFor(status, context));
  all['default'] = responseReference('InternalError');
  return all;
}

/** The answers of HEAD: those of GET without their bodies. */
export function withoutBodies(all: Json): Json {
  return Object.fromEntries(
    Object.entries(all).map(([status, response]) => {
      const { content: _content, $ref: reference, ...rest } = response as Json;
      return [status, typeof reference === 'string' ? { $ref: `${reference}${WITHOUT_BODY}` } : rest];
    }),
  );
}
