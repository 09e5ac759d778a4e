// The OpenAPI 3.1 description of the API, generated at start from the route table and
// the resource declarations (never a hand-kept copy): every path and method, its
// parameters with their bounds, request and response bodies, the status codes it can
// answer, the bearer security scheme, and the Portuguese paths.

import type { Operation } from '../auth/permissions.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { STATUS_TITLES } from '../http/errors.js';
import { MAX_PAGE_SIZE } from '../http/list-query.js';
import type { ResourceDefinition } from '../resources/definition.js';
import type { Endpoint, RouteSpec } from '../routes.js';
import type { Language } from '../vocabulary.js';
import { translate } from '../vocabulary.js';
import type { BodyKind, Schema } from './schemas.js';
import { bodySchema, createdSchema, listSchema, PROBLEM_SCHEMA, recordSchema } from './schemas.js';

type Json = Record<string, unknown>;

/**
 * The error statuses an operation can answer (CONTRACT §7), derived from what the
 * resource declares: 403 only where someone may be refused, 404 for items and nested
 * collections, 409 where a unique field or a state machine can conflict, and the body
 * statuses (413, 415, 422, and 503 when the server holds too many bodies) only for
 * writes with a body.
 */
function errorStatuses(definition: ResourceDefinition, kind: 'collection' | 'item', operation: Operation): number[] {
  const statuses = [400, 401, 406, 429];
  const restricted = definition.fields.some((rule) => rule.access === 'restricted');
  if (PERMISSIONS[definition.collection][operation] !== 'anyone' || ((operation === 'create' || operation === 'update') && restricted)) {
    statuses.push(403);
  }
  if (kind === 'item' || definition.parent !== undefined) statuses.push(404);
  const unique = definition.fields.some((rule) => rule.uniqueIgnoringCase === true);
  if ((operation === 'create' || operation === 'update') && unique) statuses.push(409);
  if (operation === 'update' && definition.completeWrite !== undefined && restricted) statuses.push(409);
  if (operation === 'update' || operation === 'delete') statuses.push(412);
  if (operation === 'create' || operation === 'update') statuses.push(413, 415, 422, 503);
  return [...new Set(statuses)].sort((a, b) => a - b);
}

const SUCCESS_HEADERS: Json = {
  'X-Request-Id': { description: 'echoes a sane client value, else a generated id', schema: { type: 'string' } },
};

function componentName(definition: ResourceDefinition, language: Language, suffix = ''): string {
  const base = definition.singular.charAt(0).toUpperCase() + definition.singular.slice(1);
  return `${base}${suffix}${language === 'en' ? '' : '_pt'}`;
}

const reference = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

function jsonContent(schema: Json): Json {
  return { 'application/json': { schema } };
}

function problemResponse(status: number): Json {
  const problem = reference('Problem');
  return {
    description: STATUS_TITLES[status] ?? 'Error',
    content: { 'application/json': { schema: problem }, 'application/problem+json': { schema: problem } },
  };
}

function responses(success: Record<number, Json>, errors: readonly number[]): Json {
  const all: Json = {};
  for (const [status, response] of Object.entries(success)) all[status] = response;
  for (const status of errors) all[String(status)] = problemResponse(status);
  all['default'] = { ...problemResponse(500), description: 'Internal Server Error: the server failed (quote the request_id)' };
  return all;
}

/** `/v1/users/:user_id/orders` → `/v1/users/{user_id}/orders`, with its path parameters. */
function openApiPath(pattern: string): { path: string; parameters: Json[] } {
  const parameters: Json[] = [];
  const path = pattern.replace(/:([a-z_]+)/g, (_, name: string) => {
    parameters.push({ name, in: 'path', required: true, description: 'a positive integer id', schema: { type: 'integer', minimum: 1 } });
    return `{${name}}`;
  });
  return { path, parameters };
}

function listParameters(definition: ResourceDefinition, language: Language): Json[] {
  const sortable = definition.fields.filter((rule) => rule.sort === true).map((rule) => translate(rule.name, language));
  const parameters: Json[] = [
    { name: translate('page', language), in: 'query', description: 'page number (alias: page/pagina)', schema: { type: 'integer', minimum: 1, default: 1 } },
    { name: translate('limit', language), in: 'query', description: 'page size (alias: limit/limite)', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 } },
    {
      name: translate('sort', language),
      in: 'query',
      description: `comma-separated fields, "-" for descending, ties by id: ${sortable.join(', ')}`,
      schema: { type: 'string', pattern: `^-?(${sortable.join('|')})(,-?(${sortable.join('|')}))*$` },
    },
  ];
  for (const rule of definition.fields.filter((candidate) => candidate.filter === true)) {
    const schema = rule.values === undefined ? { type: 'string', minLength: 1 } : { type: 'string', enum: [...rule.values] };
    parameters.push({ name: translate(rule.name, language), in: 'query', description: 'equality filter', schema });
  }
  return parameters;
}

