// The server's routes: each route of the table (routing/route-table.ts) gets its endpoint, its handlers by method, HEAD
// following GET (RFC 9110 §9.3.2), OPTIONS and Allow from the same list (§10.2.1), and which methods need no bearer
// token (README: Authentication and permissions); the router is made from them once, at the start.

import { runBatch, type OperationRouter } from '../handlers/batch.ts';
import { createRecord } from '../handlers/create-record.ts';
import { listRecords } from '../handlers/list-records.ts';
import type { RequestContext } from '../handlers/context.ts';
import { eventFeed } from '../handlers/event-handlers.ts';
import { readRecord } from '../handlers/read-record.ts';
import { deleteRecord, updateRecord } from '../handlers/item-writes.ts';
import type { Documents } from '../handlers/service-handlers.ts';
import { apiIndex, healthCheck, homePage, readinessCheck, serveDocument } from '../handlers/service-handlers.ts';
import { createToken } from '../handlers/token-handler.ts';
import { jsonReply, type Reply } from '../http/respond.ts';
import type { Operation, ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import { SINGLETON_ID, vocabularyOf } from '../resources/definition.ts';
import { documentsServed } from './documents.ts';
import { routeIdKinds, routeTable, type RouteSpec } from '../routing/route-table.ts';
import { Router } from '../routing/router.ts';
import type { RecordId } from '../records/record-id.ts';

export type Handler = (context: RequestContext) => Reply | Promise<Reply>;

export interface Endpoint {
  /** By method; GET also answers HEAD. */
  readonly handlers: ReadonlyMap<string, Handler>;
  /** The Allow header value (RFC 9110 §10.2.1). */
  readonly allow: string;
  /** Methods answered without a token (OPTIONS always is; HEAD follows GET). */
  readonly tokenless: ReadonlySet<string>;
  /** On a tokenless method, a token that is sent is still checked and names the caller (`public` access). */
  readonly checksTokenIfSent: boolean;
  /** The handlers choose between JSON and HTML on Accept themselves; every other endpoint answers only JSON. */
  readonly negotiates: boolean;
  /** The collections of the records the path's ids name, outermost first (`/v1/users/3/orders/5`: users, orders). */
  readonly pathCollections: readonly string[];
  /** The ids a path implies without holding any: a singleton's fixed one (README: Your own resources, singletons). */
  readonly impliedIds?: readonly RecordId[];
  /**
   * Methods that do nothing but read and write through the store before they answer (store.ts: RequestPlan), so a
   * store may run them again. The rule: a collection's GET and POST and an item's GET (list, read, create); every other
   * method, and every other endpoint, is left out and runs once.
   */
  readonly repeatable: ReadonlySet<string>;
}

interface EndpointOptions {
  /** Methods answered without a token. */
  readonly tokenless?: readonly string[];
  /** See Endpoint.negotiates. */
  readonly negotiates?: boolean;
  /** See Endpoint.checksTokenIfSent. */
  readonly checksTokenIfSent?: boolean;
  /** See Endpoint.pathCollections. */
  readonly pathCollections?: readonly string[];
  /** See Endpoint.repeatable. */
  readonly repeatable?: readonly string[];
  /** See Endpoint.impliedIds. */
  readonly impliedIds?: readonly RecordId[];
}

function endpoint(
  handlers: Record<string, Handler>,
  {
    tokenless = [],
    negotiates = false,
    checksTokenIfSent = false,
    pathCollections = [],
    repeatable = [],
    impliedIds,
  }: EndpointOptions = {},
): Endpoint {
  const methods = Object.keys(handlers);
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return {
    handlers: new Map(Object.entries(handlers)),
    allow: [...methods, 'OPTIONS'].join(', '),
    tokenless: withHead(tokenless),
    negotiates,
    checksTokenIfSent,
    pathCollections,
    repeatable: withHead(repeatable),
    ...(impliedIds === undefined ? {} : { impliedIds }),
  };
}

/** The methods, and HEAD with GET (HEAD follows GET). */
function withHead(methods: readonly string[]): ReadonlySet<string> {
  const set = new Set(methods);
  if (set.has('GET')) set.add('HEAD');
  return set;
}

/** The methods of a resource route that its declared access makes `public`. */
function publicMethods(definition: ResourceDefinition, methods: Readonly<Record<string, Operation>>): string[] {
  return Object.entries(methods)
    .filter(([, operation]) => definition.access[operation] === 'public')
    .map(([method]) => method);
}

/** A router of no routes: the batch endpoint's operations when only its methods are asked for (methodsOf). */
const NO_OPERATIONS: OperationRouter = { match: () => undefined };

/**
 * The handlers of a route, which of them need no token (README: Authentication and permissions), and the documents they
 * serve; `operations` routes a batch's operations to the resources' endpoints.
 */
export function endpointFor(route: RouteSpec, documents: Documents, operations = NO_OPERATIONS): Endpoint {
  // The service endpoints are read without a token; a resource's access decides for its own routes.
  const tokenless = ['GET'];
  switch (route.kind) {
    case 'home':
      return endpoint({ GET: (context) => homePage(context, documents) }, { tokenless, negotiates: true });
    case 'health':
      return endpoint({ GET: healthCheck }, { tokenless });
    case 'readiness':
      return endpoint({ GET: readinessCheck }, { tokenless });
    case 'index':
      return endpoint({ GET: (context) => apiIndex(context, documents) }, { tokenless, negotiates: true });
    case 'openapi':
      return endpoint({ GET: async (context) => serveDocument(context, await documents.openApi()) }, { tokenless });
    case 'tokens':
      return endpoint({ POST: createToken }, { tokenless: ['POST'] });
    case 'events':
      return endpoint({ GET: (context) => eventFeed(context, route.resources, route.language) }, { negotiates: true });
    case 'batches':
      return endpoint({ POST: (context) => runBatch(context, route.resources, operations, route.pattern) });
    case 'collection': {
      const { definition } = route;
      const vocabulary = vocabularyOf(definition, route.language);
      return endpoint(
        {
          GET: (context) => listRecords(context, definition, vocabulary),
          POST: (context) => createRecord(context, definition, vocabulary),
        },
        {
          tokenless: publicMethods(definition, { GET: 'list', POST: 'create' }),
          checksTokenIfSent: true,
          pathCollections: collectionsAbove(definition),
          repeatable: ['GET', 'POST'],
        },
      );
    }
    case 'item': {
      const { definition } = route;
      const vocabulary = vocabularyOf(definition, route.language);
      // Records that are never changed (API keys) have no PUT or PATCH: 405.
      const updates: Record<string, Handler> =
        definition.immutable === true
          ? {}
          : {
              PUT: (context) => updateRecord(context, definition, vocabulary, 'replace'),
              PATCH: (context) => updateRecord(context, definition, vocabulary, 'patch'),
            };
      return endpoint(
        {
          GET: (context) => readRecord(context, definition, vocabulary),
          ...updates,
          DELETE: (context) => deleteRecord(context, definition, vocabulary),
        },
        {
          tokenless: publicMethods(definition, { GET: 'read', PUT: 'update', PATCH: 'update', DELETE: 'delete' }),
          checksTokenIfSent: true,
          pathCollections: [...collectionsAbove(definition), definition.collection],
          repeatable: ['GET'],
        },
      );
    }
    case 'singleton': {
      // One record at the collection's path, stored under a fixed id: no list, no POST, no DELETE (405).
      const { definition } = route;
      const vocabulary = vocabularyOf(definition, route.language);
      return endpoint(
        {
          GET: (context) => readRecord(context, definition, vocabulary),
          PUT: (context) => updateRecord(context, definition, vocabulary, 'replace'),
          PATCH: (context) => updateRecord(context, definition, vocabulary, 'patch'),
        },
        {
          tokenless: publicMethods(definition, { GET: 'read', PUT: 'update', PATCH: 'update' }),
          checksTokenIfSent: true,
          pathCollections: [definition.collection],
          impliedIds: [SINGLETON_ID],
          repeatable: ['GET'],
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

/**
 * The OpenAPI document of everything the router serves, under `basePath` (its `servers`; "" for the root), its
 * generator loaded when first asked for.
 */
export async function describeApi(resources: ResourceTable, basePath = ''): Promise<Record<string, unknown>> {
  const { openApiDocument } = await import('../openapi/document.ts');
  return openApiDocument(routeTable(resources), resources, methodsOf, basePath);
}

/**
 * Why `basePath` (checked by http/base-path.ts) cannot be told apart from the paths served under it, or undefined: one
 * whose first segment plainrest serves itself (`/v1`, `/healthz`) would be taken again off a path a host took it off.
 */
export function basePathClash(basePath: string, resources: ResourceTable): string | undefined {
  if (basePath === '') return undefined;
  const first = basePath.split('/')[1];
  const clash = routeTable(resources).find((route) => route.pattern.split('/')[1] === first);
  if (clash === undefined) return undefined;
  return (
    `basePath ${JSON.stringify(basePath)} starts with /${first ?? ''}, which plainrest serves itself ` +
    `(${clash.pattern}): choose another, such as "/api"`
  );
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

/** The router of `resources`; its documents' links start with `basePath` (http/base-path.ts). */
export function buildRouter(resources: ResourceTable, basePath: string): BuiltRouter {
  const routes = routeTable(resources);
  const documents = documentsServed(resources, basePath, () => describeApi(resources, basePath));
  const router = new Router<Endpoint>();
  // The resources' routes alone: what a batch's operations may address (README: Batches).
  const operations = new Router<Endpoint>();
  for (const route of routes) {
    const served = endpointFor(route, documents, operations);
    const idKinds = routeIdKinds(route);
    router.add(route.pattern, served, idKinds);
    if ('definition' in route) operations.add(route.pattern, served, idKinds);
  }
  return { router, allMethods: methodsServed(routes) };
}
