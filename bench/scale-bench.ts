// `npm run bench:scale [-- --quick] [-- --small-vocabulary]`: plainrest as `npm start` runs it, on 100,000 and
// 1,000,000 of the bench's products (10,000 and 100,000 with --quick): memory per record against a bare Map of the same
// parsed records (bench/map-floor.ts), read after full collections, the start and its peak, the first search and sorted
// page, the stop; and the start of the same records in a snapshot laid out as JSON.stringify writes it.

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { DescriptionVocabulary, SnapshotLayout } from './bench-data.ts';
import { benchProducts, searchQueries, writeDataDirectory } from './bench-data.ts';
import { adminToken, BENCH_ADMIN_PASSWORD, BENCH_TOKEN_SECRET, formatTable } from './bench-support.ts';
import { startPlainrest } from './server-processes.ts';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [10_000, 100_000] : [100_000, 1_000_000];
/** `--small-vocabulary`: descriptions from 30 words (bench-data.ts), so every word's list holds a third of the records. */
const VOCABULARY: DescriptionVocabulary = process.argv.includes('--small-vocabulary') ? 'small' : 'spread';
/** The snapshot layouts other than the server's own whose start is measured too, beside it. */
const OTHER_LAYOUTS: readonly SnapshotLayout[] = ['one-line', 'indented'];
/**
 * Memory per record is the growth from this many records to each size, for plainrest and for the floor alike: what a
 * process spends once, whatever its records (code compiled as they are read, a young generation grown), is no record's.
 */
const FROM_RECORDS = quick ? 1_000 : 10_000;
/** The products' sortable fields besides price, each asked once before memory is read after the reads. */
const OTHER_SORTS = ['name', 'category', 'created_at', 'updated_at'];
/** Idle time after the start before memory is read: the start's garbage collected, the indexes not yet built. */
const SETTLE_MS = 2000;
const MAP_FLOOR = fileURLToPath(new URL('./map-floor.ts', import.meta.url));
/** Lets the bench ask plainrest for full collections (SIGUSR2). */
const COLLECTING = ['--expose-gc', '--import', fileURLToPath(new URL('./collect-on-signal.mjs', import.meta.url))];
/** How long the freed pages take to leave RSS after a collection (V8 unmaps them on a background thread). */
const AFTER_COLLECTION_MS = 1000;
const SETTINGS = { RATE_LIMIT: '0', ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, TOKEN_SECRET: BENCH_TOKEN_SECRET };
const authorization = `Bearer ${adminToken()}`;

/** The goals of issue 37. */
const PER_RECORD_OVER_FLOOR = 1.25;
const PEAK_OVER_STEADY = 1.3;
const START_SECONDS_AT_A_MILLION = 5;
const STOP_SECONDS = 1;
/** Any valid snapshot starts within this factor of its own layout's time and memory (RSS after the start, peak). */
const OTHER_LAYOUT_OVER_OWN = 2;

interface Measured {
  readonly records: number;
  /** RSS per record of the Map floor. */
  readonly floorBytes: number;
  /** Heap and array buffers per record of the Map floor. */
  readonly floorHeapBytes: number;
  /** RSS per record after the start. */
  readonly perRecordBytes: number;
  /** Heap and array buffers per record after the first search, a page in every sort and a full collection. */
  readonly heapPerRecordBytes: number;
  /** After the first search, a page in every sort and a full collection: every index counted in. */
  readonly perRecordAfterReadsBytes: number;
  /** RSS after the first search and a page in every sort, before the collection. */
  readonly uncollectedMegabytes: number;
  readonly startSeconds: number;
  readonly steadyMegabytes: number;
  readonly peakMegabytes: number;
  readonly searchSeconds: number;
  readonly sortedSeconds: number;
  /** The longest GET /healthz while the first sorted page was answered. */
  readonly longestMeanwhileSeconds: number;
  readonly afterReadsMegabytes: number;
  readonly stopSeconds: number;
  /** The start of the same records in each other layout. */
  readonly layouts: readonly LayoutStart[];
}

/** A start from a snapshot in another layout: its time, its RSS after the start (collected) and its peak. */
interface LayoutStart {
  readonly layout: SnapshotLayout;
  readonly startSeconds: number;
  readonly steadyMegabytes: number;
  readonly peakMegabytes: number;
}

