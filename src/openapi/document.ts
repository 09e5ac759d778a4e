// The OpenAPI 3.1 description of the API (README: The OpenAPI document), generated from the route table and the
// resource declarations: every path and method it answers (HEAD after GET, RFC 9110 §9.3.2; OPTIONS, §9.3.7), with
// parameters, bodies, headers, status codes, examples (examples.ts), the bearer scheme and the change feed
// (event-operations.ts), as linters, validating proxies and collection generators take it.

import type { Operation, ResourceTable } from '../resources/definition.ts';
import { recordedResources, vocabularyOf } from '../resources/definition.ts';
import { webhookPayloads } from './webhook-payloads.ts';
import { routeIdKinds, type RouteSpec } from '../routing/route-table.ts';
import { exampleId } from '../records/record-id.ts';
import { resourceExamples } from './examples.ts';
import { EXAMPLE_PARENT_ID } from './written-examples.ts';
import { HEADER_COMPONENTS, SUCCESS_HEADERS } from './headers.ts';
import { withExamplesUnder } from './base-path-examples.ts';
import type { ResourceRoute } from './resource-operations.ts';
import {
  EVENT_STREAM_COMPONENT,
  EVENT_STREAM_SCHEMA,
  eventComponent,
  eventListSchema,
  eventSchema,
} from './event-operations.ts';
import { componentName, languageSuffix, operationNouns, schemaReference } from '../resources/names.ts';
import { pathParameter } from './parameters.ts';
import { bodySuffix } from './operation-parts.ts';
import { resourceOperations } from './resource-operations.ts';
import { singletonOperations, singletonSchemas, type SingletonRoute } from './singleton-operations.ts';
import { problemResponseComponents, responses, success, withoutBodies } from './responses.ts';
import type { Schema } from './schemas.ts';
import { bodySchema, createdSchema, EMBEDDED_LIST, recordSchema, selectionSchema } from './schemas.ts';
import { listSchema } from './list-schema.ts';
import { PROBLEM_SCHEMA } from './problem-schema.ts';
import { credentialsSchema, TOKEN_SCHEMA } from './token-schemas.ts';
import type { ServiceRoute } from './service-operations.ts';
import { SERVICE_NOUNS, serviceOperations } from './service-operations.ts';
import { describeResources, EVENTS_TAG, SERVICE_TAGS, tagOf } from './tags.ts';

type Json = Record<string, unknown>;

function isResourceRoute(route: RouteSpec): route is ResourceRoute | SingletonRoute {
  return route.kind === 'collection' || route.kind === 'item' || route.kind === 'singleton';
}

/**
 * `/v1/users/:user_id/orders` → `/v1/users/{user_id}/orders`, its path parameters, and
 * the concrete path of the examples: an item path names the record its collection's
 * create example makes, a parent is the example parent (examples.ts).
 */
function openApiPath(route: RouteSpec): { path: string; parameters: Json[]; example: string } {
  const parameters: Json[] = [];
  const names = [...route.pattern.matchAll(/:([a-z_]+)/g)].map((match) => match[1] as string);
  const kinds = routeIdKinds(route);
  let example = route.pattern;
  names.forEach((name, index) => {
    const own = isResourceRoute(route) && route.kind === 'item' && index === names.length - 1;
    const kind = kinds[index] ?? 'integer';
    const id = own
      ? resourceExamples(route.definition, route.language).createdId
      : kind === 'integer'
        ? EXAMPLE_PARENT_ID
        : exampleId(kind);
    example = example.replace(`:${name}`, String(id));
    parameters.push(pathParameter(name, id, kind));
  });
  return { path: route.pattern.replace(/:([a-z_]+)/g, '{$1}'), parameters, example };
}

/** The noun of a path's HEAD and OPTIONS operationIds: `Users`, `User`, `UserOrdersPt`, `Health`. */
function pathNoun(route: RouteSpec): string {
  if (route.kind === 'events') return `${SERVICE_NOUNS.events}${languageSuffix(route.language)}`;
  if (!isResourceRoute(route)) return SERVICE_NOUNS[route.kind];
  const nouns = operationNouns(route.definition, route.language);
  return route.kind === 'collection' ? nouns.many : nouns.one;
}

