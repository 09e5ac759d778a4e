// `npm run bench -- --webhooks` (bench/README.md; docs/webhooks.md: a dead receiver costs the API nothing): plainrest
// as `npm start` runs it takes POST /v1/products without subscriptions, with 20 (19 receivers in a child process, 1
// dead) and with the 19 alone, alternated round by round: a steady load for the latency, a load as fast as answered
// for the throughput, plainrest's CPU per write; every delivery checked by the receivers (webhooks-report.ts).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchProducts, writeDataDirectory } from './bench-data.ts';
import { adminToken, BENCH_ADMIN_PASSWORD, BENCH_TOKEN_SECRET } from './bench-support.ts';
import { removeAtExit } from './cleanup.ts';
import type { LoadGenerator, LoadRequest } from './load-generators.ts';
import type { BenchModeName } from './postgres-bench.ts';
import type { ReceiverPorts } from './receiver-process.ts';
import { ReceiverProcess } from './receiver-process.ts';
import type { ServerProcess } from './server-processes.ts';
import { startPlainrest } from './server-processes.ts';
import { percentile, steadyLoad } from './steady-load.ts';
import type { Condition, DeadCheck, DeadKind, PhaseResult, WebhooksMeasured } from './webhooks-report.ts';
import { CONDITION_NAMES, reportWebhooks } from './webhooks-report.ts';

interface WebhooksMode {
  /** The steady load's rate, writes per second, and how long each steady phase lasts. */
  readonly writesPerSecond: number;
  readonly steadySeconds: number;
  /** Each phase of writes as fast as answered (THROUGHPUT_CONNECTIONS), in seconds. */
  readonly throughputSeconds: number;
  /** Rounds of the three conditions, the order and the dead receiver's kind alternating from one round to the next. */
  readonly rounds: number;
  readonly warmUpSeconds: number;
  /** A missed target fails the run (every mode fails on a lost delivery or a failed write). */
  readonly enforceTargets: boolean;
}

/**
 * 25 writes a second: with 19 live subscriptions, 475 deliveries a second, about half what the worker delivered at
 * most in the first runs (650-1,400 a second, bench/README.md), so that the deliveries keep up and the lag is the
 * delivery's, not a queue's. The writes as fast as answered leave a queue 19 times their number, which the worker
 * empties at 35-70 writes' worth a second: those phases are short.
 */
const MODES: Record<BenchModeName, WebhooksMode> = {
  full: {
    writesPerSecond: 25,
    steadySeconds: 20,
    throughputSeconds: 3,
    rounds: 2,
    warmUpSeconds: 2,
    enforceTargets: true,
  },
  quick: {
    writesPerSecond: 25,
    steadySeconds: 6,
    throughputSeconds: 1,
    rounds: 2,
    warmUpSeconds: 1,
    enforceTargets: true,
  },
  smoke: {
    writesPerSecond: 25,
    steadySeconds: 1,
    throughputSeconds: 0.3,
    rounds: 2,
    warmUpSeconds: 0.3,
    enforceTargets: false,
  },
};

/** Subscriptions in the condition with them: this many receivers that answer, and one dead. */
const LIVE_RECEIVERS = 19;
/**
 * Before the first round, the live subscriptions take 200 writes (3,800 deliveries) in every mode: with fewer (the
 * smoke run's 0.3 s), the first phase with subscriptions cost about twice the CPU per write of the next ones.
 */
const DELIVERY_WARM_UP = { writesPerSecond: 50, seconds: 4 };
/** Products already stored: the size matters neither to a create nor to the feed. */
const STORED_PRODUCTS = 1000;
const THROUGHPUT_CONNECTIONS = 64;
/** After the writes, how long the live receivers may take to have every event, and how long none may move. */
const DELIVERY_TIMEOUT_MS = 600_000;
const STALLED_MS = 10_000;
const DELIVERY_POLL_MS = 20;
/**
 * Between phases plainrest is let go idle (under 5 % of a core for half a second, for 30 s at most): what a phase set
 * going (a compaction) is its own cost, and no phase starts beside the last one's.
 */
const IDLE_CORES = 0.05;
const IDLE_WINDOW_MS = 500;
const IDLE_TIMEOUT_MS = 30_000;
/** The writes a stopped load generator left are done once the product count holds this long. */
const SETTLE_MS = 250;

const authorization = `Bearer ${adminToken()}`;
const WRITE: LoadRequest = {
  method: 'POST',
  path: '/v1/products',
  headers: { Authorization: authorization, 'Content-Type': 'application/json' },
  bodyTemplate: '{"name":"Webhook bench {n}","category":"bench","price":{price}}',
  expect: 201,
};

