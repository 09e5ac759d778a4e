// `npm run bench` (performance issue): plainrest as `npm start` runs it (a real token,
// durable storage, rate limit off) against a bare node:http reference, one after the
// other on loopback: GET item, GET list (page of 20, category filter, sort=-price),
// POST create and PATCH, at 1k and 100k stored products and 1, 16, 64 connections; then
// the same reads and creates on a collection declared in bench/declared-resources.json
// (RESOURCES, issue 21) at the largest size; search (`q`, two words) against a list
// filtered by category at the largest size, each computed per request (issue 23); then
// start-up time, memory, and the targets, met or missed (exit code 1 if any is missed).
// The full and smoke runs then measure the change feed (bench/events-bench.ts) and webhooks
// (bench/webhooks-bench.ts), and the full run compression (bench/compression-bench.ts); --quick does none of them.
// Usage: npm run bench [-- --quick | --smoke] [--node] [--postgres | --events | --webhooks | --compression | --caches]
//   --quick     both sizes, 64 connections, 1 s per cell (a minute or two)
//   --smoke     200 and 2,000 products, 16 connections, 0.3 s per cell; fails only on errors
//   --node      load from the built-in node:http generator instead of wrk
//   --postgres  instead, plainrest on a throwaway PostgreSQL, one and two processes, against
//               a bare node:http + pg reference (bench/postgres-bench.ts); --quick and
//               --smoke shorten it as they do this one
//   --events    instead, only the change feed: a steady write load without and with 1,000
//               Server-Sent Events subscribers, write latency, memory, every event delivered
//               (bench/events-bench.ts); --quick and --smoke shorten it
//   --webhooks  instead, only webhooks: writes without and with 20 subscriptions (19 receivers, 1 dead), their
//               latency, throughput and plainrest's CPU per write, every delivery checked (bench/webhooks-bench.ts);
//               --quick and --smoke shorten it
//   --compression  instead, only compression: a 100-product page and the OpenAPI document as they are, with
//               gzip and with br (bench/compression-bench.ts)
//   --caches    instead, only the caches: each kept and with CACHES=false, alternated (bench/caches-bench.ts); a
//               cache not worth 5 % fails the run. The full run ends with it too
//   --get-item  instead, only GET item, with the run's sizes, rounds and the declared collection (a minute or two
//               in full): the figure to set beside bench/get-item-outside.sh

import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchCollection } from './bench-data.ts';
import { writeBenchFiles } from './bench-data.ts';
import {
  adminToken,
  BENCH_ADMIN_PASSWORD,
  BENCH_TOKEN_SECRET,
  createReader,
  formatTable,
  readerToken,
} from './bench-support.ts';
import { removeAtExit } from './cleanup.ts';
import { runEventsBench } from './events-bench.ts';
import { runWebhooksBench } from './webhooks-bench.ts';
import { runCompressionBench } from './compression-bench.ts';
import { runCachesBench } from './caches-bench.ts';
import type { LoadGenerator, LoadRequest, LoadResult } from './load-generators.ts';
import { chooseLoadGenerator } from './load-generators.ts';
import { runPostgresBench } from './postgres-bench.ts';
import type { Probe, ServerProcess } from './server-processes.ts';
import { startPlainrest, startReference } from './server-processes.ts';
import { printSearch, searchExamples, searchScenarios } from './search-scenarios.ts';
import type { Cell, RoundResult, ScenarioName, SizeMeasurement } from './targets.ts';
import {
  checkTargets,
  combineRounds,
  cpuColumn,
  measuredRound,
  median,
  megabytes,
  reportTargets,
  throughputRatio,
} from './targets.ts';

