// The change-feed benchmark's report (bench/events-bench.ts): write latency without and
// with the subscribers, plainrest's memory along the way, what each subscriber received,
// and the targets (targets.ts checkEventTargets). True when the run passes: every event
// delivered to every subscriber once and in order, no write failed, and, where targets
// are enforced, none missed.

import { formatTable } from './bench-support.ts';
import type { StreamTally } from './event-subscribers.ts';
import type { LoadResult } from './load-generators.ts';
import type { SteadyLoadResult } from './steady-load.ts';
import { percentile } from './steady-load.ts';
import type { EventMeasurement, LatencySummary } from './targets.ts';
import { checkEventTargets, megabytes, reportTargets } from './targets.ts';

/** One write phase: its load, and the cores plainrest and the subscribers' process used meanwhile (CPU seconds ÷ elapsed). */
export interface Phase {
  readonly load: SteadyLoadResult;
  readonly cores: { readonly plainrest: number | undefined; readonly subscribers: number | undefined };
}

/** A moment at which plainrest's resident memory was read. */
export interface MemoryPoint {
  readonly when: string;
  readonly megabytes: number | undefined;
}

/** What the subscribers received during one phase with them. */
export interface Delivery {
  readonly written: number;
  readonly tallies: readonly StreamTally[];
  /** From the last write's answer until every subscriber had every event; undefined when they never did. */
  readonly completeAfterMs: number | undefined;
}

/** Everything the benchmark measured, for the report. */
export interface Measured {
  /** The write rate, per second. */
  readonly writesPerSecond: number;
  /** How long after each step plainrest's memory was read. */
  readonly settleMs: number;
  /** Missed targets fail the run (not in a smoke run). */
  readonly enforceTargets: boolean;
  readonly subscribers: number;
  readonly without: readonly Phase[];
  readonly withSubscribers: readonly Phase[];
  readonly deliveries: readonly Delivery[];
  readonly memory: readonly MemoryPoint[];
  readonly rssBeforeSubscribers: number | undefined;
  readonly rssWithSubscribers: number | undefined;
  readonly throughput: Throughput;
}

/** One phase of writes as fast as answered, and the cores each process used meanwhile (the generator is the benchmark's own). */
export interface ThroughputPhase {
  readonly load: LoadResult;
  readonly cores: {
    readonly plainrest: number | undefined;
    readonly subscribers: number | undefined;
    readonly generator: number;
  };
}

/** Writes as fast as they are answered, alone and beside streams of which some never read. */
export interface Throughput {
  readonly writers: number;
  readonly streams: number;
  readonly stalled: number;
  readonly alone: ThroughputPhase;
  readonly beside: ThroughputPhase;
  /** Streams that read what they were sent, yet were ended by the server during the writes beside them. */
  readonly readersCutOff: number;
  /** How long the host's TCP stack was under memory pressure during those writes (Linux only). */
  readonly tcpPressureMs: number | undefined;
  /** plainrest's RSS before the streams opened, after the writes beside them, and once they had closed. */
  readonly rssBefore: number | undefined;
  readonly rssBeside: number | undefined;
  readonly rssAfter: number | undefined;
}

export function reportEvents(measured: Measured): boolean {
  const without = summarise(measured.without);
  const withSubscribers = summarise(measured.withSubscribers);
  printLatencies(measured, without, withSubscribers);
  printMemory(measured.memory, measured.settleMs);
  const faultySubscribers = printDeliveries(measured.deliveries);
  printThroughput(measured.throughput);
  const loads = [...measured.without, ...measured.withSubscribers].map((phase) => phase.load);
  const failures = loads.flatMap((load) => load.failures);
  if (failures.length > 0) console.log(`failed writes, the first: ${failures.slice(0, 3).join('; ')}`);
  const measurement: EventMeasurement = {
    subscribers: measured.subscribers,
    without,
    with: withSubscribers,
    rssBeforeSubscribersMegabytes: measured.rssBeforeSubscribers,
    rssWithSubscribersMegabytes: measured.rssWithSubscribers,
    failedWrites:
      loads.reduce((sum, load) => sum + load.errors, 0) +
      measured.throughput.alone.load.errors +
      measured.throughput.beside.load.errors,
    faultySubscribers,
    throughput: {
      streams: measured.throughput.streams,
      stalled: measured.throughput.stalled,
      ratio: measured.throughput.beside.load.requestsPerSecond / measured.throughput.alone.load.requestsPerSecond,
      readersCutOff: measured.throughput.readersCutOff,
      rssReturnedMegabytes: difference(measured.throughput.rssAfter, measured.throughput.rssBefore),
    },
  };
  const targetsMet = reportTargets('Change feed targets', checkEventTargets(measurement), [], measured.enforceTargets);
  return (
    targetsMet && measurement.failedWrites === 0 && faultySubscribers === 0 && measured.throughput.readersCutOff === 0
  );
}

function printThroughput(throughput: Throughput): void {
  const { writers, streams, stalled, alone, beside } = throughput;
  console.log(
    `\nWrites as fast as answered (${writers} connections), alone and beside ${count(streams)} streams of which ${count(stalled)} never read`,
  );
  const row = (who: string, { load, cores }: ThroughputPhase): string[] => [
    who,
    load.requestsPerSecond.toFixed(0),
    load.p50.toFixed(2),
    load.p99.toFixed(2),
    String(load.errors),
    meanCores([cores.plainrest]),
    meanCores([cores.subscribers]),
    cores.generator.toFixed(2),
  ];
  console.log(
    formatTable(
      [
        'streams',
        'writes/s',
        'p50 ms',
        'p99 ms',
        'failed',
        'plainrest CPU, cores',
        "subscribers' CPU, cores",
        "generator's CPU, cores",
      ],
      [row('none', alone), row(`${count(streams)} (${count(stalled)} stalled)`, beside)],
    ),
  );
  console.log(`Streams that read, yet were cut off by the server meanwhile: ${throughput.readersCutOff}`);
  if (throughput.tcpPressureMs !== undefined)
    console.log(`The host's TCP memory under pressure meanwhile: ${(throughput.tcpPressureMs / 1000).toFixed(1)} s`);
  console.log(
    `RSS: ${megabytes(throughput.rssBefore)} before the streams (the idle server settled), ${megabytes(throughput.rssBeside)} after the writes beside them, ${megabytes(throughput.rssAfter)} once they had closed (settled)`,
  );
}

