// The command line (README: Configuration): `node dist/plainrest.mjs` (build first: `npm run build`)
// with settings from environment variables and flags (the flag wins), --help, exit 2 on
// a usage error, the start banner, graceful SIGTERM/SIGINT (nothing rewritten, no lock
// left, exit 0), SIGKILL losing no acknowledged write (the next start replays
// the journal), and a second process refused naming the lock (every other way a start
// fails: startup-failures.test.ts). Authentication (README: Configuration, Authentication and permissions): the administrator ensured at start (a user record: id 1 in an empty dir, id 3
// after the example seed), its generated password printed once, and the `token`
// subcommand that mints a token from a data dir without writing to it.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { parseCommandLine } from '../src/cli/options.ts';
import { assertProblem } from './assertions.ts';
import { EventStreamClient } from './event-stream-client.ts';
import type { Reply } from './assertions.ts';
import type { RunningProcess } from './child-process.ts';
import { killAll, runToExit as runProcessToExit, startProcess } from './child-process.ts';
import {
  processEnvironment,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_TOKEN_SECRET,
  temporaryDirectory,
  tokenFor,
} from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
const BANNER = /^plainrest listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;
/** Each test's bound on a hang: the processes it starts take seconds apiece on a busy machine. */
const TIMEOUT = { timeout: 60_000 };
/** Where Node cannot strip types itself (process.features.typescript: 'strip' from 22.18), tsx runs the source. */
const NEEDS_TSX = !Reflect.get(process.features, 'typescript');
/** A known administrator password, so a test can log in (POST /v1/tokens). */
const ADMIN_ENV = { ADMIN_PASSWORD: TEST_ADMIN_PASSWORD };
/** The line that shows a generated administrator password (printed once, on its creation). */
const GENERATED_PASSWORD = /^created the administrator (\S+) with the generated password (\S+) \(shown only now/m;

type Cli = RunningProcess;

/** Runs `node dist/plainrest.mjs` with only the given environment (and processEnvironment's), none of the test's own. */
function runCli(args: string[], env: Record<string, string> = {}): Cli {
  return startProcess(process.execPath, [MAIN, ...args], {
    cwd: REPOSITORY_ROOT,
    env: processEnvironment(env),
  });
}

/** Waits for the banner and the data line; returns the printed URL. */
async function started(cli: Cli): Promise<string> {
  const banner = await cli.waitFor(BANNER);
  await cli.waitFor(/^data: .*$/m);
  return banner[1] as string;
}

function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text), text };
}

async function getJson(url: string, token?: string): Promise<Reply> {
  return reply(await fetch(url, { headers: bearer(token) }));
}

async function postJson(url: string, body: unknown, token?: string): Promise<Reply> {
  const headers = { 'content-type': 'application/json', ...bearer(token) };
  return reply(await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) }));
}

/** POST /v1/tokens; returns the access token (asserting 201). */
async function login(url: string, email: string, password: string): Promise<string> {
  const response = await postJson(`${url}/v1/tokens`, { email, password });
  assert.equal(response.status, 201, `login as ${email}: ${response.text}`);
  return response.body.access_token as string;
}

/** Runs the CLI to its end: exit code and output. */
async function runToExit(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcessToExit(process.execPath, [MAIN, ...args], {
    cwd: REPOSITORY_ROOT,
    env: processEnvironment(env),
  });
}

/** Every entry of a directory (dotfiles too) with its bytes' hash, mode and mtime. */
async function describeDirectory(
  directory: string,
): Promise<Record<string, { sha256: string; mode: number; mtimeMs: number }>> {
  const entries: Record<string, { sha256: string; mode: number; mtimeMs: number }> = {};
  for (const name of (await readdir(directory)).sort()) {
    const path = join(directory, name);
    const { mode, mtimeMs } = await stat(path);
    entries[name] = {
      sha256: createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
      mode,
      mtimeMs,
    };
  }
  return entries;
}