interface Mode {
  readonly sizes: readonly number[];
  readonly connections: readonly number[];
  readonly seconds: number;
  /** Load before each scenario's measured cells, on each server, untimed. */
  readonly warmUpSeconds: number;
  /**
   * Each cell alternates the two servers this many times (plainrest first, then the
   * reference first, …); the cell's ratio is the median of the rounds' ratios. A shared
   * machine's speed drifts by ±15% from second to second: rounds next to each other see
   * the same drift, and the median drops the odd one out. The cells the targets judge
   * (the most connections) get more rounds, so that two slow spells in a row cannot
   * decide their median; the others are shown for scale.
   */
  readonly rounds: { readonly judged: number; readonly other: number };
  /** Fresh starts timed per server; the median counts. */
  readonly startups: number;
  /** A missed target fails the run (the smoke run fails only on errors). */
  readonly enforceTargets: boolean;
}

const MODES: Record<'full' | 'quick' | 'smoke', Mode> = {
  full: {
    sizes: [1000, 100_000],
    connections: [1, 16, 64],
    seconds: 1.2,
    warmUpSeconds: 1,
    rounds: { judged: 9, other: 3 },
    startups: 5,
    enforceTargets: true,
  },
  quick: {
    sizes: [1000, 100_000],
    connections: [64],
    seconds: 1,
    warmUpSeconds: 0.3,
    rounds: { judged: 2, other: 2 },
    startups: 3,
    enforceTargets: true,
  },
  smoke: {
    sizes: [200, 2000],
    connections: [16],
    seconds: 0.3,
    warmUpSeconds: 0,
    rounds: { judged: 1, other: 1 },
    startups: 1,
    enforceTargets: false,
  },
};

const FLAGS = [
  '--quick',
  '--smoke',
  '--node',
  '--postgres',
  '--events',
  '--webhooks',
  '--compression',
  '--caches',
  '--get-item',
];
/** Each runs one part of the benchmark instead of the whole: at most one of them. */
const PARTS = ['--postgres', '--events', '--webhooks', '--compression', '--caches', '--get-item'];
const args = process.argv.slice(2);
const unknown = args.filter((arg) => !FLAGS.includes(arg));
if (
  unknown.length > 0 ||
  (args.includes('--quick') && args.includes('--smoke')) ||
  PARTS.filter((flag) => args.includes(flag)).length > 1
) {
  console.error(
    `usage: npm run bench [-- --quick | --smoke] [--node] [${PARTS.join(' | ')}]   (not: ${args.join(' ')})`,
  );
  process.exit(2);
}
const modeName = args.includes('--smoke') ? 'smoke' : args.includes('--quick') ? 'quick' : 'full';
const mode = MODES[modeName];
/** `--get-item`: GET item alone, each size started once, no search, no writes. */
const onlyGetItem = args.includes('--get-item');

/** The targets are judged with the most connections. */
const judgedConnections = Math.max(...mode.connections);

const authorization = `Bearer ${adminToken()}`;
/** Reads are made as an ordinary user, as most clients read; writes as the administrator, who may make products. */
const readerAuthorization = `Bearer ${readerToken()}`;
/**
 * GET item asks for this many records in turn, spread over the whole collection, as clients reading different records
 * do: one record asked again and again stays in the processor's caches and flatters every server, plainrest most
 * (bench/README.md, "GET item").
 */
const ITEM_TARGETS = 4096;
const PLAINREST_SETTINGS = { RATE_LIMIT: '0', ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, TOKEN_SECRET: BENCH_TOKEN_SECRET };

interface Scenario {
  readonly name: ScenarioName;
  readonly request: LoadRequest;
  /** Measured with the most connections only (the search comparison, judged there). */
  readonly judgedOnly?: boolean;
}

/** What one server pair serves: the example domain's products, or a declared collection. */
interface Domain {
  readonly collection: BenchCollection;
  /** The RESOURCES file plainrest starts with; undefined: the example domain. */
  readonly resources?: string;
  /** Its scenarios with `size` records stored. */
  readonly scenarios: (size: number) => readonly Scenario[];
  readonly probe: Probe;
}

