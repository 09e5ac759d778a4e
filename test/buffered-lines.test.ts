// Standard output is written in batches (src/cli/buffered-lines.ts, used by src/main.ts):
// the convention proved here is that batching changes how often the stream is written,
// never what is written. Lines wait, in order and each ending in "\n", until the flush
// interval has passed since the first of them (FLUSH_AFTER_MS, 100 ms by default), then
// go out as one write; a batch reaching 64 Ki characters is written at once; flush()
// writes what is pending immediately and only once. Access-log entries are encoded at the end of the event loop's
// turn, or before any other line or flush, so they keep their order. And at the CLI: with stdout
// redirected to a file, a graceful SIGTERM loses no line — the banner, one JSON
// access-log line per request, then the shutdown lines.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, test } from 'node:test';
import { BufferedLines, FLUSH_AFTER_MS } from '../src/cli/buffered-lines.ts';
import { formatAccessLine } from '../src/http/access-log.ts';
import type { AccessEntry } from '../src/logging/logger.ts';
import {
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_TOKEN_SECRET,
  cleanUpAfterEach,
  eventually,
  killChildren,
  processEnvironment,
  temporaryDirectory,
} from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

/** A stream that keeps every chunk written to it, one entry per write, and when each came (performance.now()). */
class RecordingStream extends Writable {
  readonly writes: string[] = [];
  readonly times: number[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writes.push(chunk.toString('utf8'));
    this.times.push(performance.now());
    callback();
  }
}

/**
 * A short interval for the tests that wait for a batch; LONG for those that check nothing
 * goes out early. Those that check nothing goes out at all, or not before a time, run on
 * node:test's fake setTimeout (mock.timers) and move it on by hand.
 */
const SHORT = 10;
const LONG = 60_000;

function recorder(flushAfterMs: number): { stream: RecordingStream; lines: BufferedLines } {
  const stream = new RecordingStream();
  return { stream, lines: new BufferedLines(stream, flushAfterMs) };
}

/** Resolves after the current turn of the event loop (and the immediates queued before it). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Waits until `stream` has had `count` writes (failing after 15 s, the default of `eventually`). */
async function writesOf(stream: RecordingStream, count: number): Promise<string[]> {
  await eventually(() =>
    assert.ok(stream.writes.length >= count, `expected ${count} writes, saw ${JSON.stringify(stream.writes)}`),
  );
  return stream.writes;
}

/** The 64 KiB batch limit of BufferedLines, in characters. */
const MAX_BUFFERED = 64 * 1024;