/** Adds HEAD after GET (GET's answers without bodies) and OPTIONS last, as the router answers them. */
function withHeadAndOptions(operations: Json, route: RouteSpec, allow: string): Json {
  const all: Json = {};
  const get = operations['get'] as Json | undefined;
  for (const [method, operation] of Object.entries(operations)) {
    all[method] = operation;
    if (method !== 'get' || get === undefined) continue;
    all['head'] = {
      ...get,
      operationId: `head${pathNoun(route)}`,
      summary: `${get['summary'] as string} (headers only)`,
      description: `${get['description'] as string} HEAD answers as GET does, without the body (RFC 9110 §9.3.2).`,
      responses: withoutBodies(get['responses'] as Json),
    };
  }
  const first = Object.values(operations)[0] as Json;
  all['options'] = {
    operationId: `options${pathNoun(route)}`,
    tags: first['tags'],
    summary: 'The methods this path answers',
    description:
      `Answers 204 with Allow: ${allow} (RFC 9110 §9.3.7), with no token and without using the rate limit. ` +
      "With CORS_ORIGINS set, a browser's preflight from an allowed origin " +
      'also gets the Access-Control-Allow-* headers here.',
    security: [],
    responses: responses({ 204: success('No Content: Allow lists the methods', SUCCESS_HEADERS.allow) }, [400], {
      requestOnly: true,
      readsBody: false,
    }),
  };
  return all;
}

/** The operation each method of a resource path performs, for its access. */
const OPERATION_OF: Readonly<Record<string, Readonly<Record<string, Operation>>>> = {
  collection: { get: 'list', head: 'list', post: 'create' },
  item: { get: 'read', head: 'read', put: 'update', patch: 'update', delete: 'delete' },
  singleton: { get: 'read', head: 'read', put: 'update', patch: 'update' },
};

/** A `public` operation needs no token, and takes one (that names the caller) when sent. */
function withPublicSecurity(item: Json, route: RouteSpec): Json {
  if (!isResourceRoute(route)) return item;
  const result: Json = {};
  for (const [method, operation] of Object.entries(item)) {
    const performed = OPERATION_OF[route.kind]?.[method];
    const open = performed !== undefined && route.definition.access[performed] === 'public';
    result[method] = open ? { ...(operation as Json), security: [{}, { bearer: [] }] } : operation;
  }
  return result;
}

/**
 * The event and list schemas of each feed route's vocabulary. An event's record is one of
 * that vocabulary's records; a resource whose path the vocabulary shares with English
 * (no name of its own) has no record component in it yet, so it gets one here.
 */
function eventSchemas(
  routes: readonly RouteSpec[],
  schemas: Readonly<Record<string, Schema>>,
  basePath: string,
): Record<string, Schema> {
  const made: Record<string, Schema> = {};
  for (const route of routes) {
    if (route.kind !== 'events') continue;
    const { resources, language } = route;
    for (const definition of recordedResources(resources)) {
      const name = componentName(definition, language);
      if (schemas[name] === undefined) made[name] = recordSchema(definition, language);
    }
    made[eventComponent(language)] = eventSchema(
      resources,
      language,
      (definition) => componentName(definition, language),
      basePath,
    );
    made[eventComponent(language, 'List')] = eventListSchema(language);
    made[EVENT_STREAM_COMPONENT] = EVENT_STREAM_SCHEMA;
  }
  return made;
}

/**
 * The components other schemas name that no route of their vocabulary made: a record (an event's, an embedded one's)
 * and a child's embedded first page (EMBEDDED_LIST), in any vocabulary, made until none is missing.
 */
function withReferencedComponents(schemas: Record<string, Schema>, resources: ResourceTable): void {
  const makers = new Map<string, () => Schema>();
  for (const language of resources.languages) {
    for (const definition of resources.resources) {
      const record = componentName(definition, language);
      makers.set(record, () => recordSchema(definition, language));
      makers.set(componentName(definition, language, EMBEDDED_LIST), () => listSchema(schemaReference(record)));
    }
  }
  for (;;) {
    const named = [...JSON.stringify(schemas).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]);
    const missing = [...new Set(named)].filter((name): name is string => name !== undefined && !(name in schemas));
    if (missing.length === 0) return;
    for (const name of missing) {
      const make = makers.get(name);
      if (make === undefined) throw new Error(`the OpenAPI document names a schema it has not: ${name}`);
      schemas[name] = make();
    }
  }
}

/**
 * The document of `routes`; `allowOf` gives each route's Allow header, which its operations must match. Its paths are
 * relative to its server, `basePath` (http/base-path.ts; "/" for ""), and the examples of what a client receives start
 * with it (base-path-examples.ts).
 */
