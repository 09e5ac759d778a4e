// Answers for a request no route takes: `OPTIONS *`, which asks about the server as a whole (RFC 9110 §9.3.7), and
// the 404 for a path nothing is served at (RFC 9110 §15.5.5).

import { HttpError } from '../errors/errors.ts';
import type { Reply } from '../http/respond.ts';
import { API_PREFIX } from '../routing/route-table.ts';
import type { Router } from '../routing/router.ts';
import type { Endpoint } from './routes.ts';

/** `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7); no other method may target `*`. */
export function serverWideOptions(method: string, allow: string): Reply {
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: allow } };
  throw new HttpError('malformed_request', 'the target "*" is for OPTIONS only (RFC 9110 §9.3.7)');
}

/**
 * A 404 for a path no route matches (`routePath`, the `path` addressed without its base path); an unversioned
 * resource path (`/users`) is pointed at its `/v1` twin (README: Paths), under the same base path.
 */
export function notFound(path: string, routePath: string, router: Router<Endpoint>): HttpError {
  if (!routePath.startsWith(`${API_PREFIX}/`) && routePath !== API_PREFIX) {
    const versioned = `${API_PREFIX}${routePath}`;
    if (router.match(versioned) !== undefined) {
      const basePath = path.slice(0, path.length - routePath.length);
      return new HttpError('unversioned_path', `API paths carry a version prefix: use ${basePath}${versioned}`);
    }
  }
  return new HttpError('route_not_found', `nothing is served at ${path}`);
}
