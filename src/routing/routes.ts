// The route table, built once at start from the resource declarations: every
// collection and item path in every vocabulary (README: Paths), plus the API index,
// the token endpoint, the health checks and the home page (`/`). Each path lists its methods; HEAD follows
// GET (RFC 9110 §9.3.2) and OPTIONS is answered for every path from the same list.
// Every method needs a bearer token except those an endpoint lists as open (README: Authentication and permissions). The
// same table drives the OpenAPI document, so the two cannot disagree.

import type { RequestContext } from '../server/context.ts';
import { createRecord, listRecords } from '../handlers/collection-handlers.ts';
import type { Documents } from '../handlers/service-handlers.ts';
import { apiIndex, documentReply, healthCheck, homePage, readinessCheck, serveDocument } from '../handlers/service-handlers.ts';
import { createToken } from '../handlers/token-handler.ts';
import { eventFeed } from '../handlers/event-handlers.ts';
import { feedWords } from '../events/event-query.ts';
import { deleteRecord, readRecord, updateRecord } from '../handlers/item-handlers.ts';
import { homePageReply } from '../home/home-page.ts';
import type { OpenApiView } from '../home/openapi-view.ts';
import { HttpError } from '../http/errors.ts';
import { openApiDocument } from '../openapi/document.ts';
import type { Reply } from '../http/respond.ts';
import { jsonReply } from '../http/respond.ts';
import type { ResourceTable } from '../declarations/compile-declaration.ts';
import type { Language, Operation, ResourceDefinition } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { Router } from './router.ts';

export const API_PREFIX = '/v1';

export type Handler = (context: RequestContext) => Reply | Promise<Reply>;

export interface Endpoint {
  /** By method; GET also answers HEAD. */
  readonly handlers: ReadonlyMap<string, Handler>;
  /** The Allow header value (RFC 9110 §10.2.1). */
  readonly allow: string;
  /** Methods answered without a token (OPTIONS always is; HEAD follows GET). */
  readonly open: ReadonlySet<string>;
  /** On an open method, a token that is sent is still checked and names the caller (`public` access). */
  readonly identifies: boolean;
  /** The handlers choose between JSON and HTML on Accept themselves; every other endpoint answers only JSON. */
  readonly negotiates: boolean;
  /** The collections of the records the path's ids name, outermost first (`/v1/users/3/orders/5`: users, orders). */
  readonly pathCollections: readonly string[];
  /** Methods whose handler reads or creates records first thing: a store may take their caller as an earlier request read it (store.ts mayRememberCaller). */
  readonly remembersCaller: ReadonlySet<string>;
}

interface EndpointOptions {
  /** Methods answered without a token. */
  readonly open?: readonly string[];
  /** See Endpoint.negotiates. */
  readonly negotiates?: boolean;
  /** See Endpoint.identifies. */
  readonly identifies?: boolean;
  /** See Endpoint.pathCollections. */
  readonly pathCollections?: readonly string[];
  /** See Endpoint.remembersCaller. */
  readonly remembersCaller?: readonly string[];
}

function endpoint(handlers: Record<string, Handler>, { open = [], negotiates = false, identifies = false, pathCollections = [], remembersCaller = [] }: EndpointOptions = {}): Endpoint {
  const methods = Object.keys(handlers);
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return {
    handlers: new Map(Object.entries(handlers)),
    allow: [...methods, 'OPTIONS'].join(', '),
    open: withHead(open),
    negotiates,
    identifies,
    pathCollections,
    remembersCaller: withHead(remembersCaller),
  };
}

/** The methods, and HEAD with GET (HEAD follows GET). */
function withHead(methods: readonly string[]): ReadonlySet<string> {
  const set = new Set(methods);
  if (set.has('GET')) set.add('HEAD');
  return set;
}

/** `/v1/users`, `/v1/users/:user_id/orders`, `/v1/usuarios/:user_id/pedidos`, … */
export function collectionPattern(definition: ResourceDefinition, language: Language): string {
  const name = vocabularyOf(definition, language).collection;
  const parent = definition.parent?.definition;
  if (parent === undefined) return `${API_PREFIX}/${name}`;
  return `${collectionPattern(parent, language)}/:${parent.singular}_id/${name}`;
}

/** The methods of a resource route that its declared access makes `public`. */
function publicMethods(definition: ResourceDefinition, methods: Readonly<Record<string, Operation>>): string[] {
  return Object.entries(methods)
    .filter(([, operation]) => definition.access[operation] === 'public')
    .map(([method]) => method);
}

/** Every route, as data: what the router serves and the OpenAPI document describes. */
export type RouteSpec =
  | { readonly pattern: string; readonly kind: 'home' | 'health' | 'readiness' | 'index' | 'openapi' | 'tokens' }
  | { readonly pattern: string; readonly kind: 'events'; readonly resources: ResourceTable; readonly language: Language }
  | { readonly pattern: string; readonly kind: 'collection' | 'item'; readonly definition: ResourceDefinition; readonly language: Language };

/**
 * Every route of a resource table. A resource without a name of its own in a language
 * has the same path there as in English; that path is served once, in English.
 */
