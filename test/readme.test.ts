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

/** The first ```sh block after a heading. */
async function readmeBlock(heading: string): Promise<string> {
  const readme = await readFile(`${ROOT}README.md`, 'utf8');
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has "${heading}"`);
  const open = readme.indexOf('```sh\n', start);
  return readme.slice(open + 6, readme.indexOf('```', open + 6));
}

test('the README walk-through runs as written and answers as it says', async () => {
  const dir = await temporaryDirectory();
  try {
    const child = spawn(process.execPath, ['dist/main.js', '--port', '0', '--data-dir', dir.path, '--rate-limit', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match !== null) resolve(match[1] as string);
      });
      child.once('exit', () => reject(new Error(output)));
    });

    const script = (await readmeBlock('## A walk-through with curl'))
      .replaceAll('http://127.0.0.1:3000', url)
      .replace('node dist/main.js token admin@example.com', `node dist/main.js token admin@example.com --data-dir '${dir.path}'`);
    assert.ok(script.includes('curl'), 'the walk-through has curl commands');
    const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: ROOT, maxBuffer: 1 << 20 });

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
