// A delivery's signature (docs/webhooks.md: Verifying a delivery), as the Standard Webhooks specification defines it:
// HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the secret's bytes (the base64 after `whsec_`),
// sent in base64 after `v1,` in the webhook-signature header, beside webhook-id and webhook-timestamp (Unix seconds).

import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../declarations/built-in-webhooks.ts';

/** What a receiver is told besides the body. */
export const USER_AGENT = 'plainrest-webhooks';

/** `v1,` and the base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under `secret` (`whsec_…`). */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  );
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of a delivery of `body` (JSON) with `id`, signed at `nowMs`. */
export function deliveryHeaders(secret: string, id: string, nowMs: number, body: string): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureOf(secret, id, timestamp, body),
  };
}