export function openApiDocument(
  routes: readonly RouteSpec[],
  resources: ResourceTable,
  allowOf: (route: RouteSpec) => string,
  basePath = '',
): Json {
  const paths: Json = {};
  const schemas: Record<string, Schema> = { Problem: PROBLEM_SCHEMA, Token: TOKEN_SCHEMA };
  const tags: Json[] = [...SERVICE_TAGS];
  const indexLinks: Record<string, string> = {};
  for (const route of routes) {
    if (route.kind === 'index') indexLinks['self'] = route.pattern;
    if (route.kind === 'openapi' || route.kind === 'tokens' || route.kind === 'batches')
      indexLinks[route.kind] = route.pattern;
    if (route.kind === 'events' && route.language === 'en') indexLinks['events'] = route.pattern;
    if ((route.kind === 'collection' || route.kind === 'singleton') && route.definition.parent === undefined)
      indexLinks[vocabularyOf(route.definition, route.language).collection] = route.pattern;
  }
  for (const route of routes) {
    const { path, parameters, example } = openApiPath(route);
    const operations =
      route.kind === 'singleton'
        ? singletonOperations(route)
        : isResourceRoute(route)
          ? resourceOperations(route, example)
          : serviceOperations(route as ServiceRoute, indexLinks);
    const allow = allowOf(route);
    const item = withPublicSecurity(withHeadAndOptions(operations, route, allow), route);
    if (
      Object.keys(item)
        .map((method) => method.toUpperCase())
        .join(', ') !== allow
    ) {
      throw new Error(`OpenAPI operations for ${route.pattern} do not match the methods served (${allow})`);
    }
    paths[path] = parameters.length > 0 ? { parameters, ...item } : item;
    if (route.kind === 'events' && !tags.includes(EVENTS_TAG)) tags.push(EVENTS_TAG);
    if (route.kind === 'tokens') {
      const users = resources.get('users');
      if (users !== undefined) schemas['Credentials'] = credentialsSchema(users);
    }
    if (route.kind === 'singleton') {
      const tag = tagOf(route.definition, route.language);
      if (!tags.some((known) => known['name'] === tag['name'])) tags.push(tag);
      Object.assign(schemas, singletonSchemas(route));
    }
    if (route.kind === 'collection') {
      const { definition, language } = route;
      // A vocabulary that keeps the collection's name shares its tag.
      const tag = tagOf(definition, language);
      if (!tags.some((known) => known['name'] === tag['name'])) tags.push(tag);
      schemas[componentName(definition, language)] = recordSchema(definition, language);
      schemas[componentName(definition, language, 'Created')] = createdSchema(definition, language);
      schemas[componentName(definition, language, 'Selection')] = selectionSchema(definition, language);
      schemas[componentName(definition, language, 'List')] = listSchema({
        anyOf: [
          schemaReference(componentName(definition, language)),
          schemaReference(componentName(definition, language, 'Selection')),
        ],
      });
      const kinds = definition.immutable === true ? (['create'] as const) : (['create', 'replace', 'patch'] as const);
      for (const kind of kinds) {
        schemas[componentName(definition, language, bodySuffix(kind))] = bodySchema(definition, language, kind);
      }
    }
  }
  Object.assign(schemas, eventSchemas(routes, schemas, basePath));
  withReferencedComponents(schemas, resources);
  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: 'plainrest',
      version: '1.0.0',
      description: describeResources(resources),
      contact: { name: 'plainrest maintainers' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: basePath === '' ? '/' : basePath,
        description: 'this server, whichever serves this document: local, staging or production',
        'x-internal': false,
      },
    ],
    security: [{ bearer: [] }],
    tags,
    paths,
    webhooks: webhookPayloads(resources, basePath),
    components: {
      schemas,
      responses: problemResponseComponents(paths),
      headers: HEADER_COMPONENTS,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A token from POST /v1/tokens: a JWT (RFC 7519) signed with HS256 and checked as RFC8725 advises: ' +
            'only HS256 is accepted (alg none and algorithm substitution are refused), ' +
            'the signature is compared in constant time, and exp is required. ' +
            "With an identity provider configured (OIDC_ISSUER), the provider's tokens too. " +
            'Or an API key (prk_…) from POST /v1/users/{user_id}/keys, which acts as its user.',
        },
      },
    },
  };
  return basePath === '' ? document : withExamplesUnder(document, basePath);
}
