// The webhooks benchmark's report (bench/webhooks-bench.ts): each phase's writes, latency and plainrest's CPU per
// write, what the live receivers got (every event, signed, in order, how late), the dead subscription's state, what it
// costs (the targets, bench/README.md) and what delivering costs. It passes when every delivery was made, no write
// failed, the dead one failed only where seen, and no enforced target was missed.

import { formatTable } from './bench-support.ts';
import { percentile } from './steady-load.ts';
import type { TargetCheck } from './targets.ts';
import { reportTargets } from './targets.ts';
import type { ReceiversReport } from './webhook-receivers.ts';

/** No subscriptions; 20, of which one dead; the 19 live ones alone (beside the 20: what the dead one costs). */
export type Condition = 'none' | 'with' | 'live';
export const CONDITION_NAMES: Readonly<Record<Condition, string>> = {
  none: 'no subscriptions',
  with: '20 subscriptions, 1 dead',
  live: '19 subscriptions, none dead',
};
export type DeadKind = 'never answers' | 'nothing listens';

/** One phase of writes in one condition. */
export interface PhaseResult {
  readonly round: number;
  readonly condition: Condition;
  readonly kind: 'steady' | 'throughput';
  /** Products made during the phase, each one event. */
  readonly writes: number;
  readonly writeSeconds: number;
  readonly answers: {
    /** Answered 201, per second. */
    readonly perSecond: number;
    readonly errors: number;
    readonly failures: readonly string[];
    /** The steady load's, each write's; none for the throughput's (its generator gives percentiles). */
    readonly latenciesMs: readonly number[];
    readonly p50: number;
    readonly p99: number;
    /** How late the steady load's generator sent, at worst, in ms. */
    readonly lateMs: number | undefined;
  };
  /**
   * plainrest's CPU during the writes, and all told: until every delivery was made and it was idle again (what the
   * phase set going, such as a compaction of the journal, counts to it); the receivers' process's meanwhile.
   */
  readonly cpuSeconds: {
    readonly duringWrites: number | undefined;
    readonly allTold: number | undefined;
    readonly receivers: number | undefined;
  };
  /** With subscriptions: the events every live receiver should have by now, and what they had. */
  readonly delivery?: {
    readonly expected: number;
    /** From the end of the writes until every live receiver had every event; undefined when they never did. */
    readonly completeAfterMs: number | undefined;
    /** Epoch ms of the phase's start. */
    readonly startedAt: number;
    readonly receivers: ReceiversReport;
  };
}

/** The dead subscription after a round's writes. */
export interface DeadCheck {
  readonly round: number;
  readonly kind: DeadKind;
  readonly enabled: boolean;
  readonly deliveries: number;
  readonly delivered: number;
  /** The pending delivery's attempts and error, once its first attempt has ended. */
  readonly attempts: number;
  readonly error: string | undefined;
  /** Connections the receiver that never answers had accepted by then, since the benchmark started. */
  readonly hangingConnections: number;
}

export interface WebhooksMeasured {
  readonly mode: { readonly writesPerSecond: number; readonly enforceTargets: boolean };
  readonly liveReceivers: number;
  readonly phases: readonly PhaseResult[];
  readonly deadChecks: readonly DeadCheck[];
  /** Deliveries to a path no live subscription had. */
  readonly receiverStrays: number;
}

/** Write p99 and CPU per write with the dead one, at most this many times the 19 alone's; writes/s at least. */
const P99_MAXIMUM = 1.5;
const CPU_MAXIMUM = 1.5;
const THROUGHPUT_MINIMUM = 0.8;