const IF_NONE_MATCH = { name: 'If-None-Match', in: 'header', description: 'answer 304 when the ETag matches', schema: { type: 'string' } };
const IF_MATCH = { name: 'If-Match', in: 'header', description: 'refuse with 412 unless the ETag matches', schema: { type: 'string' } };
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  description: 'a retry with the same key and body replays the first answer',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** Who may call an operation (the permission table, auth/permissions.ts), in words. */
function audienceText(definition: ResourceDefinition, operation: Operation): string {
  const audience = PERMISSIONS[definition.collection][operation];
  if (audience === 'admin') return 'Who: an admin only.';
  if (audience === 'anyone') return 'Who: any logged-in user.';
  return `Who: the user the ${definition.owner === 'self' ? 'record is' : 'records belong to'}, or an admin.`;
}

function resourceOperations(route: ResourceRoute): Json {
  const { definition, language } = route;
  const who = (operation: Operation): Json => ({ description: audienceText(definition, operation) });
  const record = reference(componentName(definition, language));
  const body = (kind: BodyKind, mediaTypes: readonly string[]): Json => ({
    required: true,
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: reference(componentName(definition, language, bodySuffix(kind))) }])),
  });
  const etagHeader = { ETag: { description: 'strong validator of the record', schema: { type: 'string' } }, ...SUCCESS_HEADERS };
  const tag = translate(definition.collection, language);
  const id = (verb: string): string => `${verb}${componentName(definition, language)}${route.kind === 'collection' && verb === 'list' ? 's' : ''}`;
  if (route.kind === 'collection') {
    return {
      get: {
        operationId: id('list'),
        tags: [tag],
        summary: `List ${tag}`,
        ...who('list'),
        parameters: listParameters(definition, language),
        responses: responses(
          {
            200: { description: 'a page of records', headers: { Link: { schema: { type: 'string' } }, ...SUCCESS_HEADERS }, content: jsonContent(reference(componentName(definition, language, 'List'))) },
            304: { description: 'Not Modified' },
          },
          errorStatuses(definition, 'collection', 'list'),
        ),
      },
      post: {
        operationId: id('create'),
        tags: [tag],
        summary: `Create a ${definition.singular}`,
        ...who('create'),
        parameters: [IDEMPOTENCY_KEY],
        requestBody: body('create', ['application/json']),
        responses: responses(
          { 201: { description: 'Created; Location holds the new record', headers: { Location: { schema: { type: 'string' } }, ...etagHeader }, content: jsonContent(reference(componentName(definition, language, 'Created'))) } },
          errorStatuses(definition, 'collection', 'create'),
        ),
      },
    };
  }
  const ok = { description: 'the record', headers: etagHeader, content: jsonContent(record) };
  return {
    get: { operationId: id('read'), tags: [tag], summary: `Read a ${definition.singular}`, ...who('read'), parameters: [IF_NONE_MATCH], responses: responses({ 200: ok, 304: { description: 'Not Modified' } }, errorStatuses(definition, 'item', 'read')) },
    put: { operationId: id('replace'), tags: [tag], summary: `Replace a ${definition.singular}`, ...who('update'), parameters: [IF_MATCH], requestBody: body('replace', ['application/json']), responses: responses({ 200: ok }, errorStatuses(definition, 'item', 'update')) },
    patch: {
      operationId: id('patch'),
      tags: [tag],
      summary: `Change a ${definition.singular} (JSON Merge Patch)`,
      ...who('update'),
      parameters: [IF_MATCH],
      requestBody: body('patch', ['application/merge-patch+json', 'application/json']),
      responses: responses({ 200: ok }, errorStatuses(definition, 'item', 'update')),
    },
    delete: { operationId: id('delete'), tags: [tag], summary: `Delete a ${definition.singular}`, ...who('delete'), parameters: [IF_MATCH], responses: responses({ 204: { description: 'deleted' } }, errorStatuses(definition, 'item', 'delete')) },
  };
}

type ResourceRoute = Extract<RouteSpec, { kind: 'collection' | 'item' }>;