function domain(collection: BenchCollection, resources?: string, only?: readonly ScenarioName[]): Domain {
  const path = `/v1/${collection}`;
  const sku = collection === 'gadgets' ? '"sku":"BEN-{n}",' : '';
  const scenarios = (size: number): Scenario[] => [
    {
      name: 'GET item',
      request: {
        method: 'GET',
        path: `${path}/{id}`,
        paths: spreadIds(size).map((id) => `${path}/${id}`),
        headers: { Authorization: readerAuthorization },
        expect: 200,
      },
    },
    {
      name: 'GET list',
      request: {
        method: 'GET',
        path: `${path}?category=tea&sort=-price&limit=20`,
        headers: { Authorization: readerAuthorization },
        expect: 200,
      },
    },
    {
      name: 'POST create',
      request: {
        method: 'POST',
        path,
        headers: { Authorization: authorization, 'Content-Type': 'application/json' },
        bodyTemplate: `{"name":"Bench {n}",${sku}"category":"bench","price":{price}}`,
        expect: 201,
      },
    },
    {
      name: 'PATCH',
      request: {
        method: 'PATCH',
        path: `${path}/9`,
        headers: { Authorization: authorization, 'Content-Type': 'application/merge-patch+json' },
        bodyTemplate: '{"price":{price}}',
        expect: 200,
      },
    },
  ];
  return {
    collection,
    ...(resources === undefined ? {} : { resources }),
    scenarios: (size) =>
      only === undefined ? scenarios(size) : scenarios(size).filter((scenario) => only.includes(scenario.name)),
    probe: { path: `${path}/1`, headers: { Authorization: authorization } },
  };
}

/** ITEM_TARGETS ids of 1..size (all of them when fewer), spread over the collection by a stride prime to its size. */
function spreadIds(size: number): number[] {
  const count = Math.min(size, ITEM_TARGETS);
  const stride = size % 7919 === 0 ? 7907 : 7919;
  return Array.from({ length: count }, (_, index) => 1 + ((index * stride) % size));
}

const EXAMPLE_DOMAIN = domain('products');

/** A collection from a declaration file, not the example domain: its reads and creates, at the largest size. */
const DECLARED_DOMAIN = domain('gadgets', fileURLToPath(new URL('./declared-resources.json', import.meta.url)), [
  'GET item',
  'GET list',
  'POST create',
]);

/**
 * Both servers on `size` fresh records of `served`, each of its scenarios × connection count
 * on each, one at a time; with `withSearch`, the search scenarios after the reads (before
 * the writes add records), and plainrest's memory before and after them.
 */
async function measureSize(
  root: string,
  load: LoadGenerator,
  size: number,
  served: Domain,
  startups: number,
  withSearch = false,
): Promise<SizeMeasurement> {
  const dir = join(root, `${served.collection}-${size}`);
  const { dataDir, referenceFile } = await writeBenchFiles(dir, size, served.collection);
  const settings = {
    ...PLAINREST_SETTINGS,
    DATA_DIR: dataDir,
    ...(served.resources === undefined ? {} : { RESOURCES: served.resources }),
  };
  const startReferenceServer = (): Promise<ServerProcess> =>
    startReference(referenceFile, served.collection, join(dir, 'reference.log'), served.probe);
  // Start-up is timed on fresh starts of the files as written, before any load changes them;
  // the last start of each server is the one the load then runs against.
  const referenceStarts = await timeStartups(startReferenceServer, startups - 1);
  const plainrestStarts = await timeStartups(() => startPlainrestOnCopy(settings, dir, served.probe), startups - 1);
  // The reference first: idle, it takes no CPU from plainrest's timed start.
  const reference = await startReferenceServer();
  const plainrest = await startPlainrest(settings, join(dir, 'plainrest.log'), served.probe);
  const startupMs = {
    plainrest: median([...plainrestStarts, plainrest.startupMs]),
    reference: median([...referenceStarts, reference.startupMs]),
  };
  await createReader(plainrest.url);
  const scenarios = served.scenarios(size).filter((scenario) => !onlyGetItem || scenario.name === 'GET item');
  const reads = scenarios.filter((scenario) => scenario.request.method === 'GET');
  const writes = scenarios.filter((scenario) => scenario.request.method !== 'GET');
  const servers = { plainrest, reference };
  try {
    const cells: Cell[] = [];
    for (const scenario of reads) cells.push(...(await measureScenario(load, servers, scenario, size)));
    // Memory "with N products": after the reads, before the searches build their word index and the writes add records.
    const afterReads = { plainrest: plainrest.rssMegabytes(), reference: reference.rssMegabytes() };
    let search: SizeMeasurement['search'];
    if (withSearch) {
      const examples = await searchExamples(plainrest.url, authorization);
      const rssWithIndexMegabytes = plainrest.rssMegabytes();
      for (const scenario of searchScenarios(size, authorization))
        cells.push(...(await measureScenario(load, servers, scenario, size)));
      search = {
        examples,
        rssBeforeMegabytes: afterReads.plainrest,
        rssWithIndexMegabytes,
        rssAfterMegabytes: plainrest.rssMegabytes(),
      };
    }
    for (const scenario of writes) cells.push(...(await measureScenario(load, servers, scenario, size)));
    return {
      size,
      collection: served.collection,
      cells,
      startupMs,
      rssMegabytes: afterReads,
      rssAfterWritesMegabytes: plainrest.rssMegabytes(),
      ...(search === undefined ? {} : { search }),
    };
  } finally {
    await Promise.all([plainrest.stop(), reference.stop()]);
    await rm(dir, { recursive: true, force: true });
  }
}