export function reportWebhooks(measured: WebhooksMeasured): boolean {
  printPhases(measured);
  const faulty = printDeliveries(measured);
  const deadFaults = printDead(measured.deadChecks);
  const failures = measured.phases.flatMap((phase) => phase.answers.failures);
  if (failures.length > 0) console.log(`failed writes, the first: ${failures.slice(0, 3).join('; ')}`);
  const failedWrites = measured.phases.reduce((sum, phase) => sum + phase.answers.errors, 0);
  const steady = (condition: Condition): readonly PhaseResult[] => of(measured.phases, condition, 'steady');
  const throughput = (condition: Condition): readonly PhaseResult[] => of(measured.phases, condition, 'throughput');
  const figures = (condition: Condition): Figures => ({
    p99: pooledP99(steady(condition)),
    rate: meanRate(throughput(condition)),
    cpu: cpuPerWrite(steady(condition), 'allTold'),
  });
  const none = figures('none');
  const dead = figures('with');
  const live = figures('live');
  // What the dead subscription costs: the 19 live ones and the dead one against the 19 alone.
  const checks: TargetCheck[] = [
    check(
      `write p99 at ${measured.mode.writesPerSecond}/s, 19 live + 1 dead ÷ the 19 alone (ms in brackets)`,
      dead.p99 / live.p99,
      `≤ ${P99_MAXIMUM}`,
      (value) => value <= P99_MAXIMUM,
      (value) => `${value.toFixed(2)} (${dead.p99.toFixed(1)} / ${live.p99.toFixed(1)})`,
    ),
    check(
      'writes/s as fast as answered, 19 live + 1 dead ÷ the 19 alone',
      dead.rate / live.rate,
      `≥ ${THROUGHPUT_MINIMUM}`,
      (value) => value >= THROUGHPUT_MINIMUM,
      (value) => `${value.toFixed(2)} (${dead.rate.toFixed(0)} / ${live.rate.toFixed(0)})`,
    ),
    check(
      'plainrest CPU per write at the steady rate, every delivery made, 19 live + 1 dead ÷ the 19 alone (µs)',
      dead.cpu === undefined || live.cpu === undefined ? undefined : dead.cpu / live.cpu,
      `≤ ${CPU_MAXIMUM}`,
      (value) => value <= CPU_MAXIMUM,
      (value) => `${value.toFixed(2)} (${micros(dead.cpu)} / ${micros(live.cpu)})`,
    ),
  ];
  printDeliveryCost(dead, live, none, measured.liveReceivers);
  const always: TargetCheck[] = [
    check('live receivers that missed an event, or got one out of order or badly signed', faulty, '0', isZero, String),
    check(
      'rounds whose dead subscription was disabled, succeeded, or failed unseen in its deliveries',
      deadFaults,
      '0',
      isZero,
      String,
    ),
    check('writes that failed', failedWrites, '0', isZero, String),
  ];
  const targetsMet = reportTargets('Webhooks targets', [...checks, ...always], [], measured.mode.enforceTargets);
  return targetsMet && faulty === 0 && deadFaults === 0 && failedWrites === 0;
}

function printPhases(measured: WebhooksMeasured): void {
  console.log(
    `\nWrites without and with 20 subscriptions (${measured.liveReceivers} live, 1 dead): POST /v1/products; ` +
      `CPU per write is plainrest's own (/proc), during the writes and all told (until every delivery was made and ` +
      `plainrest was idle again)`,
  );
  const rows = measured.phases.map((phase) => {
    const { answers, cpuSeconds, delivery } = phase;
    return [
      String(phase.round),
      { none: 'none', with: '19 + 1 dead', live: '19' }[phase.condition],
      phase.kind === 'steady' ? `${measured.mode.writesPerSecond}/s` : 'as fast as answered',
      count(phase.writes),
      String(answers.errors),
      answers.perSecond.toFixed(0),
      `${answers.p50.toFixed(2)} / ${answers.p99.toFixed(2)}`,
      [cpuSeconds.duringWrites, cpuSeconds.allTold].map((spent) => micros(perWrite(spent, phase.writes))).join(' / '),
      cpuSeconds.receivers === undefined ? 'n/a' : cpuSeconds.receivers.toFixed(2),
      delivery === undefined
        ? '—'
        : delivery.completeAfterMs === undefined
          ? 'never'
          : `${delivery.completeAfterMs.toFixed(0)} ms`,
    ];
  });
  console.log(
    formatTable(
      [
        'round',
        'subscriptions',
        'load',
        'writes',
        'failed',
        'writes/s',
        'p50 / p99 ms',
        'plainrest CPU µs per write, during / all told',
        "receivers' CPU s",
        'every delivery made after the writes by',
      ],
      rows,
    ),
  );
  const late = Math.max(...measured.phases.map((phase) => phase.answers.lateMs ?? 0));
  console.log(`The steady load's generator sent at most ${late.toFixed(1)} ms late.`);
}

