// The route table, built once at start from the resource declarations: every
// collection and item path in both vocabularies (README: Paths), plus the API index,
// the token endpoint, the health checks and the home page (`/`). Each path lists its methods; HEAD follows
// GET (RFC 9110 §9.3.2) and OPTIONS is answered for every path from the same list.
// Every method needs a bearer token except those an endpoint lists as open (README: Authentication and permissions). The
// same table drives the OpenAPI document, so the two cannot disagree.

import type { RequestContext } from './context.js';
import { createRecord, listRecords } from './handlers/collection-handlers.js';
import type { Documents } from './handlers/service-handlers.js';
import { apiIndex, documentReply, healthCheck, homePage, readinessCheck, serveDocument } from './handlers/service-handlers.js';
import { createToken } from './handlers/token-handler.js';
import { deleteRecord, readRecord, updateRecord } from './handlers/item-handlers.js';
import { homePageReply } from './home/home-page.js';
import type { OpenApiView } from './home/openapi-view.js';
import { HttpError } from './http/errors.js';
import { openApiDocument } from './openapi/document.js';
import type { Reply } from './http/respond.js';
import { jsonReply } from './http/respond.js';
import type { ResourceDefinition } from './resources/definition.js';
import { RESOURCES, RESOURCE_BY_COLLECTION } from './resources/index.js';
import { Router } from './router.js';
import type { Language } from './vocabulary.js';
import { LANGUAGES, translate } from './vocabulary.js';

export const API_PREFIX = '/v1';

export type Handler = (context: RequestContext) => Reply | Promise<Reply>;

export interface Endpoint {
  /** By method; GET also answers HEAD. */
  readonly handlers: ReadonlyMap<string, Handler>;
  /** The Allow header value (RFC 9110 §10.2.1). */
  readonly allow: string;
  /** Methods answered without a token (OPTIONS always is; HEAD follows GET). */
  readonly open: ReadonlySet<string>;
  /** The handlers choose between JSON and HTML on Accept themselves; every other endpoint answers only JSON. */
  readonly negotiates: boolean;
}

interface EndpointOptions {
  /** Methods answered without a token. */
  readonly open?: readonly string[];
  /** See Endpoint.negotiates. */
  readonly negotiates?: boolean;
}

function endpoint(handlers: Record<string, Handler>, { open = [], negotiates = false }: EndpointOptions = {}): Endpoint {
  const methods = Object.keys(handlers);
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  const openMethods = new Set(open);
  if (openMethods.has('GET')) openMethods.add('HEAD');
  return { handlers: new Map(Object.entries(handlers)), allow: [...methods, 'OPTIONS'].join(', '), open: openMethods, negotiates };
}

/** `/v1/users`, `/v1/users/:user_id/orders`, `/v1/usuarios/:user_id/pedidos`, … */
export function collectionPattern(definition: ResourceDefinition, language: Language): string {
  const name = translate(definition.collection, language);
  const parent = definition.parent === undefined ? undefined : RESOURCE_BY_COLLECTION.get(definition.parent.collection);
  if (parent === undefined) return `${API_PREFIX}/${name}`;
  return `${collectionPattern(parent, language)}/:${parent.singular}_id/${name}`;
}

/** Every route, as data: what the router serves and the OpenAPI document describes. */
export type RouteSpec =
  | { readonly pattern: string; readonly kind: 'home' | 'health' | 'readiness' | 'index' | 'openapi' | 'tokens' }
  | { readonly pattern: string; readonly kind: 'collection' | 'item'; readonly definition: ResourceDefinition; readonly language: Language };

export function routeTable(): RouteSpec[] {
  const routes: RouteSpec[] = [
    { pattern: '/', kind: 'home' },
    { pattern: '/healthz', kind: 'health' },
    { pattern: '/readyz', kind: 'readiness' },
    { pattern: API_PREFIX, kind: 'index' },
    { pattern: `${API_PREFIX}/openapi.json`, kind: 'openapi' },
    { pattern: `${API_PREFIX}/tokens`, kind: 'tokens' },
  ];
  for (const language of LANGUAGES) {
    for (const definition of RESOURCES) {
      const collection = collectionPattern(definition, language);
      routes.push({ pattern: collection, kind: 'collection', definition, language });
      routes.push({ pattern: `${collection}/:${definition.singular}_id`, kind: 'item', definition, language });
    }
  }
  return routes;
}

/** Stand-ins for describing the routes (their methods) before the real documents exist. */
const NO_DOCUMENTS: Documents = { openApi: jsonReply(200, {}), homePage: jsonReply(200, {}), apiIndex: jsonReply(200, {}) };

