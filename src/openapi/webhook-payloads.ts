// What a webhook's receiver gets (docs/webhooks.md), as OpenAPI 3.1's `webhooks` describes requests the API makes:
// each event a subscription takes, POSTed with the change feed's JSON and the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature); and the test event a POST to a subscription's deliveries asks for. A 2xx
// within 10 s acknowledges; anything else is retried (webhooks/retry-schedule.ts).

import type { ResourceTable } from '../resources/definition.ts';
import { componentName } from '../resources/names.ts';
import { WEBHOOKS } from '../declarations/built-in-webhooks.ts';
import { eventSchema, exampleEvent } from './event-operations.ts';
import { EXAMPLE_TIME } from './written-examples.ts';

type Json = Record<string, unknown>;

/** The three headers, as a receiver reads them (the Standard Webhooks specification). */
function signedHeaders(id: string, idSchema: Json): Json[] {
  return [
    {
      name: 'webhook-id',
      in: 'header',
      required: true,
      description: 'The message: the same on every attempt of one delivery, to tell a retry from a new message.',
      schema: idSchema,
      example: id,
    },
    {
      name: 'webhook-timestamp',
      in: 'header',
      required: true,
      description: 'When this attempt was signed, in seconds since the Unix epoch: refuse one far from your clock.',
      schema: { type: 'string', pattern: '^[0-9]{1,12}$', maxLength: 12 },
      example: '1768903200',
    },
    {
      name: 'webhook-signature',
      in: 'header',
      required: true,
      description:
        '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` (the body as sent), keyed by ' +
        "the bytes of the subscription's secret (its base64 after `whsec_`): compare in constant time.",
      schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=$', minLength: 47, maxLength: 47 },
      example: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    },
  ];
}

const RESPONSES: Json = {
  '2XX': { description: 'Acknowledged: any 2xx within 10 s. The body is not read.' },
  default: {
    description:
      'Anything else (another status, a redirect, which is not followed, no answer within 10 s, a refused or reset ' +
      'connection) fails the attempt: the event is tried again after about 5 s, then ever further apart (at most an ' +
      'hour), for a day; then the subscription is disabled (retries_exhausted).',
  },
};

/**
 * An event as its receiver gets it: the change feed's (ChangeEvent), its record an object whose schema is its
 * collection's. Not a reference to those: they mark the server's fields readOnly, which a request (this one, sent by
 * the server) may not hold.
 */
function deliveredEventSchema(table: ResourceTable, basePath: string): Json {
  const event = eventSchema(table, 'en', (definition) => componentName(definition, 'en'), basePath) as Json & {
    readonly properties: Json;
  };
  const record = {
    type: 'object',
    description:
      "the record as an administrator reads it at this version (GET on path): its schema is its collection's " +
      '(#/components/schemas/…); absent from a deletion',
  };
  return { ...event, properties: { ...event.properties, record } };
}

/** The document's `webhooks`: the feed's events and the test event, as their receiver gets them. */
export function webhookPayloads(table: ResourceTable, basePath: string): Json {
  const event = exampleEvent(table, 'en');
  const description =
    'Where processes share a database, one of them sends it. Events of one subscription come one at a time, in the ' +
    "feed's order (ids increasing), each at least once: a retry, or a resend after a crash, has the same webhook-id.";
  return {
    changeEvent: {
      post: {
        operationId: 'receiveChangeEvent',
        tags: [WEBHOOKS],
        summary: 'An event of the change feed, to a subscription that takes it',
        description: `Its body is the event as GET /v1/events shows it to an administrator. ${description}`,
        security: [],
        parameters: signedHeaders(String(event['id']), { type: 'string', pattern: '^[0-9]{1,16}$', maxLength: 16 }),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: deliveredEventSchema(table, basePath), example: event } },
        },
        responses: RESPONSES,
      },
    },
    testEvent: {
      post: {
        operationId: 'receiveTestEvent',
        tags: [WEBHOOKS],
        summary: 'A test event, asked for by POST /v1/webhooks/{webhook_id}/deliveries with {}',
        description: "Sent once, signed as the events are; its webhook-id is `test-` and its delivery's id.",
        security: [],
        parameters: signedHeaders('test-7', { type: 'string', pattern: '^test-[0-9]{1,16}$', maxLength: 21 }),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['type', 'webhook_id', 'delivery_id', 'at'],
                additionalProperties: false,
                properties: {
                  type: { type: 'string', enum: ['test'] },
                  webhook_id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
                  delivery_id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
                  at: { type: 'string', format: 'date-time', maxLength: 32 },
                },
              },
              example: { type: 'test', webhook_id: 1, delivery_id: 7, at: EXAMPLE_TIME },
            },
          },
        },
        responses: RESPONSES,
      },
    },
  };
}