/** One scenario: a warm-up on each server, then each connection count (the most only, for a judged-only scenario) in alternating rounds. */
async function measureScenario(
  load: LoadGenerator,
  servers: { plainrest: ServerProcess; reference: ServerProcess },
  scenario: Scenario,
  size: number,
): Promise<Cell[]> {
  const { plainrest, reference } = servers;
  if (mode.warmUpSeconds > 0) {
    await load.run(plainrest.url, scenario.request, judgedConnections, mode.warmUpSeconds);
    await load.run(reference.url, scenario.request, judgedConnections, mode.warmUpSeconds);
  }
  const cells: Cell[] = [];
  for (const connections of scenario.judgedOnly === true ? [judgedConnections] : mode.connections) {
    const rounds: { plainrest: RoundResult; reference: RoundResult }[] = [];
    const roundCount = connections === judgedConnections ? mode.rounds.judged : mode.rounds.other;
    const measured = (server: ServerProcess): Promise<RoundResult> =>
      measuredRound(server, () => load.run(server.url, scenario.request, connections, mode.seconds), mode.seconds);
    for (let round = 0; round < roundCount; round++) {
      const plainrestFirst = round % 2 === 0;
      const first = await measured(plainrestFirst ? plainrest : reference);
      const second = await measured(plainrestFirst ? reference : plainrest);
      rounds.push(plainrestFirst ? { plainrest: first, reference: second } : { plainrest: second, reference: first });
    }
    cells.push(combineRounds(scenario.name, size, connections, rounds));
  }
  return cells;
}

/** plainrest on a fresh copy of its DATA_DIR (the snapshot and journal as written), so every timed start loads the same files and leaves them as they were. */
async function startPlainrestOnCopy(
  settings: Readonly<Record<string, string>>,
  dir: string,
  probe: Probe,
): Promise<ServerProcess> {
  const copy = await mkdtemp(join(dir, 'start-'));
  await cp(settings['DATA_DIR'] as string, copy, { recursive: true, filter: (source) => !source.endsWith('.lock') });
  return startPlainrest({ ...settings, DATA_DIR: copy }, join(dir, 'plainrest-start.log'), probe);
}

/** Start-up times of `count` fresh starts, one at a time. */
async function timeStartups(start: () => Promise<ServerProcess>, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = await start();
    times.push(server.startupMs);
    await server.stop();
  }
  return times;
}

