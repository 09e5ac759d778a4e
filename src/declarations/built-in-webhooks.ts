// The built-in `webhooks` collection and its `deliveries` (docs/webhooks.md), in the declaration format like users'
// keys: an administrator subscribes a URL to the change feed; each event it matches is POSTed there, signed with the
// subscription's secret (Standard Webhooks), and every attempt is listed under it. Neither is in the change feed.

import type { Fields } from '../records/json.ts';
import type { FieldRule, ResourceHook } from '../resources/definition.ts';
import { EVENT_TYPES } from '../feed/feed-event.ts';
import type { CollectionDeclaration } from './declaration.ts';

/** The collections' names: their paths' segments, data files and tables. */
export const WEBHOOKS = 'webhooks';
export const DELIVERIES = 'deliveries';

/** A subscription's fields, by name (the delivery worker reads and writes them). */
export const WEBHOOK_FIELDS = {
  url: 'url',
  collections: 'collections',
  types: 'types',
  enabled: 'enabled',
  disabledReason: 'disabled_reason',
  secret: 'secret',
  /** The secret as it is kept: as it is, for it signs (an API key's is kept only as its hash). */
  signingSecret: 'signing_secret',
  /** Hidden: every event up to this id is done with (delivered, or not one the subscription takes). */
  position: 'position',
  /** Hidden: which process delivers for it, and until when (ms since the epoch), where processes share the data. */
  leaseHolder: 'lease_holder',
  leaseUntil: 'lease_until',
} as const;

/** A delivery's fields, by name. */
export const DELIVERY_FIELDS = {
  webhook: 'webhook_id',
  kind: 'kind',
  eventId: 'event_id',
  status: 'status',
  attempts: 'attempts',
  responseStatus: 'response_status',
  error: 'error',
  firstAttemptAt: 'first_attempt_at',
  nextAttemptAt: 'next_attempt_at',
} as const;