export async function runWebhooksBench(modeName: BenchModeName, load: LoadGenerator): Promise<boolean> {
  const mode = MODES[modeName];
  const root = await mkdtemp(join(tmpdir(), 'plainrest-webhooks-bench-'));
  removeAtExit(root);
  const dataDir = join(root, 'data');
  await writeDataDirectory(dataDir, benchProducts(STORED_PRODUCTS));
  const settings = {
    RATE_LIMIT: '0',
    ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
    TOKEN_SECRET: BENCH_TOKEN_SECRET,
    DATA_DIR: dataDir,
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
  };
  const plainrest = await startPlainrest(settings, join(root, 'plainrest.log'), {
    path: '/v1/products/1',
    headers: { Authorization: authorization },
  });
  const receivers = ReceiverProcess.start();
  try {
    const ports = await receivers.listen();
    console.log(
      `\nWebhooks: POST /v1/products at ${mode.writesPerSecond}/s (open loop) for ${mode.steadySeconds} s, then as ` +
        `fast as answered (${THROUGHPUT_CONNECTIONS} connections, ${load.name}) for ${mode.throughputSeconds} s, ` +
        `without subscriptions, with 20 (${LIVE_RECEIVERS} answering 204 at once, 1 dead) and with the ` +
        `${LIVE_RECEIVERS} alone, ${mode.rounds} rounds alternated; ` +
        `${STORED_PRODUCTS.toLocaleString('en')} products stored, durable`,
    );
    const bench = new WebhooksRun(plainrest, receivers, ports, load, mode);
    const measured = await bench.measure();
    return reportWebhooks(measured);
  } finally {
    receivers.stop();
    await plainrest.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** One subscription made for a round: its id and, for a live one, its path on the live receiver and its secret. */
interface Subscribed {
  readonly id: number;
  readonly path: string | undefined;
  readonly secret: string;
}

class WebhooksRun {
  readonly #plainrest: ServerProcess;
  readonly #receivers: ReceiverProcess;
  readonly #ports: ReceiverPorts;
  readonly #load: LoadGenerator;
  readonly #mode: WebhooksMode;
  /** The next write's number ({n} in its body). */
  #number = 1;

  constructor(
    plainrest: ServerProcess,
    receivers: ReceiverProcess,
    ports: ReceiverPorts,
    load: LoadGenerator,
    mode: WebhooksMode,
  ) {
    this.#plainrest = plainrest;
    this.#receivers = receivers;
    this.#ports = ports;
    this.#load = load;
    this.#mode = mode;
  }

  async measure(): Promise<WebhooksMeasured> {
    const mode = this.#mode;
    await this.#warmUp();
    const phases: PhaseResult[] = [];
    const deadChecks: DeadCheck[] = [];
    for (let round = 1; round <= mode.rounds; round++) {
      const conditions: Condition[] = round % 2 === 1 ? ['none', 'with', 'live'] : ['live', 'with', 'none'];
      // The receiver that never answers in odd rounds (each attempt holds a connection for the worker's timeout), the
      // port where nothing listens in even ones (each attempt refused at once).
      const dead: DeadKind = round % 2 === 1 ? 'never answers' : 'nothing listens';
      for (const condition of conditions) {
        console.error(`webhooks: round ${round}, ${CONDITION_NAMES[condition]}…`);
        if (condition === 'none') {
          phases.push(await this.#phase(round, condition, 'steady', undefined));
          phases.push(await this.#phase(round, condition, 'throughput', undefined));
          continue;
        }
        // With the dead one, and the live ones alone: beside each other, what the dead one costs (the targets).
        const subscribed = await this.#subscribe(condition === 'with' ? dead : undefined);
        const expected = { count: 0 };
        phases.push(await this.#phase(round, condition, 'steady', expected));
        phases.push(await this.#phase(round, condition, 'throughput', expected));
        if (condition === 'with') {
          const deadOne = subscribed.find((one) => one.path === undefined) as Subscribed;
          deadChecks.push(await this.#checkDead(round, dead, deadOne.id));
        }
        await this.#unsubscribe(subscribed);
      }
    }
    return {
      mode,
      liveReceivers: LIVE_RECEIVERS,
      phases,
      deadChecks,
      receiverStrays: (await this.#receivers.report()).strays,
    };
  }

  /**
   * Untimed, so that no condition meets a cold server: the steady load and the load as fast as answered without
   * subscriptions for the warm-up's length, then DELIVERY_WARM_UP with the live ones (the delivery path).
   */
  async #warmUp(): Promise<void> {
    const seconds = this.#mode.warmUpSeconds;
    await this.#phase(0, 'none', 'steady', undefined, seconds);
    await this.#phase(0, 'none', 'throughput', undefined, seconds);
    const subscribed = await this.#subscribe(undefined);
    const { writesPerSecond, seconds: deliverySeconds } = DELIVERY_WARM_UP;
    await this.#phase(0, 'live', 'steady', { count: 0 }, deliverySeconds, writesPerSecond);
    await this.#unsubscribe(subscribed);
  }

  /**
   * One phase of writes; with subscriptions, also the wait until every live receiver has every event written since
   * they were made (`expected.count`, which it adds this phase's writes to).
   */
  async #phase(
    round: number,
    condition: Condition,
    kind: 'steady' | 'throughput',
    expected: { count: number } | undefined,
    seconds = kind === 'steady' ? this.#mode.steadySeconds : this.#mode.throughputSeconds,
    writesPerSecond = this.#mode.writesPerSecond,
  ): Promise<PhaseResult> {
    const { url } = this.#plainrest;
    await this.#receivers.mark();
    const productsBefore = await this.#productCount();
    const cpuBefore = { plainrest: this.#plainrest.cpuSeconds(), receivers: this.#receivers.cpuSeconds() };
    const startedAt = Date.now();
    const started = performance.now();
    let answers: PhaseResult['answers'];
    if (kind === 'steady') {
      const steady = await steadyLoad(url, WRITE, writesPerSecond, seconds, this.#number);
      this.#number += steady.sent;
      const sorted = [...steady.latenciesMs].sort((a, b) => a - b);
      answers = {
        perSecond: steady.succeeded / steady.elapsedSeconds,
        errors: steady.errors,
        failures: steady.failures,
        latenciesMs: steady.latenciesMs,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        lateMs: steady.lateMs.max,
      };
    } else {
      const result = await this.#load.run(url, WRITE, THROUGHPUT_CONNECTIONS, seconds);
      const { requestsPerSecond: perSecond, errors, p50, p99 } = result;
      answers = { perSecond, errors, failures: [], latenciesMs: [], p50, p99, lateMs: undefined };
    }
    const writesEnded = performance.now();
    const writeSeconds = (writesEnded - started) / 1000;
    const cpuAfterWrites = this.#plainrest.cpuSeconds();
    // Each write's event: the products made, once none is being made (a load generator stopped mid-request leaves
    // writes that the server still completes, unanswered).
    const writes = (await this.#settledProductCount()) - productsBefore;
    let delivery: PhaseResult['delivery'];
    if (expected !== undefined) {
      expected.count += writes;
      const completedAt = await this.#awaitDelivery(expected.count);
      const completeAfterMs = completedAt === undefined ? undefined : completedAt - writesEnded;
      delivery = { expected: expected.count, completeAfterMs, startedAt, receivers: await this.#receivers.report() };
    }
    // What the phase left running (a compaction of the journal its writes filled) counts to it, not to the next.
    await this.#awaitIdle();
    const cpuAfter = { plainrest: this.#plainrest.cpuSeconds(), receivers: this.#receivers.cpuSeconds() };
    const spent = (before: number | undefined, after: number | undefined): number | undefined =>
      before === undefined || after === undefined ? undefined : after - before;
    return {
      round,
      condition,
      kind,
      writes,
      writeSeconds,
      answers,
      cpuSeconds: {
        duringWrites: spent(cpuBefore.plainrest, cpuAfterWrites),
        allTold: spent(cpuBefore.plainrest, cpuAfter.plainrest),
        receivers: spent(cpuBefore.receivers, cpuAfter.receivers),
      },
      ...(delivery === undefined ? {} : { delivery }),
    };
  }

  /**
   * Subscriptions to the products' events: LIVE_RECEIVERS on the live receiver's paths, and one `dead` if given; the
   * live receivers told their secrets, their tallies started afresh.
   */
  async #subscribe(dead: DeadKind | undefined): Promise<Subscribed[]> {
    const { live, hanging, refusing } = this.#ports;
    const targets = Array.from({ length: LIVE_RECEIVERS }, (_, index) => `/hook-${index + 1}`);
    const subscribed: Subscribed[] = [];
    for (const path of targets) subscribed.push(await this.#subscribeTo(`http://127.0.0.1:${live}${path}`, path));
    await this.#receivers.expect(subscribed.map((one) => ({ path: one.path as string, secret: one.secret })));
    if (dead === undefined) return subscribed;
    const deadPort = dead === 'never answers' ? hanging : refusing;
    subscribed.push(await this.#subscribeTo(`http://127.0.0.1:${deadPort}/dead`, undefined));
    return subscribed;
  }

  async #unsubscribe(subscribed: readonly Subscribed[]): Promise<void> {
    for (const one of subscribed) await this.#api('DELETE', `/v1/webhooks/${one.id}`, 204);
    await this.#receivers.expect([]);
  }

  async #subscribeTo(url: string, path: string | undefined): Promise<Subscribed> {
    const made = (await this.#api('POST', '/v1/webhooks', 201, { url, collections: ['products'] })) as {
      id?: unknown;
      secret?: unknown;
    };
    if (typeof made.id !== 'number' || typeof made.secret !== 'string')
      throw new Error(`POST /v1/webhooks answered no id or secret: ${JSON.stringify(made)}`);
    return { id: made.id, path, secret: made.secret };
  }

  /**
   * The dead subscription after the round's writes: still enabled, and its failures where an administrator reads them
   * (its deliveries), not in any write's answer (each must have been 201, which the phases count).
   */
  async #checkDead(round: number, kind: DeadKind, id: number): Promise<DeadCheck> {
    const subscription = (await this.#api('GET', `/v1/webhooks/${id}`, 200)) as { enabled?: unknown };
    const list = (await this.#api('GET', `/v1/webhooks/${id}/deliveries`, 200)) as {
      data?: { status?: unknown; attempts?: unknown; error?: unknown }[];
    };
    const pending = list.data?.find((delivery) => delivery.status === 'pending');
    return {
      round,
      kind,
      enabled: subscription.enabled === true,
      deliveries: list.data?.length ?? 0,
      delivered: list.data?.filter((delivery) => delivery.status === 'succeeded').length ?? 0,
      attempts: typeof pending?.attempts === 'number' ? pending.attempts : 0,
      error: typeof pending?.error === 'string' ? pending.error : undefined,
      hangingConnections: (await this.#receivers.report()).hangingConnections,
    };
  }

  /** Waits until plainrest uses less than IDLE_CORES over IDLE_WINDOW_MS, for IDLE_TIMEOUT_MS at most. */
  async #awaitIdle(): Promise<void> {
    const deadline = performance.now() + IDLE_TIMEOUT_MS;
    let before = this.#plainrest.cpuSeconds();
    while (before !== undefined && performance.now() < deadline) {
      await sleep(IDLE_WINDOW_MS);
      const now = this.#plainrest.cpuSeconds();
      if (now === undefined || (now - before) / (IDLE_WINDOW_MS / 1000) < IDLE_CORES) return;
      before = now;
    }
  }

  /**
   * Waits until every live receiver has `count` distinct events, or until their counts stop moving for STALLED_MS (an
   * event was lost); when they had them all (performance.now()), undefined when they never did.
   */
  async #awaitDelivery(count: number): Promise<number | undefined> {
    const started = performance.now();
    let last = { least: -1, most: -1, at: started };
    while (performance.now() - started < DELIVERY_TIMEOUT_MS) {
      const { least, most } = await this.#receivers.progress();
      const now = performance.now();
      if (least >= count) return least === count && most === count ? now : undefined;
      if (least !== last.least || most !== last.most) last = { least, most, at: now };
      else if (now - last.at > STALLED_MS) return undefined;
      await sleep(DELIVERY_POLL_MS);
    }
    return undefined;
  }

  /** The product count once two readings SETTLE_MS apart agree. */
  async #settledProductCount(): Promise<number> {
    let before = await this.#productCount();
    for (;;) {
      await sleep(SETTLE_MS);
      const now = await this.#productCount();
      if (now === before) return now;
      before = now;
    }
  }

  async #productCount(): Promise<number> {
    const list = (await this.#api('GET', '/v1/products?limit=1', 200)) as { meta?: { total?: unknown } };
    if (typeof list.meta?.total !== 'number') throw new Error('GET /v1/products answered no meta.total');
    return list.meta.total;
  }

  async #api(method: string, path: string, expect: number, body?: unknown): Promise<unknown> {
    const answer = await fetch(`${this.#plainrest.url}${path}`, {
      method,
      headers: { Authorization: authorization, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    if (answer.status !== expect) throw new Error(`${method} ${path} answered ${answer.status}: ${text.slice(0, 300)}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  }
}