function difference(after: number | undefined, before: number | undefined): number | undefined {
  return after === undefined || before === undefined ? undefined : after - before;
}

function summarise(phases: readonly Phase[]): LatencySummary {
  const latencies = phases.flatMap((phase) => phase.load.latenciesMs).sort((a, b) => a - b);
  return {
    count: latencies.length,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? 0,
  };
}

function printLatencies(measured: Measured, without: LatencySummary, withSubscribers: LatencySummary): void {
  const row = (who: string, phases: readonly Phase[], summary: LatencySummary): string[] => {
    const loads = phases.map((phase) => phase.load);
    const elapsed = loads.reduce((sum, load) => sum + load.elapsedSeconds, 0);
    return [
      who,
      count(summary.count),
      String(loads.reduce((sum, load) => sum + load.errors, 0)),
      (summary.count / elapsed).toFixed(0),
      summary.p50.toFixed(2),
      summary.p99.toFixed(2),
      summary.max.toFixed(1),
      Math.max(...loads.map((load) => load.lateMs.max)).toFixed(1),
      meanCores(phases.map((phase) => phase.cores.plainrest)),
      meanCores(phases.map((phase) => phase.cores.subscribers)),
    ];
  };
  console.log(
    `\nWrite latency, POST /v1/products at ${measured.writesPerSecond}/s (ms, from the send to the end of the answer)`,
  );
  console.log(
    formatTable(
      [
        'subscribers',
        'writes answered 201',
        'failed',
        'writes/s',
        'p50',
        'p99',
        'max',
        'generator late by, at most',
        'plainrest CPU, cores',
        "subscribers' CPU, cores",
      ],
      [
        row('none', measured.without, without),
        row(count(measured.subscribers), measured.withSubscribers, withSubscribers),
      ],
    ),
  );
  console.log(
    `p99 with ÷ without subscribers: ${(withSubscribers.p99 / without.p99).toFixed(2)}; p50: ${(withSubscribers.p50 / without.p50).toFixed(2)}`,
  );
}

function meanCores(values: readonly (number | undefined)[]): string {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? 'n/a' : (known.reduce((sum, value) => sum + value, 0) / known.length).toFixed(2);
}

function printMemory(memory: readonly MemoryPoint[], settleMs: number): void {
  const first = memory[0]?.megabytes;
  console.log(`\nplainrest's resident memory (VmRSS, read ${settleMs / 1000} s after each step)`);
  console.log(
    formatTable(
      ['when', 'RSS', 'since idle'],
      memory.map((point) => [
        point.when,
        megabytes(point.megabytes),
        point.megabytes === undefined || first === undefined ? 'n/a' : `${signed(point.megabytes - first)} MB`,
      ]),
    ),
  );
}

/** The deliveries' table; returns how many subscribers, over all rounds, did not get exactly the events written, in order. */
function printDeliveries(deliveries: readonly Delivery[]): number {
  let faulty = 0;
  const rows = deliveries.map((delivery, index) => {
    const { tallies, written } = delivery;
    const received = tallies.map((tally) => tally.received);
    const firstIds = new Set(tallies.map((tally) => tally.firstId));
    const lastIds = new Set(tallies.map((tally) => tally.lastId));
    const wrong = tallies.filter(
      (tally) => tally.received !== written || tally.outOfOrder > 0 || tally.endedEarly !== undefined,
    ).length;
    // Every stream saw the same first and last event, or one of them missed some.
    faulty += wrong + (firstIds.size > 1 || lastIds.size > 1 ? 1 : 0);
    const bytes = tallies.reduce((sum, tally) => sum + tally.bytes, 0) / Math.max(1, tallies.length);
    const ended = tallies.find((tally) => tally.endedEarly !== undefined)?.endedEarly;
    return [
      String(index + 1),
      count(written),
      count(tallies.length),
      `${count(Math.min(...received))}–${count(Math.max(...received))}`,
      String(tallies.reduce((sum, tally) => sum + tally.outOfOrder, 0)),
      ended === undefined ? '0' : `${tallies.filter((tally) => tally.endedEarly !== undefined).length} (${ended})`,
      `${(bytes / 1024).toFixed(0)} KiB`,
      delivery.completeAfterMs === undefined ? 'never' : `${delivery.completeAfterMs.toFixed(0)} ms`,
      wrong === 0 && firstIds.size === 1 && lastIds.size === 1 ? 'yes' : 'NO',
    ];
  });
  console.log('\nEvents delivered (each subscriber counts the id: lines of its stream)');
  console.log(
    formatTable(
      [
        'round',
        'events written',
        'subscribers',
        'each received (fewest–most)',
        'out of order',
        'cut off',
        'read per subscriber',
        'all delivered after the last write by',
        'every one, once',
      ],
      rows,
    ),
  );
  return faulty;
}

function count(value: number): string {
  return value.toLocaleString('en');
}

function signed(value: number): string {
  const rounded = Math.round(value) || 0;
  return `${rounded >= 0 ? '+' : '−'}${Math.abs(rounded)}`;
}