/** Seconds one GET takes, which must answer 200. */
function timedGet(url: string, path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { Authorization: authorization }, agent: false }, (res) => {
      res.resume();
      res.once('end', () =>
        res.statusCode === 200
          ? resolve((performance.now() - started) / 1000)
          : reject(new Error(`GET ${path} answered ${res.statusCode}`)),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

/** Seconds `path` takes, and the longest of the GET /healthz sent one after another meanwhile: what it holds up. */
async function timedBeside(url: string, path: string): Promise<{ seconds: number; longestMeanwhile: number }> {
  let done = false;
  let longestMeanwhile = 0;
  const probing = (async () => {
    while (!done) longestMeanwhile = Math.max(longestMeanwhile, await timedGet(url, '/healthz'));
  })();
  const seconds = await timedGet(url, path);
  done = true;
  await probing;
  return { seconds, longestMeanwhile };
}

/** What a Map of records adds, or plainrest holds: bytes of RSS, and of heap with array buffers. */
interface Memory {
  readonly rss: number;
  readonly heap: number;
}

/** The Map floor for the snapshot at `path`: how many records it holds, and the memory they add. */
function mapFloor(path: string): Promise<{ count: number; added: Memory }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', MAP_FLOOR, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(toFloor(JSON.parse(out) as { count: number; rssAdded: number; heapAdded: number }))
        : reject(new Error(`map-floor exited ${code}`)),
    );
  });
}

function toFloor(printed: { count: number; rssAdded: number; heapAdded: number }): { count: number; added: Memory } {
  return { count: printed.count, added: { rss: printed.rssAdded, heap: printed.heapAdded } };
}

/** The heap and array buffers of the last `collected` line in a log (collect-on-signal.mjs), in bytes. */
async function lastCollected(logFile: string): Promise<number> {
  const lines = (await readFile(logFile, 'utf8')).split('\n').filter((line) => line.startsWith('collected '));
  const last = lines[lines.length - 1];
  if (last === undefined) return Number.NaN;
  const { heapUsed, arrayBuffers } = JSON.parse(last.slice('collected '.length)) as Record<string, number>;
  return (heapUsed as number) + (arrayBuffers as number);
}

/** plainrest on `dataDir`: started, left idle, read, searched, sorted, stopped. */
async function measurePlainrest(dataDir: string, logFile: string) {
  const probe = { path: '/healthz', headers: {} };
  const server = await startPlainrest({ ...SETTINGS, DATA_DIR: dataDir, SEED: 'false' }, logFile, probe, COLLECTING);
  await sleep(SETTLE_MS);
  const peak = server.peakMegabytes() ?? Number.NaN;
  /** RSS in MB and heap in bytes, after full collections. */
  const collected = async (): Promise<{ rss: number; heap: number }> => {
    server.signal('SIGUSR2');
    await sleep(AFTER_COLLECTION_MS);
    return { rss: server.rssMegabytes() ?? Number.NaN, heap: await lastCollected(logFile) };
  };
  const steady = (await collected()).rss;
  const search = await timedGet(server.url, `/v1/products?q=${searchQueries(1)[0] as string}`);
  const { seconds: sorted, longestMeanwhile } = await timedBeside(server.url, '/v1/products?sort=-price');
  // A page sorted by every other sortable field: whatever index a list may need is then built, and counted below,
  // by a version that builds them ahead as by one that builds them when first asked.
  for (const field of OTHER_SORTS) await timedGet(server.url, `/v1/products?sort=${field}&limit=1`);
  const uncollected = server.rssMegabytes() ?? Number.NaN;
  const { rss: afterReads, heap: heapAfterReads } = await collected();
  const stopping = performance.now();
  await server.stop();
  const stop = (performance.now() - stopping) / 1000;
  return {
    startSeconds: server.startupMs / 1000,
    steady,
    peak,
    search,
    sorted,
    longestMeanwhile,
    uncollected,
    afterReads,
    heapAfterReads,
    stop,
  };
}