/** Why the server disabled a subscription. */
export const DISABLED_REASONS = ['retries_exhausted', 'history_gone'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** `event`: the feed's next event, in order; `redelivery` and `test`: asked for by a POST, tried once. */
export const DELIVERY_KINDS = ['event', 'redelivery', 'test'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A signing secret: `whsec_` and 32 random bytes in base64, as the Standard Webhooks specification shapes it. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const WEBHOOK_SECRET_PATTERN = '^whsec_[A-Za-z0-9+/]{43}=$';
const WEBHOOK_SECRET_LENGTH = 50;

/** The longest URL a subscription may name. */
const MAX_URL_LENGTH = 2000;

/** The secret: made by the server on create, shown once, kept as it is under `signing_secret`. */
export const WEBHOOK_SECRET = { field: WEBHOOK_FIELDS.secret, storedAs: WEBHOOK_FIELDS.signingSecret } as const;

/** Fields a subscription keeps that no request shows or sets: the delivery worker's own. */
export const WEBHOOK_HIDDEN_RULES: readonly FieldRule[] = [
  { name: WEBHOOK_FIELDS.position, type: 'integer', access: 'server', minimum: 0, hidden: true, optional: true },
  { name: WEBHOOK_FIELDS.leaseHolder, type: 'string', access: 'server', hidden: true, optional: true },
  { name: WEBHOOK_FIELDS.leaseUntil, type: 'integer', access: 'server', minimum: 0, hidden: true, optional: true },
];

/**
 * The subscriptions' hook: a subscription enabled again by its request loses the reason the server disabled it for
 * (the delivery worker takes it up from its position: docs/webhooks.md, Disabling and enabling again).
 */
const clearReasonWhenEnabled: ResourceHook = ({ next }): Fields => {
  if (next[WEBHOOK_FIELDS.enabled] === false || next[WEBHOOK_FIELDS.disabledReason] === undefined) return next;
  const { [WEBHOOK_FIELDS.disabledReason]: _reason, ...rest } = next;
  return rest;
};

/** The deliveries' hook: one a request makes is a test (its default), or a redelivery of the event it names. */
const kindOfRequested: ResourceHook = ({ next, current }): Fields =>
  current !== undefined || next[DELIVERY_FIELDS.eventId] === undefined
    ? next
    : { ...next, [DELIVERY_FIELDS.kind]: 'redelivery' };

/** What the definitions have that no declaration says: neither is in the change feed; deliveries newest first. */
export const WEBHOOK_TRAITS = { unrecorded: true, hook: clearReasonWhenEnabled } as const;
export const DELIVERY_TRAITS = {
  unrecorded: true,
  immutable: true,
  hook: kindOfRequested,
  defaultSort: [{ field: 'id', descending: true }],
} as const;

/** The subscriptions, whose `collections` may name any of `deliverable` (the collections in the change feed). */
export function builtInWebhooks(deliverable: readonly string[]): CollectionDeclaration {
  return {
    singular: 'webhook',
    description:
      'A subscription to the change feed (docs/webhooks.md): each event of the collections and types it names is ' +
      "POSTed to its URL, in the feed's order, signed with its secret as Standard Webhooks says, and retried for a " +
      'day until the URL answers 2xx. The secret is shown once, in the answer that creates it.',
    access: { list: 'admin', read: 'admin', create: 'admin', update: 'admin', delete: 'admin' },
    properties: {
      url: {
        type: 'string',
        format: 'uri',
        maxLength: MAX_URL_LENGTH,
        description:
          'Where events are POSTed: https: (http: only where WEBHOOKS_ALLOW_HTTP=true), on no loopback, link-local, ' +
          'private or multicast address unless WEBHOOKS_ALLOW_PRIVATE=true, checked after resolving its name.',
        // An address of RFC 5737's for documentation: an example that needs no name resolved.
        examples: ['https://203.0.113.10/plainrest-events'],
      },
      collections: {
        type: 'array',
        items: { enum: [...deliverable] },
        minItems: 1,
        maxItems: deliverable.length,
        description: 'The collections whose events it takes, by their declared names; absent, all of them.',
      },
      types: {
        type: 'array',
        items: { enum: [...EVENT_TYPES] },
        minItems: 1,
        maxItems: EVENT_TYPES.length,
        description: 'The types of events it takes; absent, all three.',
      },
      enabled: {
        type: 'boolean',
        default: true,
        'x-filter': true,
        description: 'false pauses it: nothing is sent until it is true again, from where it stopped.',
      },
      disabled_reason: {
        enum: [...DISABLED_REASONS],
        readOnly: true,
        description:
          'Why the server disabled it: retries_exhausted (an event went undelivered for a day), history_gone (the ' +
          'feed no longer keeps the events after its position). Gone once it is enabled again.',
      },
      secret: {
        type: 'string',
        readOnly: true,
        minLength: WEBHOOK_SECRET_LENGTH,
        maxLength: WEBHOOK_SECRET_LENGTH,
        pattern: WEBHOOK_SECRET_PATTERN,
        examples: ['whsec_Zm9yIGV4YW1wbGVzIG9ubHk6IG5vdCBhIHJlYWwga2U='],
        description:
          'The signing key of webhook-signature, shown only in the answer to the POST that creates the subscription.',
      },
    },
    required: ['url'],
  };
}

export const BUILT_IN_DELIVERIES: CollectionDeclaration = {
  singular: 'delivery',
  parent: WEBHOOKS,
  description:
    'A subscription\'s attempts to deliver one event, newest first. POST `{"event_id": 42}` sends that event ' +
    "again (once); POST `{}` sends a test event (once). The feed's own events are retried until they are delivered.",
  access: { list: 'admin', read: 'admin', create: 'admin', update: 'admin', delete: 'admin' },
  properties: {
    kind: {
      enum: [...DELIVERY_KINDS],
      readOnly: true,
      default: 'test',
      'x-filter': true,
      description: "event: the feed's, in order; redelivery or test: asked for by a POST.",
    },
    event_id: {
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      'x-filter': true,
      description:
        'The event delivered, by its id in the change feed: on a POST, an existing event the feed still keeps; ' +
        'absent for a test.',
    },
    status: { enum: [...DELIVERY_STATUSES], readOnly: true, default: 'pending', 'x-filter': true },
    // A day of retries makes about 35 attempts (webhooks/retry-schedule.ts).
    attempts: {
      type: 'integer',
      minimum: 0,
      maximum: 100,
      readOnly: true,
      default: 0,
      description: 'Attempts made so far.',
    },
    response_status: {
      type: 'integer',
      minimum: 100,
      maximum: 599,
      readOnly: true,
      description: "The last attempt's answer's status, when it got one.",
    },
    error: {
      type: 'string',
      maxLength: 2000,
      readOnly: true,
      description: 'Why the last attempt failed: the status and the start of the answer, a timeout, a refusal.',
    },
    first_attempt_at: { type: 'string', format: 'date-time', readOnly: true, maxLength: 40 },
    next_attempt_at: {
      type: 'string',
      format: 'date-time',
      readOnly: true,
      maxLength: 40,
      description: 'When it is tried next, while it is pending.',
    },
  },
};
