// `npm run bench:idle` (bench/README.md, "Idle memory"): plainrest idle, as the one file (dist/plainrest.mjs) and as
// the compiled tree (dist/main.js), against a bare ESM node:http server (bare-server.mjs): resident memory (VmRSS) 3 s
// after one GET, with an empty data directory and SEED=false, and the start from the spawn to the first answer (its
// CPU time judged, robust to a shared machine); on each node given, the three started in turn, in an order that
// rotates from run to run. Targets: within 8 MiB of bare, and a start no slower than dist/main.js's.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/free-port.ts';
import { killAtExit, removeAtExit } from './cleanup.ts';

/** What is started: its script, and the path its one GET asks for. */
interface Target {
  readonly name: string;
  readonly script: string;
  readonly path: string;
  readonly plainrest: boolean;
}

const TARGETS: readonly Target[] = [
  { name: 'bare', script: fileURLToPath(new URL('./bare-server.mjs', import.meta.url)), path: '/', plainrest: false },
  {
    name: 'plainrest.mjs',
    script: fileURLToPath(new URL('../dist/plainrest.mjs', import.meta.url)),
    path: '/healthz',
    plainrest: true,
  },
  {
    name: 'dist/main.js',
    script: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    path: '/healthz',
    plainrest: true,
  },
];
/** The goal of the one file's idle memory over bare, in MiB (README: Performance). */
const MOST_OVER_BARE_MIB = 8;
/** How long after its one answer a server is left idle before its memory is read. */
const IDLE_MS = 3000;
/** How often a starting server is asked, as the other benchmarks ask (server-processes.ts). */
const POLL_MS = 5;
const START_TIMEOUT_MS = 60_000;
/** Where .ci/run keeps the node releases it fetches, one directory per version, each with bin/node. */
const NODE_CACHE = fileURLToPath(new URL('../node_modules/.cache/plainrest-node/', import.meta.url));

interface Sample {
  readonly rssMib: number;
  /** From the spawn to the first 200, wall time. */
  readonly startMs: number;
  /** The server's CPU time (user and system) up to its first 200. */
  readonly startCpuMs: number;
}

/** Clock ticks per second of /proc/<pid>/stat's times: 100 on Linux (USER_HZ) whatever the kernel's own tick. */
const USER_HZ = 100;

