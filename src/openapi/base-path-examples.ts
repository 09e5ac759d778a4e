// The document's examples under a base path (http/base-path.ts). Its `paths` stay relative to its server, the base path
// (OpenAPI 3.1 §4.8.1: a path is appended to the server's URL), and its prose names them so; but an example shows what
// a client receives, and every link plainrest sends (Location, Link, a list's links, an event's path, a problem's
// instance) is an absolute path, so in the examples each starts with the base path as it does in the answers.

import { API_PREFIX } from '../routing/route-table.ts';

type Json = Record<string, unknown>;

/** A path plainrest serves, as the whole of an example's text: `/v1/products/13`, `/readyz` (a problem's instance). */
const SERVED_PATH = new RegExp(`^/(?:${API_PREFIX.slice(1)}(?:[/?].*)?|healthz|readyz)?$`, 's');
/** A path under the API inside an example's text: in a Link field (`</v1/products?page=2>`), in JSON as text. */
const API_PATH = new RegExp(`([<"])${API_PREFIX}(?=[/?>"])`, 'g');

/** `document` with every path it serves in its examples (members named `example` or `examples`) under `basePath`. */
export function withExamplesUnder(document: Json, basePath: string): Json {
  return rewritten(document, false, basePath) as Json;
}

function rewritten(value: unknown, inExample: boolean, basePath: string): unknown {
  if (typeof value === 'string') {
    if (!inExample) return value;
    if (SERVED_PATH.test(value)) return basePath + value;
    return value.replace(API_PATH, (_, before: string) => `${before}${basePath}${API_PREFIX}`);
  }
  if (Array.isArray(value)) return value.map((item) => rewritten(item, inExample, basePath));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [
      name,
      rewritten(member, inExample || name === 'example' || name === 'examples', basePath),
    ]),
  );
}
