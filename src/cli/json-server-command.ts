// `plainrest db.json` (docs/json-server.md: One command): the file imported on the first run into db.plainrest/ beside
// it (the declaration, the record of the import, the data directory), served from there by later runs, and refused
// once the file has changed since (--reimport imports it again); then the options that serve it with json-server's
// dialect at the root and the conventions at /v1.

import { watch } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isDatabaseUrl } from '../config/config.ts';
import type { ServerOptions } from '../config/server-options.ts';
import type { JsonObject } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { ImportAccess } from '../importing/import-declaration.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import { StartupError } from '../store/data-directory.ts';
import { acquireLock } from '../store/data-lock.ts';
import { FILE_NAMES_MEMBER, fileNamesOf } from '../declarations/file-names.ts';
import { withoutPassword } from './banner.ts';
import type { ImportRecord } from './import-record.ts';
import { contentOf, folderOf, intoOf, readRecord, recordPath, UnreadableRecord, writeRecord } from './import-record.ts';
import { ImportError, importFile } from './import-command.ts';
import type { JsonServerValue } from './json-server-flags.ts';
import { JsonServerError, jsonServerSettings } from './json-server-settings.ts';
import { readOnlyDeclaration } from './read-only-declaration.ts';

export interface JsonServerRequest {
  readonly source: string;
  /** json-server's flags, by name. */
  readonly flags: ReadonlyMap<string, JsonServerValue>;
  /** plainrest's settings, from the environment and flags (DATA_DIR, DATABASE_URL, RATE_LIMIT …). */
  readonly options: ServerOptions;
  /** --access, for an import; `open` when not given (json-server lets anyone write). */
  readonly access: ImportAccess | undefined;
  readonly reimport: boolean;
}

/** What a server is started with, and what to say before and after its banner. */
export interface PreparedServer {
  readonly options: ServerOptions;
  /** What was imported, or which import is served. */
  readonly lines: readonly string[];
  /** Each flag taken otherwise than json-server takes it. */
  readonly warnings: readonly string[];
  /** The declaration served: its collections are the dialect's paths. */
  readonly declaration: string;
  /** --watch: the file, its data as imported, and where the records served are. */
  readonly watched: { readonly source: string; readonly content: string; readonly target: string } | undefined;
}

/** What json-server 0.17 writes into a data file that does not exist, before serving it. */
const EXAMPLE = {
  posts: [{ id: 1, title: 'json-server', author: 'typicode' }],
  comments: [{ id: 1, body: 'some comment', postId: 1 }],
  profile: { name: 'typicode' },
};

/**
 * Imports the file or finds its import, then the options to serve it with; `command` is how this process was run
 * (`npx plainrest`), for the lines that say what to run next.
 */
export async function prepareJsonServer(request: JsonServerRequest, command: string): Promise<PreparedServer> {
  const { source, options, reimport } = request;
  const settings = await jsonServerSettings(request.flags, options);
  const folder = folderOf(source);
  const declaration = typeof options.resources === 'string' ? options.resources : join(folder, 'resources.json');
  const target = options.database ?? (typeof options.dataDir === 'string' ? options.dataDir : join(folder, 'data'));
  const lines = await createdIfMissing(source);
  const content = await contentOf(source);
  const record = await readRecord(folder);
  const warnings = [...settings.warnings];
  if (record !== undefined && !reimport) {
    const into = intoOf(folder, target);
    if (record.file !== basename(source))
      throw new JsonServerError(
        `${folder} holds the import of ${record.file}, not ${basename(source)}; name another place with --data-dir`,
      );
    if (record.into !== into)
      throw new JsonServerError(
        `${source} was imported into ${record.into} (${recordPath(folder)}), not ${into}: serve that one, or ` +
          'pass --reimport to import the file again',
      );
    if (record.content !== content)
      throw new JsonServerError(
        `${source} has changed since it was imported into ${folder} (${record.imported_at}); the records served ` +
          `from there may have changed too: pass --reimport to import the file again (the records served so far are ` +
          `kept in ${folder}.previous), or run ${command} export ${source} --force to write the served ones over it`,
      );
    if (request.access !== undefined && request.access !== record.access)
      warnings.push(
        `--access ${request.access}: ${declaration} keeps the access of its import (${record.access}); change it ` +
          'there, or pass --reimport',
      );
    lines.push(
      `${source}: unchanged since its import (${record.imported_at}); serving the records kept in ${shown(target)} ` +
        `(writes go there, not into ${source}: ${command} export ${source} --force writes them back)`,
    );
  } else {
    lines.push(...(await importInto(request, folder, declaration, target, content)));
  }
  const resources = settings.readOnly ? await readOnlyDeclaration(declaration) : declaration;
  const place = isDatabaseUrl(target) ? { database: target } : { dataDir: target };
  const watched = settings.watch ? { source, content, target } : undefined;
  return { options: { ...settings.options, ...place, resources, seed: false }, lines, warnings, declaration, watched };
}

/** As json-server 0.17: a data file that does not exist is made with its example data. */
async function createdIfMissing(source: string): Promise<string[]> {
  const found = await stat(source).catch(() => undefined);
  if (found !== undefined) return [];
  await writeFile(source, `${JSON.stringify(EXAMPLE, null, 2)}\n`, { flag: 'wx' });
  return [`${source} did not exist: made it with json-server's example data (posts, comments, profile)`];
}

