// `npm run bench -- --postgres` (issue 22): plainrest keeping its data in PostgreSQL
// (DATABASE_URL, the optional package plainrest-postgres) against a bare node:http + pg
// reference (reference-postgres.mjs) sending one SQL statement per request through a pool
// of the same size, both on one throwaway PostgreSQL (test/postgres-cluster.ts): GET item
// and POST create, each against the reference's lighter statement and against the one
// plainrest sends (the caller's check, the change-feed event), and GET list (page of 20,
// category filter, sort=-price), with one process of each server and with two on the one
// database, the load split evenly between them; the servers alternate in rounds as in
// http-bench.ts. Then the targets (targets.ts).

import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { POSTGRES_SKIP, startCluster } from '../test/postgres-cluster.ts';
import { benchProducts } from './bench-data.ts';
import { adminToken, BENCH_ADMIN_PASSWORD, BENCH_TOKEN_SECRET, formatTable } from './bench-support.ts';
import { removeAtExit } from './cleanup.ts';
import type { LoadGenerator, LoadRequest, LoadResult } from './load-generators.ts';
import { chooseLoadGenerator } from './load-generators.ts';
import type { ServerProcess } from './server-processes.ts';
import { startPlainrest, startPostgresReference } from './server-processes.ts';
import type { PostgresCell, RoundResult, ScenarioName } from './targets.ts';
import { checkPostgresTargets, combineRounds, cpuColumn, measuredRound, reportTargets } from './targets.ts';

export type BenchModeName = 'full' | 'quick' | 'smoke';

interface PostgresMode {
  /**
   * Products stored. 10,000: the table and its indexes sit in PostgreSQL's buffers, and a
   * list's total already counts 1,250 rows per request, most of a list's cost on both
   * servers; at 100,000 the list would measure PostgreSQL's count rather than either
   * server, while GET item and POST (an index lookup, an insert) hardly change with size.
   */
  readonly size: number;
  /** Split evenly over the processes, so each count must divide by 2. */
  readonly connections: readonly number[];
  readonly seconds: number;
  readonly warmUpSeconds: number;
  /** Alternating rounds per cell, as in http-bench.ts: more for the cells the targets judge. */
  readonly rounds: { readonly judged: number; readonly other: number };
  /** A missed target fails the run (the smoke run fails only on errors). */
  readonly enforceTargets: boolean;
}

const MODES: Record<BenchModeName, PostgresMode> = {
  full: {
    size: 10_000,
    connections: [16, 64],
    seconds: 1.2,
    warmUpSeconds: 1,
    rounds: { judged: 9, other: 3 },
    enforceTargets: true,
  },
  quick: {
    size: 10_000,
    connections: [64],
    seconds: 1,
    warmUpSeconds: 0.3,
    rounds: { judged: 2, other: 2 },
    enforceTargets: true,
  },
  // A short warm-up even here: it is also the run that writes wrk's script (see measure).
  smoke: {
    size: 1000,
    connections: [16],
    seconds: 0.3,
    warmUpSeconds: 0.2,
    rounds: { judged: 1, other: 1 },
    enforceTargets: false,
  },
};

const PROCESS_COUNTS = [1, 2] as const;
/** Connections per process: plainrest-postgres's default pool, given to the reference too. */
const POOL_SIZE = 10;

interface Scenario {
  readonly name: ScenarioName;
  readonly request: LoadRequest;
}

/** The memory benchmark's requests (http-bench.ts), with the administrator's real token. */
function scenarios(authorization: string): Scenario[] {
  const headers = { Authorization: authorization };
  return [
    { name: 'GET item', request: { method: 'GET', path: '/v1/products/7', headers, expect: 200 } },
    // The same GET; the reference (which plainrest ignores the header for) then sends plainrest's statement: the record and the caller's check.
    {
      name: 'GET item + caller check',
      request: {
        method: 'GET',
        path: '/v1/products/7',
        headers: { ...headers, 'Reference-Checks-Caller': 'yes' },
        expect: 200,
      },
    },
    {
      name: 'GET list',
      request: { method: 'GET', path: '/v1/products?category=tea&sort=-price&limit=20', headers, expect: 200 },
    },
    {
      name: 'POST create',
      request: {
        method: 'POST',
        path: '/v1/products',
        headers: { ...headers, 'Content-Type': 'application/json' },
        bodyTemplate: '{"name":"Bench {n}","category":"bench","price":{price}}',
        expect: 201,
      },
    },
    // The same POST; the reference (which plainrest ignores the header for) then also writes the create's change-feed event, as plainrest does.
    {
      name: 'POST create + event',
      request: {
        method: 'POST',
        path: '/v1/products',
        headers: { ...headers, 'Content-Type': 'application/json', 'Reference-Writes-Event': 'yes' },
        bodyTemplate: '{"name":"Bench {n}","category":"bench","price":{price}}',
        expect: 201,
      },
    },
  ];
}

