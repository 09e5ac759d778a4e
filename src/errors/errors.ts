// Errors are data: one table maps each stable error `code` to its HTTP status. Code throws `new HttpError(code,
// detail)`; one catch site (server/listener.ts, through http/problem.ts) turns it into an RFC 9457 problem-details
// body. A StoreUnavailable (store/store.ts) becomes a 503 `not_ready` (storeUnavailable); anything else is a 500.

export const ERROR_STATUS = {
  // 400 Bad Request — RFC 9110 §15.5.1
  invalid_query: 400,
  malformed_json: 400,
  body_not_object: 400,
  body_required: 400,
  body_too_deep: 400,
  malformed_request: 400,
  idempotency_key_not_accepted: 400,
  // 401 Unauthorized — RFC 9110 §15.5.2, RFC 6750 §3
  unauthenticated: 401,
  invalid_token: 401,
  invalid_credentials: 401,
  // 403 Forbidden — RFC 9110 §15.5.4
  forbidden: 403,
  // 404 Not Found — RFC 9110 §15.5.5
  route_not_found: 404,
  unversioned_path: 404,
  record_not_found: 404,
  // 405 Method Not Allowed — RFC 9110 §15.5.6 (always with Allow)
  method_not_allowed: 405,
  // 406 Not Acceptable — RFC 9110 §15.5.7
  not_acceptable: 406,
  // 408 Request Timeout — RFC 9110 §15.5.9
  request_timeout: 408,
  // 409 Conflict — RFC 9110 §15.5.10
  duplicate_value: 409,
  invalid_transition: 409,
  items_frozen: 409,
  still_referenced: 409,
  write_conflict: 409,
  idempotency_key_in_flight: 409,
  // 410 Gone — RFC 9110 §15.5.11 (the change feed no longer keeps events that old)
  history_gone: 410,
  // 412 Precondition Failed — RFC 9110 §15.5.13
  precondition_failed: 412,
  // 413 Content Too Large — RFC 9110 §15.5.14
  payload_too_large: 413,
  // 414 URI Too Long — RFC 9110 §15.5.15
  uri_too_long: 414,
  // 415 Unsupported Media Type — RFC 9110 §15.5.16
  unsupported_media_type: 415,
  // 417 Expectation Failed — RFC 9110 §15.5.18 (only 100-continue is understood)
  expectation_failed: 417,
  // 422 Unprocessable Content — RFC 9110 §15.5.21
  validation_failed: 422,
  idempotency_key_reused: 422,
  // a webhook's URL names an address it may not reach (docs/webhooks.md: Safe targets)
  forbidden_target: 422,
  // 431 Request Header Fields Too Large — RFC 6585 §5
  headers_too_large: 431,
  // 429 Too Many Requests — RFC 6585 §4
  rate_limited: 429,
  too_many_streams: 429,
  // 500 Internal Server Error — RFC 9110 §15.6.1
  internal_error: 500,
  // the application plainrest is mounted in read the body first and did not hand it over (http/host-body.ts)
  body_already_read: 500,
  // 503 Service Unavailable — RFC 9110 §15.6.4
  not_ready: 503,
  overloaded: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Reason phrases; with `type: "about:blank"` the title is the status phrase (RFC 9457 §4.2.1). */
export const STATUS_TITLES: Readonly<Record<number, string>> = {
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

/** One offending field or query parameter, named in the client's vocabulary. */
export interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/** An error meant for the client: its code, detail and field errors are safe to show. */
export class HttpError extends Error {
  /** One of ERROR_STATUS's codes, or a hook's own (HookConflict). */
  readonly code: string;
  readonly status: number;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** In a batch's answer, the index of the operation refused (README: Batches); else undefined. */
  readonly operation: number | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    extra: { errors?: readonly FieldError[]; headers?: Record<string, string>; operation?: number } = {},
  ) {
    super(detail);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = extra.errors;
    this.headers = extra.headers;
    this.operation = extra.operation;
  }
}

/** `error` as a batch answers it when its operation `index` was refused so: the same problem, naming the operation. */
export function inOperation(error: HttpError, index: number): HttpError {
  const named = new HttpError('write_conflict', error.message, {
    ...(error.errors === undefined ? {} : { errors: error.errors }),
    ...(error.headers === undefined ? {} : { headers: { ...error.headers } }),
    operation: index,
  });
  // The code and status as refused, a hook's own code too (HookConflict).
  Object.defineProperty(named, 'code', { value: error.code });
  Object.defineProperty(named, 'status', { value: error.status });
  return named;
}

/**
 * A 409 an embedding hook refuses a write with (README: Embedding): the state of the
 * data does not allow it. `code` is the hook's own (`items_frozen`), lower-case words
 * joined by `_`; without one it is `write_conflict`.
 */
export class HookConflict extends HttpError {
  constructor(code: string, detail: string) {
    super('write_conflict', detail);
    if (/^[a-z][a-z_]*$/.test(code)) Object.defineProperty(this, 'code', { value: code });
  }
}

/** A 422 whose detail counts the invalid fields, as the README's Errors section says. */
export function validationError(errors: readonly FieldError[]): HttpError {
  const detail = errors.length === 1 ? '1 field is invalid' : `${errors.length} fields are invalid`;
  return new HttpError('validation_failed', detail, { errors });
}

/** A 400 for bad query parameters, naming each one. */
export function queryError(errors: readonly FieldError[]): HttpError {
  const names = errors.map((error) => error.field).join(', ');
  return new HttpError('invalid_query', `invalid query parameter: ${names}`, { errors });
}

/**
 * 503 while the store cannot be reached (a database down or not reached yet): clients are told to retry in a second.
 */
export function storeUnavailable(detail: string): HttpError {
  return new HttpError('not_ready', detail, { headers: { 'Retry-After': '1' } });
}
