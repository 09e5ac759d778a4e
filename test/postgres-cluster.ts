// A throwaway PostgreSQL server for the tests of the PostgreSQL store (docs/deploying.md):
// Debian's own binaries, a new cluster in a temporary directory (initdb's files, made once
// and copied: clusterTemplate), started on a free loopback port as a non-root user
// (PostgreSQL refuses to run as root: as root the tests run it as the `postgres` system
// user, else `nobody`), never the system service; stopped and removed afterwards. Each
// test gets its own database. The cluster lives in memory where the machine has a
// shared-memory file system (/dev/shm): on a disk, making a database per test cost ten
// times as much. Where PostgreSQL is not installed (`.ci/run` installs Debian's package),
// POSTGRES_SKIP says so and the suites that need it are skipped with that reason. The client package (pg) is loaded
// when a cluster starts: most test files load this module through helpers.ts and start none.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess, SpawnSyncReturns } from 'node:child_process';
import type { Socket } from 'node:net';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { REPOSITORY_ROOT } from './repository.ts';
import { freePort } from './free-port.ts';

/** The directory holding initdb and postgres: POSTGRES_BIN, else Debian's newest /usr/lib/postgresql/<version>/bin. */
function findPostgresBin(): string | undefined {
  const given = process.env['POSTGRES_BIN'];
  if (given !== undefined && given !== '') return existsSync(join(given, 'initdb')) ? given : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

export const POSTGRES_BIN = findPostgresBin();
export const POSTGRES_SKIP =
  POSTGRES_BIN === undefined
    ? 'PostgreSQL is not installed (looked for POSTGRES_BIN, then /usr/lib/postgresql/*/bin); `.ci/run` installs it with apt-get'
    : false;

/** Who runs the server: this process's user, or, as root, `postgres` (Debian's package creates it) or `nobody`. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith(`${name}:`));
    const [, , uid, gid] = line?.split(':') ?? [];
    if (uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as');
}

export interface PostgresCluster {
  /** A connection URL for `database` on this server. */
  url(database: string): string;
  /** A new empty database (or a copy of `template`, which no one may be connected to), by name: `t1`, `t2`, … */
  createDatabase(template?: string): Promise<string>;
  /** Removes a database no one is connected to any more. */
  dropDatabase(name: string): Promise<void>;
  /**
   * Stops the server, keeping its data: the database is then unreachable. `fast` (SIGINT)
   * ends each session cleanly; `immediate` (SIGQUIT, `pg_ctl stop -m immediate`) as a crash would.
   */
  pause(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  /** Fast shutdown, then the directory is removed. */
  stop(): Promise<void>;
  /**
   * Lets the test process end while the server runs (it no longer keeps Node's event loop
   * alive), for a cluster stopped on 'beforeExit', once the process has nothing else to do.
   */
  unref(): void;
}

const USER = 'plainrest';

/** A new cluster, started and accepting connections. */
export async function startCluster(): Promise<PostgresCluster> {
  const bin = POSTGRES_BIN;
  if (bin === undefined) throw new Error(String(POSTGRES_SKIP));
  const { Client } = (await import('pg')).default;
  const dir = await mkdtemp(join(clusterParent(), 'plainrest-pg-'));
  const user = serverUser();
  if (user !== undefined) await chown(dir, user.uid, user.gid);
  const dataDir = join(dir, 'data');
  let initdb = spawnSync('cp', ['-a', clusterTemplate(bin, user), dataDir], { ...user, encoding: 'utf8' });
  if (initdb.status !== 0) {
    rmSync(dataDir, { recursive: true, force: true });
    initdb = runInitdb(bin, dataDir, user);
  }
  if (initdb.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${initdb.stderr || initdb.error?.message}`);
  }
  let port = await freePort();
  // The tests measure correctness, not durability of the database itself: no fsync.
  // And no more write-ahead log kept than a test needs (the default keeps up to 1 GB).
  // Dynamic shared memory as files in the data directory: a server killed with the test
  // process (killOnExit) leaves no segment behind in /dev/shm.
  const settings = [
    'listen_addresses=127.0.0.1',
    `unix_socket_directories=${dir}`,
    'fsync=off',
    'full_page_writes=off',
    'max_connections=200',
    'max_wal_size=128MB',
    'min_wal_size=32MB',
    'dynamic_shared_memory_type=mmap',
  ];
  const url = (database: string): string => `postgres://${USER}@127.0.0.1:${port}/${database}`;
  let server: ChildProcess;
  let log = '';
  let referenced = true;
  /** The server process and its stderr pipe keep the event loop alive, or not. */
  const holdLoop = (hold: boolean): void => {
    const stderr = server.stderr as Socket | null; // a pipe: a net.Socket
    if (hold) {
      server.ref();
      stderr?.ref();
    } else {
      server.unref();
      stderr?.unref();
    }
  };
  // A test process that exits without stopping it (--test-force-exit) leaves neither the server nor its files behind.
  const killOnExit = (): void => {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  };
  process.on('exit', killOnExit);
  const launch = async (): Promise<void> => {
    log = '';
    server = spawn(
      join(bin, 'postgres'),
      ['-D', dataDir, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])],
      {
        ...user,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    server.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    if (!referenced) holdLoop(false);
    await waitUntilAccepting(Client, url('postgres'), server, () => log, dir);
  };
  const halt = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    holdLoop(true); // until it has exited
    const exited = once(server, 'exit');
    server.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    await exited;
  };
  // Another test process may take the port between freePort() and this server's start: its server then answers there,
  // and this one cannot listen. The first start tries other ports; a resume keeps the port its URLs name.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 5) throw error;
      await halt('immediate');
      port = await freePort();
    }
  }
  let databases = 0;
  /**
   * One connection to the maintenance database, kept for every database made and dropped (a new one each time cost
   * the server a process and 15 ms of CPU); holding the event loop only while it works. Opened again after a pause.
   */
  let maintenance: Promise<pg.Client> | undefined;
  const maintenanceClient = (): Promise<pg.Client> => {
    maintenance ??= (async () => {
      const client = new Client({ connectionString: url('postgres') });
      const forget = (): void => {
        maintenance = undefined;
      };
      client.on('error', forget); // the server stopped (pause): the next call opens another
      client.on('end', forget);
      await client.connect().catch((error: unknown) => {
        forget();
        throw error;
      });
      return client;
    })();
    return maintenance;
  };
  const socketOf = (client: pg.Client): Socket | undefined =>
    (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
  let working = 0;
  /** Runs `work` on the connection to the maintenance database. */
  const administer = async (work: (client: pg.Client) => Promise<unknown>): Promise<void> => {
    working += 1;
    try {
      const client = await maintenanceClient();
      socketOf(client)?.ref();
      try {
        await work(client);
      } finally {
        if (working === 1) socketOf(client)?.unref();
      }
    } finally {
      working -= 1;
    }
  };
  const closeMaintenance = async (): Promise<void> => {
    const open = maintenance;
    maintenance = undefined;
    // Held while it ends: stop() runs on 'beforeExit', where an unreferenced socket would let the process exit first.
    await open
      ?.then((client) => {
        socketOf(client)?.ref();
        return client.end();
      })
      .catch(() => {});
  };
  return {
    url,
    async createDatabase(template?: string) {
      const name = `t${++databases}`;
      // A copy of the files (of template1 when no template is named): several times quicker than the default
      // (PostgreSQL 15+), which logs every page (60 ms of the server's CPU for template1, against 10).
      const from = template === undefined ? '' : ` TEMPLATE ${template}`;
      await administer((client) =>
        client
          .query(`CREATE DATABASE ${name}${from} STRATEGY = FILE_COPY`)
          .catch(() => client.query(`CREATE DATABASE ${name}${from}`)),
      );
      return name;
    },
    async dropDatabase(name: string) {
      await administer((client) => client.query(`DROP DATABASE ${name}`));
    },
    async pause(mode) {
      await closeMaintenance();
      await halt(mode);
    },
    resume: launch,
    async stop() {
      await closeMaintenance();
      await halt('fast');
      await rm(dir, { recursive: true, force: true });
      // Only now: a process that dies while stopping still removes the cluster as it exits.
      process.removeListener('exit', killOnExit);
    },
    unref() {
      referenced = false;
      holdLoop(false);
    },
  };
}

