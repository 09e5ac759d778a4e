// Shared assertions for the HTTP tests: status titles, header formats, JSON and empty
// answers, and problem details (README: Errors) with their errors[]. Each helper is the
// strictest of the copies the test files used to keep, so every file checks the same
// contract. Server start-up and request helpers live in helpers.ts.

import assert from 'node:assert/strict';

/** The title of a problem with `type: "about:blank"`: the status phrase (RFC 9110 §15). */
export const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** A strong entity tag: a quoted opaque string, no `W/` prefix. */
export const STRONG_ETAG = /^"[^"]+"$/;

/** An RFC 3339 timestamp in UTC, with at most nanosecond fractions. */
export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** The Allow header of a collection and of an item (README: Methods). */
export const COLLECTION_ALLOW = 'GET, HEAD, POST, OPTIONS';
export const ITEM_ALLOW = 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS';

/** What the helpers read from an answer: a TestResponse, or a reply read with node:http. */
export interface Reply {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: any;
  readonly text: string;
}

/** One expected errors[] entry; its message is prose, not contract. */
export interface FieldErrorExpectation {
  readonly field: string;
  readonly code: string;
}

function assertStatus(response: Reply, status: number): void {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text}`);
}

function assertRequestId(response: Reply): void {
  assert.ok((response.headers.get('x-request-id') ?? '') !== '', 'X-Request-Id is present');
}

/** A JSON answer: exact status, Content-Type application/json, an X-Request-Id. */
export function assertJson(response: Reply, status: number): void {
  assertStatus(response, status);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assertRequestId(response);
}

/** An answer without a body (204, 304): exact status, no body, no Content-Type, an X-Request-Id. */
export function assertEmpty(response: Reply, status: number): void {
  assertStatus(response, status);
  assert.equal(response.text, '');
  assert.equal(response.headers.get('content-type'), null);
  assertRequestId(response);
}

/** The {field, code} pairs of a problem's errors[], in the order sent. */
export function errorCodes(response: Reply): FieldErrorExpectation[] {
  return (response.body.errors as FieldErrorExpectation[]).map(({ field, code }) => ({ field, code }));
}

/** Field errors in a fixed order (by field, then code), to compare them as a set. */
export function sortErrors(errors: readonly FieldErrorExpectation[]): FieldErrorExpectation[] {
  return [...errors].sort((a, b) => (a.field + ' ' + a.code).localeCompare(b.field + ' ' + b.code));
}

/**
 * A problem-details answer (README: Errors): exact status, Content-Type application/json
 * (or `options.contentType`), an X-Request-Id, and a body with exactly type
 * "about:blank", title, status, code, a non-empty detail, instance and request_id (equal
 * to the X-Request-Id header). Without `errors` the body has no errors member; with it,
 * errors[] holds exactly these {field, code} entries (in any order), each entry is
 * exactly {field, code, message} with a non-empty message, and a 422's detail counts
 * them ("1 field is invalid", "N fields are invalid").
 */
export function assertProblem(
  response: Reply,
  status: number,
  code: string,
  instance: string,
  errors?: readonly FieldErrorExpectation[],
  options: { readonly contentType?: string } = {},
): void {
  assertStatus(response, status);
  assert.equal(response.headers.get('content-type'), options.contentType ?? 'application/json');
  assertRequestId(response);
  assert.ok(TITLES[status] !== undefined, `no title known for status ${status}`);
  const body = response.body;
  assert.ok(
    body !== null && typeof body === 'object' && !Array.isArray(body),
    `a problem body is an object: ${response.text}`,
  );
  const members = ['type', 'title', 'status', 'code', 'detail', 'instance', 'request_id'];
  if (errors !== undefined) members.push('errors');
  assert.deepEqual(Object.keys(body).sort(), members.sort());
  const { detail, errors: sent, ...rest } = body;
  assert.deepEqual(rest, {
    type: 'about:blank',
    title: TITLES[status],
    status,
    code,
    instance,
    request_id: response.headers.get('x-request-id'),
  });
  assert.equal(typeof detail, 'string');
  assert.ok(detail.length > 0, 'detail is not empty');
  if (errors === undefined) return;
  assert.ok(Array.isArray(sent) && sent.length > 0, 'errors[] is a non-empty array');
  for (const entry of sent as Record<string, unknown>[]) {
    assert.deepEqual(Object.keys(entry).sort(), ['code', 'field', 'message']);
    assert.equal(typeof entry['message'], 'string');
    assert.ok((entry['message'] as string).length > 0, 'message is not empty');
  }
  assert.deepEqual(sortErrors(errorCodes(response)), sortErrors(errors));
  if (status === 422)
    assert.equal(detail, errors.length === 1 ? '1 field is invalid' : `${errors.length} fields are invalid`);
}

/** Resolves once the clock has moved past `timestamp`, so a bumped updated_at must differ from it. */
export async function clockPast(timestamp: string): Promise<void> {
  while (new Date().toISOString() <= timestamp) await new Promise((resolve) => setImmediate(resolve));
}
