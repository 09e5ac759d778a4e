// The targets of the performance issue, checked against what `npm run bench` measured:
// throughput ratios to the reference at the highest connection count, how the list
// scales with the stored size, start-up time against the reference, and memory.

import type { LoadResult } from './load-generators.js';

export type ScenarioName = 'GET item' | 'GET list' | 'POST create' | 'PATCH';

/** One row of the big table: a scenario at one size and connection count, on both servers. */
export interface Cell {
  readonly scenario: ScenarioName;
  readonly size: number;
  readonly connections: number;
  /** plainrest ÷ reference requests per second: the median over the alternating rounds. */
  readonly ratio: number;
  /** The median rounds (errors summed over all rounds). */
  readonly plainrest: LoadResult;
  readonly reference: LoadResult;
}

export interface SizeMeasurement {
  readonly size: number;
  readonly cells: readonly Cell[];
  readonly startupMs: { readonly plainrest: number; readonly reference: number };
  /** After the load runs; undefined without /proc. */
  readonly rssMegabytes: { readonly plainrest: number | undefined; readonly reference: number | undefined };
}

export interface Measurements {
  /** Smallest size first. */
  readonly sizes: readonly SizeMeasurement[];
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

export function checkTargets(measurements: Measurements): TargetCheck[] {
  const { sizes, targetConnections } = measurements;
  const smallest = sizes[0];
  const largest = sizes[sizes.length - 1];
  if (smallest === undefined || largest === undefined) return [];
  const cellOf = (scenario: ScenarioName, size: SizeMeasurement): Cell | undefined =>
    size.cells.find((cell) => cell.scenario === scenario && cell.connections === targetConnections);
  const ratioTargets = (scenario: ScenarioName, minimum: number): TargetCheck[] =>
    sizes.map((size) => {
      const cell = cellOf(scenario, size);
      return check(`${scenario} ratio, ${count(size.size)}`, cell && throughputRatio(cell), `≥ ${minimum}`, (value) => value >= minimum, ratio);
    });
  const listSmall = cellOf('GET list', smallest)?.plainrest.requestsPerSecond;
  const listLarge = cellOf('GET list', largest)?.plainrest.requestsPerSecond;
  const startup = largest.startupMs;
  return [
    ...ratioTargets('GET item', 0.85),
    ...ratioTargets('GET list', 0.5),
    check(
      `GET list req/s at ${count(largest.size)} ÷ at ${count(smallest.size)}`,
      listSmall === undefined || listLarge === undefined ? undefined : listLarge / listSmall,
      '≥ 0.7',
      (value) => value >= 0.7,
      ratio,
    ),
    ...ratioTargets('POST create', 0.5),
    check(
      `start-up at ${count(largest.size)}, plainrest ÷ reference`,
      startup.plainrest / startup.reference,
      '≤ 2',
      (value) => value <= 2,
      (value) => `${ratio(value)} (${startup.plainrest.toFixed(0)} / ${startup.reference.toFixed(0)} ms)`,
    ),
    check(`RSS at ${count(largest.size)} after the load`, largest.rssMegabytes.plainrest, '< 200 MB', (value) => value < 200, megabytes),
    check('idle RSS (empty data, SEED=false)', measurements.idleRssMegabytes, '< 60 MB', (value) => value < 60, megabytes),
  ];
}

function check(target: string, value: number | undefined, goal: string, passes: (value: number) => boolean, format: (value: number) => string): TargetCheck {
  if (value === undefined || !Number.isFinite(value)) return { target, measured: 'n/a', goal, verdict: 'n/a' };
  return { target, measured: format(value), goal, verdict: passes(value) ? 'met' : 'MISSED' };
}

function count(size: number): string {
  return size.toLocaleString('en');
}

function ratio(value: number): string {
  return value.toFixed(2);
}

export function megabytes(value: number | undefined): string {
  return value === undefined ? 'n/a' : `${value.toFixed(0)} MB`;
}
