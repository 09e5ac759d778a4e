// A request's query string read as name/value pairs (WHATWG URL: application/x-www-form-urlencoded parsing), shared by
// list queries (list-query.ts), record and other paths' queries (record-query.ts) and the change feed's.

/** Splits a raw query string into name/value pairs, percent-decoded (WHATWG URL rules). */
export function parameterPairs(queryString: string): [string, string][] {
  return queryString === '' ? [] : [...new URLSearchParams(queryString)];
}