/** The deliveries' table; how many live receivers, over all phases with them, did not get exactly what was written. */
function printDeliveries(measured: WebhooksMeasured): number {
  let faulty = measured.receiverStrays;
  const rows = measured.phases.flatMap((phase) => {
    const delivery = phase.delivery;
    if (delivery === undefined) return [];
    const { tallies, deliveries, firstAt, lastAt, lagMs } = delivery.receivers;
    const wrong = tallies.filter(
      (tally) =>
        tally.received !== delivery.expected || tally.outOfOrder > 0 || tally.badSignatures > 0 || tally.malformed > 0,
    ).length;
    const same = new Set(tallies.map((tally) => `${tally.firstId} ${tally.lastId} ${tally.idSum}`)).size <= 1;
    faulty += wrong + (same ? 0 : 1);
    const received = tallies.map((tally) => tally.received);
    const sum = (field: 'repeated' | 'outOfOrder' | 'badSignatures' | 'malformed'): number =>
      tallies.reduce((total, tally) => total + tally[field], 0);
    const seconds = lastAt === undefined ? undefined : (lastAt - delivery.startedAt) / 1000;
    return [
      [
        `${phase.round}, ${phase.condition === 'with' ? '19 + 1 dead' : '19'}, ${phase.kind}`,
        count(delivery.expected),
        `${count(Math.min(...received))}–${count(Math.max(...received))}`,
        `${sum('repeated')} / ${sum('outOfOrder')} / ${sum('badSignatures')} / ${sum('malformed')}`,
        count(deliveries),
        seconds === undefined || firstAt === undefined ? '—' : (deliveries / seconds).toFixed(0),
        `${lagMs.p50.toFixed(0)} / ${lagMs.p99.toFixed(0)} / ${lagMs.max.toFixed(0)}`,
        wrong === 0 && same ? 'yes' : 'NO',
      ],
    ];
  });
  console.log(
    `\nDeliveries to the ${measured.liveReceivers} live receivers (each counts webhook-ids, checks order, signature)`,
  );
  console.log(
    formatTable(
      [
        'round, subscriptions, load',
        'events written since subscribed',
        'each received (fewest–most)',
        'repeated / out of order / bad signature / malformed',
        'deliveries this phase',
        'deliveries/s (phase start to last)',
        "lag from the event's at, p50 / p99 / max ms",
        'every one, in order',
      ],
      rows,
    ),
  );
  if (measured.receiverStrays > 0) console.log(`Deliveries to no subscription's path: ${measured.receiverStrays}`);
  return faulty;
}

/** The dead subscriptions' table; how many rounds' dead one was disabled, delivered to, or failed out of sight. */
function printDead(checks: readonly DeadCheck[]): number {
  let faults = 0;
  const rows = checks.map((dead) => {
    const seen = dead.error !== undefined || (dead.kind === 'never answers' && dead.hangingConnections > 0);
    const fine = dead.enabled && dead.delivered === 0 && seen;
    if (!fine) faults++;
    return [
      String(dead.round),
      dead.kind,
      dead.enabled ? 'yes' : 'NO',
      `${dead.deliveries} (${dead.delivered} succeeded)`,
      String(dead.attempts),
      dead.error ?? (dead.kind === 'never answers' ? 'first attempt under way' : '—'),
      dead.kind === 'never answers' ? String(dead.hangingConnections) : '—',
    ];
  });
  console.log('\nThe dead subscription after each round (its deliveries as an administrator reads them)');
  console.log(
    formatTable(
      ['round', 'dead receiver', 'still enabled', 'deliveries listed', 'attempts', 'error', 'connections it accepted'],
      rows,
    ),
  );
  return faults;
}

