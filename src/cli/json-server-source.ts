// What `plainrest db.json` serves (docs/json-server.md: One command): a data file (made with json-server's example when
// missing; a declaration refused), a URL (`plainrest http://host/db.json`, json-server's remote schema) or a script
// (`plainrest db.js`, its exported function called for the data, as json-server's generated data), these two taken
// once, at an import, their data kept as a file in the folder of the import.

import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { JsonObject } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import { JsonServerError } from './json-server-settings.ts';

export type SourceKind = 'file' | 'url' | 'script';

/** What json-server 0.17 writes into a data file that does not exist, before serving it. */
const EXAMPLE = {
  posts: [{ id: 1, title: 'json-server', author: 'typicode' }],
  comments: [{ id: 1, body: 'some comment', postId: 1 }],
  profile: { name: 'typicode' },
};

/** How long a URL's answer may take to arrive whole, at an import. */
const FETCH_TIMEOUT_MS = 30_000;

/** The most bytes a URL's answer may hold: a larger one is refused, not held in memory (256 MiB). */
export const MOST_FETCHED_BYTES = 256 * 1024 * 1024;

/** As json-server tells them apart (its cli/utils/is.js): a URL by its scheme, a script by its name. */
export function sourceKind(source: string): SourceKind {
  if (/^https?:/.test(source)) return 'url';
  return /\.c?js$/.test(source) ? 'script' : 'file';
}

/**
 * The folder of a URL's or a script's import: `db.plainrest` beside a script, and for a URL in the working directory,
 * named after its path's last segment (`…/api/db.json` → `db.plainrest`; none: `remote.plainrest`).
 */
export function sourceFolder(source: string, kind: Exclude<SourceKind, 'file'>): string {
  if (kind === 'script') return join(dirname(source), `${basename(source, extname(source))}.plainrest`);
  const segment = new URL(source).pathname.split('/').findLast((step) => step !== '') ?? '';
  const name = decodeURIComponentSafely(segment)
    .replace(/\.json5?$/, '')
    .replace(/[^\w.-]/g, '-')
    .replace(/^\.+/, '');
  return `${name === '' ? 'remote' : name}.plainrest`;
}

/** Where the data a URL or a script gave is kept, in its folder: the file the import reads. */
export function dataFileOf(folder: string, kind: Exclude<SourceKind, 'file'>): string {
  return join(folder, kind === 'url' ? 'fetched.json' : 'generated.json');
}

/** What a record of an import names its source by: a file's or a script's name in its directory, a URL whole. */
export function sourceName(source: string, kind: SourceKind): string {
  return kind === 'url' ? source : basename(source);
}

/** As json-server 0.17: a data file that does not exist is made with its example data. */
export async function createdIfMissing(source: string): Promise<string[]> {
  const found = await stat(source).catch(() => undefined);
  if (found !== undefined) return [];
  await writeFile(source, `${JSON.stringify(EXAMPLE, null, 2)}\n`, { flag: 'wx' });
  return [`${source} did not exist: made it with json-server's example data (posts, comments, profile)`];
}

/** A declaration named instead of a data file (`plainrest resources.json`) would be imported as data: refused. */
export async function refuseDeclaration(source: string): Promise<void> {
  let data: unknown;
  try {
    data = JSON.parse((await readFile(source, 'utf8')).replace(/^\uFEFF/, ''));
  } catch {
    return; // JSON5, or no JSON: the import reads it and says what is wrong
  }
  const resources =
    isJsonObject(data) && Object.keys(data).length === 1 ? (data as JsonObject)['resources'] : undefined;
  const collections = isJsonObject(resources ?? null) ? Object.values(resources as JsonObject) : [];
  const declared = (value: unknown): boolean => isJsonObject(value) && ('singular' in value || 'properties' in value);
  if (collections.length > 0 && collections.every(declared))
    throw new JsonServerError(
      `${source} is a declaration (its one member is resources), not json-server's data: serve it with ` +
        `--resources ${source}`,
    );
}

