// The one-file build (docs/one-file.md): dist/plainrest.mjs copied alone (no node_modules, no package.json, no data/)
// into an empty directory serves the example, writes, stops, is killed after an acknowledged write and reads everything
// back; a program that imports it gets the embedding API and nothing else; and the file reads as the source does: each
// module under its path and header, in src/README.md's layer order, its names kept (build first: `npm run build`).

import assert from 'node:assert/strict';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import type { RunningProcess } from './child-process.ts';
import { killAll, runToExit, startProcess } from './child-process.ts';
import { processEnvironment, temporaryDirectory, TEST_ADMIN_PASSWORD } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const ONE_FILE = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
const SOURCE = join(REPOSITORY_ROOT, 'src');

const scratches: { remove: () => Promise<void> }[] = [];
after(async () => {
  await killAll();
  for (const scratch of scratches) await scratch.remove();
});

/** A fresh empty directory holding only a copy of dist/plainrest.mjs. */
async function copiedAlone(): Promise<string> {
  const scratch = await temporaryDirectory();
  scratches.push(scratch);
  await copyFile(ONE_FILE, join(scratch.path, 'plainrest.mjs'));
  assert.deepEqual(await readdir(scratch.path), ['plainrest.mjs']);
  return scratch.path;
}

/** None of the test's environment: processEnvironment's, and the administrator's password. */
const ENV = processEnvironment({ ADMIN_PASSWORD: TEST_ADMIN_PASSWORD });

/** `node plainrest.mjs --port 0 --data-dir data` in `dir`; resolves once it listens, with its URL. */
async function serve(dir: string): Promise<{ server: RunningProcess; url: string }> {
  const server = startProcess(process.execPath, ['plainrest.mjs', '--port', '0', '--data-dir', 'data'], {
    cwd: dir,
    env: ENV,
  });
  const [, url] = await server.waitFor(/^plainrest listening on (\S+)$/m);
  return { server, url: url as string };
}

