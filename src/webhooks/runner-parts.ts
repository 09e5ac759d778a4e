// What a subscription's runner (subscription-runner.ts) is given by the delivery worker (webhook-worker.ts): the feed,
// the target policy and clock, how it reads and writes through the store, and where it reports what it did.

import type { WebhookClock } from '../config/server-options.ts';
import type { DisabledReason } from '../declarations/built-in-webhooks.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import type { Decision, RecordReads } from '../store/store.ts';
import type { WriteStore, Writer } from './delivery-writes.ts';
import type { EventSource } from './event-source.ts';
import type { sendAttempt } from './send-attempt.ts';
import type { TargetSettings } from './target-policy.ts';

export interface RunnerParts {
  readonly source: EventSource;
  readonly webhooks: ResourceDefinition;
  readonly deliveries: ResourceDefinition;
  readonly settings: TargetSettings;
  readonly clock: WebhookClock;
  /** This process's name in leases where processes share the data; undefined where it has the data alone. */
  readonly holder: string | undefined;
  readonly leaseMs: number;
  /** Aborted when the server closes: an attempt under way is cut off, and nothing more is written. */
  readonly closing: AbortSignal;
  /** A draw in [0, 1), for the retries' jitter. */
  readonly random: () => number;
  readonly send: typeof sendAttempt;
  /** Reads through the store, as a request would. */
  read<T>(reads: (store: RecordReads) => T): Promise<T>;
  /** A write for the subscription `webhookId`, decided by `decide` on the store as it is then. */
  write<T>(decide: (store: WriteStore, writer: Writer) => Decision<T>, webhookId: number): Promise<T>;
  /** The server disabled the subscription (logged). */
  disabled(webhookId: number, reason: DisabledReason): void;
  /** A step failed (the store could not be reached, or worse): logged; the next poll tries again. */
  failed(webhookId: number, error: unknown): void;
}
