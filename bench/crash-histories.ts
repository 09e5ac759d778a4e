// Linearizability across crashes, the long run (issue 48): CRASH_RUNS runs (20 by default) of test/crash-histories.ts,
// each a fresh data directory, 8 clients reading, writing and compare-and-setting 5 products, 3 SIGKILLs and restarts,
// every record's history checked. A violation prints the smallest part of the history found that is not linearizable
// and makes the exit code 1. Usage: npm run build && npx tsx bench/crash-histories.ts (variables: bench/README.md).

import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { crashRun, describeRun } from '../test/crash-histories.ts';

const setting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${value}`);
  return value;
};
const runs = setting('CRASH_RUNS', 20);
const kills = setting('CRASH_KILLS', 3);
const clients = setting('CRASH_CLIENTS', 8);
const records = setting('CRASH_RECORDS', 5);
const longestPhase = setting('CRASH_PHASE_MS', 2000);
const firstSeed = setting('CRASH_SEED', Date.now() % 100000);
const main =
  process.env['CRASH_MAIN'] !== undefined
    ? resolve(process.env['CRASH_MAIN'])
    : fileURLToPath(new URL('../dist/plainrest.mjs', import.meta.url));

console.log(`${runs} runs of ${kills} kills, ${clients} clients on ${records} products, server ${main}`);
let failed = 0;
let operations = 0;
let unanswered = 0;
const started = performance.now();
for (let run = 0; run < runs; run++) {
  const seed = firstSeed + run;
  const result = await crashRun({
    main,
    seed,
    kills,
    clients,
    records,
    phaseMs: [Math.min(300, longestPhase), longestPhase],
    // Every other run compacts the journal every few kilobytes, so kills also land during compactions.
    compactAfterBytes: run % 2 === 1 ? 4096 : undefined,
  });
  operations += result.ops.length;
  unanswered += result.ops.filter((op) => op.outcome === 'unknown').length;
  const bad = result.violations.length > 0 || result.undecided.length > 0 || result.surprises.length > 0;
  if (bad) failed++;
  const verdict = bad
    ? `${result.violations.length} records not linearizable, ${result.undecided.length} undecided`
    : 'linearizable';
  console.log(`run ${run + 1}/${runs}: ${verdict}; ${describeRun(result)}`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(0);
console.log(
  `${failed} of ${runs} runs failed (${operations} operations, ${unanswered} unanswered at a kill; ${seconds} s; ` +
    `seeds ${firstSeed}–${firstSeed + runs - 1})`,
);
process.exitCode = failed > 0 ? 1 : 0;
