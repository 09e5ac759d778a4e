// The targets of the performance issue, checked against what `npm run bench` measured:
// throughput ratios to the reference at the highest connection count (the same goals for
// the example domain's products and for a collection declared in a file, issue 21), how the list
// scales with the stored size, search against a category's list (issue 23), start-up time
// against the reference, and memory; those of `npm run bench -- --postgres` (issue 22); and
// those of the change feed under a write load, `-- --events` (issue 23). A cell's ratio is
// the median of its alternating rounds' ratios (combineRounds).

import { formatTable } from './bench-support.ts';
import type { LoadResult } from './load-generators.ts';

export type ScenarioName =
  | 'GET item'
  | 'GET item + caller check'
  | 'GET list'
  | 'GET search'
  | 'GET by category'
  | 'GET by categories (in)'
  | 'POST create'
  | 'POST create + event'
  | 'PATCH';

/** One row of the big table: a scenario at one size and connection count, on both servers. */
export interface Cell {
  readonly scenario: ScenarioName;
  readonly size: number;
  readonly connections: number;
  /** plainrest ÷ reference requests per second: the median over the alternating rounds. */
  readonly ratio: number;
  /** The lowest and highest round's ratio: how far one round can be trusted on this machine. */
  readonly ratioSpread: readonly [number, number];
  /** The median rounds (errors summed over all rounds). */
  readonly plainrest: LoadResult;
  readonly reference: LoadResult;
  /**
   * Each server's CPU time per answer, in µs, the median over the rounds (undefined
   * without /proc). Shown, not judged: it hardly moves when the machine's other work
   * takes turns from a server, which the throughput ratio does (see bench/README.md).
   */
  readonly cpuMicros?: { readonly plainrest: number; readonly reference: number };
}

/** One round of a cell on one server: what the load generator saw, and the server's CPU time per answer in µs (undefined without /proc). */
export interface RoundResult extends LoadResult {
  readonly cpuMicros: number | undefined;
}

export interface SizeMeasurement {
  readonly size: number;
  /** The collection measured: products of the example domain, or the declared gadgets. */
  readonly collection: string;
  readonly cells: readonly Cell[];
  readonly startupMs: { readonly plainrest: number; readonly reference: number };
  /** After the read scenarios, with exactly `size` products stored; undefined without /proc. */
  readonly rssMegabytes: { readonly plainrest: number | undefined; readonly reference: number | undefined };
  /** plainrest's after every scenario (the writes have added records by then). */
  readonly rssAfterWritesMegabytes: number | undefined;
  /** At the largest size of the example domain: the search scenarios' examples and plainrest's memory around them. */
  readonly search?: {
    readonly examples: readonly SearchExample[];
    /** Before the first search (after the other reads), after the examples (the first search built the word index), and after the search scenarios. */
    readonly rssBeforeMegabytes: number | undefined;
    readonly rssWithIndexMegabytes: number | undefined;
    readonly rssAfterMegabytes: number | undefined;
  };
}

/** One request asked once before the search load: how many products it matches, and how long it took (the first search builds the word index). */
export interface SearchExample {
  readonly target: string;
  readonly total: number;
  readonly firstMs: number;
}

export interface Measurements {
  /** Smallest size first. */
  readonly sizes: readonly SizeMeasurement[];
  /** The collection declared in bench/declared-resources.json, at the largest size. */
  readonly declared: SizeMeasurement;
  /** plainrest on an empty data directory with SEED=false, after one GET /healthz. */
  readonly idleRssMegabytes: number | undefined;
  /** The connection count the throughput targets read. */
  readonly targetConnections: number;
}

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly goal: string;
  readonly verdict: 'met' | 'MISSED' | 'n/a';
}

export function throughputRatio(cell: Cell): number {
  return cell.ratio;
}

