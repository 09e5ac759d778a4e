// A constant-rate (open-loop) load on node:http for the change-feed benchmark: request i
// is due at start + i / rate whether or not earlier ones have been answered, so a slow
// server meets the same arrivals instead of fewer (wrk keeps each connection waiting for
// its answer, and cannot hold a fixed rate). Each request's latency is timed from its send
// to the end of its answer; a request waiting for a free connection counts that wait. How
// late the generator itself sent, behind its schedule, is reported beside: large values
// mean the rate was not held, and the run says so.

import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadRequest } from './load-generators.ts';
import { bodyFor } from './load-generators.ts';

/** Connections the generator may open; requests beyond wait for one (and that wait counts). */
const MAX_CONNECTIONS = 256;
/** A request unanswered this long counts as failed. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface SteadyLoadResult {
  /** Requests sent, and those answered with the expected status. */
  readonly sent: number;
  readonly succeeded: number;
  /** Other statuses, failed connections and timeouts. */
  readonly errors: number;
  /** The first few failures, for the report. */
  readonly failures: readonly string[];
  /** Milliseconds, one per succeeded request, in the order they were sent. */
  readonly latenciesMs: readonly number[];
  /** From the first send to the last answer. */
  readonly elapsedSeconds: number;
  /** How far behind its schedule the generator sent: the 99th percentile and the worst, in ms. */
  readonly lateMs: { readonly p99: number; readonly max: number };
}

/** `spec` (its `{n}` numbered from `firstNumber`) at `rate` requests per second for `seconds`, against `baseUrl`. */
export async function steadyLoad(
  baseUrl: string,
  spec: LoadRequest,
  rate: number,
  seconds: number,
  firstNumber = 1,
): Promise<SteadyLoadResult> {
  const target = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: MAX_CONNECTIONS });
  const total = Math.max(1, Math.round(rate * seconds));
  const latenciesMs: number[] = [];
  const late: number[] = [];
  const failures: string[] = [];
  let errors = 0;
  const answers: Promise<void>[] = [];
  const send = (n: number): Promise<void> =>
    new Promise((resolve) => {
      const body = spec.bodyTemplate === undefined ? undefined : bodyFor(spec.bodyTemplate, n);
      const headers =
        body === undefined ? spec.headers : { ...spec.headers, 'content-length': String(Buffer.byteLength(body)) };
      const fail = (reason: string): void => {
        errors++;
        if (failures.length < 5) failures.push(reason);
        resolve();
      };
      const sentAt = performance.now();
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          method: spec.method,
          path: spec.path,
          headers,
          agent,
          timeout: REQUEST_TIMEOUT_MS,
        },
        (res) => {
          res.resume();
          res.once('end', () => {
            if (res.statusCode === spec.expect) {
              latenciesMs.push(performance.now() - sentAt);
              resolve();
            } else {
              fail(`${spec.method} ${spec.path} answered ${res.statusCode}`);
            }
          });
        },
      );
      req.once('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.once('error', (error) => fail(`${spec.method} ${spec.path}: ${error.message}`));
      req.end(body);
    });

  const started = performance.now();
  const intervalMs = 1000 / rate;
  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait >= 1) await sleep(Math.floor(wait));
    late.push(Math.max(0, performance.now() - due));
    answers.push(send(firstNumber + i));
  }
  await Promise.all(answers);
  const elapsedSeconds = (performance.now() - started) / 1000;
  agent.destroy();
  late.sort((a, b) => a - b);
  return {
    sent: total,
    succeeded: latenciesMs.length,
    errors,
    failures,
    latenciesMs,
    elapsedSeconds,
    lateMs: { p99: percentile(late, 0.99), max: late[late.length - 1] ?? 0 },
  };
}

/** The value at `fraction` (0.5, 0.99) of `sorted` (ascending); 0 when empty. */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}
