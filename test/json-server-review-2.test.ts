// json-server's dialect and its sources tried by attack (docs/json-server.md: One command, Serving json-server's
// dialect): a script whose promise never settles, a URL that answers more than an import takes, a static file asked
// for a range; beside json-server 0.17 where it has the behaviour.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { JsonServerRequest } from '../src/cli/json-server-command.ts';
import { prepareJsonServer } from '../src/cli/json-server-command.ts';
import { sourceData } from '../src/cli/json-server-source.ts';
import { JsonServerError } from '../src/cli/json-server-settings.ts';
import { runToExit } from './child-process.ts';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

/** The one-file build (`npm run build`), not the source: under tsx on Node 20 a start cost four times the CPU. */
const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');

function request(source: string, more: Partial<JsonServerRequest> = {}): JsonServerRequest {
  return { source, flags: new Map(), options: {}, access: undefined, reimport: false, ...more };
}

describe('plainrest db.js and plainrest http://…/db.json, attacked', () => {
  const defer = cleanUpAfterEach();

  /** A local server answering every request with `answer`; its origin. */
  const answering = async (answer: Parameters<typeof createServer>[1]): Promise<string> => {
    const server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    defer(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  test('a script whose promise never settles: one cannot start line, exit 2, nothing beside it (not exit 0 and silence)', async () => {
    const dir = await scratchDirectory(defer);
    const script = join(dir, 'db.js');
    await writeFile(script, 'module.exports = () => new Promise(() => {})\n');
    const run = await runToExit(process.execPath, [MAIN, script, '--port', '0'], {
      cwd: REPOSITORY_ROOT,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    assert.equal(run.code, 2, `exit status; stdout ${run.stdout}; stderr ${run.stderr}`);
    assert.equal(
      run.stderr,
      `cannot start: ${script}'s function failed: it returned a promise that never settles (nothing was left ` +
        'to settle it)\n',
    );
    assert.deepEqual(await readdir(dir), ['db.js']);
  });

  test('two starts of one script at once: the first imports and serves, the second is refused and harms nothing', async () => {
    const dir = await scratchDirectory(defer);
    const script = join(dir, 'db.js');
    // Slow enough that the second start comes while the first is taking the data.
    await writeFile(
      script,
      'module.exports = async () => {\n' +
        '  await new Promise((resolve) => setTimeout(resolve, 300))\n' +
        "  return { posts: [{ id: 1, title: 'generated' }] }\n" +
        '}\n',
    );
    const [first, second] = await Promise.allSettled([
      prepareJsonServer(request(script), 'plainrest'),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => prepareJsonServer(request(script), 'plainrest')),
    ]);
    assert.equal(first.status, 'fulfilled', `the first start: ${String((first as PromiseRejectedResult).reason)}`);
    assert.equal(second.status, 'rejected');
    const refusal = (second as PromiseRejectedResult).reason as Error;
    assert.ok(refusal instanceof JsonServerError, String(refusal));
    const folder = join(dir, 'db.plainrest');
    assert.equal(
      refusal.message,
      `${script}: another start (process ${process.pid}) is importing it into ${folder} now (${folder}.importing): ` +
        'wait for it, then start again',
    );
    assert.deepEqual((await readdir(dir)).sort(), ['db.js', 'db.plainrest']);
    assert.deepEqual((await readdir(folder)).sort(), ['data', 'generated.json', 'imported.json', 'resources.json']);
    // A later start, the first one's import done, serves what it kept.
    const later = await prepareJsonServer(request(script), 'plainrest');
    assert.match(later.lines.at(-1) ?? '', /unchanged since its data was imported/);
  });

  test('a URL whose answer says it is larger than an import takes is refused at once, nothing left', async () => {
    const dir = await scratchDirectory(defer);
    const origin = await answering((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 ** 3) });
      res.write('{"posts": [');
    });
    const started = Date.now();
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await assert.rejects(
        prepareJsonServer(request(`${origin}/db.json`), 'plainrest'),
        (error: unknown) =>
          error instanceof JsonServerError &&
          error.message ===
            `${origin}/db.json answers 10737418240 bytes, more than an import takes (268435456); nothing was ` +
              'imported: save it as a file and serve that',
      );
    } finally {
      process.chdir(cwd);
    }
    assert.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms, not at the 30 s timeout`);
    assert.deepEqual(await readdir(dir), []);
  });

  test('a URL that answers without end is cut at the bound, not read until the memory runs out', async () => {
    const origin = await answering((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      res.write('{"posts": [');
      more();
    });
    await assert.rejects(
      sourceData(`${origin}/db.json`, 'url', 1024 * 1024),
      (error: unknown) =>
        error instanceof JsonServerError &&
        error.message ===
          `${origin}/db.json answers more than an import takes (1048576 bytes); nothing was imported: save it as a ` +
            'file and serve that',
    );
  });
});
