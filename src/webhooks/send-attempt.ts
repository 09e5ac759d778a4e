// One attempt to deliver (docs/webhooks.md: Delivery): a POST on node:http or node:https, its own connection, whose
// address the target policy checks as it connects; a 2xx acknowledges. Anything else fails: another status (a redirect
// is not followed: Standard Webhooks counts a 3xx as a failure), no answer within ATTEMPT_TIMEOUT_MS on the worker's
// clock, a refused or reset connection. At most READ_LIMIT bytes of an answer are read; the connection then closes.

import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { WebhookClock } from '../config/server-options.ts';
import { ATTEMPT_TIMEOUT_MS } from './retry-schedule.ts';
import { deliveryHeaders } from './signature.ts';
import type { TargetSettings } from './target-policy.ts';
import { allowedHost, guardedLookup, requireAllowedLiteral, TargetRefused } from './target-policy.ts';

/** What is read of an answer at most; the rest is never read. */
const READ_LIMIT = 4096;
/** How much of a failed answer's body its delivery's `error` keeps. */
const ERROR_BODY_CHARACTERS = 300;

export interface Attempt {
  readonly url: string;
  /** The webhook-id header: the event's id, or a test's. */
  readonly id: string;
  readonly body: string;
  readonly secret: string;
}

export interface AttemptOutcome {
  readonly delivered: boolean;
  /** The answer's status, when one came. */
  readonly status?: number;
  /** Why it failed. */
  readonly error?: string;
}

/** Sends `attempt` once; never rejects. `signal` aborts it (the server is closing). */
export function sendAttempt(
  attempt: Attempt,
  settings: TargetSettings,
  clock: WebhookClock,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  let host: string;
  try {
    host = allowedHost(attempt.url, settings);
    requireAllowedLiteral(host, settings);
  } catch (error) {
    return Promise.resolve({ delivered: false, error: `the url ${(error as Error).message}` });
  }
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: AttemptOutcome): void => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const options: RequestOptions = {
      method: 'POST',
      headers: deliveryHeaders(attempt.secret, attempt.id, clock.now(), attempt.body),
      agent: false,
      lookup: guardedLookup(settings) as RequestOptions['lookup'],
    };
    const send = attempt.url.startsWith('https:') ? httpsRequest : httpRequest;
    const request: ClientRequest = send(attempt.url, options, (response) => read(response, request, settle));
    const timer = clock.setTimeout(() => {
      settle({ delivered: false, error: `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s` });
      request.destroy();
    }, ATTEMPT_TIMEOUT_MS);
    const onAbort = (): void => {
      settle({ delivered: false, error: 'the server closed before an answer came' });
      request.destroy();
    };
    signal.addEventListener('abort', onAbort);
    request.on('error', (error: NodeJS.ErrnoException) => settle({ delivered: false, error: connectionError(error) }));
    request.end(attempt.body);
  });
}

/** The answer's status decides; a failed answer's first bytes are kept for its error, and at most READ_LIMIT read. */
function read(response: IncomingMessage, request: ClientRequest, settle: (outcome: AttemptOutcome) => void): void {
  const status = response.statusCode ?? 0;
  // The connection is cut once the answer is judged: what the answer does after that is no matter.
  response.on('error', () => undefined);
  if (status >= 200 && status < 300) {
    settle({ delivered: true, status });
    request.destroy();
    return;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  const done = (): void => {
    const text = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_CHARACTERS).replace(/\s+/g, ' ').trim();
    const location = response.headers.location;
    const redirect =
      status >= 300 && status < 400 && location !== undefined ? ` (a redirect to ${location}, not followed)` : '';
    settle({
      delivered: false,
      status,
      error: `the receiver answered ${status}${redirect}${text === '' ? '' : `: ${text}`}`,
    });
    request.destroy();
  };
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= READ_LIMIT) done();
  });
  response.on('end', done);
  response.on('close', done);
}

/** A failed connection, in words (a refusal of the target policy says why). */
function connectionError(error: NodeJS.ErrnoException): string {
  if (error instanceof TargetRefused) return `the url ${error.message}`;
  return `the connection failed: ${error.code ?? error.message}`;
}
