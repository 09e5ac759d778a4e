// The route table, built once at start from the resource declarations: every collection,
// item and singleton path in every vocabulary (README: Paths), plus the API index, the token
// endpoint, the change feed, the batch endpoint, the health checks and the home page (`/`).
// The router's endpoints (server/routes.ts) and the OpenAPI document are both made from it.

import type { ResourceTable } from '../resources/definition.ts';
import type { Language, ResourceDefinition } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { API_PREFIX, servedPaths } from '../declarations/reserved-names.ts';
import type { IdKind } from '../records/record-id.ts';

export { API_PREFIX };

/** Every route, as data: what the router serves and the OpenAPI document describes. */
export type RouteSpec =
  | { readonly pattern: string; readonly kind: 'home' | 'health' | 'readiness' | 'index' | 'openapi' | 'tokens' }
  | {
      readonly pattern: string;
      readonly kind: 'events';
      readonly resources: ResourceTable;
      readonly language: Language;
    }
  | { readonly pattern: string; readonly kind: 'batches'; readonly resources: ResourceTable }
  | {
      readonly pattern: string;
      readonly kind: 'collection' | 'item';
      readonly definition: ResourceDefinition;
      readonly language: Language;
    }
  | {
      readonly pattern: string;
      readonly kind: 'singleton';
      readonly definition: ResourceDefinition;
      readonly language: Language;
    };

/**
 * Every route of a resource table. A path that is the same in two languages (a resource without a name of its own in
 * one, the token endpoint, the feed in a language plainrest has no words in) is served once, in the first. A path
 * that two different things would take is an Error naming both: the declaration checker refuses such names
 * (declarations/reserved-names.ts), so no route is ever shadowed by another.
 */
export function routeTable(resources: ResourceTable): RouteSpec[] {
  const routes: RouteSpec[] = [
    { pattern: '/', kind: 'home' },
    { pattern: '/healthz', kind: 'health' },
    { pattern: '/readyz', kind: 'readiness' },
    { pattern: API_PREFIX, kind: 'index' },
  ];
  /** Each pattern → what serves it: a served path's kind, or a collection. */
  const holders = new Map<string, string>();
  /** Claims `pattern` for `holder`: true the first time, false when `holder` has it already; an Error for another. */
  const claim = (pattern: string, holder: string): boolean => {
    const earlier = holders.get(pattern);
    if (earlier === undefined) holders.set(pattern, holder);
    else if (earlier !== holder) throw new Error(`${pattern} would serve both ${earlier} and ${holder}`);
    return earlier === undefined;
  };
  for (const language of resources.languages) {
    for (const { kind, segment, what } of servedPaths(language)) {
      const pattern = `${API_PREFIX}/${segment}`;
      if (!claim(pattern, `plainrest's ${what}`)) continue;
      if (kind === 'events' || kind === 'batches')
        routes.push(kind === 'events' ? { pattern, kind, resources, language } : { pattern, kind, resources });
      else routes.push({ pattern, kind });
    }
  }
  for (const language of resources.languages) {
    for (const definition of resources.resources) {
      const collection = collectionPattern(definition, language);
      if (!claim(collection, `the collection ${definition.collection}`)) continue;
      // A singleton's one record is at its collection's path, without an id (README: Your own resources, singletons).
      if (definition.singleton === true) {
        routes.push({ pattern: collection, kind: 'singleton', definition, language });
        continue;
      }
      routes.push({ pattern: collection, kind: 'collection', definition, language });
      routes.push({ pattern: `${collection}/:${definition.singular}_id`, kind: 'item', definition, language });
    }
  }
  return routes;
}

/** The kinds of the ids a route's `:name` segments take, outermost first (README: Your own resources, ids). */
export function routeIdKinds(route: RouteSpec): IdKind[] {
  if (!('definition' in route)) return [];
  const kinds: IdKind[] = route.kind === 'item' ? [route.definition.idKind] : [];
  for (let above = route.definition.parent?.definition; above !== undefined; above = above.parent?.definition)
    kinds.unshift(above.idKind);
  return kinds;
}

/** `/v1/users`, `/v1/users/:user_id/orders`, `/v1/usuarios/:user_id/pedidos`, … */
export function collectionPattern(definition: ResourceDefinition, language: Language): string {
  const name = vocabularyOf(definition, language).collection;
  const parent = definition.parent?.definition;
  if (parent === undefined) return `${API_PREFIX}/${name}`;
  return `${collectionPattern(parent, language)}/:${parent.singular}_id/${name}`;
}
