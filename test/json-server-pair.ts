// json-server 0.17 and plainrest side by side on one data file, for the dialect's tests (docs/json-server.md: Serving
// json-server's dialect): json-server's router in-process on a copy of the file, plainrest on the file imported with
// --access open and served with `jsonServer`; the same request to both, and what a client reads of each compared.

import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importFile } from '../src/cli/import-command.ts';
import type { ImportAccess } from '../src/importing/import-declaration.ts';
import type { JsonServerOptions, ServerOptions } from '../src/config/server-options.ts';
import type { RunningServer } from '../src/server/server.ts';
import { startServer } from '../src/server/server.ts';
import { TEST_AUTH_OPTIONS } from './helpers.ts';

const require = createRequire(import.meta.url);

/** json-server's module (CommonJS), as its package exports it. */
interface JsonServerModule {
  create(): { use(...handlers: unknown[]): void } & ((req: unknown, res: unknown) => void);
  defaults(options: Record<string, unknown>): unknown[];
  router(source: string): unknown;
  rewriter(routes: Readonly<Record<string, string>>): unknown;
}

/** What a client reads of an answer. */
export interface Seen {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | null>>;
  readonly text: string;
  readonly body: unknown;
}

/** Headers clients read, compared between the two (origins replaced by ORIGIN). */
export const COMPARED_HEADERS = [
  'x-total-count',
  'link',
  'location',
  'content-type',
  'access-control-expose-headers',
] as const;

export interface Pair {
  readonly jsonServer: string;
  readonly plainrest: RunningServer;
  /** The same request to both. */
  both(method: string, path: string, body?: unknown): Promise<{ json: Seen; plain: Seen }>;
  /** A request to plainrest alone (its /v1, or the dialect). */
  plain(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Seen>;
  close(): Promise<void>;
}

/**
 * json-server on a copy of `data` and plainrest on `data` imported, in `dir`; `options` go to plainrest's start and
 * `dialect` to its jsonServer option, and as json-server's --read-only, --static and --routes to json-server;
 * `access` is the import's --access.
 */
export async function startPair(
  dir: string,
  data: unknown,
  dialect: JsonServerOptions = {},
  options: ServerOptions = {},
  access: ImportAccess = 'open',
): Promise<Pair> {
  await mkdir(join(dir, 'json-server'), { recursive: true });
  const copy = join(dir, 'json-server', 'db.json');
  await writeFile(copy, JSON.stringify(data, null, 2));
  const file = join(dir, 'db.json');
  await writeFile(file, JSON.stringify(data, null, 2));
  const resources = join(dir, 'resources.json');
  const dataDir = join(dir, 'data');
  // Into a database when `options.database` names one (PostgreSQL), else a data directory.
  await importFile({ file, resources, target: options.database ?? dataDir, access, force: false });
  const jsonServer = require('json-server') as JsonServerModule;
  const app = jsonServer.create();
  // json-server's own command line with --read-only, --static and --routes, as lib/cli/run.js assembles it.
  const staticDir = dialect.staticDir ?? join(dir, 'json-server');
  app.use(jsonServer.defaults({ logger: false, static: staticDir, readOnly: dialect.readOnly === true }));
  if (dialect.routes !== undefined) app.use(jsonServer.rewriter(dialect.routes));
  app.use(jsonServer.router(copy));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jsonServerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const plainrest = await startServer({
    port: 0,
    ...(options.database === undefined ? { dataDir } : {}),
    resources,
    jsonServer: dialect,
    rateLimit: 0,
    ...TEST_AUTH_OPTIONS,
    ...options,
  });
  return {
    jsonServer: jsonServerUrl,
    plainrest,
    both: async (method, path, body) => {
      const [json, plain] = await Promise.all([
        seen(jsonServerUrl, method, path, body),
        seen(plainrest.url, method, path, body),
      ]);
      return { json, plain };
    },
    plain: (method, path, body, headers) => seen(plainrest.url, method, path, body, headers),
    close: async () => {
      await plainrest.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function seen(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Seen> {
  const response = await fetch(origin + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  const read: Record<string, string | null> = {};
  for (const name of COMPARED_HEADERS) read[name] = response.headers.get(name)?.replaceAll(origin, 'ORIGIN') ?? null;
  return { status: response.status, headers: read, text, body: parsed };
}

/** Members whose values differ by design: the times a record was made and changed. */
const TIMES = new Set(['createdAt', 'updatedAt']);

/**
 * `plain` holds all of `json`: the same status and compared headers, and every member of the body with the same value
 * (plainrest may add members; it may not drop or rename one), times aside.
 */
export function assertAgree(what: string, json: Seen, plain: Seen): void {
  assert.equal(plain.status, json.status, `${what}: status (plainrest answered ${plain.text.slice(0, 300)})`);
  for (const name of COMPARED_HEADERS) assert.equal(plain.headers[name], json.headers[name], `${what}: ${name}`);
  assertCovers(plain.body, json.body, `${what}: body`);
}

/** `actual` holds `expected`: objects member by member (more allowed), lists item by item, the rest equal. */
export function assertCovers(actual: unknown, expected: unknown, where: string): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${where}: a list expected, got ${JSON.stringify(actual)?.slice(0, 200)}`);
    assert.equal(actual.length, expected.length, `${where}: length`);
    expected.forEach((item, index) => assertCovers(actual[index], item, `${where}[${index}]`));
    return;
  }
  if (typeof expected === 'object' && expected !== null) {
    assert.ok(typeof actual === 'object' && actual !== null && !Array.isArray(actual), `${where}: an object expected`);
    for (const [key, value] of Object.entries(expected)) {
      assert.ok(Object.hasOwn(actual, key), `${where}: "${key}" missing in ${JSON.stringify(actual).slice(0, 200)}`);
      if (!TIMES.has(key)) assertCovers((actual as Record<string, unknown>)[key], value, `${where}.${key}`);
    }
    return;
  }
  assert.deepEqual(actual, expected, where);
}