describe('BufferedLines', () => {
  test('lines go out as ONE write once the flush interval has passed since the first, in order, each ending in "\\n"', async () => {
    const { stream, lines } = recorder(50);
    const first = performance.now();
    lines.write('first');
    lines.write('second');
    lines.write('third');
    assert.deepEqual(stream.writes, [], 'nothing is written synchronously');
    await Promise.resolve();
    assert.deepEqual(stream.writes, [], 'nor by the microtasks of the turn');
    assert.deepEqual(await writesOf(stream, 1), ['first\nsecond\nthird\n']);
    const waited = (stream.times[0] ?? 0) - first;
    assert.ok(waited >= 49, `the batch went out after the interval (50 ms), not ${waited.toFixed(1)} ms`);
  });

  test(`by default a line waits ${FLUSH_AFTER_MS} ms`, async () => {
    assert.equal(FLUSH_AFTER_MS, 100);
    const stream = new RecordingStream();
    const lines = new BufferedLines(stream);
    const written = performance.now();
    lines.write('hello');
    assert.deepEqual(await writesOf(stream, 1), ['hello\n']);
    const waited = (stream.times[0] ?? 0) - written;
    assert.ok(waited >= FLUSH_AFTER_MS - 1, `waited ${waited.toFixed(1)} ms`);
  });

  test('a line is not written at the end of its turn, nor of the next ones, before the interval', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { stream, lines } = recorder(LONG);
    lines.write('hello');
    await new Promise((resolve) => process.nextTick(resolve));
    await nextTurn();
    await nextTurn();
    assert.deepEqual(stream.writes, []);
    t.mock.timers.tick(LONG - 1);
    assert.deepEqual(stream.writes, [], 'nor 1 ms before the interval');
    lines.flush();
    assert.deepEqual(stream.writes, ['hello\n']);
  });

  test('lines written after a batch went out go in the next batch', async () => {
    const { stream, lines } = recorder(SHORT);
    lines.write('a');
    await writesOf(stream, 1);
    lines.write('b');
    lines.write('c');
    assert.deepEqual(await writesOf(stream, 2), ['a\n', 'b\nc\n']);
  });

  test('a batch reaching 64 KiB is written at once, without waiting for the interval; what follows waits as usual', async () => {
    const { stream, lines } = recorder(SHORT);
    const line = 'x'.repeat(1023); // 1024 characters with its "\n"
    for (let n = 1; n < MAX_BUFFERED / 1024; n++) lines.write(line);
    assert.deepEqual(stream.writes, [], '63 KiB: still waiting');
    lines.write(line);
    assert.equal(stream.writes.length, 1, 'the 64th KiB is written at once');
    assert.equal(stream.writes[0], `${line}\n`.repeat(64));
    lines.write('after');
    assert.equal(stream.writes.length, 1);
    assert.deepEqual((await writesOf(stream, 2)).slice(1), ['after\n']);
  });

  test('one line longer than 64 KiB is written at once, after the lines before it', () => {
    const { stream, lines } = recorder(LONG);
    const long = 'y'.repeat(100_000);
    lines.write('before');
    lines.write(long);
    assert.deepEqual(stream.writes, [`before\n${long}\n`]);
  });

  test('flush() writes the pending lines at once; a second flush writes nothing; lines after it go in a later batch', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { stream, lines } = recorder(SHORT);
    lines.write('one');
    lines.write('two');
    lines.flush();
    assert.deepEqual(stream.writes, ['one\ntwo\n']);
    lines.flush();
    assert.deepEqual(stream.writes, ['one\ntwo\n'], 'nothing pending, nothing written');
    lines.write('three');
    assert.deepEqual(stream.writes, ['one\ntwo\n']);
    t.mock.timers.tick(SHORT);
    assert.deepEqual(stream.writes, ['one\ntwo\n', 'three\n']);
    t.mock.timers.tick(LONG);
    assert.deepEqual(stream.writes, ['one\ntwo\n', 'three\n'], 'no empty write afterwards');
  });

  test('access-log entries go in the same batch as other lines, in order, as the lines formatAccessLine gives', async () => {
    const { stream, lines } = recorder(SHORT);
    const entry = {
      requestId: 'r-1',
      method: 'GET',
      path: '/v1/caf\u00e9',
      status: 200,
      bytes: 12,
      durationMs: 0.25,
      userId: 4,
    };
    lines.write('before ☕');
    lines.writeAccessLine(entry);
    lines.write('after');
    assert.equal(stream.writes.length, 0, 'nothing written synchronously');
    await writesOf(stream, 1);
    assert.equal(stream.writes.length, 1);
    const [first, logged = '', last] = (stream.writes[0] ?? '').split('\n');
    assert.equal(first, 'before ☕');
    assert.equal(last, 'after');
    assert.deepEqual(JSON.parse(logged), {
      ...JSON.parse(formatAccessLine(entry, 'json')),
      time: JSON.parse(logged).time,
    });
  });

  test('access-log entries count towards the 64 KiB batch, and one too long for the buffer is still written whole', async () => {
    const { stream, lines } = recorder(LONG);
    const entry = {
      requestId: 'r-2',
      method: 'GET',
      path: `/${'p'.repeat(1000)}`,
      status: 404,
      bytes: 0,
      durationMs: 1,
      userId: undefined,
    };
    const lineBytes = Buffer.byteLength(formatAccessLine(entry, 'json')) + 1;
    const count = Math.ceil(MAX_BUFFERED / lineBytes);
    for (let n = 1; n < count; n++) lines.writeAccessLine(entry);
    await nextTurn();
    assert.equal(stream.writes.length, 0, 'below 64 KiB: still waiting');
    lines.writeAccessLine(entry);
    assert.equal(stream.writes.length, 0, 'entries are encoded at the end of the turn');
    await nextTurn();
    assert.equal(stream.writes.length, 1, 'the entry that reaches 64 KiB sends the batch at the end of its turn');
    assert.equal((stream.writes[0] ?? '').split('\n').length - 1, count);

    const huge = { ...entry, path: `/${'\u0001'.repeat(30_000)}` };
    lines.write('first');
    lines.writeAccessLine(huge);
    await nextTurn();
    assert.equal(
      stream.writes.length,
      2,
      'a line that may not fit the buffer goes out at once, with the lines before it',
    );
    const [first, logged = ''] = (stream.writes[1] ?? '').split('\n');
    assert.equal(first, 'first');
    assert.equal(JSON.parse(logged).path, huge.path);
  });

  test('access-log entries wait for the end of their turn, in order; a line written before then, and flush(), write them first', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { stream, lines } = recorder(LONG);
    const entry = (requestId: string): AccessEntry => ({
      requestId,
      method: 'GET',
      path: '/v1/products/1',
      status: 200,
      bytes: 2,
      durationMs: 0.5,
      userId: 1,
    });
    const idsIn = (text: string): string[] =>
      text
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line).request_id);
    lines.writeAccessLine(entry('a'));
    lines.writeAccessLine(entry('b'));
    lines.write('between');
    lines.writeAccessLine(entry('c'));
    lines.flush();
    assert.equal(stream.writes.length, 1);
    assert.deepEqual(idsIn(stream.writes[0] ?? ''), ['a', 'b', 'c']);
    assert.equal((stream.writes[0] ?? '').split('\n')[2], 'between');

    lines.writeAccessLine(entry('d'));
    lines.writeAccessLine(entry('e'));
    await nextTurn();
    assert.equal(stream.writes.length, 1, 'encoded at the end of the turn, then waiting for the interval');
    t.mock.timers.tick(LONG);
    assert.deepEqual(idsIn(stream.writes[1] ?? ''), ['d', 'e']);
    lines.flush();
    assert.equal(stream.writes.length, 2, 'nothing left: the turn encoded them');
  });

  test('flush() with nothing written writes nothing', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { stream, lines } = recorder(SHORT);
    lines.flush();
    t.mock.timers.tick(LONG);
    assert.deepEqual(stream.writes, []);
  });
});

