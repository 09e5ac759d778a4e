// The route table, built once at start from the resource declarations: every
// collection and item path in both vocabularies (CONTRACT §2), plus the API index,
// the token endpoint and the health check. Each path lists its methods; HEAD follows
// GET (RFC 9110 §9.3.2) and OPTIONS is answered for every path from the same list.
// Every method needs a bearer token except those an endpoint lists as open (§6).

import type { RequestContext } from './context.js';
import { createRecord, listRecords } from './handlers/collection-handlers.js';
import { createToken } from './handlers/token-handler.js';
import { deleteRecord, readRecord, updateRecord } from './handlers/item-handlers.js';
import { HttpError } from './http/errors.js';
import { rejectQueryParameters } from './http/list-query.js';
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
}

function endpoint(handlers: Record<string, Handler>, open: readonly string[] = []): Endpoint {
  const methods = Object.keys(handlers);
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  const openMethods = new Set(open);
  if (openMethods.has('GET')) openMethods.add('HEAD');
  return { handlers: new Map(Object.entries(handlers)), allow: [...methods, 'OPTIONS'].join(', '), open: openMethods };
}

/** `/v1/users`, `/v1/users/:user_id/orders`, `/v1/usuarios/:user_id/pedidos`, … */
export function collectionPattern(definition: ResourceDefinition, language: Language): string {
  const name = translate(definition.collection, language);
  const parent = definition.parent === undefined ? undefined : RESOURCE_BY_COLLECTION.get(definition.parent.collection);
  if (parent === undefined) return `${API_PREFIX}/${name}`;
  return `${collectionPattern(parent, language)}/:${parent.singular}_id/${name}`;
}

export function buildRouter(): Router<Endpoint> {
  const router = new Router<Endpoint>();
  router.add('/healthz', endpoint({ GET: healthCheck }, ['GET']));
  router.add('/readyz', endpoint({ GET: readinessCheck }, ['GET']));
  router.add(API_PREFIX, endpoint({ GET: apiIndex }, ['GET']));
  router.add(`${API_PREFIX}/tokens`, endpoint({ POST: createToken }, ['POST']));
  for (const language of LANGUAGES) {
    for (const definition of RESOURCES) {
      const collection = collectionPattern(definition, language);
      router.add(
        collection,
        endpoint({
          GET: (context) => listRecords(context, definition, language),
          POST: (context) => createRecord(context, definition, language),
        }),
      );
      router.add(
        `${collection}/:${definition.singular}_id`,
        endpoint({
          GET: (context) => readRecord(context, definition, language),
          PUT: (context) => updateRecord(context, definition, language, 'replace'),
          PATCH: (context) => updateRecord(context, definition, language, 'patch'),
          DELETE: (context) => deleteRecord(context, definition, language),
        }),
      );
    }
  }
  return router;
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

/** The API's entry point: a link to every top-level collection, in both vocabularies. Built once. */
const API_INDEX: Reply = (() => {
  const links: Record<string, string> = { self: API_PREFIX, tokens: `${API_PREFIX}/tokens` };
  for (const language of LANGUAGES) {
    for (const definition of RESOURCES) {
      if (definition.parent !== undefined) continue;
      const name = translate(definition.collection, language);
      links[name] = `${API_PREFIX}/${name}`;
    }
  }
  return jsonReply(200, { name: 'plainrest', version: 'v1', links });
})();

function apiIndex(context: RequestContext): Reply {
  rejectQueryParameters(context.search);
  return API_INDEX;
}
