// The servers the benchmarks measure, each a child process on loopback:
// - plainrest as `npm start` runs it: `node dist/plainrest.mjs`, settings in the environment,
//   stdout and stderr to a log file (its JSON access log stays on);
// - the bare reference, `node bench/reference-server.mjs`, with no loader, or its twin on
//   PostgreSQL, `node bench/reference-postgres.mjs`;
// - for the write benchmark, plainrest durable or memory-only via bench/bench-server.ts.
// Start-up is timed from the spawn to the first 200 answer, polled every 5 ms.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../src/cli/settings.ts';
import { freePort } from '../test/free-port.ts';
import { killAtExit } from './cleanup.ts';

export interface BenchServer {
  readonly url: string;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

export interface ServerProcess extends BenchServer {
  /** Milliseconds from the spawn to the first 200 answer to the probe. */
  readonly startupMs: number;
  /** Resident memory in MB (VmRSS in /proc), undefined where there is no /proc. */
  rssMegabytes(): number | undefined;
  /** The most resident memory so far, in MB (VmHWM in /proc). */
  peakMegabytes(): number | undefined;
  /** CPU time used so far, user and system, in seconds (/proc); undefined where there is no /proc. */
  cpuSeconds(): number | undefined;
  /** Sends the process a signal. */
  signal(name: NodeJS.Signals): void;
}

/** The request that tells a starting server is ready: it must answer 200. */
export interface Probe {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

const PLAINREST_MAIN = fileURLToPath(new URL('../dist/plainrest.mjs', import.meta.url));
const REFERENCE_SERVER = fileURLToPath(new URL('./reference-server.mjs', import.meta.url));
const POSTGRES_REFERENCE_SERVER = fileURLToPath(new URL('./reference-postgres.mjs', import.meta.url));
const BENCH_SERVER = fileURLToPath(new URL('./bench-server.ts', import.meta.url));
const POLL_MS = 5;
const START_TIMEOUT_MS = 120_000;

/**
 * plainrest as `npm start` runs it, with `settings` (PORT and HOST are added) as its only plainrest variables, and
 * `nodeFlags` given to node before it.
 */
export async function startPlainrest(
  settings: Readonly<Record<string, string>>,
  logFile: string,
  probe: Probe,
  nodeFlags: readonly string[] = [],
): Promise<ServerProcess> {
  const port = await freePort();
  const env = { ...inheritedEnvironment(), ...settings, PORT: String(port), HOST: '127.0.0.1' };
  return startProcess('plainrest', [...nodeFlags, PLAINREST_MAIN], env, port, logFile, probe);
}

/** The reference server on the records of `referenceFile` (a JSON array), under /v1/<collection>. */
export async function startReference(
  referenceFile: string,
  collection: string,
  logFile: string,
  probe: Probe,
): Promise<ServerProcess> {
  const port = await freePort();
  return startProcess(
    'reference',
    [REFERENCE_SERVER, referenceFile, String(port), collection],
    inheritedEnvironment(),
    port,
    logFile,
    probe,
  );
}

/** The reference on PostgreSQL: the rows of `databaseUrl`'s products through a pool of `poolSize` connections. */
export async function startPostgresReference(
  databaseUrl: string,
  poolSize: number,
  logFile: string,
  probe: Probe,
): Promise<ServerProcess> {
  const port = await freePort();
  return startProcess(
    'reference',
    [POSTGRES_REFERENCE_SERVER, databaseUrl, String(port), String(poolSize)],
    inheritedEnvironment(),
    port,
    logFile,
    probe,
  );
}

/** The environment without any plainrest setting or NODE_OPTIONS, so only the benchmark's own apply. */
function inheritedEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const setting of SETTINGS) delete env[setting.variable];
  delete env['NODE_OPTIONS'];
  return env;
}

async function startProcess(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  port: number,
  logFile: string,
  probe: Probe,
): Promise<ServerProcess> {
  const log = openSync(logFile, 'a');
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', log, log] });
  closeSync(log);
  killAtExit(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(url, probe, child);
  } catch (error) {
    child.kill('SIGKILL');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${name} did not start: ${reason}\n--- ${logFile} (end) ---\n${readFileSync(logFile, 'utf8').slice(-3000)}`,
    );
  }
  const startupMs = performance.now() - started;
  return {
    url,
    startupMs,
    rssMegabytes: () => residentMegabytes(child.pid),
    peakMegabytes: () => residentMegabytes(child.pid, 'VmHWM'),
    cpuSeconds: () => processCpuSeconds(child.pid),
    signal: (name) => void child.kill(name),
    stop: () => stopChild(child),
  };
}

async function waitUntilReady(url: string, probe: Probe, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`it exited (${child.exitCode ?? child.signalCode})`);
    const status = await statusOf(url, probe);
    if (status === 200) return;
    if (status !== undefined && status >= 400 && status < 500) throw new Error(`GET ${probe.path} answered ${status}`);
    if (performance.now() > deadline)
      throw new Error(`no 200 to GET ${probe.path} within ${START_TIMEOUT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** The status of one GET on a new connection, undefined when it fails (not listening yet). */
function statusOf(url: string, probe: Probe): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(`${url}${probe.path}`, { headers: probe.headers, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode));
    });
    req.once('error', () => resolve(undefined));
    req.end();
  });
}

function residentMegabytes(pid: number | undefined, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's times: 100 on Linux (USER_HZ) whatever the kernel's own tick. */
const USER_HZ = 100;

/** User plus system CPU time of process `pid` so far, in seconds: fields 14 and 15 of /proc/<pid>/stat (proc(5)). */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, field 2, is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return undefined;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(deadline);
}

/** plainrest durable or memory-only, in-process via tsx (bench/bench-server.ts), for the write benchmark. */
export async function startBenchServer(mode: 'durable' | 'memory', dataDir: string): Promise<BenchServer> {
  // stdout goes to a pipe the benchmark drains (the access log), like "stdout to a file".
  const child = spawn(process.execPath, ['--import', 'tsx', BENCH_SERVER, mode, dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  killAtExit(child);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim().split('\n')[0] as string));
    child.stdout.on('data', () => {}); // keep draining
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { url, stop: () => stopChild(child) };
}
