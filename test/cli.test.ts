// The command line (CONTRACT §1): `node dist/main.js` (build first: `npm run build`)
// with settings from environment variables and flags (the flag wins), --help, exit 2 on
// a usage error, the start banner, graceful SIGTERM/SIGINT (final snapshot, exit 0),
// and exit 1 naming the file when a snapshot is corrupt.

import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { temporaryDirectory } from './helpers.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(PACKAGE_ROOT, 'dist', 'main.js');
const BANNER = /^plainrest listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;
const TIMEOUT = { timeout: 20_000 };

interface Cli {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout (rejects if the process exits first). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcessWithoutNullStreams[] = [];

/** Runs `node dist/main.js` with only the given environment (plus PATH), so the test's own env never leaks in. */
function runCli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: PACKAGE_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stdout);
        if (match !== null) {
          listeners.delete(check);
          resolve(match);
        } else if (done || child.exitCode !== null) {
          listeners.delete(check);
          reject(new Error(`process exited before printing ${pattern}; stdout: ${stdout}; stderr: ${stderr}`));
        }
      };
      listeners.add(check);
      check();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, waitFor, exited };
}

/** Waits for the banner and the data line; returns the printed URL. */
async function started(cli: Cli): Promise<string> {
  const banner = await cli.waitFor(BANNER);
  await cli.waitFor(/^data: .*$/m);
  return banner[1] as string;
}

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
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
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGKILL');
      await gone;
    }
  }
  await dir.remove();
});

describe('cli: usage', () => {
  test('--help prints every setting (PORT, HOST, DATA_DIR, MAX_BODY_BYTES, SEED) with its flag and exits 0', TIMEOUT, async () => {
    const cli = runCli(['--help']);
    const { code } = await cli.exited;
    assert.equal(code, 0);
    assert.equal(cli.stderr(), '');
    for (const name of ['PORT', 'HOST', 'DATA_DIR', 'MAX_BODY_BYTES', 'SEED', '--port', '--host', '--data-dir', '--max-body-bytes', '--seed']) {
      assert.ok(cli.stdout().includes(name), `--help lacks ${name}:\n${cli.stdout()}`);
    }
    assert.doesNotMatch(cli.stdout(), /listening/);
  });

  const usageErrors: { name: string; args: string[]; env: Record<string, string>; mentions: string }[] = [
    { name: 'an unknown flag', args: ['--nope'], env: {}, mentions: '--nope' },
    { name: 'an unknown flag after valid ones', args: ['--port', '0', '--colour=red'], env: {}, mentions: '--colour' },
    { name: 'a flag without its value', args: ['--port'], env: {}, mentions: '--port' },
    { name: 'a flag with a bad value', args: ['--port', 'abc'], env: {}, mentions: 'abc' },
    { name: 'an environment variable with a bad value', args: [], env: { PORT: 'eighty' }, mentions: 'PORT' },
    { name: 'SEED that is not a boolean', args: ['--seed', 'maybe'], env: {}, mentions: 'maybe' },
  ];
  for (const c of usageErrors) {
    test(`${c.name} exits 2 with a message naming it, and starts nothing`, TIMEOUT, async () => {
      const cli = runCli(c.args, { DATA_DIR: join(dir.path, 'never'), ...c.env });
      const { code } = await cli.exited;
      assert.equal(code, 2);
      assert.ok(cli.stderr().includes(c.mentions), cli.stderr());
      assert.doesNotMatch(cli.stdout(), /listening/);
      assert.equal(await exists(join(dir.path, 'never')), false);
    });
  }
});

