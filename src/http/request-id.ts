// X-Request-Id (README: Headers): every answer carries one, and the access log and error bodies quote it. A client's
// own id is echoed when it is short and plain; otherwise one is made from a random prefix chosen when the process
// starts and a counter: unique within the process (and, by the prefix, across restarts in practice).

import { randomBytes } from 'node:crypto';

/** A client-supplied id is echoed only when it is 1–128 of these characters. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const PREFIX = randomBytes(4).toString('hex');
let counter = 0;

/**
 * A counter costs an increment, where a random UUID per request costs a share of throughput. In base 36, which is
 * shorter and bypasses V8's cache of recent numbers' decimal text: that cache lives in the old generation, so a new
 * decimal string per request would survive young collections as old-generation garbage.
 */
export function newRequestId(): string {
  counter += 1;
  return `${PREFIX}-${counter.toString(36)}`;
}

/** The client's X-Request-Id when it is sane, else a new one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : newRequestId();
}