interface Servers {
  readonly plainrest: readonly ServerProcess[];
  readonly reference: readonly ServerProcess[];
}

/** The whole benchmark; true when it passed (targets met, or in --smoke no request failed). */
export async function runPostgresBench(modeName: BenchModeName, forceNode: boolean): Promise<boolean> {
  if (POSTGRES_SKIP !== false) {
    console.error(`--postgres: ${POSTGRES_SKIP}`);
    return false;
  }
  const mode = MODES[modeName];
  const dir = await mkdtemp(join(tmpdir(), 'plainrest-bench-pg-'));
  removeAtExit(dir);
  const cluster = await startCluster();
  let servers: Servers | undefined;
  try {
    const databaseUrl = cluster.url(await cluster.createDatabase());
    const authorization = `Bearer ${adminToken()}`;
    const settings = {
      RATE_LIMIT: '0',
      ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
      TOKEN_SECRET: BENCH_TOKEN_SECRET,
      DATABASE_URL: databaseUrl,
    };
    // A first start creates the tables and the administrator (user 1, the token's subject).
    const first = await startPlainrest(settings, join(dir, 'plainrest-first.log'), { path: '/readyz', headers: {} });
    await first.stop();
    console.error(`inserting ${mode.size.toLocaleString('en')} products…`);
    const version = await insertProducts(databaseUrl, mode.size);
    const probe = { path: '/v1/products/1', headers: { Authorization: authorization } };
    const started = await Promise.all(
      PROCESS_COUNTS.map((_, index) =>
        Promise.all([
          startPlainrest(settings, join(dir, `plainrest-${index + 1}.log`), probe),
          startPostgresReference(databaseUrl, POOL_SIZE, join(dir, `reference-${index + 1}.log`), probe),
        ]),
      ),
    );
    servers = {
      plainrest: started.map(([plainrest]) => plainrest),
      reference: started.map(([, reference]) => reference),
    };
    const load = chooseLoadGenerator(forceNode, dir);
    console.log(
      `${mode.seconds} s per run (+ ${mode.warmUpSeconds} s warm-up per scenario), ${roundsDescription(mode)}, ` +
        `${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, PostgreSQL ${version}, ` +
        `load from ${load.name}; ${mode.size.toLocaleString('en')} products, a pool of ${POOL_SIZE} connections per process\n`,
    );
    const cells = await measure(load, servers, scenarios(authorization), mode);
    return report(cells, mode);
  } finally {
    await Promise.all([...(servers?.plainrest ?? []), ...(servers?.reference ?? [])].map((server) => server.stop()));
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The bench's products (bench-data.ts) in one INSERT of unnested arrays, the id sequence moved past them, fresh planner statistics; returns the server's version. */
async function insertProducts(databaseUrl: string, count: number): Promise<string> {
  const records = benchProducts(count);
  const column = (name: string): unknown[] => records.map((record) => record[name]);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      'INSERT INTO "products" ("id", "name", "category", "price", "created_at", "updated_at") OVERRIDING SYSTEM VALUE ' +
        'SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::double precision[], $5::timestamptz[], $6::timestamptz[])',
      ['id', 'name', 'category', 'price', 'created_at', 'updated_at'].map(column),
    );
    await client.query(`SELECT setval(pg_get_serial_sequence('"products"', 'id'), $1)`, [count]);
    await client.query('ANALYZE "products"');
    return String((await client.query('SHOW server_version')).rows[0]?.server_version);
  } finally {
    await client.end();
  }
}