/** A cell from its rounds: the ratio is the median of the rounds' ratios; the rates shown are the median rounds. */
export function combineRounds(
  scenario: ScenarioName,
  size: number,
  connections: number,
  rounds: readonly { plainrest: RoundResult; reference: RoundResult }[],
): Cell {
  const ratios = rounds.map((round) => round.plainrest.requestsPerSecond / round.reference.requestsPerSecond);
  const medianRun = (results: readonly LoadResult[]): LoadResult => {
    const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const middle = sorted[Math.floor((sorted.length - 1) / 2)] as LoadResult;
    return { ...middle, errors: results.reduce((sum, result) => sum + result.errors, 0) };
  };
  const cpu = (results: readonly RoundResult[]): number | undefined => {
    const measured = results.map((result) => result.cpuMicros);
    return measured.every((micros) => micros !== undefined) ? median(measured as number[]) : undefined;
  };
  const cpuMicros = {
    plainrest: cpu(rounds.map((round) => round.plainrest)),
    reference: cpu(rounds.map((round) => round.reference)),
  };
  return {
    scenario,
    size,
    connections,
    ratio: median(ratios),
    ratioSpread: [Math.min(...ratios), Math.max(...ratios)],
    plainrest: medianRun(rounds.map((round) => round.plainrest)),
    reference: medianRun(rounds.map((round) => round.reference)),
    ...(cpuMicros.plainrest === undefined || cpuMicros.reference === undefined
      ? {}
      : { cpuMicros: { plainrest: cpuMicros.plainrest, reference: cpuMicros.reference } }),
  };
}

/** A round on `server`: the load, and the server's CPU time per answer over it. */
export async function measuredRound(
  server: { cpuSeconds(): number | undefined },
  run: () => Promise<LoadResult>,
  seconds: number,
): Promise<RoundResult> {
  const before = server.cpuSeconds();
  const result = await run();
  const after = server.cpuSeconds();
  const answers = result.requestsPerSecond * seconds;
  return {
    ...result,
    cpuMicros:
      before === undefined || after === undefined || answers === 0 ? undefined : ((after - before) * 1e6) / answers,
  };
}

