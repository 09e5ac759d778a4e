// The embedding examples work as written (docs/embedding.md, README: Embedding): every ```js block of the manual and of
// the README's section is run as a program, importing `plainrest` by name (the package's own exports: build dist/
// first, `npm run build`) and the hosts from node_modules. A block that serves on port 3000 is run on a free port
// instead and probed (its links under its base path, a JSON POST answered, never a hang, its own /hello), then stopped.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { freePort } from './free-port.ts';
import { REPOSITORY_ROOT } from './repository.ts';

/** A probe, or a program's whole run, that takes longer than this has hung. */
const NO_HANG_MS = 30_000;

/** The ```js blocks of `text` (a block whose info string says `fragment` is a piece of one, not run). */
function programs(text: string): string[] {
  return [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
}

/** The README's section `## Embedding`, to the next `## ` heading. */
async function readmeEmbedding(): Promise<string> {
  const readme = await readFile(join(REPOSITORY_ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Embedding\n'));
  assert.ok(section !== undefined, 'the README has an Embedding section');
  return section;
}

/**
 * Runs `program` with node in a fresh directory inside the repository (so that `plainrest` resolves to the package
 * itself, and its imports to node_modules), then calls `whileRunning` (if given) and stops it with SIGINT.
 */
async function run(
  program: string,
  whileRunning?: () => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const parent = join(REPOSITORY_ROOT, 'test', 'artifacts');
  await mkdir(parent, { recursive: true });
  const directory = await mkdtemp(join(parent, 'embedding-docs-'));
  try {
    await writeFile(join(directory, 'program.mjs'), program);
    const child = spawn(process.execPath, ['program.mjs'], {
      cwd: directory,
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit') as Promise<[number | null]>;
    const hang = setTimeout(() => child.kill('SIGKILL'), NO_HANG_MS * 2);
    try {
      if (whileRunning !== undefined) {
        await Promise.race([whileRunning(), exited.then(() => assert.fail(`it stopped by itself:\n${stderr}`))]);
        child.kill('SIGINT');
      }
      const [code] = await exited;
      return { code, stdout, stderr };
    } finally {
      clearTimeout(hang);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(NO_HANG_MS) });
}

/**
 * Asks `url`, the example's health check, until it answers 200 (the program is starting). Once an example listens its
 * routes are all in place, so another answer is some other server's, on a port taken between freePort and the
 * example's listen: the example then stops (the port in use) and says why.
 */
async function whenAnswering(url: string): Promise<void> {
  const deadline = Date.now() + NO_HANG_MS;
  for (;;) {
    try {
      const answer = await send(url);
      if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${await answer.text()}`);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** What every serving example must do on `origin`, plainrest under `basePath`. */
async function probe(origin: string, basePath: string, hostRoute: boolean): Promise<void> {
  await whenAnswering(`${origin}${basePath}/healthz`);
  const index = await send(`${origin}${basePath}/v1`);
  assert.equal(index.status, 200, await index.clone().text());
  const { links } = (await index.json()) as { links: Record<string, string> };
  assert.equal(links['self'], `${basePath}/v1`);
  for (const link of Object.values(links)) assert.ok(link.startsWith(`${basePath}/v1`), link);
  // A JSON POST is answered (whatever the host's body parsers did), here 401: these are no one's credentials.
  const login = await send(`${origin}${basePath}/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'nobody@example.com', password: 'not-a-password' }),
  });
  assert.equal(login.status, 401, await login.clone().text());
  assert.equal(((await login.json()) as { instance: string }).instance, `${basePath}/v1/tokens`);
  const products = await send(`${origin}${basePath}/v1/products`);
  assert.equal(products.status, 401, 'the API needs a token, under the base path too');
  if (hostRoute) {
    const hello = await send(`${origin}/hello`);
    assert.equal(hello.status, 200);
    assert.equal(await hello.text(), 'hello from the host\n');
  }
}

/** Runs one example: a serving one on a free port, probed; any other to its end. */
async function runExample(program: string): Promise<void> {
  if (!/\b3000\b/.test(program)) {
    const { code, stdout, stderr } = await run(program);
    assert.equal(code, 0, `exit ${code}:\n${stderr}`);
    assert.equal(stderr, '');
    assert.ok(stdout.length > 0, 'it printed what it shows');
    return;
  }
  const port = await freePort();
  const basePath = /basePath: '([^']*)'/.exec(program)?.[1] ?? '';
  const { code, stdout, stderr } = await run(program.replace(/\b3000\b/g, String(port)), () =>
    probe(`http://127.0.0.1:${port}`, basePath, program.includes("'/hello'")),
  );
  // What a program says it does, it does: stop cleanly on SIGINT, print the password, say where it serves.
  if (program.includes("process.once('SIGINT'"))
    assert.equal(code, 0, `after SIGINT it closed and ended by itself (exit ${code}):\n${stderr}`);
  assert.equal(stderr, '');
  if (program.includes('takeGeneratedAdminPassword()'))
    assert.match(stdout, /^administrator admin@example\.com, password \S{16} \(shown once\)$/m);
  if (program.includes('plainrest at'))
    assert.match(stdout, new RegExp(`^plainrest at http://localhost:${port}${basePath}/$`, 'm'));
}

describe('docs/embedding.md: every example runs as written', async () => {
  const manual = programs(await readFile(join(REPOSITORY_ROOT, 'docs', 'embedding.md'), 'utf8'));
  test('the manual shows node:http, Express, Fastify and Hono', () => {
    const hosts = ["from 'node:http'", "from 'express'", "from 'fastify'", "from '@hono/node-server'"];
    for (const host of hosts)
      assert.ok(
        manual.some((program) => program.includes(host)),
        host,
      );
  });
  for (const [index, program] of manual.entries()) {
    const host = /^import .* from '([^']+)';$/m.exec(program)?.[1] ?? `block ${index + 1}`;
    test(`the ${host} example serves under its base path, answers a JSON POST, and stops on SIGINT`, () =>
      runExample(program));
  }
});

describe("README: Embedding's examples run as written", async () => {
  const examples = programs(await readmeEmbedding());
  test('the section has examples', () => assert.ok(examples.length > 0));
  for (const [index, program] of examples.entries()) {
    test(`example ${index + 1} runs`, () => runExample(program));
  }
});
