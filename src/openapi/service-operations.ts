// The operations of the addresses that are not resources: the home page (`/`), the
// health checks, the API index (`/v1`), this document, and the token endpoint
// (README: Paths, Authentication and permissions). All but the token endpoint only read; none needs a token.
// The change feed and the batch endpoint, which need one, are described in event-operations.ts and batch-operation.ts.

import type { RouteSpec } from '../routing/route-table.ts';
import { batchOperations } from './batch-operation.ts';
import { eventOperations } from './event-operations.ts';
import { EXAMPLE_CREDENTIALS, EXAMPLE_TOKEN } from './written-examples.ts';
import { SUCCESS_HEADERS } from './headers.ts';
import { IF_NONE_MATCH } from './parameters.ts';
import type { ErrorContext } from './responses.ts';
import { jsonContent, responses, success } from './responses.ts';

type Json = Record<string, unknown>;

export type ServiceRoute = Exclude<RouteSpec, { kind: 'collection' | 'item' | 'singleton' }>;

/** The noun of a service path's operationIds (`getHealth`, `headHealth`, `optionsHealth`). */
export const SERVICE_NOUNS: Readonly<Record<ServiceRoute['kind'], string>> = {
  home: 'HomePage',
  health: 'Health',
  readiness: 'Readiness',
  index: 'Index',
  openapi: 'OpenApi',
  tokens: 'Tokens',
  events: 'Events',
  batches: 'Batches',
};

/** The tag of a service path's operations. */
export function serviceTag(kind: ServiceRoute['kind']): string {
  if (kind === 'tokens') return 'tokens';
  if (kind === 'events' || kind === 'batches') return kind;
  return kind === 'health' || kind === 'readiness' ? 'health' : 'service';
}

const HTML_PAGE = '<!doctype html>\n<html lang="en">…</html>';
const HTML_CONTENT: Json = { 'text/html': { schema: { type: 'string' }, example: HTML_PAGE } };

const STATUS_SCHEMA = (value: string): Json => ({
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { type: 'string', const: value } },
});

const INDEX_SCHEMA: Json = {
  type: 'object',
  required: ['name', 'version', 'links'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    version: { type: 'string' },
    links: {
      type: 'object',
      description: 'self, openapi, tokens, events (the change feed), batches and every top-level collection, by name',
      additionalProperties: { type: 'string' },
    },
  },
};

const DOCUMENT_SCHEMA: Json = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
};

/** A document that never changes while the server runs: its ETag, and 304 when the client's copy is current. */
function documentAnswers(
  description: string,
  content: Json,
  headers: Json,
  errors: readonly number[],
  context: ErrorContext,
): Json {
  return responses(
    {
      200: success(description, { ...SUCCESS_HEADERS.etag, ...headers }, content),
      304: success('Not Modified: your copy is current', { ...SUCCESS_HEADERS.etag, ...headers }),
    },
    errors,
    context,
  );
}

/** The operations of one service path; `indexLinks` is what `/v1` links to. */
export function serviceOperations(route: ServiceRoute, indexLinks: Readonly<Record<string, string>>): Json {
  const open = { security: [], tags: [serviceTag(route.kind)] };
  const context: ErrorContext = { readsBody: route.kind === 'tokens', login: route.kind === 'tokens' };
  switch (route.kind) {
    case 'home':
      return {
        get: {
          ...open,
          operationId: 'getHomePage',
          summary: 'The API explorer',
          description:
            'One self-contained HTML page, generated from this document, that describes the API, logs in and sends ' +
            'requests to it. For JSON, use /v1.',
          parameters: [IF_NONE_MATCH],
          responses: documentAnswers('the page', HTML_CONTENT, SUCCESS_HEADERS.page, [400, 406, 429], context),
        },
      };
    case 'health':
      return {
        get: {
          ...open,
          operationId: 'getHealth',
          summary: 'Liveness',
          description: 'Answers 200 while the process answers at all, for a supervisor deciding whether to restart it.',
          responses: responses(
            { 200: success('the process answers', {}, jsonContent(STATUS_SCHEMA('ok'), { status: 'ok' })) },
            [400, 406, 429],
            context,
          ),
        },
      };
    case 'readiness':
      return {
        get: {
          ...open,
          operationId: 'getReadiness',
          summary: 'Readiness',
          description:
            'Answers 200 while the server takes traffic, and 503 while it shuts down or cannot store writes, so a ' +
            'load balancer moves traffic away.',
          responses: responses(
            { 200: success('ready', {}, jsonContent(STATUS_SCHEMA('ready'), { status: 'ready' })) },
            [400, 406, 429, 503],
            context,
          ),
        },
      };
    case 'index':
      return {
        get: {
          ...open,
          operationId: 'getIndex',
          summary: 'The API index',
          description:
            'Links to every top-level collection, the token endpoint and this document; a client that prefers ' +
            'text/html (a browser) gets the home page instead.',
          parameters: [IF_NONE_MATCH],
          responses: documentAnswers(
            'the links',
            { ...jsonContent(INDEX_SCHEMA, { name: 'plainrest', version: 'v1', links: indexLinks }), ...HTML_CONTENT },
            SUCCESS_HEADERS.page,
            [400, 406, 429],
            context,
          ),
        },
      };
    case 'openapi':
      return {
        get: {
          ...open,
          operationId: 'getOpenApi',
          summary: 'This document',
          description:
            'The OpenAPI 3.1 description of every path the server answers, generated at start from the same route ' +
            'table the server uses.',
          parameters: [IF_NONE_MATCH],
          responses: documentAnswers(
            'OpenAPI 3.1',
            jsonContent(DOCUMENT_SCHEMA, {
              openapi: '3.1.0',
              info: { title: 'plainrest', version: '1.0.0' },
              paths: {},
            }),
            {},
            [400, 406, 429],
            context,
          ),
        },
      };
    case 'events':
      return eventOperations(route);
    case 'batches':
      return batchOperations(route.resources);
    case 'tokens':
      return {
        post: {
          ...open,
          operationId: 'createToken',
          summary: 'Exchange credentials for a bearer token',
          description:
            'Answers 201 with a token to send as Authorization: Bearer <token> until it expires. A wrong email and a ' +
            'wrong password get the same 401 and take the same time.',
          requestBody: {
            required: true,
            content: jsonContent({ $ref: '#/components/schemas/Credentials' }, EXAMPLE_CREDENTIALS),
          },
          responses: responses(
            {
              201: success(
                'a token',
                SUCCESS_HEADERS.noStore,
                jsonContent({ $ref: '#/components/schemas/Token' }, EXAMPLE_TOKEN),
              ),
            },
            [400, 401, 406, 413, 415, 422, 429, 503],
            context,
          ),
        },
      };
  }
}