/** plainrest on an empty data directory without the example data, after one GET /healthz. */
async function measureIdleRss(root: string): Promise<number | undefined> {
  const dir = join(root, 'idle');
  await mkdir(join(dir, 'data'), { recursive: true });
  const settings = { ...PLAINREST_SETTINGS, DATA_DIR: join(dir, 'data'), SEED: 'false' };
  const plainrest = await startPlainrest(settings, join(dir, 'plainrest.log'), { path: '/healthz', headers: {} });
  try {
    return plainrest.rssMegabytes();
  } finally {
    await plainrest.stop();
  }
}

function roundsDescription(): string {
  const { judged, other } = mode.rounds;
  if (judged === 1) return '';
  if (judged === other || mode.connections.length === 1)
    return `, ${judged} alternating rounds per cell (median ratio)`;
  return `, ${judged} alternating rounds per cell at ${judgedConnections} connections, ${other} at fewer (median ratio)`;
}

function latency(result: LoadResult): string {
  return `${result.p50.toFixed(2)} / ${result.p99.toFixed(2)}`;
}

function report(
  sizes: readonly SizeMeasurement[],
  declared: SizeMeasurement,
  idleRssMegabytes: number | undefined,
  targetConnections: number,
): boolean {
  const measured = [...sizes, declared];
  const cells = measured.flatMap((size) => size.cells.map((cell) => ({ ...cell, collection: size.collection })));
  console.log(
    formatTable(
      [
        'scenario',
        'collection',
        'stored',
        'conns',
        'plainrest req/s',
        'reference req/s',
        'ratio (lowest–highest round)',
        'CPU µs per answer, plainrest / reference',
        'plainrest p50/p99 ms',
        'reference p50/p99 ms',
        'errors',
      ],
      cells.map((cell) => [
        cell.scenario,
        cell.collection,
        cell.size.toLocaleString('en'),
        String(cell.connections),
        cell.plainrest.requestsPerSecond.toFixed(0),
        cell.reference.requestsPerSecond.toFixed(0),
        cell.ratioSpread[0] !== cell.ratioSpread[1]
          ? `${throughputRatio(cell).toFixed(2)} (${cell.ratioSpread[0].toFixed(2)}–${cell.ratioSpread[1].toFixed(2)})`
          : throughputRatio(cell).toFixed(2),
        cpuColumn(cell),
        latency(cell.plainrest),
        latency(cell.reference),
        String(cell.plainrest.errors + cell.reference.errors),
      ]),
    ),
  );
  console.log(
    `\nStart-up (spawn to the first 200 to GET /v1/<collection>/1, median of ${mode.startups} fresh starts; one for the declared collection) and memory (after the reads; plainrest also after the writes)`,
  );
  console.log(
    formatTable(
      [
        'collection',
        'stored',
        'plainrest start ms',
        'reference start ms',
        'ratio',
        'plainrest RSS',
        'reference RSS',
        'plainrest RSS after writes',
      ],
      measured.map((size) => [
        size.collection,
        size.size.toLocaleString('en'),
        size.startupMs.plainrest.toFixed(0),
        size.startupMs.reference.toFixed(0),
        (size.startupMs.plainrest / size.startupMs.reference).toFixed(2),
        megabytes(size.rssMegabytes.plainrest),
        megabytes(size.rssMegabytes.reference),
        megabytes(size.rssAfterWritesMegabytes),
      ]),
    ),
  );
  console.log(
    `idle plainrest (empty data directory, SEED=false, after one GET /healthz): ${megabytes(idleRssMegabytes)} RSS`,
  );
  const searched = sizes.find((size) => size.search !== undefined);
  if (searched !== undefined) printSearch(searched, targetConnections);

  return reportTargets(
    `Targets (${targetConnections} connections)`,
    checkTargets({ sizes, declared, idleRssMegabytes, targetConnections }).filter(
      (check) => !onlyGetItem || check.target.startsWith('GET item'),
    ),
    cells,
    mode.enforceTargets,
  );
}

