// Answers as json-server 0.17 gives them (docs/json-server.md: Serving json-server's dialect): JSON as express's
// res.jsonp sends it (nosniff), `Cache-Control: no-cache` as its defaults add, `{}` with the 404 of a path or record it
// has not, and the core's 404 turned into that; every other refusal of the core stays its problem answer (RFC 9457).

import { HttpError } from '../errors/errors.ts';
import type { Headers, Reply } from '../http/respond.ts';
import type { JsonValue } from '../records/json.ts';

/** The type express gives JSON. */
export const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Headers every answer of json-server's router gets: its defaults' (no cache, for Internet Explorer's sake), and
 * res.jsonp's nosniff.
 */
const ROUTER_HEADERS: Headers = {
  'Cache-Control': 'no-cache',
  Pragma: 'no-cache',
  Expires: '-1',
  'X-Content-Type-Options': 'nosniff',
};

/** `value` as json-server sends it, with `status` and `headers`. */
export function jsonAnswer(status: number, value: JsonValue, headers: Headers = {}): Reply {
  return {
    status,
    headers: { ...ROUTER_HEADERS, ...headers },
    body: JSON.stringify(value, null, 2),
    contentType: JSON_UTF8,
  };
}

/** What json-server answers for what it does not have: 404 and `{}`. */
export function notFound(): Reply {
  return jsonAnswer(404, {});
}

/** Whether `error` is the core's 404 (no such record, nothing at that path). */
export function isNotFound(error: unknown): boolean {
  return error instanceof HttpError && error.status === 404;
}

/** `answer()`, or json-server's 404 when the core has no such record. */
export async function orNotFound(answer: () => Promise<Reply>): Promise<Reply> {
  try {
    return await answer();
  } catch (error) {
    if (isNotFound(error)) return notFound();
    throw error;
  }
}
