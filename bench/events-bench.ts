// `npm run bench -- --events` (issue 23: "1,000 idle subscribers plus a steady write load —
// memory and the write latency's p99 with and without subscribers"). plainrest as `npm
// start` runs it (durable data directory, real tokens, its access log to a file, the stream
// caps at their defaults) takes POST /v1/products at a fixed rate (steady-load.ts), first
// with no one listening, then with 1,000 Server-Sent Events subscribers to GET /v1/events
// (event-subscribers.ts, in a child process), ten per user as the per-user cap allows, over
// users the benchmark creates. Reported: write latency with and without, plainrest's RSS
// along the way, and whether every subscriber received every event once and in order (the
// run fails if not, or if a write failed; events-report.ts). The full run repeats the pair
// of phases.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { signToken } from '../src/auth/jwt.ts';
import { DEFAULTS } from '../src/config/config.ts';
import { benchProducts, writeDataDirectory } from './bench-data.ts';
import { adminToken, BENCH_ADMIN_PASSWORD, BENCH_TOKEN_SECRET } from './bench-support.ts';
import { removeAtExit } from './cleanup.ts';
import type { Delivery, MemoryPoint, Phase, Throughput, ThroughputPhase } from './events-report.ts';
import { reportEvents } from './events-report.ts';
import type { LoadRequest } from './load-generators.ts';
import { nodeLoadGenerator } from './load-generators.ts';
import type { BenchModeName } from './postgres-bench.ts';
import type { ServerProcess } from './server-processes.ts';
import { startPlainrest } from './server-processes.ts';
import { steadyLoad } from './steady-load.ts';
import { SubscriberProcess } from './subscriber-process.ts';
import { tcpPressureMs } from './tcp-pressure.ts';

interface EventsMode {
  /** Streams held open; at most the server's default cap (1,000). */
  readonly subscribers: number;
  /** The write load, requests per second, and how long each phase lasts. */
  readonly writesPerSecond: number;
  readonly phaseSeconds: number;
  /** Pairs of phases, without then with subscribers; latencies are pooled per condition. */
  readonly rounds: number;
  readonly warmUpSeconds: number;
  /** A missed target fails the run (the smoke run fails only on a lost event or a failed write). */
  readonly enforceTargets: boolean;
  /** Each throughput phase (writes as fast as answered, alone and beside the streams), in seconds. */
  readonly throughputSeconds: number;
}

const MODES: Record<BenchModeName, EventsMode> = {
  full: {
    subscribers: 1000,
    writesPerSecond: 100,
    phaseSeconds: 10,
    rounds: 2,
    warmUpSeconds: 2,
    enforceTargets: true,
    throughputSeconds: 60,
  },
  quick: {
    subscribers: 1000,
    writesPerSecond: 100,
    phaseSeconds: 5,
    rounds: 1,
    warmUpSeconds: 1,
    enforceTargets: true,
    throughputSeconds: 20,
  },
  smoke: {
    subscribers: 50,
    writesPerSecond: 100,
    phaseSeconds: 1,
    rounds: 1,
    warmUpSeconds: 0.3,
    enforceTargets: false,
    throughputSeconds: 1,
  },
};

/** Products already stored: the size does not matter to a create, nor to the feed. */
const STORED_PRODUCTS = 1000;
/** The per-user cap as plainrest starts without MAX_STREAMS_PER_USER: the subscribers are spread over as many users as it takes. */
const STREAMS_PER_USER = DEFAULTS.events.maxStreamsPerUser;
/** Time for the server to settle (its streams released, the event loop idle) before memory is read. */
const SETTLE_MS = 1000;
/**
 * Before the RSS that says whether streams' memory comes back is read, the idle server is given this long at most to
 * return memory (V8 shrinks its heap some seconds after allocation stops), RSS read every second…
 */
const SHRINK_MS = 30_000;
/** …until it has not fallen by more than a megabyte for this long. */
const STEADY_MS = 5000;
/** How long the subscribers may take, after the last write's answer, to have every event. */
const DELIVERY_TIMEOUT_MS = 60_000;
const DELIVERY_POLL_MS = 20;
/** No subscriber received anything for this long: the missing events will not come. */
const STALLED_MS = 5000;
/** Connections writing as fast as they are answered in the throughput phases. */
const THROUGHPUT_WRITERS = 16;
/** In the throughput phase beside streams, this share of them never reads (a hung client). */
const STALLED_SHARE = 0.5;

const authorization = `Bearer ${adminToken()}`;
const WRITE: LoadRequest = {
  method: 'POST',
  path: '/v1/products',
  headers: { Authorization: authorization, 'Content-Type': 'application/json' },
  bodyTemplate: '{"name":"Feed bench {n}","category":"bench","price":{price}}',
  expect: 201,
};