/** The handlers of a route, which of them need no token (README: Authentication and permissions), and the documents they serve. */
export function endpointFor(route: RouteSpec, documents: Documents): Endpoint {
  const open = ['GET'];
  switch (route.kind) {
    case 'home':
      return endpoint({ GET: (context) => homePage(context, documents) }, { open, negotiates: true });
    case 'health':
      return endpoint({ GET: healthCheck }, { open });
    case 'readiness':
      return endpoint({ GET: readinessCheck }, { open });
    case 'index':
      return endpoint({ GET: (context) => apiIndex(context, documents) }, { open, negotiates: true });
    case 'openapi':
      return endpoint({ GET: (context) => serveDocument(context, documents.openApi) }, { open });
    case 'tokens':
      return endpoint({ POST: createToken }, { open: ['POST'] });
    case 'collection': {
      const { definition, language } = route;
      return endpoint({
        GET: (context) => listRecords(context, definition, language),
        POST: (context) => createRecord(context, definition, language),
      });
    }
    case 'item': {
      const { definition, language } = route;
      return endpoint({
        GET: (context) => readRecord(context, definition, language),
        PUT: (context) => updateRecord(context, definition, language, 'replace'),
        PATCH: (context) => updateRecord(context, definition, language, 'patch'),
        DELETE: (context) => deleteRecord(context, definition, language),
      });
    }
  }
}

/** The Allow header of a route: its methods, HEAD after GET, OPTIONS last. */
export function methodsOf(route: RouteSpec): string {
  return endpointFor(route, NO_DOCUMENTS).allow;
}

/** The OpenAPI document of everything the router serves. */
export function describeApi(routes: readonly RouteSpec[] = routeTable()): Record<string, unknown> {
  return openApiDocument(routes, (route) => endpointFor(route, NO_DOCUMENTS));
}

let everyMethod: string | undefined;

/** Every method some route answers, OPTIONS last: the Allow of `OPTIONS *` and of a 405 that names no route (CONNECT). */
export function methodsServed(): string {
  if (everyMethod === undefined) {
    const methods = new Set<string>();
    for (const route of routeTable()) for (const method of methodsOf(route).split(', ')) if (method !== 'OPTIONS') methods.add(method);
    everyMethod = [...methods, 'OPTIONS'].join(', ');
  }
  return everyMethod;
}

/** `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7); no other method may target `*`. */
export function serverWideOptions(method: string): Reply {
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: methodsServed() } };
  throw new HttpError('malformed_request', 'the target "*" is for OPTIONS only (RFC 9110 §9.3.7)');
}

/**
 * The documents the router serves depend only on the route table, which is fixed for
 * the process: they are built once (about 16 ms for the OpenAPI document and the home
 * page), not at every start of an app.
 */
let servedDocuments: Documents | undefined;

function documentsServed(): Documents {
  if (servedDocuments !== undefined) return servedDocuments;
  const description = describeApi();
  servedDocuments = {
    openApi: documentReply(JSON.stringify(description)),
    // The document is built by openapi/document.ts in the shape OpenApiView describes.
    homePage: homePageReply(description as unknown as OpenApiView),
    apiIndex: apiIndexReply(),
  };
  return servedDocuments;
}

export function buildRouter(): Router<Endpoint> {
  const routes = routeTable();
  const documents = documentsServed();
  const router = new Router<Endpoint>();
  for (const route of routes) router.add(route.pattern, endpointFor(route, documents));
  return router;
}

/** The API's entry point: a link to every top-level collection, in both vocabularies. */
function apiIndexReply(): Reply {
  const links: Record<string, string> = { self: API_PREFIX, openapi: `${API_PREFIX}/openapi.json`, tokens: `${API_PREFIX}/tokens` };
  for (const language of LANGUAGES) {
    for (const definition of RESOURCES) {
      if (definition.parent !== undefined) continue;
      const name = translate(definition.collection, language);
      links[name] = `${API_PREFIX}/${name}`;
    }
  }
  return documentReply(JSON.stringify({ name: 'plainrest', version: 'v1', links }), { Vary: 'Accept' });
}

/** A 404 for a path no route matches; an unversioned resource path (`/users`) is pointed at its `/v1` twin (README: Paths). */
export function notFound(path: string, router: Router<Endpoint>): HttpError {
  if (!path.startsWith(`${API_PREFIX}/`) && path !== API_PREFIX) {
    const versioned = `${API_PREFIX}${path}`;
    if (router.match(versioned) !== undefined) {
      return new HttpError('unversioned_path', `API paths carry a version prefix: use ${versioned}`);
    }
  }
  return new HttpError('route_not_found', `nothing is served at ${path}`);
}
