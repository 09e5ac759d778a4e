// The response headers the document describes, as reusable components (README: Headers): those every answer carries
// (X-Request-Id; the RateLimit fields while limiting is on; CORS when the Origin is allowed), those of particular
// answers (Retry-After, WWW-Authenticate, ETag, Location, Link, Allow, Idempotent-Replayed), and the change feed's.

import { EXAMPLE_REQUEST_ID } from './written-examples.ts';
import { MAX_TARGET_LENGTH, REQUEST_ID_SCHEMA } from './problem-schema.ts';

type Json = Record<string, unknown>;

/** Counts of requests: RATE_LIMIT is any whole number JavaScript prints as digits. */
const NUMBER_TEXT = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
/** A strong entity tag as resources/representation.ts makes them: a base64url digest in quotes. */
const ENTITY_TAG = { type: 'string', pattern: '^"[A-Za-z0-9_-]*"$', maxLength: 64 };
/** The bucket refills completely in a minute, so no wait is longer (http/rate-limit.ts). */
const SECONDS_TO_FULL = { type: 'integer', format: 'int32', minimum: 0, maximum: 60 };

/** Named after the header they describe; a second description of the same header adds what it is for (`ETag-List`). */
export const HEADER_COMPONENTS: Readonly<Record<string, Json>> = {
  'X-Request-Id': {
    description:
      'The id of this request, also in the access log and in error bodies: ' +
      "the client's own X-Request-Id when it is 1–128 of A–Z a–z 0–9 . _ : -, else one the server made.",
    required: true,
    schema: REQUEST_ID_SCHEMA,
    example: EXAMPLE_REQUEST_ID,
  },
  // The RateLimit fields of the IETF draft "RateLimit header fields for HTTP".
  'RateLimit-Limit': {
    description:
      'Requests a client (a user, or an address before it logs in) may make per minute (RATE_LIMIT). ' +
      'Absent when rate limiting is off.',
    schema: { ...NUMBER_TEXT, minimum: 1 },
    example: 1200,
  },
  'RateLimit-Remaining': {
    description: 'Requests left to this client now. Absent when rate limiting is off.',
    schema: NUMBER_TEXT,
    example: 1199,
  },
  'RateLimit-Reset': {
    description: "Seconds until the client's allowance is full again. Absent when rate limiting is off.",
    schema: SECONDS_TO_FULL,
    example: 1,
  },
  // On 429 (RFC 6585 §4).
  'Retry-After': {
    description: 'Seconds to wait before the next request will be admitted (RFC 9110 §10.2.3).',
    required: true,
    schema: { ...SECONDS_TO_FULL, minimum: 1 },
    example: 20,
  },
  'Retry-After-Unavailable': {
    description:
      'Seconds to wait before trying again, when the server knows (it is busy reading other bodies, or shutting down).',
    schema: { ...SECONDS_TO_FULL, minimum: 1 },
    example: 1,
  },
  'Access-Control-Allow-Origin': {
    description:
      "Present when the request's Origin is one CORS_ORIGINS allows (the Fetch standard); none is allowed by default.",
    schema: { type: 'string', pattern: '^(\\*|null|[a-z][a-z0-9+.-]*://[^ ]+)$', maxLength: 2048 },
    example: 'https://app.example.com',
  },
  'WWW-Authenticate': {
    description: 'The Bearer challenge (RFC 6750 §3), with error="invalid_token" when a token was sent but refused.',
    required: true,
    schema: { type: 'string', pattern: '^Bearer realm=', maxLength: 1024 },
    example: 'Bearer realm="plainrest", error="invalid_token", error_description="the token has expired"',
  },
  ETag: {
    description:
      'Strong validator of what was sent (RFC 9110 §8.8.3): send it back in If-None-Match to read it again only if ' +
      'it changed, or, for a record, in If-Match to change it safely.',
    required: true,
    schema: ENTITY_TAG,
    example: '"m_I3fVkb5mszKzp6w8Fq6wM7cXM"',
  },
  'ETag-List': {
    description:
      'Weak validator of this page (RFC 9110 §8.8.1): ' +
      'send it back in If-None-Match to get 304 while the page is unchanged.',
    required: true,
    schema: { type: 'string', pattern: '^W/"[A-Za-z0-9_-]*"$', maxLength: 66 },
    example: 'W/"Tm1whnVuFVlNkIhmc2H44OwKasU"',
  },
  'ETag-Current': {
    description: 'The ETag the record has now.',
    schema: ENTITY_TAG,
    example: '"m_I3fVkb5mszKzp6w8Fq6wM7cXM"',
  },
  Location: {
    description: 'The path of the new record, in the vocabulary of the request.',
    required: true,
    schema: { type: 'string', format: 'uri-reference', maxLength: MAX_TARGET_LENGTH },
    example: '/v1/products/13',
  },
  // IETF draft "The Idempotency-Key HTTP Header Field".
  'Idempotent-Replayed': {
    description:
      'Present when this is the replay of an earlier POST with the same Idempotency-Key and body: ' +
      'nothing new was created.',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
  Link: {
    description: "The self, first, prev, next and last pages (RFC 8288), as in the body's links.",
    required: true,
    schema: { type: 'string' },
    example:
      '</v1/products?page=1&limit=2>; rel="self", </v1/products?page=1&limit=2>; rel="first", ' +
      '</v1/products?page=2&limit=2>; rel="next", </v1/products?page=6&limit=2>; rel="last"',
  },
  'ETag-Feed': {
    description:
      'On the list (not on a stream): strong validator of this page of events (RFC 9110 §8.8.3); ' +
      'send it back in If-None-Match to get 304 while the page is unchanged.',
    schema: ENTITY_TAG,
    example: '"r6clwqLTcYMDO3W6rC24QINwaks"',
  },
  'Link-Feed': {
    description:
      "On the list (not on a stream): the self, first, prev, next and last pages (RFC 8288), as in the body's links.",
    schema: { type: 'string' },
    example:
      '</v1/events?page=1&limit=20>; rel="self", </v1/events?page=1&limit=20>; rel="first", ' +
      '</v1/events?page=1&limit=20>; rel="last"',
  },
  // An event stream must reach the client uncached and unbuffered (WHATWG HTML §9.2).
  'Cache-Control-Stream': {
    description: 'On a stream: no cache may keep it (RFC 9111 §5.2.2.5).',
    schema: { type: 'string', enum: ['no-store'] },
    example: 'no-store',
  },
  'X-Accel-Buffering': {
    description:
      'On a stream: asks a reverse proxy (nginx) to pass each event on at once instead of buffering the answer.',
    schema: { type: 'string', enum: ['no'] },
    example: 'no',
  },
  Allow: {
    description: 'The methods this path answers (RFC 9110 §10.2.1).',
    required: true,
    schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$', maxLength: 64 },
    example: 'GET, HEAD, POST, OPTIONS',
  },
  'Accept-Patch': {
    description: 'The media types PATCH reads (RFC 5789 §3.1).',
    required: true,
    schema: { type: 'string', enum: ['application/merge-patch+json, application/json'] },
    example: 'application/merge-patch+json, application/json',
  },
  'Vary-Accept': {
    description:
      'The answer depends on Accept ' +
      '(JSON or the HTML home page; the change feed as JSON or as a stream; RFC 9110 §12.5.5), ' +
      'on Accept-Encoding but for a stream (never compressed), and on Origin where CORS is on.',
    required: true,
    schema: { type: 'string', pattern: '^Accept(, Accept-Encoding)?(, Origin)?$' },
    example: 'Accept, Accept-Encoding',
  },
  Vary: {
    description:
      'On every answer with a body: it may be compressed, so it depends on Accept-Encoding (RFC 9110 §12.5.5); ' +
      'and on Origin where CORS is on.',
    schema: { type: 'string', pattern: '^(Accept-Encoding(, Origin)?|Origin)$' },
    example: 'Accept-Encoding',
  },
  'Content-Encoding': {
    description:
      'The body compressed (RFC 9110 §8.4), when Accept-Encoding allows it and the body is 1 KiB or more; ' +
      'the ETag then names the compressed bytes (it ends in -br, -zstd or -gzip).',
    schema: { type: 'string', enum: ['br', 'zstd', 'gzip'] },
    example: 'gzip',
  },
  'Cache-Control-Page': {
    description: 'On the HTML page: check with the server before reusing a copy (RFC 9111 §5.2.2.4).',
    schema: { type: 'string', enum: ['no-cache'] },
    example: 'no-cache',
  },
  'Cache-Control-Batch': {
    description:
      "no-store when an operation's answer holds a secret shown once (a new API key's): no cache may keep it " +
      '(RFC 9111 §5.2.2.5).',
    schema: { type: 'string', enum: ['no-store'] },
    example: 'no-store',
  },
  'Cache-Control-No-Store': {
    description: 'A token, or an API key shown once, must not be stored by caches (RFC 6749 §5.1, RFC 9111 §5.2.2.5).',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
    example: 'no-store',
  },
};

const headerReference = (component: keyof typeof HEADER_COMPONENTS): Json => ({
  $ref: `#/components/headers/${component}`,
});

/**
 * Headers on every answer of an operation (README: Headers): X-Request-Id, the RateLimit fields, CORS, and a body's
 * coding.
 */
export function everyAnswerHeaders(): Json {
  return {
    'X-Request-Id': headerReference('X-Request-Id'),
    'RateLimit-Limit': headerReference('RateLimit-Limit'),
    'RateLimit-Remaining': headerReference('RateLimit-Remaining'),
    'RateLimit-Reset': headerReference('RateLimit-Reset'),
    'Access-Control-Allow-Origin': headerReference('Access-Control-Allow-Origin'),
    Vary: headerReference('Vary'),
    'Content-Encoding': headerReference('Content-Encoding'),
  };
}

/** The headers particular to one status of an error answer. */
export function errorHeaders(status: number): Json {
  switch (status) {
    case 401:
      return { 'WWW-Authenticate': headerReference('WWW-Authenticate') };
    case 412:
      return { ETag: headerReference('ETag-Current') };
    case 429:
      return { 'Retry-After': headerReference('Retry-After') };
    case 503:
      return { 'Retry-After': headerReference('Retry-After-Unavailable') };
    default:
      return {};
  }
}

/** Named headers of success answers, by what they say. */
export const SUCCESS_HEADERS = {
  etag: { ETag: headerReference('ETag') },
  listEtag: { ETag: headerReference('ETag-List') },
  created: {
    Location: headerReference('Location'),
    ETag: headerReference('ETag'),
    'Idempotent-Replayed': headerReference('Idempotent-Replayed'),
  },
  link: { Link: headerReference('Link') },
  allow: { Allow: headerReference('Allow') },
  acceptPatch: { 'Accept-Patch': headerReference('Accept-Patch') },
  noStore: { 'Cache-Control': headerReference('Cache-Control-No-Store') },
  /** A batch's 200: kept by no cache when it shows a secret, and maybe the replay of an earlier answer. */
  batch: {
    'Cache-Control': headerReference('Cache-Control-Batch'),
    'Idempotent-Replayed': headerReference('Idempotent-Replayed'),
  },
  /** A new API key: its Location and ETag, kept by no cache, and never a replay (it takes no Idempotency-Key). */
  createdSecret: {
    Location: headerReference('Location'),
    ETag: headerReference('ETag'),
    'Cache-Control': headerReference('Cache-Control-No-Store'),
  },
  page: { Vary: headerReference('Vary-Accept'), 'Cache-Control': headerReference('Cache-Control-Page') },
  /** The change feed's 200: the list's validator and pages, or the stream's. */
  feed: {
    Vary: headerReference('Vary-Accept'),
    ETag: headerReference('ETag-Feed'),
    Link: headerReference('Link-Feed'),
    'Cache-Control': headerReference('Cache-Control-Stream'),
    'X-Accel-Buffering': headerReference('X-Accel-Buffering'),
  },
} as const;