export async function runEventsBench(modeName: BenchModeName): Promise<boolean> {
  const mode = MODES[modeName];
  if (mode.subscribers > DEFAULTS.events.maxStreams)
    throw new Error(
      `${mode.subscribers} subscribers: more than the server's default cap of ${DEFAULTS.events.maxStreams} streams`,
    );
  const root = await mkdtemp(join(tmpdir(), 'plainrest-events-bench-'));
  removeAtExit(root);
  const dataDir = join(root, 'data');
  await writeDataDirectory(dataDir, benchProducts(STORED_PRODUCTS));
  const settings = {
    RATE_LIMIT: '0',
    ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
    TOKEN_SECRET: BENCH_TOKEN_SECRET,
    DATA_DIR: dataDir,
  };
  const plainrest = await startPlainrest(settings, join(root, 'plainrest.log'), {
    path: '/v1/products/1',
    headers: { Authorization: authorization },
  });
  const subscribers = SubscriberProcess.start();
  try {
    console.log(
      `\nChange feed: POST /v1/products at ${mode.writesPerSecond}/s (open loop) for ${mode.phaseSeconds} s without, then with ${count(mode.subscribers)} ` +
        `subscribers to GET /v1/events (text/event-stream, ${STREAMS_PER_USER} per user), ${mode.rounds} round${mode.rounds === 1 ? '' : 's'}; ` +
        `${count(STORED_PRODUCTS)} products stored, durable`,
    );
    const tokens = await createSubscribingUsers(plainrest.url, Math.ceil(mode.subscribers / STREAMS_PER_USER));
    return await measure(plainrest, subscribers, tokens, mode);
  } finally {
    subscribers.stop();
    await plainrest.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** `users` ordinary users created through the API (no password: none is needed to hold a token), and a token for each. */
async function createSubscribingUsers(url: string, users: number): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const tokens: string[] = [];
  for (let n = 1; n <= users; n++) {
    const answer = await fetch(`${url}/v1/users`, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `Subscriber ${n}`, email: `subscriber-${n}@bench.example` }),
    });
    const body = (await answer.json()) as { id?: unknown };
    if (answer.status !== 201 || typeof body.id !== 'number')
      throw new Error(`POST /v1/users answered ${answer.status}`);
    tokens.push(signToken({ sub: String(body.id), iat: now, exp: now + 3600 }, BENCH_TOKEN_SECRET));
  }
  return tokens;
}

async function measure(
  plainrest: ServerProcess,
  subscribers: SubscriberProcess,
  tokens: readonly string[],
  mode: EventsMode,
): Promise<boolean> {
  let number = 1;
  const write = async (seconds: number): Promise<Phase> => {
    const cpuBefore = { plainrest: plainrest.cpuSeconds(), subscribers: subscribers.cpuSeconds() };
    const load = await steadyLoad(plainrest.url, WRITE, mode.writesPerSecond, seconds, number);
    number += load.sent;
    const cores = (before: number | undefined, after: number | undefined): number | undefined =>
      before === undefined || after === undefined ? undefined : (after - before) / load.elapsedSeconds;
    return {
      load,
      cores: {
        plainrest: cores(cpuBefore.plainrest, plainrest.cpuSeconds()),
        subscribers: cores(cpuBefore.subscribers, subscribers.cpuSeconds()),
      },
    };
  };
  const memory: MemoryPoint[] = [];
  const remember = async (when: string): Promise<void> => {
    await sleep(SETTLE_MS);
    memory.push({ when, megabytes: plainrest.rssMegabytes() });
  };
  /** RSS once the idle server has returned what it will (SHRINK_MS, STEADY_MS): its lowest reading. */
  const rememberSettled = async (when: string): Promise<void> => {
    const started = performance.now();
    let lowest = Number.POSITIVE_INFINITY;
    let fellAt = started;
    while (performance.now() - started < SHRINK_MS && performance.now() - fellAt < STEADY_MS) {
      await sleep(SETTLE_MS);
      const now = plainrest.rssMegabytes();
      if (now === undefined) break;
      if (now < lowest - 1) fellAt = performance.now();
      lowest = Math.min(lowest, now);
    }
    memory.push({ when, megabytes: Number.isFinite(lowest) ? lowest : undefined });
  };
  const warmUp = await write(mode.warmUpSeconds);
  await remember(`idle, after ${count(warmUp.load.sent)} warm-up writes`);
  const without: Phase[] = [];
  const withSubscribers: Phase[] = [];
  const deliveries: Delivery[] = [];
  let rssBeforeSubscribers: number | undefined;
  let rssWithSubscribers: number | undefined;
  const perUser = Math.min(STREAMS_PER_USER, mode.subscribers);
  for (let round = 1; round <= mode.rounds; round++) {
    const label = mode.rounds === 1 ? '' : `round ${round}: `;
    without.push(await write(mode.phaseSeconds));
    await remember(`${label}after the writes without subscribers`);
    const opened = await subscribers.connect(
      plainrest.url,
      tokens.slice(0, Math.ceil(mode.subscribers / perUser)),
      perUser,
    );
    await remember(`${label}${count(opened)} idle subscribers connected`);
    if (round === 1) {
      rssBeforeSubscribers = memory[memory.length - 2]?.megabytes;
      rssWithSubscribers = memory[memory.length - 1]?.megabytes;
    }
    const loaded = await write(mode.phaseSeconds);
    withSubscribers.push(loaded);
    deliveries.push(await awaitDelivery(subscribers, loaded.load.succeeded));
    await remember(`${label}after the writes, subscribers still connected`);
    await subscribers.close();
    await remember(`${label}subscribers gone`);
  }
  const throughput = await measureThroughput(
    plainrest,
    subscribers,
    tokens,
    mode,
    { remember, rememberSettled },
    memory,
  );
  const { writesPerSecond, enforceTargets } = mode;
  return reportEvents({
    writesPerSecond,
    settleMs: SETTLE_MS,
    enforceTargets,
    subscribers: mode.subscribers,
    without,
    withSubscribers,
    deliveries,
    memory,
    rssBeforeSubscribers,
    rssWithSubscribers,
    throughput,
  });
}