/** User plus system CPU time of process `pid` so far, in milliseconds: fields 14 and 15 of /proc/<pid>/stat. */
function cpuMs(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name, field 2, is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

const USAGE =
  'usage: npm run bench:idle [-- --runs N] [NODE ...]   NODE: a node binary, or a line (22) or version (22.23.3) ' +
  'that .ci/run fetched into node_modules/.cache/plainrest-node; default: the node running this';

const args = process.argv.slice(2);
let runs = 5;
const nodes: string[] = [];
for (let index = 0; index < args.length; index++) {
  const arg = args[index] as string;
  if (arg === '--runs') {
    runs = Number(args[++index]);
    if (!Number.isInteger(runs) || runs < 1) fail(`--runs must be a positive integer`);
  } else if (arg.startsWith('-')) fail(`unknown option ${arg}`);
  else nodes.push(nodeBinary(arg));
}
if (nodes.length === 0) nodes.push(process.execPath);
for (const target of TARGETS) if (!existsSync(target.script)) fail(`${target.script} is missing: npm run build`);
if (!existsSync('/proc/self/status')) fail('VmRSS is read from /proc, which this system has not');

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

/**
 * `arg` as a node binary: a path as it is, a line or version as the node running this when it is one, else as the
 * newest matching release in NODE_CACHE.
 */
function nodeBinary(arg: string): string {
  if (arg.includes('/')) return arg;
  const own = process.versions.node;
  if (own === arg || own.startsWith(`${arg}.`)) return process.execPath;
  const versions = existsSync(NODE_CACHE)
    ? readdirSync(NODE_CACHE).filter((name) => name === arg || name.startsWith(`${arg}.`))
    : [];
  const newest = versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
  if (newest === undefined) fail(`no Node ${arg} in ${NODE_CACHE} (.ci/run fetches releases there)`);
  return join(NODE_CACHE, newest, 'bin', 'node');
}

/** The version a node binary reports (`v22.23.3`). */
async function versionOf(node: string): Promise<string> {
  const child = spawn(node, ['--version'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await once(child, 'close');
  return text.trim();
}

/** One start of `target` on `node`: from the spawn to its first 200, then VmRSS IDLE_MS later. */
async function measure(node: string, target: Target): Promise<Sample> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'plainrest-idle-'));
  removeAtExit(dataDir);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dataDir };
  if (target.plainrest) Object.assign(env, { DATA_DIR: dataDir, SEED: 'false', PORT: String(port), HOST: '127.0.0.1' });
  const args = target.plainrest ? [target.script] : [target.script, String(port)];
  const started = performance.now();
  const child = spawn(node, args, { env, stdio: 'ignore' });
  killAtExit(child);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${target.name} exited on ${node}`);
      if ((await statusOf(port, target.path)) === 200) break;
      if (performance.now() - started > START_TIMEOUT_MS) throw new Error(`${target.name} did not answer on ${node}`);
      await sleep(POLL_MS);
    }
    const startMs = performance.now() - started;
    const startCpuMs = cpuMs(child.pid);
    await sleep(IDLE_MS);
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kilobytes = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
    return { rssMib: kilobytes / 1024, startMs, startCpuMs };
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The status of one GET on a new connection, undefined when it fails (not listening yet). */
function statusOf(port: number, path: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode));
    });
    req.once('error', () => resolve(undefined));
    req.end();
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const samples = new Map<string, Sample[]>();
const key = (node: string, target: Target): string => `${node}\0${target.name}`;
const versions = new Map<string, string>();
for (const node of nodes) versions.set(node, await versionOf(node));
console.log(
  `${runs} runs, the targets in a rotating order; ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}; ` +
    `idle: an empty data directory, SEED=false, one GET, VmRSS ${IDLE_MS / 1000} s later; start: spawn to first 200\n`,
);
for (let run = 0; run < runs; run++) {
  for (const node of nodes) {
    const order = TARGETS.map((_, index) => TARGETS[(index + run) % TARGETS.length] as Target);
    for (const target of order) {
      const sample = await measure(node, target);
      samples.set(key(node, target), [...(samples.get(key(node, target)) ?? []), sample]);
      console.error(
        `run ${run + 1}, node ${versions.get(node)}, ${target.name}: ` +
          `${sample.rssMib.toFixed(1)} MiB, start ${sample.startMs.toFixed(0)} ms (CPU ${sample.startCpuMs} ms)`,
      );
    }
  }
}

/** `59.0 (58.7-59.2)`: a median and the range of `values`. */
function spread(values: readonly number[], digits: number): string {
  const range = `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
  return `${median(values).toFixed(digits)} (${range})`;
}

console.log(
  '| Node | bare RSS | plainrest.mjs RSS, over bare | dist/main.js RSS, over bare | ' +
    'start in ms, wall and CPU: bare | plainrest.mjs | dist/main.js |',
);
console.log('|---|---|---|---|---|---|---|');
const misses: string[] = [];
for (const node of nodes) {
  const [bare, one, tree] = TARGETS.map((target) => samples.get(key(node, target)) ?? []) as [
    Sample[],
    Sample[],
    Sample[],
  ];
  const rss = (list: Sample[]): number[] => list.map((sample) => sample.rssMib);
  const cpu = (list: Sample[]): number[] => list.map((sample) => sample.startCpuMs);
  const over = (list: Sample[]): string =>
    `${spread(rss(list), 1)}, +${(median(rss(list)) - median(rss(bare))).toFixed(1)}`;
  const start = (list: Sample[]): string =>
    `${spread(
      list.map((sample) => sample.startMs),
      0,
    )}, CPU ${median(cpu(list)).toFixed(0)}`;
  console.log(
    `| ${versions.get(node)} | ${spread(rss(bare), 1)} | ${over(one)} | ${over(tree)} | ` +
      `${start(bare)} | ${start(one)} | ${start(tree)} |`,
  );
  const overBare = median(rss(one)) - median(rss(bare));
  if (overBare > MOST_OVER_BARE_MIB) {
    misses.push(`node ${versions.get(node)}: plainrest.mjs is ${overBare.toFixed(1)} MiB over bare`);
  }
  if (median(cpu(one)) > median(cpu(tree))) {
    misses.push(`node ${versions.get(node)}: plainrest.mjs takes more CPU to start than dist/main.js (medians)`);
  }
}
console.log(
  misses.length === 0
    ? `\ntargets met: within ${MOST_OVER_BARE_MIB} MiB of bare, and no more CPU to start than dist/main.js`
    : `\ntargets NOT met:\n${misses.join('\n')}`,
);
process.exitCode = misses.length === 0 ? 0 : 1;