export function routeTable(resources: ResourceTable): RouteSpec[] {
  const routes: RouteSpec[] = [
    { pattern: '/', kind: 'home' },
    { pattern: '/healthz', kind: 'health' },
    { pattern: '/readyz', kind: 'readiness' },
    { pattern: API_PREFIX, kind: 'index' },
    { pattern: `${API_PREFIX}/openapi.json`, kind: 'openapi' },
    { pattern: `${API_PREFIX}/tokens`, kind: 'tokens' },
  ];
  const patterns = new Set<string>();
  for (const language of resources.languages) {
    const events = `${API_PREFIX}/${feedWords(language).path}`;
    if (patterns.has(events)) continue;
    patterns.add(events);
    routes.push({ pattern: events, kind: 'events', resources, language });
  }
  for (const language of resources.languages) {
    for (const definition of resources.resources) {
      const collection = collectionPattern(definition, language);
      if (patterns.has(collection)) continue;
      patterns.add(collection);
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
    case 'events':
      return endpoint({ GET: (context) => eventFeed(context, route.resources, route.language) }, { negotiates: true });
    case 'collection': {
      const { definition } = route;
      const vocabulary = vocabularyOf(definition, route.language);
      return endpoint(
        {
          GET: (context) => listRecords(context, definition, vocabulary),
          POST: (context) => createRecord(context, definition, vocabulary),
        },
        { open: publicMethods(definition, { GET: 'list', POST: 'create' }), identifies: true, pathCollections: collectionsAbove(definition), remembersCaller: ['GET', 'POST'] },
      );
    }
    case 'item': {
      const { definition } = route;
      const vocabulary = vocabularyOf(definition, route.language);
      return endpoint(
        {
          GET: (context) => readRecord(context, definition, vocabulary),
          PUT: (context) => updateRecord(context, definition, vocabulary, 'replace'),
          PATCH: (context) => updateRecord(context, definition, vocabulary, 'patch'),
          DELETE: (context) => deleteRecord(context, definition, vocabulary),
        },
        {
          open: publicMethods(definition, { GET: 'read', PUT: 'update', PATCH: 'update', DELETE: 'delete' }),
          identifies: true,
          pathCollections: [...collectionsAbove(definition), definition.collection],
          remembersCaller: ['GET'],
        },
      );
    }
  }
}

/** The collections of `definition`'s parents, outermost first. */
function collectionsAbove(definition: ResourceDefinition): string[] {
  const parent = definition.parent?.definition;
  return parent === undefined ? [] : [...collectionsAbove(parent), parent.collection];
}

/** The Allow header of a route: its methods, HEAD after GET, OPTIONS last. */
export function methodsOf(route: RouteSpec): string {
  return endpointFor(route, NO_DOCUMENTS).allow;
}

/** The OpenAPI document of everything the router serves. */
export function describeApi(resources: ResourceTable): Record<string, unknown> {
  return openApiDocument(routeTable(resources), resources, (route) => endpointFor(route, NO_DOCUMENTS));
}

/** Every method some route answers, OPTIONS last: the Allow of `OPTIONS *` and of a 405 that names no route (CONNECT). */
export function methodsServed(routes: readonly RouteSpec[]): string {
  const methods = new Set<string>();
  for (const route of routes) for (const method of methodsOf(route).split(', ')) if (method !== 'OPTIONS') methods.add(method);
  return [...methods, 'OPTIONS'].join(', ');
}

/** `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7); no other method may target `*`. */
export function serverWideOptions(method: string, allow: string): Reply {
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: allow } };
  throw new HttpError('malformed_request', 'the target "*" is for OPTIONS only (RFC 9110 §9.3.7)');
}

/**
 * The documents the router serves depend only on the resource table, which is fixed
 * once compiled: they are built once per table (about 16 ms for the OpenAPI document
 * and the home page), not at every start of an app, and only when first asked for, so
 * a server nobody browses does not hold them (about 5 MB of its idle memory).
 */
const servedDocuments = new WeakMap<ResourceTable, Documents>();

class DocumentsOnFirstUse implements Documents {
  readonly #resources: ResourceTable;
  #description: Record<string, unknown> | undefined;
  #openApi: Reply | undefined;
  #homePage: Reply | undefined;
  #apiIndex: Reply | undefined;

  constructor(resources: ResourceTable) {
    this.#resources = resources;
  }

  get openApi(): Reply {
    return (this.#openApi ??= documentReply(JSON.stringify(this.#describe())));
  }

  get homePage(): Reply {
    // The document is built by openapi/document.ts in the shape OpenApiView describes.
    return (this.#homePage ??= homePageReply(this.#describe() as unknown as OpenApiView, this.#resources));
  }

  get apiIndex(): Reply {
    return (this.#apiIndex ??= apiIndexReply(this.#resources));
  }

  #describe(): Record<string, unknown> {
    return (this.#description ??= describeApi(this.#resources));
  }
}

function documentsServed(resources: ResourceTable): Documents {
  let documents = servedDocuments.get(resources);
  if (documents === undefined) {
    documents = new DocumentsOnFirstUse(resources);
    servedDocuments.set(resources, documents);
  }
  return documents;
}

export interface BuiltRouter {
  readonly router: Router<Endpoint>;
  /** The Allow header of `OPTIONS *`. */
  readonly allMethods: string;
}

export function buildRouter(resources: ResourceTable): BuiltRouter {
  const routes = routeTable(resources);
  const documents = documentsServed(resources);
  const router = new Router<Endpoint>();
  for (const route of routes) router.add(route.pattern, endpointFor(route, documents));
  return { router, allMethods: methodsServed(routes) };
}

/** The API's entry point: a link to every top-level collection, in every vocabulary. */
function apiIndexReply(resources: ResourceTable): Reply {
  const links: Record<string, string> = { self: API_PREFIX, openapi: `${API_PREFIX}/openapi.json`, tokens: `${API_PREFIX}/tokens`, events: `${API_PREFIX}/events` };
  for (const language of resources.languages) {
    for (const definition of resources.resources) {
      if (definition.parent !== undefined) continue;
      const name = vocabularyOf(definition, language).collection;
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
