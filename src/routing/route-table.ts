// The route table, built once at start from the resource declarations: every collection
// and item path in every vocabulary (README: Paths), plus the API index, the token
// endpoint, the change feed, the health checks and the home page (`/`). The router's endpoints
// (server/routes.ts) and the OpenAPI document are both made from it, so they cannot disagree.

import type { ResourceTable } from '../resources/definition.ts';
import { feedWords } from '../events/event-query.ts';
import type { Language, ResourceDefinition } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';

export const API_PREFIX = '/v1';

/** Every route, as data: what the router serves and the OpenAPI document describes. */
export type RouteSpec =
  | { readonly pattern: string; readonly kind: 'home' | 'health' | 'readiness' | 'index' | 'openapi' | 'tokens' }
  | {
      readonly pattern: string;
      readonly kind: 'events';
      readonly resources: ResourceTable;
      readonly language: Language;
    }
  | {
      readonly pattern: string;
      readonly kind: 'collection' | 'item';
      readonly definition: ResourceDefinition;
      readonly language: Language;
    };

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

/** `/v1/users`, `/v1/users/:user_id/orders`, `/v1/usuarios/:user_id/pedidos`, … */
export function collectionPattern(definition: ResourceDefinition, language: Language): string {
  const name = vocabularyOf(definition, language).collection;
  const parent = definition.parent?.definition;
  if (parent === undefined) return `${API_PREFIX}/${name}`;
  return `${collectionPattern(parent, language)}/:${parent.singular}_id/${name}`;
}