// ---------------------------------------------------------------------------------------
// The CLI with stdout redirected to a file (Node then writes stdout synchronously).

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
const BANNER = /^plainrest listening on (http:\/\/127\.0\.0\.1:\d+)$/;
const REQUESTS = 50;
const ACCESS_LOG_KEYS = ['time', 'request_id', 'method', 'path', 'status', 'bytes', 'duration_ms', 'user_id'];

interface AccessLine {
  readonly request_id: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

const children: ChildProcess[] = [];
// Hooks run in the order they are registered: the server is killed before its files go.
afterEach(() => killChildren(children));
const defer = cleanUpAfterEach();

/** Polls `path` until its text matches `pattern` (failing after 15 s). */
async function waitForText(path: string, pattern: RegExp, child: ChildProcess): Promise<string> {
  return eventually(async () => {
    const text = await readFile(path, 'utf8');
    assert.match(
      text,
      pattern,
      `not yet written (the process ${child.exitCode === null ? 'runs' : `exited with ${child.exitCode}`}); stdout so far:\n${text}`,
    );
    return text;
  }, 15_000);
}

/** A GET with a request id of our own, so its access-log line can be found; returns the status. */
async function get(url: string, id: string, token: string): Promise<number> {
  const response = await fetch(url, { headers: { 'x-request-id': id, authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

describe('cli: stdout to a file', () => {
  test(
    `a graceful SIGTERM loses no line: banner, ${REQUESTS} access-log lines (one per request), then the shutdown lines`,
    { timeout: 90_000 },
    async () => {
      const dataDir = await temporaryDirectory();
      defer(dataDir.remove);
      const outputDir = await temporaryDirectory();
      defer(outputDir.remove);
      const stdoutPath = join(outputDir.path, 'stdout.log');
      const stdoutFd = openSync(stdoutPath, 'w');
      defer(async () => closeSync(stdoutFd));

      const child = spawn(process.execPath, [MAIN], {
        cwd: REPOSITORY_ROOT,
        env: processEnvironment({
          PORT: '0',
          DATA_DIR: dataDir.path,
          ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
          TOKEN_SECRET: TEST_TOKEN_SECRET,
        }),
        stdio: ['ignore', stdoutFd, 'pipe'],
      });
      children.push(child);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        child.on('close', (code, signal) => resolve({ code, signal }));
      });

      const started = await waitForText(stdoutPath, /^token: .*$/m, child);
      const url = (BANNER.exec(started.split('\n')[0] ?? '') ??
        assert.fail(`no banner first:\n${started}`))[1] as string;

      // 1 login, 24 requests one after another, 25 at once: 50 in all, each with its own id.
      const expected = new Map<string, { method: string; path: string; status: number }>();
      const login = await fetch(`${url}/v1/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-0' },
        body: JSON.stringify({ email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD }),
      });
      assert.equal(login.status, 201);
      const token = ((await login.json()) as { access_token: string }).access_token;
      expected.set('req-0', { method: 'POST', path: '/v1/tokens', status: 201 });

      const sequential = ['/healthz', '/v1/products', '/v1/products/1', '/v1/products/999'];
      const statusOf: Record<string, number> = {
        '/healthz': 200,
        '/v1/products': 200,
        '/v1/products/1': 200,
        '/v1/products/999': 404,
      };
      for (let n = 1; n < 25; n++) {
        const path = sequential[n % sequential.length] as string;
        assert.equal(await get(url + path, `req-${n}`, token), statusOf[path]);
        expected.set(`req-${n}`, { method: 'GET', path, status: statusOf[path] as number });
      }
      const parallel = Array.from({ length: 25 }, (_, k) => 25 + k);
      const statuses = await Promise.all(
        parallel.map((n) => get(`${url}/v1/products?page=${n}&limit=1`, `req-${n}`, token)),
      );
      assert.deepEqual(
        statuses,
        parallel.map(() => 200),
      );
      for (const n of parallel) expected.set(`req-${n}`, { method: 'GET', path: '/v1/products', status: 200 });
      assert.equal(expected.size, REQUESTS);

      child.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 0, signal: null });
      assert.equal(stderr, '');

      const text = await readFile(stdoutPath, 'utf8');
      assert.ok(text.endsWith('\n'), 'the last line is complete');
      const lines = text.slice(0, -1).split('\n');
      assert.equal(lines.length, 4 + REQUESTS + 2, text);
      assert.match(lines[0] as string, BANNER);
      assert.match(lines[1] as string, /^explorer: http:\/\/127\.0\.0\.1:\d+\/ \(open it in a browser/);
      assert.match(lines[2] as string, /^data: .* \(3 users, 12 products, 5 orders, 0 keys\)$/);
      assert.match(lines[3] as string, /^token: curl /);
      assert.deepEqual(lines.slice(-2), ['SIGTERM: finishing in-flight requests, then stopping', 'stopped']);

      const logged = lines.slice(4, -2).map((line) => JSON.parse(line) as AccessLine & Record<string, unknown>);
      for (const entry of logged) assert.deepEqual(Object.keys(entry), ACCESS_LOG_KEYS);
      assert.deepEqual(
        logged.slice(0, 25).map((entry) => entry.request_id),
        Array.from({ length: 25 }, (_, n) => `req-${n}`),
        'requests made one after another are logged in order',
      );
      assert.deepEqual(
        logged.map((entry) => entry.request_id).sort(),
        [...expected.keys()].sort(),
        'one line per request, none lost or repeated',
      );
      for (const entry of logged) {
        assert.deepEqual(
          { method: entry.method, path: entry.path, status: entry.status },
          expected.get(entry.request_id),
          entry.request_id,
        );
      }
    },
  );
});