function runInitdb(
  bin: string,
  dataDir: string,
  user: { uid: number; gid: number } | undefined,
): SpawnSyncReturns<string> {
  return spawnSync(
    join(bin, 'initdb'),
    ['-D', dataDir, '-U', USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    { ...user, encoding: 'utf8' },
  );
}

/**
 * A new cluster's files as initdb makes them, made once and then copied for each cluster:
 * initdb cost 0.6 s of CPU, a copy 0.06 s, and the suite starts a dozen clusters. Kept in
 * node_modules/.cache/plainrest/ (one per PostgreSQL and server user, never started);
 * made aside and renamed into place, so test processes starting at once agree on one.
 * Where the copy fails, startCluster runs initdb itself.
 */
function clusterTemplate(bin: string, user: { uid: number; gid: number } | undefined): string {
  const cache = join(REPOSITORY_ROOT, 'node_modules', '.cache', 'plainrest');
  const template = join(
    cache,
    `postgres-template-${bin.replace(/[^A-Za-z0-9]+/g, '-')}-${user?.uid ?? process.getuid?.() ?? 'user'}`,
  );
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  mkdirSync(cache, { recursive: true });
  const aside = mkdtempSync(join(cache, 'postgres-template-making-'));
  try {
    if (user !== undefined) chownSync(aside, user.uid, user.gid);
    if (runInitdb(bin, join(aside, 'data'), user).status === 0) renameSync(join(aside, 'data'), template);
  } catch {
    // Another process put its template in place first.
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  return template;
}

/** Where clusters are made: the shared-memory file system when there is one to write to, else the temporary directory. */
function clusterParent(): string {
  try {
    accessSync(SHARED_MEMORY, constants.W_OK);
    return SHARED_MEMORY;
  } catch {
    return tmpdir();
  }
}

const SHARED_MEMORY = '/dev/shm';

/** Another cluster's server answers on the port chosen for this one. */
class PortTaken extends Error {
  constructor() {
    super("the port chosen for this cluster is another server's");
  }
}

async function waitUntilAccepting(
  Client: typeof pg.Client,
  url: string,
  server: ChildProcess,
  log: () => string,
  socketDirectory: string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) {
      if (/could not bind|could not create any TCP\/IP sockets/.test(log())) throw new PortTaken();
      throw new Error(`postgres exited (${server.exitCode}): ${log()}`);
    }
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      // The server that answered is this one only if it has this cluster's socket directory.
      const answer = await client.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories');
      await client.end();
      if (answer.rows[0]?.unix_socket_directories !== socketDirectory) throw new PortTaken();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (error instanceof PortTaken) throw error;
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections within 30 s: ${String(error)}\n${log()}`);
      await sleep(50);
    }
  }
}