describe('the one file copied alone', () => {
  test('serves the example, keeps what it acknowledged across SIGTERM and SIGKILL, and reads it back', async () => {
    const dir = await copiedAlone();
    let { server, url } = await serve(dir);
    await server.waitFor(/^data: data \(3 users, 12 products, 5 orders, 0 keys\)$/m);
    await server.waitFor(/\(or: node plainrest\.mjs token <email>\)$/m);

    const minted = await runToExit(process.execPath, ['plainrest.mjs', 'token', 'admin@example.com'], {
      cwd: dir,
      env: { ...ENV, DATA_DIR: 'data' },
    });
    assert.equal(minted.code, 0, minted.stderr);
    const headers = { authorization: `Bearer ${minted.stdout.trim()}`, 'content-type': 'application/json' };
    const create = async (name: string): Promise<Record<string, unknown>> => {
      const response = await fetch(`${url}/v1/products`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name, category: 'tools', price: 9.5 }),
      });
      assert.equal(response.status, 201);
      return (await response.json()) as Record<string, unknown>;
    };
    const read = async (path: string): Promise<unknown> => {
      const response = await fetch(`${url}${path}`, { headers });
      assert.equal(response.status, 200, path);
      return response.json();
    };
    const stopped = await create('Stopped with SIGTERM');
    assert.equal(stopped['id'], 13);

    server.signal('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.match(server.stdout(), /^SIGTERM: finishing in-flight requests, then stopping\nstopped\n$/m);

    ({ server, url } = await serve(dir));
    assert.deepEqual(await read('/v1/products/13'), stopped);
    const killed = await create('Killed with SIGKILL');
    server.signal('SIGKILL');
    assert.deepEqual(await server.exited, { code: null, signal: 'SIGKILL' });

    ({ server, url } = await serve(dir));
    assert.deepEqual(await read('/v1/products/13'), stopped);
    assert.deepEqual(await read(`/v1/products/${killed['id'] as number}`), killed);
    const list = (await read('/v1/products?limit=100')) as { meta: { total: number } };
    assert.equal(list.meta.total, 14);
    server.signal('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.deepEqual((await readdir(dir)).sort(), ['data', 'plainrest.mjs']);
  });

  test('prints its version and the OpenAPI document, and names the PostgreSQL package it loads from outside', async () => {
    const dir = await copiedAlone();
    const { version } = JSON.parse(await readFile(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.deepEqual(await runToExit(process.execPath, ['plainrest.mjs', '--version'], { cwd: dir, env: ENV }), {
      code: 0,
      stdout: `${version}\n`,
      stderr: '',
    });
    const openapi = await runToExit(process.execPath, ['plainrest.mjs', 'openapi'], { cwd: dir, env: ENV });
    assert.equal(openapi.code, 0, openapi.stderr);
    const document = JSON.parse(openapi.stdout) as { openapi: string; paths: Record<string, unknown> };
    assert.match(document.openapi, /^3\.1\.\d+$/);
    assert.ok('/v1/products/{product_id}' in document.paths);

    const database = await runToExit(process.execPath, ['plainrest.mjs', '--port', '0'], {
      cwd: dir,
      env: {
        ...ENV,
        DATABASE_URL: 'postgres://plainrest@127.0.0.1:1/plainrest',
        TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters',
      },
    });
    assert.deepEqual(database, {
      code: 2,
      stdout: '',
      stderr:
        'cannot start: DATABASE_URL needs the optional package plainrest-postgres: npm install plainrest-postgres\n',
    });
  });

  test('imported by a program, it is the embedding API and does nothing else to the process', async () => {
    const dir = await copiedAlone();
    const program = await temporaryDirectory();
    scratches.push(program);
    await writeFile(
      join(program.path, 'embed.mjs'),
      [
        `const plainrest = await import(process.argv[2]);`,
        `console.log(Object.keys(plainrest).sort().join(' '));`,
        `const server = await plainrest.startServer({ port: 0, dataDir: null, adminPassword: process.argv[3] });`,
        `const login = await fetch(server.url + '/v1/tokens', {`,
        `  method: 'POST',`,
        `  headers: { 'content-type': 'application/json' },`,
        `  body: JSON.stringify({ email: 'admin@example.com', password: process.argv[3] }),`,
        `});`,
        `const { access_token } = await login.json();`,
        `const list = await fetch(server.url + '/v1/products', { headers: { authorization: 'Bearer ' + access_token } });`,
        `console.log(list.status, (await list.json()).meta.total);`,
        `await server.close();`,
        `console.log('closed');`,
      ].join('\n'),
    );
    const url = pathToFileURL(join(dir, 'plainrest.mjs')).href;
    const result = await runToExit(process.execPath, ['embed.mjs', url, TEST_ADMIN_PASSWORD], {
      cwd: program.path,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    const exported = Object.keys(await import('../src/index.ts')).sort();
    assert.deepEqual(result, { code: 0, stdout: `${exported.join(' ')}\n200 12\nclosed\n`, stderr: '' });
  });
});

/** The folders of src/ in src/README.md's table of layers, bottom first. */
async function layers(): Promise<string[]> {
  const guide = await readFile(join(SOURCE, 'README.md'), 'utf8');
  return [...guide.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((match) => match[1] as string);
}

/** Every module of src/ but main.ts (which the one file replaces), as a path under src/. */
async function modules(): Promise<string[]> {
  const names = await readdir(SOURCE, { recursive: true });
  return names.filter((name) => name.endsWith('.ts') && name !== 'main.ts').sort();
}

describe('the one file as a text', () => {
  test('says how it was made and where its source is, maps back to it, and is one byte a character', async () => {
    const text = await readFile(ONE_FILE, 'utf8');
    // Nothing above U+00FF, so V8 holds the source it keeps at one byte a character.
    assert.deepEqual(text.match(/[^\u0000-\u00ff]/gu), null);
    const lines = text.split('\n');
    assert.equal(lines[0], '#!/usr/bin/env node');
    assert.match(lines.slice(1, 5).join('\n'), /Made by `npm run build \(node \.build\/one-file\.mjs\)` with esbuild/);
    assert.match(lines.slice(1, 5).join('\n'), /repository's src\/.*plainrest\.mjs\.map/s);
    assert.equal(lines.at(-2), '//# sourceMappingURL=plainrest.mjs.map');
    const map = JSON.parse(await readFile(`${ONE_FILE}.map`, 'utf8')) as { sources: string[] };
    const mapped = map.sources.map((source) => source.replace(/^\.\.\/src\//, ''));
    assert.deepEqual(
      (await modules()).filter((module) => !mapped.includes(module)),
      [],
    );
  });

  test("holds every module under its path and header, in src/README.md's layer order", async () => {
    const text = await readFile(ONE_FILE, 'utf8');
    // The build writes the comments' typographic characters in ASCII (a dash as --).
    const build = pathToFileURL(join(REPOSITORY_ROOT, '.build', 'one-file.mjs')).href;
    const { inLatin1 } = (await import(build)) as { inLatin1: (text: string) => string };
    const missing: string[] = [];
    for (const module of await modules()) {
      const source = await readFile(join(SOURCE, module), 'utf8');
      const header = /^(?:#!.*\n)?((?:\/\/.*\n)+)/.exec(source)?.[1] ?? '';
      const kept = inLatin1(header.replace(/^\/\//gm, '//!'));
      // A module a dynamic import loads opens with its exports' object (below: withStaticImports), then its header.
      const exportsObject = text.indexOf(`// src/${module}\nvar `) + `// src/${module}\n`.length;
      const afterExports = text.indexOf('\n});\n', exportsObject) + '\n});\n'.length;
      if (!text.includes(`// src/${module}\n${kept}`) && !text.startsWith(kept, afterExports)) missing.push(module);
    }
    assert.deepEqual(missing, [], 'modules without their path and header comment');

    const order = await layers();
    const folders = [...text.matchAll(/^\/\/ src\/([a-z-]+)\//gm)].map((match) => match[1] as string);
    const ranks = folders.map((folder) => order.indexOf(folder));
    assert.ok(!ranks.includes(-1));
    assert.deepEqual(
      ranks,
      [...ranks].sort((a, b) => a - b),
    );
  });

  test('keeps the names the source gives (not minified)', async () => {
    const text = await readFile(ONE_FILE, 'utf8');
    const renamed: string[] = [];
    let declared = 0;
    for (const module of await modules()) {
      const source = await readFile(join(SOURCE, module), 'utf8');
      for (const [, kind, name] of source.matchAll(/^export (?:async )?(function|class|const) (\w+)/gm)) {
        declared++;
        // esbuild writes a class as `var Name = class`, and adds a number to a name another module took first.
        const written = kind === 'function' ? `function ${name}` : `var ${name}`;
        if (!new RegExp(`^(?:async )?${written}\\d*(?: =|\\()`, 'm').test(text)) renamed.push(name as string);
      }
    }
    assert.ok(declared > 400, `only ${declared} exported declarations found`);
    assert.deepEqual(renamed, []);
  });
});