/** A condition's write p99 at the steady rate, writes/s as fast as answered, and CPU per write at the steady rate. */
interface Figures {
  readonly p99: number;
  readonly rate: number;
  /** Seconds of plainrest's CPU per write, all told. */
  readonly cpu: number | undefined;
}

/**
 * Shown, not judged: the 20 subscriptions against none, what delivering costs (with 19 live receivers a write is 19
 * deliveries: bench/README.md), and plainrest's CPU per delivery: the 19 alone's CPU per write less none's, ÷ 19.
 */
function printDeliveryCost(dead: Figures, live: Figures, none: Figures, receivers: number): void {
  const ratio = (a: number | undefined, b: number | undefined): string =>
    a === undefined || b === undefined || !Number.isFinite(a / b) ? 'n/a' : (a / b).toFixed(2);
  const perDelivery = live.cpu === undefined || none.cpu === undefined ? undefined : (live.cpu - none.cpu) / receivers;
  const p99 = `${ratio(dead.p99, none.p99)} (${dead.p99.toFixed(1)} / ${none.p99.toFixed(1)} ms)`;
  const rate = `${ratio(dead.rate, none.rate)} (${dead.rate.toFixed(0)} / ${none.rate.toFixed(0)})`;
  console.log(
    `\nWhat delivering costs (20 subscriptions, 1 dead ÷ none; shown, not judged): ` +
      `write p99 at the steady rate ${p99}, writes/s as fast as answered ${rate}, ` +
      `plainrest CPU per write at the steady rate ${ratio(dead.cpu, none.cpu)} ` +
      `(${micros(dead.cpu)} / ${micros(none.cpu)} µs); plainrest CPU per delivery, the ${receivers} alone less none ` +
      `÷ ${receivers}: ${micros(perDelivery)} µs`,
  );
}

function of(phases: readonly PhaseResult[], condition: Condition, kind: PhaseResult['kind']): PhaseResult[] {
  return phases.filter((phase) => phase.condition === condition && phase.kind === kind);
}

function pooledP99(phases: readonly PhaseResult[]): number {
  return percentile(
    phases.flatMap((phase) => phase.answers.latenciesMs).sort((a, b) => a - b),
    0.99,
  );
}

function meanRate(phases: readonly PhaseResult[]): number {
  return phases.reduce((sum, phase) => sum + phase.answers.perSecond, 0) / Math.max(1, phases.length);
}

/** Seconds of plainrest's CPU per write over `phases`, in the window named. */
function cpuPerWrite(phases: readonly PhaseResult[], window: 'duringWrites' | 'allTold'): number | undefined {
  let seconds = 0;
  for (const phase of phases) {
    const spent = phase.cpuSeconds[window];
    if (spent === undefined) return undefined;
    seconds += spent;
  }
  return perWrite(
    seconds,
    phases.reduce((sum, phase) => sum + phase.writes, 0),
  );
}

function perWrite(seconds: number | undefined, writes: number): number | undefined {
  return seconds === undefined || writes === 0 ? undefined : seconds / writes;
}

function micros(seconds: number | undefined): string {
  return seconds === undefined ? 'n/a' : (seconds * 1e6).toFixed(0);
}

function isZero(value: number): boolean {
  return value === 0;
}

function check(
  target: string,
  value: number | undefined,
  goal: string,
  passes: (value: number) => boolean,
  format: (value: number) => string,
): TargetCheck {
  if (value === undefined || !Number.isFinite(value)) return { target, measured: 'n/a', goal, verdict: 'n/a' };
  return { target, measured: format(value), goal, verdict: passes(value) ? 'met' : 'MISSED' };
}

function count(value: number): string {
  return value.toLocaleString('en');
}