/** Writes as fast as they are answered, alone and then beside the streams, STALLED_SHARE of them never reading. */
async function measureThroughput(
  plainrest: ServerProcess,
  subscribers: SubscriberProcess,
  tokens: readonly string[],
  mode: EventsMode,
  readings: {
    readonly remember: (when: string) => Promise<void>;
    readonly rememberSettled: (when: string) => Promise<void>;
  },
  memory: readonly MemoryPoint[],
): Promise<Throughput> {
  const { remember, rememberSettled } = readings;
  const stalled = Math.round(mode.subscribers * STALLED_SHARE);
  // Changes to the stored products, each an `updated` event with the whole record: the store does not grow, so memory compares.
  const writes: LoadRequest = {
    method: 'PATCH',
    path: '/v1/products/{id}',
    paths: Array.from({ length: STORED_PRODUCTS }, (_, index) => `/v1/products/${index + 1}`),
    headers: { Authorization: authorization, 'Content-Type': 'application/merge-patch+json' },
    bodyTemplate: '{"name":"Feed bench change {n}"}',
    expect: 200,
  };
  const run = async (): Promise<ThroughputPhase> => {
    const before = {
      plainrest: plainrest.cpuSeconds(),
      subscribers: subscribers.cpuSeconds(),
      generator: process.cpuUsage(),
    };
    const started = performance.now();
    const load = await nodeLoadGenerator.run(plainrest.url, writes, THROUGHPUT_WRITERS, mode.throughputSeconds);
    const seconds = (performance.now() - started) / 1000;
    const cores = (from: number | undefined, to: number | undefined): number | undefined =>
      from === undefined || to === undefined ? undefined : (to - from) / seconds;
    const generator = process.cpuUsage(before.generator);
    return {
      load,
      cores: {
        plainrest: cores(before.plainrest, plainrest.cpuSeconds()),
        subscribers: cores(before.subscribers, subscribers.cpuSeconds()),
        generator: (generator.user + generator.system) / 1e6 / seconds,
      },
    };
  };
  const alone = await run();
  await rememberSettled('after changes as fast as answered, no streams, once settled');
  const rssBefore = memory[memory.length - 1]?.megabytes;
  const perUser = Math.min(STREAMS_PER_USER, mode.subscribers);
  const streams = await subscribers.connect(
    plainrest.url,
    tokens.slice(0, Math.ceil(mode.subscribers / perUser)),
    perUser,
    stalled,
  );
  const pressureBefore = tcpPressureMs();
  const beside = await run();
  const pressureAfter = tcpPressureMs();
  // The stalled streams come first; a stream that reads must not have been cut off by the server.
  const readersCutOff = (await subscribers.report())
    .slice(stalled)
    .filter((tally) => tally.endedEarly !== undefined).length;
  await remember(`after changes as fast as answered beside ${count(streams)} streams, ${count(stalled)} stalled`);
  const rssBeside = memory[memory.length - 1]?.megabytes;
  await subscribers.close();
  await rememberSettled('those streams closed, once settled');
  return {
    writers: THROUGHPUT_WRITERS,
    streams,
    stalled,
    alone,
    beside,
    readersCutOff,
    tcpPressureMs:
      pressureBefore === undefined || pressureAfter === undefined ? undefined : pressureAfter - pressureBefore,
    rssBefore,
    rssBeside,
    rssAfter: memory[memory.length - 1]?.megabytes,
  };
}

/**
 * Waits until every subscriber has `written` events, or until their counts stop moving for
 * STALLED_MS (a subscriber missed some, or was cut off), then reads their tallies.
 */
async function awaitDelivery(subscribers: SubscriberProcess, written: number): Promise<Delivery> {
  const started = performance.now();
  let completeAfterMs: number | undefined;
  let last = { least: -1, most: -1, at: started };
  while (performance.now() - started < DELIVERY_TIMEOUT_MS) {
    const { least, most } = await subscribers.progress();
    const now = performance.now();
    if (least >= written) {
      if (least === written && most === written) completeAfterMs = now - started;
      break;
    }
    if (least !== last.least || most !== last.most) last = { least, most, at: now };
    else if (now - last.at > STALLED_MS) break;
    await sleep(DELIVERY_POLL_MS);
  }
  return { written, tallies: await subscribers.report(), completeAfterMs };
}

function count(value: number): string {
  return value.toLocaleString('en');
}
