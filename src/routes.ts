// The route table, built once at start from the resource declarations: every
// collection and item path in both vocabularies (CONTRACT §2), plus the API index,
// the token endpoint, the health checks and the home page (`/`). Each path lists its methods; HEAD follows
// GET (RFC 9110 §9.3.2) and OPTIONS is answered for every path from the same list.
// Every method needs a bearer token except those an endpoint lists as open (§6). The
// same table drives the OpenAPI document, so the two cannot disagree.

import type { RequestContext } from './context.js';
import { createRecord, listRecords } from './handlers/collection-handlers.js';
import { createToken } from './handlers/token-handler.js';
import { deleteRecord, readRecord, updateRecord } from './handlers/item-handlers.js';
import { homePageReply } from './home/home-page.js';
import type { OpenApiView } from './home/openapi-view.js';
import { matchesIfNoneMatch } from './http/conditional.js';
import { HttpError } from './http/errors.js';
import { openApiDocument } from './openapi/document.js';
import { entityTag } from './representation.js';
import { rejectQueryParameters } from './http/list-query.js';
import { prefersHtml, requireHtmlAcceptable, requireJsonAcceptable } from './http/negotiation.js';
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

function endpoint(handlers: Record<string, Handler>, open: readonly string[] = [], negotiates = false): Endpoint {
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

/** The documents served as they are, built once at start: the OpenAPI description and the home page. */
export interface Documents {
  readonly openApi: Reply;
  readonly homePage: Reply;
}

/** Stand-ins for describing the routes (their methods), before the real documents exist. */
const NO_DOCUMENTS: Documents = { openApi: jsonReply(200, {}), homePage: jsonReply(200, {}) };

/** The methods of a route, and which of them need no token (CONTRACT §6). */
export function endpointFor(route: RouteSpec, documents: Documents = NO_DOCUMENTS): Endpoint {
  switch (route.kind) {
    case 'home':
      return endpoint({ GET: (context) => homePage(context, documents.homePage) }, ['GET'], true);
    case 'health':
      return endpoint({ GET: healthCheck }, ['GET']);
    case 'readiness':
      return endpoint({ GET: readinessCheck }, ['GET']);
    case 'index':
      return endpoint({ GET: (context) => apiIndex(context, documents.homePage) }, ['GET'], true);
    case 'openapi':
      return endpoint({ GET: (context) => serveDocument(context, documents.openApi) }, ['GET']);
    case 'tokens':
      return endpoint({ POST: createToken }, ['POST']);
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

/** The OpenAPI document of everything the router serves. */
export function describeApi(routes: readonly RouteSpec[] = routeTable()): Record<string, unknown> {
  return openApiDocument(routes, (route) => endpointFor(route));
}

/** Every method some route answers, OPTIONS last: the Allow of a 405 that names no route (CONNECT). */
export function methodsServed(): string {
  const methods = new Set<string>();
  for (const route of routeTable()) {
    for (const method of endpointFor(route).allow.split(', ')) if (method !== 'OPTIONS') methods.add(method);
  }
  return [...methods, 'OPTIONS'].join(', ');
}

let everyMethod: string | undefined;

/** `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): every method it answers somewhere. Any other method may not target `*`. */
export function serverWideOptions(method: string): Reply {
  everyMethod ??= methodsServed();
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: everyMethod } };
  throw new HttpError('malformed_request', 'the target "*" is for OPTIONS only (RFC 9110 §9.3.7)');
}

export function buildRouter(): Router<Endpoint> {
  const routes = routeTable();
  const description = describeApi(routes);
  const document = JSON.stringify(description);
  const documents: Documents = {
    openApi: { status: 200, headers: { ETag: entityTag(document) }, body: document },
    // The document is built by openapi/document.ts in the shape OpenApiView describes.
    homePage: homePageReply(description as unknown as OpenApiView),
  };
  const router = new Router<Endpoint>();
  for (const route of routes) router.add(route.pattern, endpointFor(route, documents));
  return router;
}

/** A document generated once at start (the OpenAPI description, the home page); it carries a strong ETag. */
function serveDocument(context: RequestContext, document: Reply, vary?: string): Reply {
  rejectQueryParameters(context.search);
  const etag = document.headers?.['ETag'] ?? '';
  if (matchesIfNoneMatch(context.req.headers['if-none-match'], etag)) {
    return { status: 304, headers: vary === undefined ? { ETag: etag } : { ETag: etag, Vary: vary } };
  }
  return vary === undefined ? document : { ...document, headers: { ...document.headers, Vary: vary } };
}

/** `/`: the home page, for any client that accepts HTML (406 otherwise: the API is under /v1). */
function homePage(context: RequestContext, page: Reply): Reply {
  requireHtmlAcceptable(context.req.headers.accept);
  return serveDocument(context, page);
}

/** Liveness: the process answers. */
function healthCheck(context: RequestContext): Reply {
  rejectQueryParameters(context.search);
  return jsonReply(200, { status: 'ok' });
}

/** Readiness: 503 while shutting down or when writes can no longer be made durable, so a balancer moves traffic away. */
function readinessCheck(context: RequestContext): Reply {
  rejectQueryParameters(context.search);
  const { services } = context;
  if (services.isShuttingDown()) throw new HttpError('not_ready', 'the server is shutting down', { headers: { 'Retry-After': '10' } });
  if (services.store.writable === false) throw new HttpError('not_ready', 'the server cannot store writes (its disk failed)');
  return jsonReply(200, { status: 'ready' });
}

/** The API's entry point: a link to every top-level collection, in both vocabularies. Built once, with an ETag. */
const API_INDEX: Reply = (() => {
  const links: Record<string, string> = { self: API_PREFIX, openapi: `${API_PREFIX}/openapi.json`, tokens: `${API_PREFIX}/tokens` };
  for (const language of LANGUAGES) {
    for (const definition of RESOURCES) {
      if (definition.parent !== undefined) continue;
      const name = translate(definition.collection, language);
      links[name] = `${API_PREFIX}/${name}`;
    }
  }
  const body = JSON.stringify({ name: 'plainrest', version: 'v1', links });
  return { status: 200, headers: { ETag: entityTag(body) }, body };
})();

/** `/v1`: the index as JSON, or the home page for a client that prefers HTML (a browser); the answer varies on Accept. */
function apiIndex(context: RequestContext, page: Reply): Reply {
  const accept = context.req.headers.accept;
  if (prefersHtml(accept)) return serveDocument(context, page, 'Accept');
  requireJsonAcceptable(accept);
  return serveDocument(context, API_INDEX, 'Accept');
}

/** A 404 for a path no route matches; an unversioned resource path (`/users`) is pointed at its `/v1` twin (CONTRACT §2). */
export function notFound(path: string, router: Router<Endpoint>): HttpError {
  if (!path.startsWith(`${API_PREFIX}/`) && path !== API_PREFIX && path !== '/') {
    const versioned = `${API_PREFIX}${path}`;
    if (router.match(versioned) !== undefined) {
      return new HttpError('unversioned_path', `API paths carry a version prefix: use ${versioned}`);
    }
  }
  return new HttpError('route_not_found', `nothing is served at ${path}`);
}