/** The scrypt cost (N) of every password hash in the files of a data directory, in the order they are found. */
async function storedHashCosts(directory: string): Promise<string[]> {
  const costs: string[] = [];
  for (const name of (await readdir(directory)).sort()) {
    const text = await readFile(join(directory, name), 'utf8').catch(() => '');
    for (const [, cost] of text.matchAll(/"scrypt\$(\d+)\$8\$1\$/g)) costs.push(cost as string);
  }
  return costs;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await temporaryDirectory();
});
afterEach(async () => {
  await killAll();
  await dir.remove();
});

describe('cli: usage', () => {
  /** `--help`'s run: once, for the two tests that read what it prints. */
  let helpRun: ReturnType<typeof runToExit> | undefined;
  const help = (): ReturnType<typeof runToExit> => (helpRun ??= runToExit(['--help']));

  test('--version (and -v) prints the version of package.json and exits 0', TIMEOUT, async () => {
    const { version } = JSON.parse(await readFile(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.match(version, /^\d+\.\d+\.\d+/);
    for (const flag of ['--version', '-v']) {
      assert.deepEqual(await runToExit([flag]), { code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  test(
    '--help prints every setting (PORT, HOST, DATA_DIR, MAX_BODY_BYTES, SEED) with its flag and exits 0',
    TIMEOUT,
    async () => {
      const { code, stdout, stderr } = await help();
      assert.equal(code, 0);
      assert.equal(stderr, '');
      for (const name of [
        'PORT',
        'HOST',
        'DATA_DIR',
        'MAX_BODY_BYTES',
        'SEED',
        '--port',
        '--host',
        '--data-dir',
        '--max-body-bytes',
        '--seed',
      ]) {
        assert.ok(stdout.includes(name), `--help lacks ${name}:\n${stdout}`);
      }
      assert.doesNotMatch(stdout, /listening/);
    },
  );

  test(
    '--help also lists the authentication settings (ADMIN_EMAIL, ADMIN_PASSWORD, TOKEN_SECRET, TOKEN_TTL_SECONDS) with their flags, and the token subcommand',
    TIMEOUT,
    async () => {
      const { code, stdout, stderr } = await help();
      assert.equal(code, 0);
      assert.equal(stderr, '');
      for (const name of [
        'ADMIN_EMAIL',
        'ADMIN_PASSWORD',
        'TOKEN_SECRET',
        'TOKEN_TTL_SECONDS',
        '--admin-email',
        '--admin-password',
        '--token-secret',
        '--token-ttl-seconds',
        'token <email>',
      ]) {
        assert.ok(stdout.includes(name), `--help lacks ${name}:\n${stdout}`);
      }
      assert.doesNotMatch(stdout, /listening/);
    },
  );

  const usageErrors: { name: string; args: string[]; env: Record<string, string>; mentions: string }[] = [
    { name: 'an unknown flag', args: ['--nope'], env: {}, mentions: '--nope' },
    { name: 'an unknown flag after valid ones', args: ['--port', '0', '--colour=red'], env: {}, mentions: '--colour' },
    { name: 'a flag without its value', args: ['--port'], env: {}, mentions: '--port' },
    { name: 'a flag with a bad value', args: ['--port', 'abc'], env: {}, mentions: 'abc' },
    { name: 'an environment variable with a bad value', args: [], env: { PORT: 'eighty' }, mentions: 'PORT' },
    { name: 'SEED that is not a boolean', args: ['--seed', 'maybe'], env: {}, mentions: 'maybe' },
  ];
  // Two run as a process, which prints the message and exits 2 having made nothing (a flag's error, and a
  // variable's); the others are read as the command line reads them, in this process, into the same error.
  const AS_A_PROCESS = new Set(['an unknown flag', 'an environment variable with a bad value']);
  for (const c of usageErrors) {
    if (AS_A_PROCESS.has(c.name))
      test(`${c.name} exits 2 with a message naming it, and starts nothing`, TIMEOUT, async () => {
        const cli = runCli(c.args, { DATA_DIR: join(dir.path, 'never'), ...c.env });
        const { code } = await cli.exited;
        assert.equal(code, 2);
        assert.ok(cli.stderr().includes(c.mentions), cli.stderr());
        assert.doesNotMatch(cli.stdout(), /listening/);
        assert.equal(await exists(join(dir.path, 'never')), false);
      });
    else
      test(`${c.name} is a usage error of the command that starts, with a message naming it`, () => {
        const commandLine = parseCommandLine(c.args, { DATA_DIR: join(dir.path, 'never'), ...c.env });
        assert.equal(commandLine.kind, 'error', JSON.stringify(commandLine));
        assert.ok(commandLine.kind === 'error' && commandLine.command === 'run', JSON.stringify(commandLine));
        assert.ok(commandLine.message.includes(c.mentions), commandLine.message);
      });
  }
});

describe('cli: starting', () => {
  test(
    '--port 0 prints "plainrest listening on http://127.0.0.1:<port>" and the data line with record counts',
    TIMEOUT,
    async () => {
      const cli = runCli(['--port', '0'], { DATA_DIR: dir.path, ...ADMIN_ENV });
      const url = await started(cli);
      assert.notEqual(new URL(url).port, '0');
      // alice, bob and the administrator
      assert.match(
        cli.stdout(),
        new RegExp(`^data: ${escape(dir.path)} \\(3 users, 12 products, 5 orders, 0 keys\\)$`, 'm'),
      );
      await cli.waitFor(new RegExp(`^token: .*${escape(`${url}/v1/tokens`)}`, 'm')); // how to get a token (README: Configuration)
      // in a checkout `plainrest` is not on the PATH: the hint names the script as it was run
      assert.match(cli.stdout(), /^token: .*\(or: node dist\/plainrest\.mjs token <email>\)$/m);
      assert.match(cli.stdout(), new RegExp(`^explorer: ${escape(`${url}/`)} \\(open it in a browser`, 'm')); // the home page
      const health = await getJson(`${url}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      const token = await login(url, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      assert.equal((await getJson(`${url}/v1/products`, token)).body.meta.total, 12);
    },
  );

  test(
    'the source runs as it is, with no build: node src/main.ts where Node strips types (on Node 20, node --import tsx src/main.ts)',
    {
      ...TIMEOUT,
      // tsx compiles with esbuild's binary, which npm installed for the machine, not for the arm64 node qemu runs.
      skip:
        NEEDS_TSX && process.env['SUITE'] === 'emulated' ? 'under emulation tsx cannot run (esbuild is x64)' : false,
    },
    async () => {
      const nodeFlags = NEEDS_TSX ? ['--import', 'tsx'] : [];
      const args = [...nodeFlags, join('src', 'main.ts'), '--port', '0'];
      const cli = startProcess(process.execPath, args, {
        cwd: REPOSITORY_ROOT,
        env: processEnvironment({ DATA_DIR: dir.path, ...ADMIN_ENV }),
      });
      const url = await started(cli);
      const hint = ['node', ...nodeFlags, 'src/main.ts', 'token'].join(' ');
      assert.ok(
        cli.stdout().includes(`(or: ${hint} <email>)\n`),
        `the hint names the file that runs, with node's flags (${hint}): ${cli.stdout()}`,
      );
      const token = await login(url, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      assert.equal((await getJson(`${url}/v1/products`, token)).body.meta.total, 12);
      cli.child.kill('SIGTERM');
      assert.deepEqual(await cli.exited, { code: 0, signal: null });
      assert.equal(cli.stderr(), '', 'no warning on stderr');
    },
  );

  // The precedence of settings, both forms of a flag and each variable read: two starts, each showing several.
  test(
    'flags win over their variables, in either form: --port=0 over PORT, --data-dir over DATA_DIR, --seed false ' +
      'over SEED (starts empty)',
    TIMEOUT,
    async () => {
      const fromEnv = join(dir.path, 'from-env');
      const fromFlag = join(dir.path, 'from-flag');
      const cli = runCli(['--port=0', '--data-dir', fromFlag, '--seed', 'false'], {
        PORT: '1',
        DATA_DIR: fromEnv,
        SEED: 'true',
        ...ADMIN_ENV,
      });
      const url = await started(cli);
      assert.notEqual(new URL(url).port, '1');
      assert.equal((await getJson(`${url}/healthz`)).status, 200);
      // the administrator only, in the flag's directory
      assert.match(
        cli.stdout(),
        new RegExp(`^data: ${escape(fromFlag)} \\(1 user, 0 products, 0 orders, 0 keys\\)$`, 'm'),
      );
      assert.equal(await exists(join(fromFlag, 'products.json')), true);
      assert.equal(await exists(fromEnv), false);
      const token = await login(url, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      assert.equal((await getJson(`${url}/v1/products`, token)).body.meta.total, 0);
    },
  );

  test(
    'settings from the environment: PORT=0 picks a free port, SEED=false starts empty; --max-body-bytes (over ' +
      'MAX_BODY_BYTES) is applied: a larger body gets 413',
    TIMEOUT,
    async () => {
      // a token signed with TOKEN_SECRET for the administrator (id 1 in an empty store), not a login: the login body
      // itself would be larger than 50 bytes
      const cli = runCli(['--max-body-bytes=50'], {
        PORT: '0',
        DATA_DIR: dir.path,
        SEED: 'false',
        MAX_BODY_BYTES: '100000',
        TOKEN_SECRET: TEST_TOKEN_SECRET,
      });
      const url = await started(cli);
      assert.notEqual(new URL(url).port, '0');
      assert.equal((await getJson(`${url}/healthz`)).status, 200);
      assert.match(cli.stdout(), /^data: .* \(1 user, 0 products, 0 orders, 0 keys\)$/m); // the administrator only
      const response = await postJson(
        `${url}/v1/products`,
        { name: 'x'.repeat(60), category: 'c', price: 1 },
        tokenFor(1),
      );
      assert.equal(response.status, 413);
      assert.equal(response.body.code, 'payload_too_large');
    },
  );
});

describe('cli: stopping', () => {
  test(
    'SIGTERM ends every change-feed stream with event: closed (shutting_down), so its client reconnects to another process, then exits 0',
    TIMEOUT,
    async () => {
      const cli = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path, ...ADMIN_ENV });
      const url = await started(cli);
      const token = await login(url, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      const events = await EventStreamClient.open(`${url}/v1/events`, token);
      assert.equal(events.status, 200);
      await events.next(); // retry:
      cli.child.kill('SIGTERM');
      const closed = await events.nextEvent();
      assert.equal(closed.event, 'closed');
      assert.deepEqual(JSON.parse(closed.data), {
        reason: 'shutting_down',
        detail: 'the server is shutting down; reconnect (to another process) to resume',
      });
      assert.deepEqual(await events.untilEnd(), []);
      assert.equal((await cli.exited).code, 0);
    },
  );

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(
      `${signal} → exit 0, "stopped" printed, nothing rewritten: the records created before it are in the journal (no lock left)`,
      TIMEOUT,
      async () => {
        const cli = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path, ...ADMIN_ENV });
        const url = await started(cli);
        const token = await login(url, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
        const product = await postJson(
          `${url}/v1/products`,
          { name: 'Before the signal', category: 'c', price: 2.5 },
          token,
        );
        assert.equal(product.status, 201);
        const user = await postJson(`${url}/v1/users`, { name: 'Sig', email: 'sig@example.com' }, token);
        assert.equal(user.status, 201);

        cli.child.kill(signal);
        const { code, signal: killedBy } = await cli.exited;
        assert.equal(killedBy, null);
        assert.equal(code, 0);
        assert.match(cli.stdout(), /^stopped$/m);
        assert.equal(cli.stderr(), '');

        // nothing is rewritten at a stop: no lock is left behind, the snapshots are the first
        // start's (empty), and the journal holds every write acknowledged since (the
        // administrator, the product, the user), which the next start replays
        assert.deepEqual((await readdir(dir.path)).sort(), [
          'deliveries.json',
          'idempotency_keys.json',
          'journal-000000000001.jsonl',
          'keys.json',
          'orders.json',
          'products.json',
          'token-secret',
          'users.json',
          'webhooks.json',
        ]);
        const { journal_seq: journalSeq, ...products } = JSON.parse(
          await readFile(join(dir.path, 'products.json'), 'utf8'),
        );
        assert.equal(journalSeq, 0, "the snapshots are the first start's");
        assert.deepEqual(products, { next_id: 1, records: [] });
        const history = (await readFile(join(dir.path, 'journal-000000000001.jsonl'), 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        assert.deepEqual(
          history.map((entry) => entry.changes.map((change: { put: string }) => change.put)),
          [['users'], ['products'], ['users']],
        );
        assert.deepEqual(history[1].changes[0].record, product.body);
        assert.deepEqual(
          [history[0].changes[0].record.email, history[2].changes[0].record.email],
          [TEST_ADMIN_EMAIL, 'sig@example.com'],
        );
      },
    );
  }

  test(
    'SIGKILL loses no acknowledged write: the next start replays the journal and takes over the lock',
    TIMEOUT,
    async () => {
      const first = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path, ...ADMIN_ENV });
      const firstUrl = await started(first);
      const token = await login(firstUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      const created = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          postJson(`${firstUrl}/v1/products`, { name: `Acknowledged ${n}`, category: 'c', price: n }, token),
        ),
      );
      for (const response of created) assert.equal(response.status, 201, response.text);
      const user = await postJson(`${firstUrl}/v1/users`, { name: 'Killed', email: 'killed@example.com' }, token);
      assert.equal(user.status, 201, user.text);
      const userBefore = await getJson(`${firstUrl}/v1/users/${user.body.id}`, token);
      assert.equal(userBefore.status, 200, userBefore.text);

      first.child.kill('SIGKILL');
      assert.equal((await first.exited).signal, 'SIGKILL');
      const left = await readdir(dir.path);
      assert.ok(left.includes('plainrest.lock'), `the lock is left behind: ${left.join(', ')}`);
      assert.ok(
        left.some((name) => /^journal-\d{12}\.jsonl$/.test(name)),
        `the journal is left behind: ${left.join(', ')}`,
      );

      const second = runCli(['--port', '0'], { DATA_DIR: dir.path });
      const secondUrl = await started(second);
      assert.match(second.stdout(), /\(2 users, 10 products, 0 orders, 0 keys\)$/m); // the administrator and Killed
      assert.equal(second.stderr(), '');
      const secondToken = await login(secondUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      const list = await getJson(`${secondUrl}/v1/products`, secondToken);
      const expected = created.map((response) => response.body).sort((a, b) => a.id - b.id);
      assert.deepEqual(list.body.data, expected);
      assert.deepEqual((await getJson(`${secondUrl}/v1/users/${user.body.id}`, secondToken)).body, userBefore.body);
      const next = await postJson(`${secondUrl}/v1/products`, { name: 'After', category: 'c', price: 1 }, secondToken);
      assert.equal(next.body.id, 11);
    },
  );

  test('a second process on the same DATA_DIR exits 2 naming the lock; the first keeps serving', TIMEOUT, async () => {
    const first = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path, ...ADMIN_ENV });
    const url = await started(first);
    const lock = join(dir.path, 'plainrest.lock');
    assert.equal((await readFile(lock, 'utf8')).trim(), String(first.child.pid));

    const second = await runToExit(['--port', '0'], { DATA_DIR: dir.path });
    assert.equal(second.code, 2);
    assert.ok(second.stderr.includes(lock), second.stderr);
    assert.doesNotMatch(second.stdout, /listening/);

    assert.equal(
      (await readFile(lock, 'utf8')).trim(),
      String(first.child.pid),
      'the lock still names the first process',
    );
    const token = await login(url, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    assert.equal(
      (await postJson(`${url}/v1/products`, { name: 'Still here', category: 'c', price: 1 }, token)).status,
      201,
    );
  });

  test(
    'after a stop, a restart on the same DATA_DIR serves the same records and is not re-seeded',
    TIMEOUT,
    async () => {
      const first = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path, ...ADMIN_ENV });
      const firstUrl = await started(first);
      const firstToken = await login(firstUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      assert.equal(
        (await postJson(`${firstUrl}/v1/products`, { name: 'Kept', category: 'c', price: 1 }, firstToken)).status,
        201,
      );
      first.child.kill('SIGTERM');
      assert.equal((await first.exited).code, 0);

      // no ADMIN_PASSWORD now: the administrator keeps the password it has
      const second = runCli(['--port', '0'], { DATA_DIR: dir.path });
      const secondUrl = await started(second);
      assert.match(second.stdout(), /\(1 user, 1 product, 0 orders, 0 keys\)$/m); // the administrator and Kept
      const secondToken = await login(secondUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      const list = await getJson(`${secondUrl}/v1/products`, secondToken);
      assert.deepEqual(
        list.body.data.map((record: { name: string }) => record.name),
        ['Kept'],
      );
    },
  );
});

describe('cli: the administrator', () => {
  test(
    'the first start of a fresh DATA_DIR without ADMIN_PASSWORD prints the generated password once; it logs in; a second start prints no password',
    TIMEOUT,
    async () => {
      // PATH alone, without processEnvironment's PASSWORD_HASH_COST: the default cost.
      const first = startProcess(process.execPath, [MAIN, '--port', '0'], {
        cwd: REPOSITORY_ROOT,
        env: { PATH: process.env['PATH'] ?? '', DATA_DIR: dir.path },
      });
      const firstUrl = await started(first);
      const output = first.stdout() + first.stderr();
      const match = GENERATED_PASSWORD.exec(output);
      assert.ok(match, `no generated password printed:\n${output}`);
      const [, email, password] = match as unknown as [string, string, string];
      assert.equal(email, TEST_ADMIN_EMAIL);
      assert.equal(output.split(password).length - 1, 1, `the password is printed exactly once:\n${output}`);
      assert.equal(
        (await readFile(join(dir.path, 'users.json'), 'utf8')).includes(password),
        false,
        'stored hashed only',
      );
      // alice's and bob's from the example data and the administrator's, each at the default cost
      assert.deepEqual([...new Set(await storedHashCosts(dir.path))], ['16384']);

      const login201 = await postJson(`${firstUrl}/v1/tokens`, { email: TEST_ADMIN_EMAIL, password });
      assert.equal(login201.status, 201, login201.text);
      assert.equal(login201.body.token_type, 'Bearer');
      assert.equal(login201.body.user_id, 3); // after alice (1) and bob (2)
      const admin = await getJson(`${firstUrl}/v1/users/3`, login201.body.access_token);
      assert.equal(admin.status, 200, admin.text);
      assert.equal(admin.body.role, 'admin');
      first.child.kill('SIGTERM');
      assert.equal((await first.exited).code, 0);

      const second = runCli(['--port', '0'], { DATA_DIR: dir.path });
      const secondUrl = await started(second);
      const secondOutput = second.stdout() + second.stderr();
      assert.doesNotMatch(secondOutput, /generated password/);
      assert.equal(secondOutput.includes(password), false, secondOutput);
      assert.match(second.stdout(), /^data: .* \(3 users, 12 products, 5 orders, 0 keys\)$/m);
      // the password generated on the first start still logs in
      assert.equal(typeof (await login(secondUrl, TEST_ADMIN_EMAIL, password)), 'string');
    },
  );

  test(
    '--password-hash-cost (over PASSWORD_HASH_COST) sets the cost of the hashes made: the administrator is stored at it and logs in',
    TIMEOUT,
    async () => {
      // processEnvironment gives PASSWORD_HASH_COST=1024; the flag wins.
      const cli = runCli(['--port', '0', '--seed', 'false', '--password-hash-cost', '2048'], {
        DATA_DIR: dir.path,
        ...ADMIN_ENV,
      });
      const url = await started(cli);
      assert.deepEqual(await storedHashCosts(dir.path), ['2048']);
      assert.equal(typeof (await login(url, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD)), 'string');
      const wrong = await postJson(`${url}/v1/tokens`, { email: TEST_ADMIN_EMAIL, password: 'not-the-password' });
      assert.equal(wrong.status, 401, wrong.text);
      cli.child.kill('SIGTERM');
      assert.equal((await cli.exited).code, 0);
    },
  );
});

describe('cli: the token subcommand', () => {
  test(
    "`token alice@example.com --data-dir <dir>` prints a token the running server accepts, with alice's permissions",
    TIMEOUT,
    async () => {
      const server = runCli(['--port', '0'], { DATA_DIR: dir.path });
      const url = await started(server);

      const minted = await runToExit(['token', 'alice@example.com', '--data-dir', dir.path]);
      assert.equal(minted.code, 0, minted.stderr);
      assert.match(minted.stdout, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/, 'stdout is the token alone');
      assert.notEqual(minted.stderr.trim(), '', 'a note for humans goes to stderr');
      const token = minted.stdout.trim();

      const alice = await getJson(`${url}/v1/users/1`, token);
      assert.equal(alice.status, 200, alice.text);
      assert.equal(alice.body.email, 'alice@example.com');
      const everyone = await getJson(`${url}/v1/users`, token);
      assertProblem(everyone, 403, 'forbidden', '/v1/users'); // alice is not an admin
    },
  );

  test('an unknown email exits 2 with a message naming it, and prints no token', TIMEOUT, async () => {
    const server = runCli(['--port', '0'], { DATA_DIR: dir.path });
    await started(server);
    const result = await runToExit(['token', 'nobody@example.com', '--data-dir', dir.path]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^cannot mint a token: no user has the email nobody@example\.com in the data directory .+ \(--data-dir, DATA_DIR\)\n$/,
    );
  });

  test(
    'a data dir never started exits 2 with a message naming it (and the setting that chose it), and prints no token',
    TIMEOUT,
    async () => {
      const missing = join(dir.path, 'never');
      const absent = await runToExit(['token', 'alice@example.com', '--data-dir', missing]);
      assert.equal(absent.code, 2);
      assert.equal(absent.stdout, '');
      assert.equal(
        absent.stderr,
        `cannot mint a token: the data directory ${missing} (--data-dir, DATA_DIR) does not exist; start the server once with it, or name another with --data-dir\n`,
      );
      assert.equal(await exists(missing), false, 'the dir is not created');

      const empty = await runToExit(['token', 'alice@example.com', '--data-dir', dir.path]);
      assert.equal(empty.code, 2);
      assert.equal(empty.stdout, '');
      assert.equal(
        empty.stderr,
        `cannot mint a token: the data directory ${dir.path} (--data-dir, DATA_DIR) holds no users yet; start the server once with it, or name another with --data-dir\n`,
      );
      assert.deepEqual(await readdir(dir.path), [], 'the empty dir stays empty');
    },
  );

  test(
    'the token subcommand writes nothing into the data dir (same files, bytes, modes and mtimes)',
    TIMEOUT,
    async () => {
      const server = runCli(['--port', '0'], { DATA_DIR: dir.path });
      const url = await started(server);
      // main.ts installs its SIGTERM handler only after printing the banner; once a request
      // has been answered it is in place (a SIGTERM sent right after the banner may kill
      // the process by signal instead of stopping it gracefully)
      assert.equal((await getJson(`${url}/healthz`)).status, 200);
      server.child.kill('SIGTERM');
      assert.equal((await server.exited).code, 0);
      const before = await describeDirectory(dir.path);
      // The seed (seq 1 to 19) and the administrator (20): the change feed's history.
      assert.deepEqual(Object.keys(before), [
        'deliveries.json',
        'idempotency_keys.json',
        'journal-000000000001.jsonl',
        'journal-000000000020.jsonl',
        'keys.json',
        'orders.json',
        'products.json',
        'token-secret',
        'users.json',
        'webhooks.json',
      ]);

      for (const email of ['alice@example.com', TEST_ADMIN_EMAIL]) {
        const minted = await runToExit(['token', email, '--data-dir', dir.path]);
        assert.equal(minted.code, 0, minted.stderr);
      }
      assert.equal((await runToExit(['token', 'nobody@example.com', '--data-dir', dir.path])).code, 2);
      assert.deepEqual(await describeDirectory(dir.path), before);
    },
  );
});

/** Escapes a literal for use inside a RegExp. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
