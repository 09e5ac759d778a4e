// The error answers the OpenAPI document describes (README: Errors): when each status is answered, and each variant
// of a status (by its context) with the problem-details example it shows (RFC 9457).

import { SUCCESS_HEADERS } from './headers.ts';

type Json = Record<string, unknown>;

/** When each error status is answered (README: Errors), for the response descriptions. */
export const WHEN: Readonly<Record<number, string>> = {
  400: 'a query parameter is unknown, repeated or out of range, or the body is not a JSON object',
  401: 'no token, or a token that is malformed, badly signed, expired or of a deleted user',
  403: 'the caller may not do this',
  404: 'no such record (or parent record)',
  406: 'Accept excludes every media type this address serves',
  409: "a duplicate value, or a change the record's state does not allow",
  410:
    'the change feed no longer keeps the events after the position asked for (after), or never had it: ' +
    'read the records again, then follow the feed from its newest event',
  412: 'If-Match does not match the current ETag, or If-None-Match does',
  413: 'the body is larger than MAX_BODY_BYTES',
  415: "the body's Content-Type is not one this operation reads",
  422: 'the body is JSON but breaks the rules (every offending field is listed)',
  429: 'the client has used its requests for now; wait Retry-After seconds',
  503: 'the server is busy, shutting down, or cannot store writes',
};

export interface ProblemVariant {
  readonly name: string;
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly instance: string;
  readonly errors?: readonly Json[];
  /** Headers of this variant beyond those of its status. */
  readonly headers?: Json;
  /** When it is answered, if not as WHEN says for its status. */
  readonly when?: string;
}

/** Every error answer the document names, with its example. */
export const VARIANTS: readonly ProblemVariant[] = [
  {
    name: 'BadQuery',
    status: 400,
    code: 'invalid_query',
    detail: 'invalid query parameter: limit',
    instance: '/v1/products',
    errors: [{ field: 'limit', code: 'invalid_value', message: 'must be an integer from 1 to 100' }],
  },
  {
    name: 'MalformedRequest',
    status: 400,
    code: 'malformed_request',
    detail: 'a request carries one Host header, not several',
    instance: '/v1/products',
  },
  {
    name: 'MalformedBody',
    status: 400,
    code: 'malformed_json',
    detail: 'the body is not valid JSON in UTF-8',
    instance: '/v1/products',
  },
  {
    name: 'Unauthenticated',
    status: 401,
    code: 'unauthenticated',
    detail: 'send a bearer token: Authorization: Bearer <token> (get one from POST /v1/tokens)',
    instance: '/v1/users/1/orders',
  },
  {
    name: 'InvalidCredentials',
    status: 401,
    code: 'invalid_credentials',
    detail: 'the email or the password is wrong',
    instance: '/v1/tokens',
  },
  {
    name: 'BadFeedQuery',
    status: 400,
    code: 'invalid_query',
    detail: 'invalid query parameter: type',
    instance: '/v1/events',
    errors: [{ field: 'type', code: 'invalid_value', message: 'must be one of created, updated, deleted' }],
    when:
      'a query parameter is unknown (page and limit on a stream), repeated or out of range, or Last-Event-ID is ' +
      'not an event id',
  },
  {
    name: 'Forbidden',
    status: 403,
    code: 'forbidden',
    detail: 'only an admin may create products here',
    instance: '/v1/products',
  },
  {
    name: 'NotFound',
    status: 404,
    code: 'record_not_found',
    detail: 'no order has id 99 here',
    instance: '/v1/users/1/orders/99',
  },
  {
    name: 'NotAcceptable',
    status: 406,
    code: 'not_acceptable',
    detail: 'this API answers only with application/json',
    instance: '/v1/products',
  },
  {
    name: 'Duplicate',
    status: 409,
    code: 'duplicate_value',
    detail: 'another user already has this email',
    instance: '/v1/users',
  },
  {
    name: 'InvalidTransition',
    status: 409,
    code: 'invalid_transition',
    detail: 'an order cannot go from shipped to pending',
    instance: '/v1/users/1/orders/1',
  },
  {
    name: 'HistoryGone',
    status: 410,
    code: 'history_gone',
    detail:
      'the events after 12 are no longer kept (the feed keeps those after 9870); ' +
      'read the records again, then follow the feed from 19870',
    instance: '/v1/events',
  },
  {
    name: 'PreconditionFailed',
    status: 412,
    code: 'precondition_failed',
    detail: 'If-Match does not match the current ETag of this record',
    instance: '/v1/products/1',
  },
  {
    name: 'ContentTooLarge',
    status: 413,
    code: 'payload_too_large',
    detail: 'the body is larger than 1048576 bytes',
    instance: '/v1/products',
  },
  {
    name: 'UnsupportedMediaType',
    status: 415,
    code: 'unsupported_media_type',
    detail: 'Content-Type must be application/json (UTF-8)',
    instance: '/v1/products',
  },
  {
    name: 'UnsupportedPatchMediaType',
    status: 415,
    code: 'unsupported_media_type',
    detail: 'Content-Type must be application/merge-patch+json, application/json (UTF-8)',
    instance: '/v1/products/1',
    headers: SUCCESS_HEADERS.acceptPatch,
  },
  {
    name: 'ValidationFailed',
    status: 422,
    code: 'validation_failed',
    detail: '1 field is invalid',
    instance: '/v1/products',
    errors: [{ field: 'price', code: 'invalid_format', message: 'must have at most two decimals' }],
  },
  {
    name: 'RateLimited',
    status: 429,
    code: 'rate_limited',
    detail: 'too many requests; retry after the time in Retry-After',
    instance: '/v1/products',
  },
  {
    name: 'TooManyStreams',
    status: 429,
    code: 'too_many_streams',
    detail: 'you have 10 event streams open, the most one user may; close one first',
    instance: '/v1/events',
    when:
      'the client has used its requests for now (rate_limited), or, asking for a stream, it or the server has as ' +
      'many streams open as allowed (too_many_streams); wait Retry-After seconds',
  },
  {
    name: 'InternalError',
    status: 500,
    code: 'internal_error',
    detail: 'the server failed to handle this request; quote the request_id when reporting it',
    instance: '/v1/products',
  },
  { name: 'Unavailable', status: 503, code: 'not_ready', detail: 'the server is shutting down', instance: '/readyz' },
];
