// The README cannot drift: its curl walk-through is extracted and run, as written,
// against a real server started from dist/ (only the address and the data directory
// are substituted), and every answer it promises (its `# →` lines) is checked; then it
// runs again on the same server, in sh, to show that it can be repeated. Each line of
// "Trying the conventions" is run too, and must answer the status it names.

import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { temporaryDirectory } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const children: ChildProcess[] = [];
after(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
});

/** A README section: from its heading to the next heading of the same or a higher level (outside code blocks). */
async function readmeSection(heading: string): Promise<string> {
  const lines = (await readFile(join(REPOSITORY_ROOT, 'README.md'), 'utf8')).split('\n');
  const start = lines.indexOf(heading);
  assert.ok(start >= 0, `README has "${heading}"`);
  const level = heading.indexOf(' ');
  let inCode = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end] as string;
    if (line.startsWith('```')) inCode = !inCode;
    const hashes = /^(#+) /.exec(line)?.[1]?.length;
    if (!inCode && hashes !== undefined && hashes <= level) break;
  }
  return lines.slice(start + 1, end).join('\n');
}

/** The ```sh blocks of a README section. */
async function readmeBlocks(heading: string): Promise<string[]> {
  const section = await readmeSection(heading);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** The block run against a server at `url` on `dataDir`: only the address and the data directory change. */
function adapt(text: string, url: string, dataDir: string): string {
  return text
    .replaceAll('http://127.0.0.1:3000', url)
    .replace(/node dist\/(main\.js|plainrest\.mjs) token admin@example\.com/g, `$& --data-dir '${dataDir}'`);
}

/**
 * The answers a block promises, its `# → …` lines, as patterns: `…` stands for anything on
 * the same line; with `anyIds`, every number may differ (ids are never reused, so a second
 * run creates records with larger ones).
 */
function promisedAnswers(block: string, anyIds: boolean): { readonly text: string; readonly pattern: RegExp }[] {
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...block.matchAll(/^# → (.+)$/gm)].map((match) => {
    const text = match[1] as string;
    const pieces = text
      .split('…')
      .map((piece) => (anyIds ? escape(piece).replace(/[0-9]+/g, '[0-9]+') : escape(piece)));
    return { text, pattern: new RegExp(pieces.join('[^\\n]*?')) };
  });
}

/** Each promised answer appears in `output`, in the order promised. */
function assertAnswers(output: string, answers: readonly { text: string; pattern: RegExp }[], run: string): void {
  let position = 0;
  for (const { text, pattern } of answers) {
    const found = pattern.exec(output.slice(position));
    assert.ok(
      found !== null,
      `${run}: expected "${text}" after\n${output.slice(Math.max(0, position - 300), position)}\n--- in the rest:\n${output.slice(position, position + 1500)}`,
    );
    position += found.index + found[0].length;
  }
}

/** A real server, the one-file build (dist/plainrest.mjs), on a fresh data directory; returns its URL. */
async function startRealServer(dataDir: string): Promise<string> {
  const args = ['dist/plainrest.mjs', '--port', '0', '--data-dir', dataDir, '--rate-limit', '0'];
  const child = spawn(process.execPath, args, {
    cwd: REPOSITORY_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) resolve(match[1] as string);
    });
    child.once('exit', () => reject(new Error(output)));
  });
}

const run = promisify(execFile);

/** The README's commands are curl's: without it (a minimal Debian has none) they are skipped, saying why. */
const CURL_SKIP =
  spawnSync('sh', ['-c', 'command -v curl']).status === 0
    ? false
    : 'curl is not installed, and the commands of the README are curl commands; `.ci/run` installs it with apt-get';

test(
  'the README walk-through runs as written, twice against one server (bash, then sh), and answers as it promises',
  { skip: CURL_SKIP },
  async () => {
    const dir = await temporaryDirectory();
    try {
      const url = await startRealServer(dir.path);
      const [block] = await readmeBlocks('## A walk-through with curl');
      assert.ok(block !== undefined && block.includes('curl'), 'the walk-through has curl commands');
      const script = adapt(block, url, dir.path);
      const exact = promisedAnswers(block, false);
      assert.ok(exact.length >= 15, `the walk-through promises ${exact.length} answers`);

      const first = await run('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: REPOSITORY_ROOT,
        maxBuffer: 1 << 20,
      });
      assertAnswers(first.stdout, exact, 'first run, bash');
      // The same block again on the same server, now in a POSIX sh: nothing it creates may
      // collide with the first run's records, and every answer keeps its shape.
      const second = await run('sh', ['-e', '-c', script], { cwd: REPOSITORY_ROOT, maxBuffer: 1 << 20 });
      assertAnswers(second.stdout, promisedAnswers(block, true), 'second run, sh');

      const createdUser = (output: string): string | undefined =>
        /^Location: (\/v1\/users\/\d+)\r?$/m.exec(output)?.[1];
      assert.ok(createdUser(first.stdout) !== undefined, 'the first run created a user');
      assert.notEqual(createdUser(second.stdout), createdUser(first.stdout), 'the second run created another user');
    } finally {
      await dir.remove();
    }
  },
);

test('every "# → status" line of "Trying the conventions" answers that status', { skip: CURL_SKIP }, async () => {
  const dir = await temporaryDirectory();
  try {
    const url = await startRealServer(dir.path);
    const [block] = await readmeBlocks('### Trying the conventions');
    assert.ok(block !== undefined, 'the section has a sh block');
    const [setup, ...examples] = block.trimEnd().split('\n');
    assert.ok(setup !== undefined && setup.startsWith('TOKEN='), 'the block starts by getting a token');
    const token = (
      await run('bash', ['-e', '-c', `${adapt(setup, url, dir.path)}\necho "$TOKEN"`], { cwd: REPOSITORY_ROOT })
    ).stdout.trim();
    for (const line of examples) {
      const expected = /# → (\d{3})\s*$/.exec(line)?.[1];
      assert.ok(expected !== undefined, `every example says the status it expects: ${line}`);
      const { stdout } = await run('bash', ['-c', adapt(line, url, dir.path)], {
        cwd: REPOSITORY_ROOT,
        env: { ...process.env, TOKEN: token },
      });
      assert.equal(/^HTTP\/1\.1 (\d{3})/.exec(stdout)?.[1], expected, line);
    }
    assert.ok(examples.length >= 12, `${examples.length} examples checked`);
  } finally {
    await dir.remove();
  }
});