describe('cli: starting', () => {
  test('--port 0 prints "plainrest listening on http://127.0.0.1:<port>" and the data line with record counts', TIMEOUT, async () => {
    const cli = runCli(['--port', '0'], { DATA_DIR: dir.path });
    const url = await started(cli);
    assert.notEqual(new URL(url).port, '0');
    assert.match(cli.stdout(), new RegExp(`^data: ${escape(dir.path)} \\(2 users, 12 products, 5 orders\\)$`, 'm'));
    const health = await getJson(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    assert.equal((await getJson(`${url}/v1/products`)).body.meta.total, 12);
  });

  test('--port=0 (inline form) works too', TIMEOUT, async () => {
    const cli = runCli(['--port=0', `--data-dir=${dir.path}`]);
    const url = await started(cli);
    assert.equal((await getJson(`${url}/healthz`)).status, 200);
  });

  test('PORT=0 from the environment picks a free port', TIMEOUT, async () => {
    const cli = runCli([], { PORT: '0', DATA_DIR: dir.path });
    const url = await started(cli);
    assert.equal((await getJson(`${url}/healthz`)).status, 200);
  });

  test('the --port flag wins over the PORT variable', TIMEOUT, async () => {
    const cli = runCli(['--port', '0'], { PORT: '1', DATA_DIR: dir.path });
    const url = await started(cli);
    assert.notEqual(new URL(url).port, '1');
    assert.equal((await getJson(`${url}/healthz`)).status, 200);
  });

  test('the --data-dir flag wins over the DATA_DIR variable', TIMEOUT, async () => {
    const fromEnv = join(dir.path, 'from-env');
    const fromFlag = join(dir.path, 'from-flag');
    const cli = runCli(['--port', '0', '--data-dir', fromFlag], { DATA_DIR: fromEnv });
    await started(cli);
    assert.match(cli.stdout(), new RegExp(`^data: ${escape(fromFlag)} \\(`, 'm'));
    assert.equal(await exists(join(fromFlag, 'products.json')), true);
    assert.equal(await exists(fromEnv), false);
  });

  test('the --seed flag wins over the SEED variable: --seed false starts empty', TIMEOUT, async () => {
    const cli = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path, SEED: 'true' });
    const url = await started(cli);
    assert.match(cli.stdout(), /^data: .* \(0 users, 0 products, 0 orders\)$/m);
    assert.equal((await getJson(`${url}/v1/products`)).body.meta.total, 0);
  });

  test('SEED=false from the environment starts empty', TIMEOUT, async () => {
    const cli = runCli(['--port', '0'], { DATA_DIR: dir.path, SEED: 'false' });
    await started(cli);
    assert.match(cli.stdout(), /^data: .* \(0 users, 0 products, 0 orders\)$/m);
  });

  test('MAX_BODY_BYTES is applied: a larger body gets 413', TIMEOUT, async () => {
    const cli = runCli(['--port', '0', '--max-body-bytes', '50'], { DATA_DIR: dir.path, MAX_BODY_BYTES: '100000' });
    const url = await started(cli);
    const response = await postJson(`${url}/v1/products`, { name: 'x'.repeat(60), category: 'c', price: 1 });
    assert.equal(response.status, 413);
    assert.equal(response.body.code, 'payload_too_large');
  });
});

describe('cli: stopping', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} → exit 0, "stopped" printed, and the records created before it are in the snapshot files`, TIMEOUT, async () => {
      const cli = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path });
      const url = await started(cli);
      const product = await postJson(`${url}/v1/products`, { name: 'Before the signal', category: 'c', price: 2.5 });
      assert.equal(product.status, 201);
      const user = await postJson(`${url}/v1/users`, { name: 'Sig', email: 'sig@example.com' });
      assert.equal(user.status, 201);

      cli.child.kill(signal);
      const { code, signal: killedBy } = await cli.exited;
      assert.equal(killedBy, null);
      assert.equal(code, 0);
      assert.match(cli.stdout(), /^stopped$/m);
      assert.equal(cli.stderr(), '');

      const products = JSON.parse(await readFile(join(dir.path, 'products.json'), 'utf8'));
      assert.deepEqual(products, { next_id: 2, records: [product.body] });
      const users = JSON.parse(await readFile(join(dir.path, 'users.json'), 'utf8'));
      assert.deepEqual(
        users.records.map((record: { id: number; email: string }) => [record.id, record.email]),
        [[1, 'sig@example.com']],
      );
    });
  }

  test('after a stop, a restart on the same DATA_DIR serves the same records and is not re-seeded', TIMEOUT, async () => {
    const first = runCli(['--port', '0', '--seed', 'false'], { DATA_DIR: dir.path });
    const firstUrl = await started(first);
    assert.equal((await postJson(`${firstUrl}/v1/products`, { name: 'Kept', category: 'c', price: 1 })).status, 201);
    first.child.kill('SIGTERM');
    assert.equal((await first.exited).code, 0);

    const second = runCli(['--port', '0'], { DATA_DIR: dir.path });
    const secondUrl = await started(second);
    assert.match(second.stdout(), /\(0 users, 1 products, 0 orders\)$/m);
    const list = await getJson(`${secondUrl}/v1/products`);
    assert.deepEqual(
      list.body.data.map((record: { name: string }) => record.name),
      ['Kept'],
    );
  });
});

describe('cli: failing to start', () => {
  test('a corrupt snapshot → exit 1, stderr names the file, the file is unchanged', TIMEOUT, async () => {
    const path = join(dir.path, 'products.json');
    const corrupt = '{"next_id": 2, "records": [ this is not json';
    await writeFile(path, corrupt);
    const cli = runCli(['--port', '0'], { DATA_DIR: dir.path });
    const { code } = await cli.exited;
    assert.equal(code, 1);
    assert.ok(cli.stderr().includes(path), cli.stderr());
    assert.doesNotMatch(cli.stdout(), /listening/);
    assert.equal(await readFile(path, 'utf8'), corrupt);
    assert.equal(await exists(join(dir.path, 'users.json')), false);
  });

  test('a port already in use → exit 1 with a message saying so', TIMEOUT, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = blocker.address() as AddressInfo;
      const cli = runCli(['--port', String(port)], { DATA_DIR: dir.path });
      const { code } = await cli.exited;
      assert.equal(code, 1);
      assert.match(cli.stderr(), /in use/);
      assert.doesNotMatch(cli.stdout(), /listening/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

/** Escapes a literal for use inside a RegExp. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
