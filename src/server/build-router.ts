// The router a server answers with (routing/router.ts), made once at its start from the route table and its
// endpoints (routes.ts); the Allow header of each route and of `OPTIONS *` (RFC 9110 §10.2.1), and the OpenAPI
// document of the same routes.

import type { ResourceTable } from '../resources/definition.ts';
import type { Documents } from '../handlers/service-handlers.ts';
import { jsonReply } from '../http/respond.ts';
import { documentsServed } from './documents.ts';
import { routeTable, type RouteSpec } from '../routing/route-table.ts';
import { Router } from '../routing/router.ts';
import { endpointFor, type Endpoint } from './routes.ts';

/** Stand-ins for describing the routes (their methods) before the real documents exist. */
const NO_DOCUMENTS: Documents = {
  openApi: () => Promise.resolve(jsonReply(200, {})),
  homePage: () => Promise.resolve(jsonReply(200, {})),
  apiIndex: jsonReply(200, {}),
};

/** The Allow header of a route: its methods, HEAD after GET, OPTIONS last. */
export function methodsOf(route: RouteSpec): string {
  return endpointFor(route, NO_DOCUMENTS).allow;
}

/** The OpenAPI document of everything the router serves (its generator loaded when first asked for). */
export async function describeApi(resources: ResourceTable): Promise<Record<string, unknown>> {
  const { openApiDocument } = await import('../openapi/document.ts');
  return openApiDocument(routeTable(resources), resources, methodsOf);
}

/**
 * Every method some route answers, OPTIONS last: the Allow of `OPTIONS *` and of a 405 that names no route (CONNECT).
 */
export function methodsServed(routes: readonly RouteSpec[]): string {
  const methods = new Set<string>();
  for (const route of routes)
    for (const method of methodsOf(route).split(', ')) if (method !== 'OPTIONS') methods.add(method);
  return [...methods, 'OPTIONS'].join(', ');
}

export interface BuiltRouter {
  readonly router: Router<Endpoint>;
  /** The Allow header of `OPTIONS *`. */
  readonly allMethods: string;
}

export function buildRouter(resources: ResourceTable): BuiltRouter {
  const routes = routeTable(resources);
  const documents = documentsServed(resources, () => describeApi(resources));
  const router = new Router<Endpoint>();
  for (const route of routes) router.add(route.pattern, endpointFor(route, documents));
  return { router, allMethods: methodsServed(routes) };
}