/** plainrest on `dataDir`: started, left idle, its RSS read (collected) and its peak, stopped. */
async function measureStart(dataDir: string, logFile: string): Promise<Omit<LayoutStart, 'layout'>> {
  const probe = { path: '/healthz', headers: {} };
  const server = await startPlainrest({ ...SETTINGS, DATA_DIR: dataDir, SEED: 'false' }, logFile, probe, COLLECTING);
  await sleep(SETTLE_MS);
  const peak = server.peakMegabytes() ?? Number.NaN;
  server.signal('SIGUSR2');
  await sleep(AFTER_COLLECTION_MS);
  const steady = server.rssMegabytes() ?? Number.NaN;
  await server.stop();
  return { startSeconds: server.startupMs / 1000, steadyMegabytes: steady, peakMegabytes: peak };
}

const work = await mkdtemp(join(tmpdir(), 'plainrest-scale-'));
try {
  const empty = join(work, 'empty');
  await writeDataDirectory(empty, []);
  const baseline = await measurePlainrest(empty, join(work, 'empty.log'));
  const fewDir = join(work, 'few');
  await writeDataDirectory(fewDir, benchProducts(FROM_RECORDS, 'products', VOCABULARY));
  const fewFloor = await mapFloor(join(fewDir, 'products.json'));
  const few = await measurePlainrest(fewDir, join(work, 'few.log'));
  const results: Measured[] = [];
  for (const records of SIZES) {
    console.log(`measuring with ${records.toLocaleString('en')} products…`);
    const dataDir = join(work, `data-${records}`);
    const products = benchProducts(records, 'products', VOCABULARY);
    await writeDataDirectory(dataDir, products);
    const floor = await mapFloor(join(dataDir, 'products.json'));
    const run = await measurePlainrest(dataDir, join(work, `plainrest-${records}.log`));
    await rm(dataDir, { recursive: true, force: true });
    const layouts: LayoutStart[] = [];
    for (const layout of OTHER_LAYOUTS) {
      const layoutDir = join(work, `data-${records}-${layout}`);
      await writeDataDirectory(layoutDir, products, 'products', layout);
      layouts.push({ layout, ...(await measureStart(layoutDir, join(work, `plainrest-${records}-${layout}.log`))) });
      await rm(layoutDir, { recursive: true, force: true });
    }
    const grownBy = (megabytes: number, fewMegabytes: number): number =>
      ((megabytes - fewMegabytes) * 1024 * 1024) / (records - FROM_RECORDS);
    const floorCount = floor.count - fewFloor.count;
    results.push({
      records,
      floorBytes: (floor.added.rss - fewFloor.added.rss) / floorCount,
      floorHeapBytes: (floor.added.heap - fewFloor.added.heap) / floorCount,
      perRecordBytes: grownBy(run.steady, few.steady),
      perRecordAfterReadsBytes: grownBy(run.afterReads, few.afterReads),
      heapPerRecordBytes: (run.heapAfterReads - few.heapAfterReads) / (records - FROM_RECORDS),
      startSeconds: run.startSeconds,
      steadyMegabytes: run.steady,
      peakMegabytes: run.peak,
      searchSeconds: run.search,
      sortedSeconds: run.sorted,
      longestMeanwhileSeconds: run.longestMeanwhile,
      afterReadsMegabytes: run.afterReads,
      uncollectedMegabytes: run.uncollected,
      stopSeconds: run.stop,
      layouts,
    });
  }

  const mb = (value: number): string => `${value.toFixed(0)} MB`;
  const s = (value: number): string => `${value.toFixed(2)} s`;
  console.log(
    `\nplainrest with no products: RSS ${mb(baseline.steady)} after its start, ${mb(baseline.afterReads)} after the ` +
      `same reads; ${s(baseline.startSeconds)} to start; with ${FROM_RECORDS.toLocaleString('en')} products ` +
      `${mb(few.steady)} and ${mb(few.afterReads)}. Per record: the growth from ${FROM_RECORDS.toLocaleString('en')} ` +
      `products, for plainrest and for the Map floor alike.\n`,
  );
  console.log(
    formatTable(
      [
        'records',
        'per record: heap and buffers (Map floor)',
        'per record: RSS after start / after reads (Map floor)',
        'start',
        'RSS after start / peak',
        'first search',
        'first sorted page (longest /healthz meanwhile)',
        'RSS after them and every sort: as is / collected',
        'stop',
      ],
      results.map((result) => [
        result.records.toLocaleString('en'),
        `${result.heapPerRecordBytes.toFixed(0)} B (${result.floorHeapBytes.toFixed(0)} B, ` +
          `${(result.heapPerRecordBytes / result.floorHeapBytes).toFixed(2)}×)`,
        `${result.perRecordBytes.toFixed(0)} / ${result.perRecordAfterReadsBytes.toFixed(0)} B ` +
          `(${result.floorBytes.toFixed(0)} B, ${(result.perRecordAfterReadsBytes / result.floorBytes).toFixed(2)}×)`,
        s(result.startSeconds),
        `${mb(result.steadyMegabytes)} / ${mb(result.peakMegabytes)}`,
        s(result.searchSeconds),
        `${s(result.sortedSeconds)} (${s(result.longestMeanwhileSeconds)})`,
        `${mb(result.uncollectedMegabytes)} / ${mb(result.afterReadsMegabytes)}`,
        s(result.stopSeconds),
      ]),
    ),
  );
  console.log(
    `\nThe same records in a snapshot laid out otherwise (its start against the server's own layout's):\n\n${formatTable(
      ['records', 'layout', 'start', 'RSS after start / peak'],
      results.flatMap((result) => [
        [
          result.records.toLocaleString('en'),
          "the server's own",
          s(result.startSeconds),
          `${mb(result.steadyMegabytes)} / ${mb(result.peakMegabytes)}`,
        ],
        ...result.layouts.map((other) => [
          result.records.toLocaleString('en'),
          other.layout,
          `${s(other.startSeconds)} (${(other.startSeconds / result.startSeconds).toFixed(2)}×)`,
          `${mb(other.steadyMegabytes)} / ${mb(other.peakMegabytes)} ` +
            `(${(other.steadyMegabytes / result.steadyMegabytes).toFixed(2)}× / ` +
            `${(other.peakMegabytes / result.peakMegabytes).toFixed(2)}×)`,
        ]),
      ]),
    )}`,
  );
  const largest = results[results.length - 1] as Measured;
  console.log(
    `\nabout ${Math.round((100 * 1024 * 1024) / largest.perRecordAfterReadsBytes).toLocaleString('en')} of these records per 100 MB of RSS`,
  );
  const checks: [string, boolean][] = [
    ...results.map((result): [string, boolean] => [
      `memory per record with its indexes (heap and buffers, collected) at ${result.records.toLocaleString('en')} ` +
        `≤ ${PER_RECORD_OVER_FLOOR}× the Map floor`,
      result.heapPerRecordBytes <= PER_RECORD_OVER_FLOOR * result.floorHeapBytes,
    ]),
    ...results.map((result): [string, boolean] => [
      `peak ≤ ${PEAK_OVER_STEADY}× RSS after start at ${result.records.toLocaleString('en')}`,
      result.peakMegabytes <= PEAK_OVER_STEADY * result.steadyMegabytes,
    ]),
    ...results.map((result): [string, boolean] => [
      `stop < ${STOP_SECONDS} s at ${result.records.toLocaleString('en')}`,
      result.stopSeconds < STOP_SECONDS,
    ]),
    // Judged at the largest size only: below it, a start's second or so is mostly the process's own, and noise.
    ...results
      .slice(-1)
      .flatMap((result) =>
        result.layouts.map((other): [string, boolean] => [
          `${other.layout} snapshot at ${result.records.toLocaleString('en')}: start, RSS after it and peak ` +
            `≤ ${OTHER_LAYOUT_OVER_OWN}× the server's own layout's`,
          other.startSeconds <= OTHER_LAYOUT_OVER_OWN * result.startSeconds &&
            other.steadyMegabytes <= OTHER_LAYOUT_OVER_OWN * result.steadyMegabytes &&
            other.peakMegabytes <= OTHER_LAYOUT_OVER_OWN * result.peakMegabytes,
        ]),
      ),
  ];
  if (!quick)
    checks.push([
      `start < ${START_SECONDS_AT_A_MILLION} s at 1,000,000`,
      largest.startSeconds < START_SECONDS_AT_A_MILLION,
    ]);
  console.log(
    `\n${formatTable(
      ['target', 'result'],
      checks.map(([name, met]) => [name, met ? 'met' : 'MISSED']),
    )}`,
  );
  process.exitCode = checks.every(([, met]) => met) ? 0 : 1;
} finally {
  await rm(work, { recursive: true, force: true });
}