/** The data a URL answers or a script's function returns, as JSON text, with its digest; else a refusal's line. */
export async function sourceData(
  source: string,
  kind: Exclude<SourceKind, 'file'>,
  mostBytes = MOST_FETCHED_BYTES,
): Promise<{ readonly text: string; readonly content: string }> {
  const data = kind === 'url' ? await fetched(source, mostBytes) : await generated(source);
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new JsonServerError(
      `${source} gave ${Array.isArray(data) ? 'a list' : String(data)}, not json-server's data (an object)`,
    );
  const text = JSON.stringify(data);
  return {
    text: `${JSON.stringify(data, null, 2)}\n`,
    content: kind === 'url' ? digest(text) : await scriptContent(source),
  };
}

/** A script's content, to tell a changed one: a digest of its text (what it returns may differ at each call). */
export async function scriptContent(script: string): Promise<string> {
  const text = await readFile(script).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new JsonServerError(`${script}: no such file`);
    throw error;
  });
  return digest(text);
}

function digest(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The JSON a URL answers with a 2xx status, within FETCH_TIMEOUT_MS and `mostBytes`. */
async function fetched(url: string, mostBytes: number): Promise<unknown> {
  let text: string;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      throw new JsonServerError(`${url} answered ${response.status}; nothing was imported`);
    }
    text = await boundedText(url, response, mostBytes);
  } catch (error) {
    if (error instanceof JsonServerError) throw error;
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new JsonServerError(`could not fetch ${url} (${cause}); nothing was imported`);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    throw new JsonServerError(`${url}: not JSON (${(error as Error).message}); json-server's db.json is a JSON object`);
  }
}

/** A response's body as UTF-8 text, refused once it says or shows it holds more than `mostBytes`. */
async function boundedText(url: string, response: Response, mostBytes: number): Promise<string> {
  const tooLarge = (size: string): JsonServerError =>
    new JsonServerError(`${url} answers ${size}; nothing was imported: save it as a file and serve that`);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > mostBytes) {
    await response.body?.cancel();
    throw tooLarge(`${declared} bytes, more than an import takes (${mostBytes})`);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body ?? []) {
    received += chunk.byteLength;
    // Leaving the loop cancels the body: the rest is not read.
    if (received > mostBytes) throw tooLarge(`more than an import takes (${mostBytes} bytes)`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * What a script's exported function returns (awaited), as json-server calls it: `module.exports`, or an ES module's
 * default export; read anew each time (json-server clears require's cache too).
 */
async function generated(script: string): Promise<unknown> {
  await scriptContent(script);
  let exported: unknown;
  try {
    exported = await settledOrRefused(exportOf(resolve(script)), 'it never finishes loading (a top-level await)');
  } catch (error) {
    throw new JsonServerError(`${script} could not be loaded: ${messageOf(error)}`);
  }
  if (typeof exported !== 'function')
    throw new JsonServerError(`${script} exports no function: json-server calls what a script exports for its data`);
  try {
    const returned = Promise.resolve((exported as () => unknown)());
    return await settledOrRefused(returned, 'it returned a promise that never settles (nothing was left to settle it)');
  } catch (error) {
    throw new JsonServerError(`${script}'s function failed: ${messageOf(error)}`);
  }
}

/**
 * `work` awaited; refused with `never` once the event loop has nothing left to do while it waits (Node's
 * 'beforeExit'): nothing can settle it then, and the process would end in silence, with status 0.
 */
async function settledOrRefused<T>(work: Promise<T>, never: string): Promise<T> {
  let refuse = (): void => {};
  const stuck = new Promise<never>((_resolve, reject) => {
    refuse = () => reject(new Error(never));
  });
  process.once('beforeExit', refuse);
  try {
    return await Promise.race([work, stuck]);
  } finally {
    process.off('beforeExit', refuse);
  }
}

/** A CommonJS module's exports, or an ES module's default export (import()ed where require cannot load it). */
async function exportOf(path: string): Promise<unknown> {
  const require = createRequire(import.meta.url);
  try {
    delete require.cache[path];
    const exported = require(path) as unknown;
    // An ES module required (Node from 22.12: its namespace; a loader's compiled form: __esModule): its default.
    const module = exported as { [Symbol.toStringTag]?: string; __esModule?: boolean; default?: unknown } | null;
    const isModule = module?.[Symbol.toStringTag] === 'Module' || module?.__esModule === true;
    return isModule ? module?.default : exported;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error;
    // A new URL each time, so that a changed module is read again.
    return ((await import(`${pathToFileURL(path).href}?${Date.now()}`)) as { default?: unknown }).default;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