function isResourceRoute(route: RouteSpec): route is ResourceRoute {
  return route.kind === 'collection' || route.kind === 'item';
}

function bodySuffix(kind: BodyKind): string {
  return kind === 'create' ? 'Create' : kind === 'replace' ? 'Replace' : 'Patch';
}

const HTML_CONTENT: Json = { 'text/html': { schema: { type: 'string' } } };

function fixedOperations(route: Exclude<RouteSpec, ResourceRoute>): Json {
  const open = { security: [] };
  switch (route.kind) {
    case 'health':
      return { get: { ...open, operationId: 'getHealth', summary: 'Liveness', responses: responses({ 200: { description: 'the process answers', content: jsonContent({ type: 'object' }) } }, [400]) } };
    case 'readiness':
      return { get: { ...open, operationId: 'getReadiness', summary: 'Readiness', responses: responses({ 200: { description: 'ready', content: jsonContent({ type: 'object' }) } }, [400, 503]) } };
    case 'home':
      return {
        get: {
          ...open,
          operationId: 'getHomePage',
          summary: 'The API explorer: an HTML page that describes this API and sends requests to it',
          responses: responses({ 200: { description: 'the page', content: HTML_CONTENT }, 304: { description: 'Not Modified' } }, [400, 406]),
        },
      };
    case 'index':
      return {
        get: {
          ...open,
          operationId: 'getIndex',
          summary: 'The API index: links to every collection (the home page for a client that prefers text/html)',
          responses: responses(
            { 200: { description: 'links', content: { ...jsonContent({ type: 'object' }), ...HTML_CONTENT } }, 304: { description: 'Not Modified' } },
            [400, 406],
          ),
        },
      };
    case 'openapi':
      return { get: { ...open, operationId: 'getOpenApi', summary: 'This document', responses: responses({ 200: { description: 'OpenAPI 3.1', content: jsonContent({ type: 'object' }) }, 304: { description: 'Not Modified' } }, [400, 406]) } };
    case 'tokens':
      return {
        post: {
          ...open,
          operationId: 'createToken',
          tags: ['tokens'],
          summary: 'Exchange credentials for a bearer token',
          requestBody: { required: true, content: jsonContent(reference('Credentials')) },
          responses: responses({ 201: { description: 'a token', content: jsonContent(reference('Token')) } }, [400, 401, 406, 413, 415, 422, 429, 503]),
        },
      };
  }
}

export function openApiDocument(routes: readonly RouteSpec[], endpointOf: (route: RouteSpec) => Endpoint): Json {
  const paths: Json = {};
  const schemas: Record<string, Schema> = {
    Problem: PROBLEM_SCHEMA,
    Credentials: {
      type: 'object',
      required: ['email', 'password'],
      additionalProperties: false,
      properties: { email: { type: 'string' }, password: { type: 'string', writeOnly: true } },
      examples: [{ email: 'alice@example.com', password: 'wonderland-42' }],
    },
    Token: {
      type: 'object',
      required: ['access_token', 'token_type', 'expires_in', 'user_id'],
      properties: { access_token: { type: 'string' }, token_type: { const: 'Bearer' }, expires_in: { type: 'integer' }, user_id: { type: 'integer' } },
    },
  };
  for (const route of routes) {
    const { path, parameters } = openApiPath(route.pattern);
    const operations = isResourceRoute(route) ? resourceOperations(route) : fixedOperations(route);
    const served = [...endpointOf(route).handlers.keys()].map((method) => method.toLowerCase());
    if (JSON.stringify(Object.keys(operations).sort()) !== JSON.stringify(served.sort())) {
      throw new Error(`OpenAPI operations for ${route.pattern} do not match the methods served`);
    }
    paths[path] = parameters.length > 0 ? { parameters, ...operations } : operations;
    if (route.kind === 'collection') {
      const { definition, language } = route;
      schemas[componentName(definition, language)] = recordSchema(definition, language);
      schemas[componentName(definition, language, 'Created')] = createdSchema(definition, language);
      schemas[componentName(definition, language, 'List')] = listSchema(`#/components/schemas/${componentName(definition, language)}`);
      for (const kind of ['create', 'replace', 'patch'] as const) {
        schemas[componentName(definition, language, bodySuffix(kind))] = bodySchema(definition, language, kind);
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'plainrest',
      version: '1.0.0',
      description: 'Users, their orders and products, in English and Portuguese vocabularies. Errors are RFC 9457 problem details.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'from POST /v1/tokens' } },
    },
  };
}
