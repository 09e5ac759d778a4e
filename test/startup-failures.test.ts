// Start-up failures (README: Configuration; issue "first contact"): every way a start can fail
// that a test can provoke prints exactly one line on stderr, `cannot start: <what is
// wrong>; <what to do>`, with no stack trace, exits with status 2, listens on nothing
// and changes no file. A start that cannot listen creates nothing, so the
// administrator password generated on a first start is neither printed nor lost: the
// next start that listens prints it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { killAll, runToExit, startProcess } from './child-process.ts';
import { processEnvironment, temporaryDirectory } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';
import { startServer } from '../src/index.ts';

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
/** Each test's bound on a hang: the processes it starts take seconds apiece on a busy machine. */
const TIMEOUT = { timeout: 60_000 };
/** The user a test runs the server as to meet a directory it may not write, when the test runs as root. */
const NOBODY = 65534;
/**
 * As root, the unwritable data directory is tried by running the server as nobody, who
 * must then be able to run this node and read dist/: not so where a directory on the way
 * is closed to others (a checkout or a node under /root, mode 0700).
 */
const NOBODY_SKIP =
  process.getuid?.() === 0 &&
  spawnSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(MAIN)})`], {
    uid: NOBODY,
    gid: NOBODY,
  }).status !== 0
    ? `the user nobody (uid ${NOBODY}) cannot run ${process.execPath} or read ${MAIN}: a directory on the way is closed to others`
    : false;
const ONE_FAILURE_LINE = /^cannot start: [^\n]+; [^\n]+\n$/;

interface Scratch {
  /** A fresh directory, the child's working directory (readable by everyone). */
  readonly dir: string;
  /** A port on 127.0.0.1 that a listener of the test holds. */
  readonly busyPort: number;
}

interface FailureCase {
  readonly name: string;
  /** Prepares the scratch directory; returns the arguments, and optionally the environment and the user. */
  readonly setup: (scratch: Scratch) => Promise<{ args: string[]; env?: Record<string, string>; asNobody?: boolean }>;
  /** What the line must say. */
  readonly says: RegExp;
}

async function writeSnapshot(dir: string, name: string, text: string): Promise<void> {
  await mkdir(join(dir, 'data'), { recursive: true });
  await writeFile(join(dir, 'data', name), text);
}

/** A products snapshot of `count` records, in the layout plainrest writes: about 200 bytes of JSON each. */
function productsSnapshot(count: number): string {
  const at = '2026-11-27T00:00:00.000Z';
  const lines = Array.from({ length: count }, (_, index) =>
    JSON.stringify({
      id: index + 1,
      name: `Product ${index + 1}`,
      category: 'bulk',
      price: 1.5,
      description: 'a product among very many, enough of them to fill the heap this test allows',
      created_at: at,
      updated_at: at,
    }),
  );
  return `{\n  "next_id": ${count + 1},\n  "journal_seq": 0,\n  "records": [\n    ${lines.join(',\n    ')}\n  ]\n}\n`;
}

const CASES: readonly FailureCase[] = [
  {
    name: 'data larger than the heap allows (NODE_OPTIONS=--max-old-space-size=16, 20 MB of products)',
    setup: async ({ dir }) => {
      await writeSnapshot(dir, 'products.json', productsSnapshot(100_000));
      return { args: [], env: { NODE_OPTIONS: '--max-old-space-size=16' } };
    },
    says: /^cannot start: the data in data \(2\d MB of JSON\) needs about \d+ MB of heap and this process may use \d+ MB; nothing was changed: start node with --max-old-space-size=\d+ \(NODE_OPTIONS\), or keep the data in PostgreSQL \(DATABASE_URL\)$/m,
  },
  {
    name: '--port abc (not a number)',
    setup: async () => ({ args: ['--port', 'abc'] }),
    says: /--port \(PORT\): "abc" is not a valid integer; see --help/,
  },
  {
    name: 'PORT=abc from the environment',
    setup: async () => ({ args: [], env: { PORT: 'abc' } }),
    says: /--port \(PORT\): "abc" is not a valid integer/,
  },
  {
    name: '--port 99999 (out of range)',
    setup: async () => ({ args: ['--port', '99999'] }),
    says: /--port \(PORT\) must be an integer from 0 to 65535, not 99999; change that setting/,
  },
  {
    name: 'an unknown flag',
    setup: async () => ({ args: ['--prot', '3000'] }),
    says: /unknown argument --prot; see --help/,
  },
  {
    name: 'a flag without its value',
    setup: async () => ({ args: ['--port'] }),
    says: /--port needs a value; see --help/,
  },
  {
    name: '--log-format xml',
    setup: async () => ({ args: ['--log-format', 'xml'] }),
    says: /--log-format \(LOG_FORMAT\): "xml" is not a valid log-format/,
  },
  {
    name: 'an empty --data-dir',
    setup: async () => ({ args: ['--data-dir='] }),
    says: /--data-dir \(DATA_DIR\) must not be empty/,
  },
  {
    name: '--admin-email that is not an address',
    setup: async () => ({ args: ['--admin-email', 'root'] }),
    says: /--admin-email \(ADMIN_EMAIL\) must be an email address, not "root"/,
  },
  {
    name: 'a 7-character --admin-password',
    setup: async () => ({ args: ['--admin-password', 'seven77'] }),
    says: /--admin-password \(ADMIN_PASSWORD\) must be 8 to 200 characters long/,
  },
  {
    name: 'a --password-hash-cost that is not a power of two',
    setup: async () => ({ args: ['--password-hash-cost', '1000'] }),
    says: /--password-hash-cost \(PASSWORD_HASH_COST\) must be a power of two from 1024 to 1048576, not 1000; change that setting/,
  },
  {
    name: 'a short --token-secret',
    setup: async () => ({ args: ['--token-secret', 'short'] }),
    says: /--token-secret \(TOKEN_SECRET\) must be at least 32 characters long/,
  },
  {
    name: 'a busy port (suggests --port)',
    setup: async ({ busyPort }) => ({ args: ['--port', String(busyPort)] }),
    says: /port \d+ on 127\.0\.0\.1 is already in use; stop the program using it, or choose another port with --port \(0 picks a free one\)/,
  },
  {
    name: '--host an address not on this machine',
    setup: async () => ({ args: ['--host', '192.0.2.1'] }), // TEST-NET-1 (RFC 5737): never a local address; binding sends nothing
    says: /192\.0\.2\.1 is not an address of this machine; choose one with --host/,
  },
  {
    name: 'a data directory that is a regular file',
    setup: async ({ dir }) => {
      await writeFile(join(dir, 'data'), 'not a directory');
      return { args: [] };
    },
    says: /the data directory data is a file, not a directory; choose another with --data-dir \(DATA_DIR\)/,
  },
  {
    name: 'a data directory below a regular file',
    setup: async ({ dir }) => {
      await writeFile(join(dir, 'data'), 'not a directory');
      return { args: ['--data-dir', 'data/inner'] };
    },
    says: /the data directory data\/inner is not a directory \(a part of the path data\/inner is a file\)/,
  },
  {
    name: 'a data directory the process may not write',
    setup: async ({ dir }) => {
      await mkdir(join(dir, 'data'), { mode: 0o755 });
      const asRoot = process.getuid?.() === 0;
      if (!asRoot) await chmod(join(dir, 'data'), 0o555);
      return { args: [], asNobody: asRoot };
    },
    says: /no permission to write in the data directory data \(open data\/plainrest\.lock\.\d+\.tmp\); give this user write access, or choose another with --data-dir/,
  },
  {
    name: 'a data directory locked by another running process',
    setup: async ({ dir }) => {
      await mkdir(join(dir, 'data'));
      await writeFile(join(dir, 'data', 'plainrest.lock'), `${process.pid}\n`); // this test's process: alive
      return { args: [] };
    },
    says: new RegExp(
      `data is in use by process ${process.pid} \\(lock file data/plainrest\\.lock\\); stop that process`,
    ),
  },
  {
    name: 'a corrupt snapshot',
    setup: async ({ dir }) => {
      await writeSnapshot(dir, 'products.json', '{"records": [');
      return { args: [] };
    },
    says: /data\/products\.json is corrupt \(.+\); nothing was changed: repair the file, or restore the data directory from a backup/,
  },
  {
    name: 'a stored record with a field its resource does not declare',
    setup: async ({ dir }) => {
      const earlier = await startServer({
        port: 0,
        dataDir: join(dir, 'data'),
        adminPassword: 'admin-password-for-tests',
      });
      await earlier.close();
      const path = join(dir, 'data', 'products.json');
      const snapshot = JSON.parse(await readFile(path, 'utf8')) as { records: Record<string, unknown>[] };
      snapshot.records[0] = { ...snapshot.records[0], colour: 'red' };
      await writeFile(path, JSON.stringify(snapshot));
      return { args: [] };
    },
    says: /data\/products\.json: record 1 has the field "colour", which products do not declare; remove the field or declare it/,
  },
  {
    name: 'an empty token secret file',
    setup: async ({ dir }) => {
      const earlier = await startServer({
        port: 0,
        dataDir: join(dir, 'data'),
        adminPassword: 'admin-password-for-tests',
      });
      await earlier.close();
      await writeFile(join(dir, 'data', 'token-secret'), '');
      return { args: [] };
    },
    says: /the token secret file data\/token-secret is empty; delete it to generate a new one/,
  },
];

/** Every file and directory below `dir`, files with their mode and bytes, directories with their mode. */
async function describeTree(dir: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const { mode } = await stat(path);
    tree[path] = entry.isFile() ? `${mode} ${await readFile(path, 'base64')}` : `${mode}`;
  }
  return tree;
}

function holdPort(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

let busy: Server;
before(async () => {
  busy = await holdPort();
});
after(async () => {
  await new Promise((resolve) => busy.close(resolve));
});
afterEach(killAll);

async function scratchDirectory(): Promise<{ path: string; remove: () => Promise<void> }> {
  const scratch = await temporaryDirectory();
  await chmod(scratch.path, 0o755); // the child may run as another user
  return scratch;
}

describe('start-up failures: one line, exit status 2, nothing changed', () => {
  for (const failure of CASES) {
    test(`${failure.name} → "cannot start: …; …", exit 2`, TIMEOUT, async (t) => {
      const scratch = await scratchDirectory();
      try {
        const {
          args,
          env = {},
          asNobody = false,
        } = await failure.setup({ dir: scratch.path, busyPort: (busy.address() as AddressInfo).port });
        if (asNobody && NOBODY_SKIP !== false) {
          t.skip(NOBODY_SKIP);
          return;
        }
        const before = await describeTree(scratch.path);
        const user = asNobody ? { uid: NOBODY, gid: NOBODY } : {};
        const result = await runToExit(process.execPath, [MAIN, ...args], {
          cwd: scratch.path,
          env: processEnvironment(env),
          ...user,
        });

        assert.equal(result.code, 2, `exit status; stderr: ${result.stderr}`);
        assert.match(result.stderr, ONE_FAILURE_LINE);
        assert.match(result.stderr, failure.says);
        assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack frame');
        assert.equal(result.stdout, '', 'nothing on stdout: no banner, no generated password');
        assert.deepEqual(await describeTree(scratch.path), before, 'no file created or changed');
      } finally {
        await scratch.remove();
      }
    });
  }
});

describe('start-up failures: the generated administrator password', () => {
  test(
    'a first start on a busy port prints no password and creates nothing; the next start that listens prints it, and it logs in',
    TIMEOUT,
    async () => {
      const scratch = await scratchDirectory();
      try {
        const env = processEnvironment();
        const busyPort = String((busy.address() as AddressInfo).port);
        const failed = await runToExit(process.execPath, [MAIN, '--port', busyPort], { cwd: scratch.path, env });
        assert.equal(failed.code, 2);
        assert.doesNotMatch(failed.stdout + failed.stderr, /password/);
        assert.deepEqual(await readdir(scratch.path), [], 'no data directory was created');

        const server = startProcess(process.execPath, [MAIN, '--port', '0'], { cwd: scratch.path, env });
        const [, email, password] = await server.waitFor(
          /^created the administrator (\S+) with the generated password (\S+) \(shown only now/m,
        );
        const [, url] = await server.waitFor(/^plainrest listening on (\S+)$/m);
        const response = await fetch(`${url}/v1/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
        assert.equal(response.status, 201);
        server.child.kill('SIGTERM');
        assert.equal((await server.exited).code, 0);
      } finally {
        await scratch.remove();
      }
    },
  );
});
