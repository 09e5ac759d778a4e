// The base path (README: Embedding; docs/embedding.md): a prefix such as `/api` that plainrest is served under, in a
// host's app or behind a proxy. A request's path may come with it (Fastify, Hono, a proxy that forwards as it is) or
// without it (Express's `app.use('/api', …)` takes it off): both are served, the prefix taken off when it is there.
// The path is then read as at the root; every link sent is built on the path as the client addressed it.

/** A path segment's characters (RFC 3986 §3.3: pchar), each, or a percent-encoded octet. */
const SEGMENT = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+$/;

/** Why `basePath` cannot be one (a sentence that names it), or undefined: `""` (none) or a path such as `/api`. */
export function basePathProblem(basePath: string): string | undefined {
  if (basePath === '') return undefined;
  const shown = JSON.stringify(basePath);
  if (!basePath.startsWith('/')) return `basePath must start with "/", as "/api" does, not ${shown}`;
  if (/[?#]/.test(basePath)) return `basePath is a path only, without "?" or "#": not ${shown}`;
  if (basePath.endsWith('/')) {
    const trimmed = basePath.replace(/\/+$/, '');
    return trimmed === ''
      ? 'basePath "/" is the root: leave basePath unset to serve at the root'
      : `basePath must not end with "/": ${JSON.stringify(trimmed)}, not ${shown}`;
  }
  for (const segment of basePath.slice(1).split('/')) {
    if (segment === '') return `basePath must not hold an empty segment ("//"): not ${shown}`;
    if (segment === '.' || segment === '..') return `basePath must not hold a "." or ".." segment: not ${shown}`;
    if (!SEGMENT.test(segment))
      return `basePath holds a character a path cannot carry as it is (RFC 3986 §3.3): percent-encode it, not ${shown}`;
  }
  return undefined;
}

/**
 * The path as plainrest's routes read it: `path` without `basePath` in front (`/api/v1/products` → `/v1/products`,
 * `/api` → `/`), or `path` itself when the host already took the prefix off (or it never had it: `/apiary` is not under
 * `/api`).
 */
export function routePathOf(path: string, basePath: string): string {
  if (!path.startsWith(basePath)) return path;
  if (path.length === basePath.length) return '/';
  return path.charCodeAt(basePath.length) === 47 /* "/" */ ? path.slice(basePath.length) : path;
}

/** The path as the client addressed it, under `basePath`: `path` if it came with the prefix, else the prefix added. */
export function addressedPath(path: string, routePath: string, basePath: string): string {
  if (routePath !== path || path.charCodeAt(0) !== 47 /* "/": not `*` */) return path;
  return basePath + path;
}

/** `text` as the source of a regular expression that matches it literally (a base path in a pattern). */
export function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