/** Each scenario × process count × connection count, the two servers alternating in rounds. */
async function measure(
  load: LoadGenerator,
  servers: Servers,
  measured: readonly Scenario[],
  mode: PostgresMode,
): Promise<PostgresCell[]> {
  const judgedConnections = Math.max(...mode.connections);
  const cells: PostgresCell[] = [];
  for (const scenario of measured) {
    const { request } = scenario;
    // One process alone first: wrk writes a request's script on its first run, which two
    // generators starting at once must not both do. Then every process of each server.
    await load.run((servers.plainrest[0] as ServerProcess).url, request, judgedConnections, mode.warmUpSeconds);
    await runSplit(load, servers.plainrest, request, judgedConnections, mode.warmUpSeconds);
    await runSplit(load, servers.reference, request, judgedConnections, mode.warmUpSeconds);
    for (const processes of PROCESS_COUNTS) {
      const plainrest = servers.plainrest.slice(0, processes);
      const reference = servers.reference.slice(0, processes);
      for (const connections of mode.connections) {
        const rounds: { plainrest: RoundResult; reference: RoundResult }[] = [];
        const roundCount = connections === judgedConnections ? mode.rounds.judged : mode.rounds.other;
        // The CPU time of a server's processes (not PostgreSQL's) per answer.
        const measured = (processes: readonly ServerProcess[]): Promise<RoundResult> =>
          measuredRound(
            { cpuSeconds: () => totalCpuSeconds(processes) },
            () => runSplit(load, processes, request, connections, mode.seconds),
            mode.seconds,
          );
        for (let round = 0; round < roundCount; round++) {
          const plainrestFirst = round % 2 === 0;
          const first = await measured(plainrestFirst ? plainrest : reference);
          const second = await measured(plainrestFirst ? reference : plainrest);
          rounds.push(
            plainrestFirst ? { plainrest: first, reference: second } : { plainrest: second, reference: first },
          );
        }
        cells.push({ ...combineRounds(scenario.name, mode.size, connections, rounds), processes });
      }
    }
  }
  return cells;
}

/** The processes' CPU time so far, in seconds (undefined without /proc). */
function totalCpuSeconds(processes: readonly ServerProcess[]): number | undefined {
  let total = 0;
  for (const process of processes) {
    const seconds = process.cpuSeconds();
    if (seconds === undefined) return undefined;
    total += seconds;
  }
  return total;
}

/** One run over `servers` at once, `connections` split evenly: the rates and errors add up; the latencies are the slower server's. */
async function runSplit(
  load: LoadGenerator,
  servers: readonly ServerProcess[],
  request: LoadRequest,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  if (connections % servers.length !== 0)
    throw new Error(`${connections} connections do not split evenly over ${servers.length} processes`);
  const results = await Promise.all(
    servers.map((server) => load.run(server.url, request, connections / servers.length, seconds)),
  );
  return {
    requestsPerSecond: results.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    p50: Math.max(...results.map((result) => result.p50)),
    p99: Math.max(...results.map((result) => result.p99)),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
  };
}

function roundsDescription(mode: PostgresMode): string {
  const { judged, other } = mode.rounds;
  if (judged === other || mode.connections.length === 1)
    return `${judged} alternating round${judged === 1 ? '' : 's'} per cell (median ratio)`;
  return `${judged} alternating rounds per cell at ${Math.max(...mode.connections)} connections, ${other} at fewer (median ratio)`;
}

function latency(result: LoadResult): string {
  return `${result.p50.toFixed(2)} / ${result.p99.toFixed(2)}`;
}

function report(cells: readonly PostgresCell[], mode: PostgresMode): boolean {
  console.log(
    formatTable(
      [
        'scenario',
        'processes',
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
        String(cell.processes),
        String(cell.connections),
        cell.plainrest.requestsPerSecond.toFixed(0),
        cell.reference.requestsPerSecond.toFixed(0),
        cell.ratioSpread[0] !== cell.ratioSpread[1]
          ? `${cell.ratio.toFixed(2)} (${cell.ratioSpread[0].toFixed(2)}–${cell.ratioSpread[1].toFixed(2)})`
          : cell.ratio.toFixed(2),
        cpuColumn(cell),
        latency(cell.plainrest),
        latency(cell.reference),
        String(cell.plainrest.errors + cell.reference.errors),
      ]),
    ),
  );
  const targetConnections = Math.max(...mode.connections);
  return reportTargets(
    `Targets on PostgreSQL (${targetConnections} connections)`,
    checkPostgresTargets(cells, targetConnections),
    cells,
    mode.enforceTargets,
  );
}