function shown(target: string): string {
  return isDatabaseUrl(target) ? `the database ${withoutPassword(target)}` : target;
}

/**
 * The first import, or another (--reimport): what was there moves to `….previous` (the folder, and a data directory
 * outside it), put back if the import fails; the records go into `target`, the declaration into `declaration`.
 */
async function importInto(
  request: JsonServerRequest,
  folder: string,
  declaration: string,
  target: string,
  content: string,
): Promise<string[]> {
  const { source, reimport } = request;
  await refuseDeclaration(source);
  if (!reimport && (await stat(declaration).catch(() => undefined)) !== undefined)
    throw new JsonServerError(
      `${declaration} is there but no record of an import beside it (${recordPath(folder)}): pass ` +
        `--reimport to import ${source} again`,
    );
  const moved: [string, string][] = [];
  const directory = isDatabaseUrl(target) ? undefined : resolve(target);
  const inFolder = directory !== undefined && !relative(resolve(folder), directory).startsWith('..');
  let madeFolder = false;
  try {
    if (reimport && directory !== undefined && (await stat(directory).catch(() => undefined)) !== undefined)
      await (await acquireLock(directory)).release(); // a running server keeps its data
    for (const path of reimport ? [folder, ...(directory !== undefined && !inFolder ? [directory] : [])] : [])
      if ((await stat(path).catch(() => undefined)) !== undefined) {
        await rm(`${path}.previous`, { recursive: true, force: true });
        await rename(path, `${path}.previous`);
        moved.push([path, `${path}.previous`]);
      }
    madeFolder = (await stat(folder).catch(() => undefined)) === undefined;
    await mkdir(folder, { recursive: true });
    const access = request.access ?? 'open';
    const summary = await importFile({ file: source, resources: declaration, target, access, force: reimport });
    const record: ImportRecord = {
      file: basename(source),
      content,
      imported_at: isoTimestamp(),
      into: intoOf(folder, target),
      access,
    };
    await writeRecord(folder, record);
    return [
      ...summary,
      ...moved.map(([from, to]) => `moved ${from} to ${to}: the records served until now`),
      `imported ${source} into ${folder} (the declaration ${declaration}, the records in ${shown(target)}): ` +
        `served from there from now on; ${source} is read again only if it changes`,
    ];
  } catch (error) {
    // Nothing of this import is left: what it made goes, what it moved aside comes back.
    if (madeFolder) await rm(folder, { recursive: true, force: true });
    for (const [from, to] of moved.reverse()) {
      await rm(from, { recursive: true, force: true });
      await rename(to, from);
    }
    throw error;
  }
}

/** A declaration named instead of a data file (`plainrest resources.json`) would be imported as data: refused. */
async function refuseDeclaration(source: string): Promise<void> {
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

/**
 * After the banner, what json-server prints at a start: the dialect's paths at the root (each collection under the
 * file's name, and /db), the conventions at /v1, and --routes' rules; and with --watch, the file watched.
 */
export async function afterStart(
  url: string,
  prepared: PreparedServer,
  warn: (line: string) => void,
): Promise<string[]> {
  if (prepared.watched !== undefined) watchSource(prepared.watched, warn);
  const text = await readFile(prepared.declaration, 'utf8').catch(() => '{}');
  const declared = (JSON.parse(text) as { resources?: Record<string, Record<string, unknown>> }).resources ?? {};
  const paths = Object.entries(declared).map(([name, collection]) => {
    const fileName = fileNamesOf(name, collection[FILE_NAMES_MEMBER]).collection;
    return `${url}/${fileName}`;
  });
  const rules = Object.entries(prepared.options.jsonServer?.routes ?? {});
  return [
    `json-server's routes: ${[...paths, `${url}/db`].join(', ')}`,
    `the same records under the conventions: ${url}/v1 (${url}/v1/openapi.json describes them)`,
    ...(rules.length === 0
      ? []
      : [`rewritten (--routes): ${rules.map(([from, to]) => `${from} -> ${to}`).join(', ')}`]),
  ];
}

/**
 * --watch: json-server reloads a changed file; plainrest serves on the records it keeps, and says so once for each
 * change of the file's data. A file caught while being written (empty, or cut short) does not parse and is passed
 * over: the event that ends its writing reads it whole.
 */
function watchSource(watched: NonNullable<PreparedServer['watched']>, warn: (line: string) => void): void {
  const { source, content, target } = watched;
  let told = content;
  watch(dirname(source), { persistent: false }, (_event, name) => {
    if (name !== basename(source)) return;
    contentOf(source, true).then(
      (now) => {
        if (now === told) return;
        told = now;
        if (now !== content)
          warn(
            `${source} has changed: still serving the records kept in ${shown(target)}; start again with --reimport ` +
              'to serve the file (those served until then are kept aside)',
          );
      },
      () => {},
    );
  });
}

/** The lines that explain why the command stopped, when `error` is one it explains; else undefined. */
export function failureLines(error: unknown): readonly string[] | undefined {
  if (error instanceof ImportError) return error.lines.map((line) => `cannot import: ${line}`);
  const system = typeof (error as Partial<NodeJS.ErrnoException> | undefined)?.syscall === 'string';
  if (error instanceof JsonServerError || error instanceof UnreadableRecord || error instanceof StartupError || system)
    return [`cannot start: ${(error as Error).message}`];
  return undefined;
}
