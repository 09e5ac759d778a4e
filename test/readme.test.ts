// The README cannot drift: its curl walk-through is extracted and run, as written,
// against a real server started from dist/ (only the address and the data directory
// are substituted), and the answers it promises are checked.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { temporaryDirectory } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
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

/** The ```sh blocks of a README section (from its heading to the next `## `). */
async function readmeBlocks(heading: string): Promise<string[]> {
  const readme = await readFile(`${ROOT}README.md`, 'utf8');
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has "${heading}"`);
  const end = readme.indexOf('\n## ', start + heading.length);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

async function readmeBlock(heading: string): Promise<string> {
  return (await readmeBlocks(heading))[0] as string;
}

/** A real server from dist/ on a fresh data directory; returns its URL. */
async function startRealServer(dataDir: string): Promise<string> {
  const child = spawn(process.execPath, ['dist/main.js', '--port', '0', '--data-dir', dataDir, '--rate-limit', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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

test('the README walk-through runs as written and answers as it says', async () => {
  const dir = await temporaryDirectory();
  try {
    const url = await startRealServer(dir.path);

    const script = (await readmeBlock('## A walk-through with curl'))
      .replaceAll('http://127.0.0.1:3000', url)
      .replace('node dist/main.js token admin@example.com', `node dist/main.js token admin@example.com --data-dir '${dir.path}'`);
    assert.ok(script.includes('curl'), 'the walk-through has curl commands');
    const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: ROOT, maxBuffer: 1 << 20 });

    const expectations: [RegExp, string][] = [
      [/"links":\{"self":"\/v1"/, 'the index'],
      [/\{"status":"ok"\}/, 'the health check'],
      [/HTTP\/1\.1 401 Unauthorized[\s\S]*?WWW-Authenticate: Bearer realm="plainrest"/, '401 without a token'],
      [/"data":\[\{"id":\d+,"name":"[^"]+","category":"tea"/, 'the filtered list'],
      [/HTTP\/1\.1 403 Forbidden/, "403 on another user's orders"],
      [/HTTP\/1\.1 201 Created[\s\S]*?Location: \/v1\/users\/4[\s\S]*?\{"id":4,"name":"Carol"\}/, 'the new user'],
      [/ETag: "[A-Za-z0-9_-]+"/, 'an ETag'],
      [/"name":"Carol Example"/, 'the merge patch'],
      [/"user_id":4,"items":\[\{"product_id":1,"quantity":2,"unit_price":24\.9\}\],"total":49\.8,"status":"pending"/, 'the order'],
      [/"detail":"only an admin may change status/, 'paid refused to the owner'],
      [/"status":"cancelled"/, 'cancelled by the owner'],
      [/"usuario_id":4,"itens":/, 'the Portuguese vocabulary'],
      [/HTTP\/1\.1 204 No Content/, 'the delete'],
      [/HTTP\/1\.1 404 Not Found/, 'gone afterwards'],
    ];
    for (const [pattern, what] of expectations) assert.match(stdout, pattern, what);
  } finally {
    await dir.remove();
  }
});

test('every "# → status" example of the conventions section answers that status', async () => {
  const dir = await temporaryDirectory();
  try {
    const url = await startRealServer(dir.path);
    const adapt = (text: string): string =>
      text.replaceAll('http://127.0.0.1:3000', url).replaceAll('node dist/main.js token admin@example.com', `node dist/main.js token admin@example.com --data-dir '${dir.path}'`);
    const [setup, ...examples] = await readmeBlocks('## REST conventions, one by one');
    assert.ok(setup !== undefined && setup.includes('TOKEN='), 'the section starts by getting a token');
    const token = (await run('bash', ['-e', '-c', `${adapt(setup)}\necho "$TOKEN"`], { cwd: ROOT })).stdout.trim();
    let checked = 0;
    for (const line of examples.join('\n').split('\n')) {
      const expected = /# → (\d{3})\s*$/.exec(line)?.[1];
      if (expected === undefined) continue;
      const { stdout } = await run('bash', ['-c', adapt(line)], { cwd: ROOT, env: { ...process.env, TOKEN: token } });
      assert.equal(/^HTTP\/1\.1 (\d{3})/.exec(stdout)?.[1], expected, line);
      checked++;
    }
    assert.ok(checked >= 15, `${checked} examples checked`);
  } finally {
    await dir.remove();
  }
});
