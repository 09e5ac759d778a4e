// What each status code this API can answer means, in one sentence a newcomer can act on (RFC 9110 §15 defines them;
// README: Errors says when this API uses each). The home page shows them in its glossary, beside every operation, and
// under every answer; where a status means something more precise for one method or path (a 401 from the token
// endpoint is a wrong password, not a missing token), that meaning is used instead.

import { STATUS_TITLES } from '../errors/errors.ts';

export interface StatusMeaning {
  readonly title: string;
  readonly meaning: string;
}

const SUCCESS_TITLES: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified',
};

const MEANINGS: Readonly<Record<number, string>> = {
  200: 'it worked; the body is the record, the page of records or the document asked for.',
  201: "the record was created; the new record's address is in Location, and the body shows it.",
  204: 'it worked, and there is nothing to send back.',
  304: 'your copy is still current (its ETag matches If-None-Match), so no body was sent.',
  400: 'the request itself is malformed (not JSON, nested too deep, or an unknown or bad query parameter); the errors list names what to fix.',
  401: 'no valid token came with the request: log in (POST /v1/tokens) and send Authorization: Bearer <token>.',
  403: 'you are logged in, but your role may not do this (only an administrator may, or the record is not yours).',
  404: 'nothing is at this path: no such route, or no record with this id.',
  405: 'the path exists but not with this method; Allow lists the methods it has.',
  406: 'the Accept header rules out every type this address can answer with.',
  408: 'the request took too long to arrive, so the server gave up on it.',
  409: 'the request clashes with the current state: an email already in use, an order change its status forbids, or the same Idempotency-Key still in progress.',
  410: 'the change feed no longer keeps the events after the position you asked for (after), or never had it: read the records again, then follow the feed from its newest event.',
  412: 'If-Match named an ETag that is no longer current: someone changed the record since you read it; read it again.',
  413: 'the body is larger than the server accepts.',
  414: 'the address (path and query) is too long.',
  415: 'the body was not labelled as JSON: send Content-Type: application/json (or application/merge-patch+json for PATCH).',
  417: 'an Expect header other than 100-continue cannot be met.',
  422: 'the JSON is well-formed but breaks the rules (a missing field, a bad value, an unknown field); the errors list names each one.',
  429: 'too many requests in a short time, or too many event streams open: wait the seconds given in Retry-After.',
  431: 'the request headers are too large.',
  500: 'the server failed; nothing you sent is to blame. Quote the request_id when you report it.',
  503: 'the server cannot take this now (shutting down, or too busy); try again after Retry-After.',
};

/** Every status this API answers with, in order. */
export const STATUS_MEANINGS: ReadonlyMap<number, StatusMeaning> = new Map(
  Object.keys(MEANINGS)
    .map(Number)
    .sort((a, b) => a - b)
    .map((status) => [
      status,
      { title: SUCCESS_TITLES[status] ?? STATUS_TITLES[status] ?? 'Unknown', meaning: MEANINGS[status] as string },
    ]),
);

/**
 * Meanings for one situation, keyed "METHOD status" or "METHOD path status" (the
 * most specific key wins): what the same status says about this particular request.
 */
export const SITUATION_MEANINGS: Readonly<Record<string, string>> = {
  'POST /v1/tokens 201':
    'you are logged in: the body holds your token (access_token) and how many seconds it lasts (expires_in).',
  'POST /v1/tokens 401':
    'the email or the password is wrong (the answer does not say which, so it cannot be used to find out who has an account).',
  'HEAD 200': 'it worked: these are the headers a GET would send, without the body.',
  'OPTIONS 204': 'the Allow header lists the methods this path answers; no token is needed to ask.',
  'DELETE 204': 'the record is deleted; a second DELETE of the same address answers 404.',
  'PUT 200': 'the record was replaced; the body shows it as it is now, with its new ETag.',
  'PATCH 200': 'the record was changed; the body shows it as it is now, with its new ETag.',
};
