// A request's query string read as name/value pairs (WHATWG URL: application/x-www-form-urlencoded parsing), shared by
// list queries (list-query.ts), record and other paths' queries (record-query.ts) and the change feed's.

/** Splits a raw query string into name/value pairs, percent-decoded (WHATWG URL rules). */
export function parameterPairs(queryString: string): [string, string][] {
  return queryString === '' ? [] : [...new URLSearchParams(queryString)];
}

/**
 * The same pairs with each value as sent, not yet decoded: a list's `in` and `or` are split on their raw commas and
 * parentheses first (filter-operators.ts), so that a value may hold an encoded comma.
 */
export function rawParameterPairs(queryString: string): [string, string][] {
  const pairs: [string, string][] = [];
  if (queryString === '') return pairs;
  for (const part of queryString.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    if (equals < 0) pairs.push([formDecoded(part), '']);
    else pairs.push([formDecoded(part.slice(0, equals)), part.slice(equals + 1)]);
  }
  return pairs;
}

/** A name or value percent-decoded as URLSearchParams decodes it (`+` is a space, a bad escape left as it is). */
export function formDecoded(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  // A part of a query string holds no `&`, and its value runs to the end whatever `=` it holds.
  return new URLSearchParams(`v=${raw}`).get('v') ?? '';
}