/** The memory store's benchmark: both sizes, the declared collection, idle memory, the report. */
async function runMemoryBench(): Promise<boolean> {
  const root = await mkdtemp(join(tmpdir(), 'plainrest-bench-'));
  removeAtExit(root);
  try {
    const load = chooseLoadGenerator(args.includes('--node'), root);
    const warmUp = mode.warmUpSeconds > 0 ? ` (+ ${mode.warmUpSeconds} s warm-up per scenario)` : '';
    const rounds = roundsDescription();
    console.log(
      `${mode.seconds} s per run${warmUp}${rounds}, ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, ` +
        `node ${process.version}, load from ${load.name}\n`,
    );
    const sizes: SizeMeasurement[] = [];
    const largest = Math.max(...mode.sizes);
    for (const size of mode.sizes) {
      console.error(`measuring with ${size.toLocaleString('en')} products${size === largest ? ', and search' : ''}…`);
      const startups = onlyGetItem ? 1 : mode.startups;
      sizes.push(await measureSize(root, load, size, EXAMPLE_DOMAIN, startups, !onlyGetItem && size === largest));
    }
    console.error(`measuring the declared collection with ${largest.toLocaleString('en')} gadgets…`);
    const declared = await measureSize(root, load, largest, DECLARED_DOMAIN, 1);
    const idleRssMegabytes = await measureIdleRss(root);
    return report(sizes, declared, idleRssMegabytes, judgedConnections);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (args.includes('--postgres')) {
  process.exitCode = (await runPostgresBench(modeName, args.includes('--node'))) ? 0 : 1;
} else if (args.includes('--events')) {
  process.exitCode = (await runEventsBench(modeName)) ? 0 : 1;
} else if (args.includes('--webhooks')) {
  process.exitCode = (await runWebhooks()) ? 0 : 1;
} else if (args.includes('--compression')) {
  await runCompression();
} else if (args.includes('--caches')) {
  process.exitCode = (await runCaches()) ? 0 : 1;
} else if (onlyGetItem) {
  process.exitCode = (await runMemoryBench()) ? 0 : 1;
} else {
  const memoryPassed = await runMemoryBench();
  // The change feed and webhooks end the full run (about a minute more each) and the smoke run (seconds), then
  // compression (half a minute) the full run; --quick leaves them to `-- --events --quick`, `-- --webhooks --quick`
  // and `-- --compression --quick`.
  const eventsPassed = modeName === 'quick' ? true : await runEventsBench(modeName);
  const webhooksPassed = modeName === 'quick' ? true : await runWebhooks();
  if (modeName === 'full') await runCompression();
  const cachesPassed = modeName === 'full' ? await runCaches() : true;
  process.exitCode = memoryPassed && eventsPassed && webhooksPassed && cachesPassed ? 0 : 1;
}

/** Webhooks (bench/webhooks-bench.ts), with the load generator the scenarios use for its writes as fast as answered. */
async function runWebhooks(): Promise<boolean> {
  const scripts = await mkdtemp(join(tmpdir(), 'plainrest-webhooks-scripts-'));
  try {
    return await runWebhooksBench(modeName, chooseLoadGenerator(args.includes('--node'), scripts));
  } finally {
    await rm(scripts, { recursive: true, force: true });
  }
}

/** What each cache is worth (bench/caches-bench.ts), with the load generator the scenarios use. */
async function runCaches(): Promise<boolean> {
  const scripts = await mkdtemp(join(tmpdir(), 'plainrest-caches-scripts-'));
  try {
    return await runCachesBench(modeName, chooseLoadGenerator(args.includes('--node'), scripts));
  } finally {
    await rm(scripts, { recursive: true, force: true });
  }
}

/** The compression figures (bench/compression-bench.ts), with the load generator the scenarios use. */
async function runCompression(): Promise<void> {
  const scripts = await mkdtemp(join(tmpdir(), 'plainrest-compression-scripts-'));
  try {
    await runCompressionBench(modeName, chooseLoadGenerator(args.includes('--node'), scripts));
  } finally {
    await rm(scripts, { recursive: true, force: true });
  }
}