/** A cell's CPU time per answer, plainrest / reference in µs, for the tables. */
export function cpuColumn(cell: Cell): string {
  return cell.cpuMicros === undefined
    ? '—'
    : `${cell.cpuMicros.plainrest.toFixed(0)} / ${cell.cpuMicros.reference.toFixed(0)}`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A two-word search costs at most this much more than a page of a category list (see bench/README.md). */
const SEARCH_MINIMUM = 0.5;

export function checkTargets(measurements: Measurements): TargetCheck[] {
  const { sizes, targetConnections } = measurements;
  const smallest = sizes[0];
  const largest = sizes[sizes.length - 1];
  if (smallest === undefined || largest === undefined) return [];
  const cellOf = (scenario: ScenarioName, size: SizeMeasurement): Cell | undefined =>
    size.cells.find((cell) => cell.scenario === scenario && cell.connections === targetConnections);
  const ratioTargets = (scenario: ScenarioName, minimum: number): TargetCheck[] =>
    [...sizes, measurements.declared].map((size) => {
      const cell = cellOf(scenario, size);
      const where =
        size === measurements.declared ? `declared ${size.collection}, ${count(size.size)}` : count(size.size);
      return check(
        `${scenario} ratio, ${where}`,
        cell && throughputRatio(cell),
        `≥ ${minimum}`,
        (value) => value >= minimum,
        ratio,
      );
    });
  // The list's cost at the largest size against the smallest. The two sizes run minutes
  // apart, and a shared machine's speed drifts meanwhile; the reference's precomputed page
  // costs the same at any size, so each size's ratio to it is the drift-free measure.
  const listSmall = cellOf('GET list', smallest);
  const listLarge = cellOf('GET list', largest);
  const search = cellOf('GET search', largest);
  const byCategory = cellOf('GET by category', largest);
  const byCategories = cellOf('GET by categories (in)', largest);
  const startup = largest.startupMs;
  return [
    ...ratioTargets('GET item', 0.85),
    ...ratioTargets('GET list', 0.5),
    check(
      `GET list at ${count(largest.size)} ÷ at ${count(smallest.size)} (each as a ratio to the reference; raw req/s in brackets)`,
      listSmall === undefined || listLarge === undefined
        ? undefined
        : throughputRatio(listLarge) / throughputRatio(listSmall),
      '≥ 0.7',
      (value) => value >= 0.7,
      (value) =>
        listSmall === undefined || listLarge === undefined
          ? ratio(value)
          : `${ratio(value)} (${ratio(listLarge.plainrest.requestsPerSecond / listSmall.plainrest.requestsPerSecond)})`,
    ),
    // Search against a page of a category, both computed per request at the largest size;
    // each as its ratio to the reference (which answers its one precomputed page to both)
    // removes the drift between the two scenarios, measured a minute apart.
    check(
      `GET search ÷ GET by category at ${count(largest.size)} (each as a ratio to the reference; raw req/s in brackets)`,
      search === undefined || byCategory === undefined
        ? undefined
        : throughputRatio(search) / throughputRatio(byCategory),
      `≥ ${SEARCH_MINIMUM}`,
      (value) => value >= SEARCH_MINIMUM,
      (value) =>
        search === undefined || byCategory === undefined
          ? ratio(value)
          : `${ratio(value)} (${ratio(search.plainrest.requestsPerSecond / byCategory.plainrest.requestsPerSecond)})`,
    ),
    // Two categories' pages through `category[in]` against one category's: the buckets merged, not a scan of every
    // record (README: Lists), so at most a little dearer than one bucket's slice.
    check(
      `GET by categories (in) ÷ GET by category at ${count(largest.size)} (as ratios to the reference; raw in brackets)`,
      byCategories === undefined || byCategory === undefined
        ? undefined
        : throughputRatio(byCategories) / throughputRatio(byCategory),
      `≥ ${SEARCH_MINIMUM}`,
      (value) => value >= SEARCH_MINIMUM,
      (value) =>
        byCategories === undefined || byCategory === undefined
          ? ratio(value)
          : `${ratio(value)} (${ratio(byCategories.plainrest.requestsPerSecond / byCategory.plainrest.requestsPerSecond)})`,
    ),
    ...ratioTargets('POST create', 0.5),
    check(
      `start-up at ${count(largest.size)}, plainrest ÷ reference`,
      startup.plainrest / startup.reference,
      '≤ 2',
      (value) => value <= 2,
      (value) => `${ratio(value)} (${startup.plainrest.toFixed(0)} / ${startup.reference.toFixed(0)} ms)`,
    ),
    check(
      `RSS with ${count(largest.size)} products (after the reads)`,
      largest.rssMegabytes.plainrest,
      '< 200 MB',
      (value) => value < 200,
      megabytes,
    ),
    check(
      'idle RSS (empty data, SEED=false)',
      measurements.idleRssMegabytes,
      '< 60 MB',
      (value) => value < 60,
      megabytes,
    ),
  ];
}

/** A cell of `npm run bench -- --postgres`: also how many processes of each server shared the load. */
export interface PostgresCell extends Cell {
  readonly processes: number;
}

/**
 * The scenarios judged on PostgreSQL: those where the reference sends the one statement
 * plainrest sends (issue 22: "a reference doing the same single query per request"). A
 * GET of a record checks, in its statement, that the caller it remembered still holds
 * (a deleted or demoted user is refused at once everywhere); a create writes its
 * change-feed event in its statement (README: Events). The reference's lighter statements
 * (the row alone, the INSERT alone) are measured and shown beside them, not judged; so is
 * the list, whose cost is mostly the database's count.
 */
const POSTGRES_JUDGED: readonly ScenarioName[] = ['GET item + caller check', 'POST create + event'];
const POSTGRES_MINIMUM = 0.8;

/**
 * plainrest on PostgreSQL against the bare node:http + pg reference sending the same
 * statement, at `targetConnections`, with each process count: what plainrest adds around
 * the statement (authentication, validation, the representation and its ETag, the access
 * log) costs at most 20%.
 */
export function checkPostgresTargets(cells: readonly PostgresCell[], targetConnections: number): TargetCheck[] {
  const processCounts = [...new Set(cells.map((cell) => cell.processes))].sort((a, b) => a - b);
  return POSTGRES_JUDGED.flatMap((scenario) =>
    processCounts.map((processes) => {
      const cell = cells.find(
        (candidate) =>
          candidate.scenario === scenario &&
          candidate.processes === processes &&
          candidate.connections === targetConnections,
      );
      const where = `${processes} process${processes === 1 ? '' : 'es'}`;
      return check(
        `${scenario} ratio on PostgreSQL, ${where}`,
        cell && throughputRatio(cell),
        `≥ ${POSTGRES_MINIMUM}`,
        (value) => value >= POSTGRES_MINIMUM,
        ratio,
      );
    }),
  );
}

/** Write latency percentiles of a steady write load, in ms. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** `npm run bench -- --events`: a steady write load without and with idle subscribers to the change feed. */
export interface EventMeasurement {
  readonly subscribers: number;
  /** Over every round's writes without subscribers, and with them. */
  readonly without: LatencySummary;
  readonly with: LatencySummary;
  /** plainrest's RSS just before the subscribers connected, and once they had (idle), in the first round. */
  readonly rssBeforeSubscribersMegabytes: number | undefined;
  readonly rssWithSubscribersMegabytes: number | undefined;
  /** Writes that failed or answered another status than 201, in all rounds. */
  readonly failedWrites: number;
  /** Subscribers that missed an event, received one twice or out of order, or were cut off. */
  readonly faultySubscribers: number;
  /**
   * Writes per second beside the streams (some stalled) ÷ alone, and the RSS left once the streams closed (reported,
   * not judged: RSS keeps the allocator's high-water mark; `npm run bench:stream-memory` judges the heap).
   */
  readonly throughput: {
    readonly streams: number;
    readonly stalled: number;
    readonly ratio: number;
    /** Streams that read, cut off by the server while the writes ran: a fan-out must not buy its speed with them. */
    readonly readersCutOff: number;
    readonly rssReturnedMegabytes: number | undefined;
  };
}

/** Write p99 with the subscribers connected, at most this many times without (see bench/README.md). */
const EVENTS_P99_MAXIMUM = 3;
/** RSS the idle subscribers may add, in MB: 50 KB a stream (see bench/README.md). */
const EVENTS_RSS_GROWTH_MAXIMUM = 50;
/** Writes per second beside the streams, half of them stalled, at least this share of the rate alone (issue 35). */
const EVENTS_THROUGHPUT_MINIMUM = 0.5;

/**
 * The change feed's targets (issue 23): idle subscribers barely slow the writes nor cost
 * much memory; and, whatever the mode, every subscriber receives every event once, in
 * order, and no write fails.
 */
export function checkEventTargets(measurement: EventMeasurement): TargetCheck[] {
  const {
    subscribers,
    without,
    rssBeforeSubscribersMegabytes: before,
    rssWithSubscribersMegabytes: after,
  } = measurement;
  const many = count(subscribers);
  return [
    check(
      `write p99 with ${many} subscribers ÷ without (ms in brackets)`,
      measurement.with.p99 / without.p99,
      `≤ ${EVENTS_P99_MAXIMUM}`,
      (value) => value <= EVENTS_P99_MAXIMUM,
      (value) => `${ratio(value)} (${measurement.with.p99.toFixed(1)} / ${without.p99.toFixed(1)})`,
    ),
    check(
      `RSS growth with ${many} idle subscribers`,
      before === undefined || after === undefined ? undefined : after - before,
      `≤ ${EVENTS_RSS_GROWTH_MAXIMUM} MB`,
      (value) => value <= EVENTS_RSS_GROWTH_MAXIMUM,
      megabytes,
    ),
    check(
      `writes/s beside ${count(measurement.throughput.streams)} streams (${count(measurement.throughput.stalled)} stalled) ÷ alone`,
      measurement.throughput.ratio,
      `≥ ${EVENTS_THROUGHPUT_MINIMUM}`,
      (value) => value >= EVENTS_THROUGHPUT_MINIMUM,
      ratio,
    ),
    check(
      'streams that read, cut off by the server beside the writes as fast as answered',
      measurement.throughput.readersCutOff,
      '0',
      (value) => value === 0,
      String,
    ),
    check(
      'subscribers that missed, repeated or reordered an event, or were cut off',
      measurement.faultySubscribers,
      '0',
      (value) => value === 0,
      String,
    ),
    check('writes that failed', measurement.failedWrites, '0', (value) => value === 0, String),
  ];
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

function count(size: number): string {
  return size.toLocaleString('en');
}

function ratio(value: number): string {
  return value.toFixed(2);
}

/**
 * Prints the checks as a table under `title`, then what was missed and how many requests
 * failed; true when the run passes: no target missed, or, where targets are not enforced
 * (a smoke run), no request failed.
 */
export function reportTargets(
  title: string,
  checks: readonly TargetCheck[],
  cells: readonly Cell[],
  enforceTargets: boolean,
): boolean {
  console.log(`\n${title}`);
  console.log(
    formatTable(
      ['target', 'measured', 'goal', 'result'],
      checks.map((check) => [check.target, check.measured, check.goal, check.verdict]),
    ),
  );
  const missed = checks.filter((check) => check.verdict === 'MISSED').length;
  console.log(missed === 0 ? 'all targets met' : `${missed} target${missed === 1 ? '' : 's'} missed`);
  const errors = cells.reduce((sum, cell) => sum + cell.plainrest.errors + cell.reference.errors, 0);
  if (errors > 0) console.log(`${errors} requests failed or answered an unexpected status`);
  return enforceTargets ? missed === 0 : errors === 0;
}

export function megabytes(value: number | undefined): string {
  // Math.round(-0.3) is -0, which toFixed prints as "-0".
  return value === undefined ? 'n/a' : `${(Math.round(value) || 0).toFixed(0)} MB`;
}
