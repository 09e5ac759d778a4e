// One attempt to deliver (docs/webhooks.md: Delivery): a POST on node:http or node:https, on the subscription's kept
// connection (kept-connection.ts), whose address the target policy checked as it was made; a 2xx acknowledges. Anything
// else fails: another status (a redirect is not followed: Standard Webhooks counts a 3xx as a failure), no answer
// within ATTEMPT_TIMEOUT_MS on the worker's clock, a refused or reset connection; a failure closes the connection.

import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { WebhookClock } from '../config/server-options.ts';
import { ATTEMPT_TIMEOUT_MS } from './retry-schedule.ts';
import { deliveryHeaders } from './signature.ts';
import type { TargetSettings } from './target-policy.ts';
import { allowedHost, guardedLookup, requireAllowedLiteral, TargetRefused } from './target-policy.ts';

/** What is read of an answer at most; a longer one's connection is closed, the rest never read. */
const READ_LIMIT = 4096;
/** How much of a failed answer's body its delivery's `error` keeps. */
const ERROR_BODY_CHARACTERS = 300;

export interface Attempt {
  readonly url: string;
  /** The webhook-id header: the event's id, or a test's. */
  readonly id: string;
  readonly body: string;
  readonly secret: string;
  /** The subscription's kept connection (kept-connection.ts). */
  readonly agent: Agent;
}

export interface AttemptOutcome {
  readonly delivered: boolean;
  /** The answer's status, when one came. */
  readonly status?: number;
  /** Why it failed. */
  readonly error?: string;
}

/**
 * Sends `attempt` once; never rejects. `signal` aborts it (the server is closing). A 2xx settles it at once, and its
 * answer is then read to its end, within READ_LIMIT bytes and the attempt's time, so that the connection carries the
 * next delivery; any other end closes the connection. A kept connection the receiver had closed meanwhile (the request
 * fails before an answer) is no attempt: it is sent again, once, on a new connection.
 */
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
    let answered = false;
    let request: ClientRequest;
    const settle = (outcome: AttemptOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    /** The attempt is over: its answer read to its end, or its connection cut. */
    const finish = (): void => {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    /** Cut off: settled with `outcome` if it was not yet, and the connection destroyed (never used again). */
    const cut = (outcome?: AttemptOutcome): void => {
      if (outcome !== undefined) settle(outcome);
      finish();
      request.destroy();
    };
    const send = (again: boolean): void => {
      const options: RequestOptions = {
        method: 'POST',
        headers: deliveryHeaders(attempt.secret, attempt.id, clock.now(), attempt.body),
        agent: attempt.agent,
        lookup: guardedLookup(settings) as RequestOptions['lookup'],
      };
      const sendOn = attempt.url.startsWith('https:') ? httpsRequest : httpRequest;
      const sent = sendOn(attempt.url, options, (response) => {
        answered = true;
        read(response, settle, finish, cut);
      });
      request = sent;
      sent.on('error', (error: NodeJS.ErrnoException) => {
        if (sent.reusedSocket && !answered && !again && !settled) send(true);
        else cut({ delivered: false, error: connectionError(error) });
      });
      sent.end(attempt.body);
    };
    const timer = clock.setTimeout(
      () => cut({ delivered: false, error: `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s` }),
      ATTEMPT_TIMEOUT_MS,
    );
    const onAbort = (): void => cut({ delivered: false, error: 'the server closed before an answer came' });
    signal.addEventListener('abort', onAbort);
    send(false);
  });
}

/**
 * The answer's status decides. A 2xx is read to its end (the connection then kept); a failed answer's first bytes are
 * kept for its error, and its connection closed. Either is cut once READ_LIMIT bytes came.
 */
function read(
  response: IncomingMessage,
  settle: (outcome: AttemptOutcome) => void,
  finish: () => void,
  cut: (outcome?: AttemptOutcome) => void,
): void {
  const status = response.statusCode ?? 0;
  // Once the answer is judged, what it does after that is no matter (a connection reset mid-body is cut).
  response.on('error', () => undefined);
  if (status >= 200 && status < 300) {
    settle({ delivered: true, status });
    let length = 0;
    response.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > READ_LIMIT) cut();
    });
    response.on('end', finish);
    response.on('close', () => (response.complete ? finish() : cut()));
    return;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  const done = (): void => {
    const text = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_CHARACTERS).replace(/\s+/g, ' ').trim();
    const location = response.headers.location;
    const redirect =
      status >= 300 && status < 400 && location !== undefined ? ` (a redirect to ${location}, not followed)` : '';
    cut({
      delivered: false,
      status,
      error: `the receiver answered ${status}${redirect}${text === '' ? '' : `: ${text}`}`,
    });
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
