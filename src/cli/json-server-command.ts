// `plainrest db.json` (docs/json-server.md: One command): the file (or what a URL or script gives, json-server-source)
// imported on the first run into db.plainrest/ beside it (the declaration, the record of the import, the data
// directory), served from there by later runs, and refused once the file has changed since (--reimport imports it
// again); then the options that serve it, json-server's dialect at the root and the conventions at /v1.

import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { isDatabaseUrl } from '../config/config.ts';
import type { ServerOptions } from '../config/server-options.ts';
import type { ImportAccess } from '../importing/import-declaration.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import { StartupError } from '../store/data-directory.ts';
import { acquireLock } from '../store/data-lock.ts';
import { withoutPassword } from './banner.ts';
import type { ImportRecord } from './import-record.ts';
import { contentOf, folderOf, intoOf, readRecord, recordPath, UnreadableRecord, writeRecord } from './import-record.ts';
import { ImportError, importFile } from './import-command.ts';
import type { JsonServerValue } from './json-server-flags.ts';
import { JsonServerError, jsonServerSettings } from './json-server-settings.ts';
import { readOnlyDeclaration } from './read-only-declaration.ts';
import { importLock } from './import-lock.ts';
import type { SourceKind } from './json-server-source.ts';
import { createdIfMissing, dataFileOf, refuseDeclaration, scriptContent, sourceData } from './json-server-source.ts';
import { sourceFolder, sourceKind, sourceName } from './json-server-source.ts';

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

/**
 * Imports the file or finds its import, then the options to serve it with; `command` is how this process was run
 * (`npx plainrest`), for the lines that say what to run next.
 */
export async function prepareJsonServer(request: JsonServerRequest, command: string): Promise<PreparedServer> {
  const kind = sourceKind(request.source);
  const folder = kind === 'file' ? folderOf(request.source) : sourceFolder(request.source, kind);
  const release = await importLock(folder, request.source);
  try {
    return await prepared(request, command);
  } finally {
    await release();
  }
}

/** prepareJsonServer's work, while this start alone prepares the source's folder. */
async function prepared(request: JsonServerRequest, command: string): Promise<PreparedServer> {
  const { source, options, reimport } = request;
  const settings = await jsonServerSettings(request.flags, options);
  const kind = sourceKind(source);
  const folder = kind === 'file' ? folderOf(source) : sourceFolder(source, kind);
  const declaration = typeof options.resources === 'string' ? options.resources : join(folder, 'resources.json');
  const target = options.database ?? (typeof options.dataDir === 'string' ? options.dataDir : join(folder, 'data'));
  const lines = kind === 'file' ? await createdIfMissing(source) : [];
  const record = await readRecord(folder);
  const warnings = [...settings.warnings];
  if (record !== undefined && !reimport) {
    const into = intoOf(folder, target);
    // db.json, db.js and …/db.json (a URL, from this directory) have one folder: the first one's.
    if (record.file !== sourceName(source, kind))
      throw new JsonServerError(
        `${folder} holds the import of ${record.file}, not ${sourceName(source, kind)}: one folder is for one ` +
          'source; run this one from another directory',
      );
    if (record.into !== into)
      throw new JsonServerError(
        `${source} was imported into ${record.into} (${recordPath(folder)}), not ${into}: serve that one, or ` +
          'pass --reimport to import the file again',
      );
    // A URL is not fetched again: what it answers now is not compared with its import.
    const content = kind === 'file' ? await contentOf(source) : kind === 'script' ? await scriptContent(source) : '';
    if (kind !== 'url' && record.content !== content) throw changedSince(source, kind, folder, record, command);
    if (request.access !== undefined && request.access !== record.access)
      warnings.push(
        `--access ${request.access}: ${declaration} keeps the access of its import (${record.access}); change it ` +
          'there, or pass --reimport',
      );
    lines.push(servedAgain(source, kind, record, target, command));
    return served(settings, declaration, target, lines, warnings, { source, kind, content });
  }
  // A URL is fetched, and a script run, before anything is moved or written: one that fails leaves all as it was.
  const made = kind === 'file' ? undefined : { ...(await sourceData(source, kind)), file: dataFileOf(folder, kind) };
  const content = made?.content ?? (await contentOf(source));
  lines.push(...(await importInto(request, { folder, declaration, target, content, made })));
  return served(settings, declaration, target, lines, warnings, { source, kind, content });
}

/** The options a prepared import is served with, and --watch's file (a data file's only: the others are taken once). */
async function served(
  settings: Awaited<ReturnType<typeof jsonServerSettings>>,
  declaration: string,
  target: string,
  lines: string[],
  warnings: string[],
  { source, kind, content }: { source: string; kind: SourceKind; content: string },
): Promise<PreparedServer> {
  const resources = settings.readOnly ? await readOnlyDeclaration(declaration) : declaration;
  const place = isDatabaseUrl(target) ? { database: target } : { dataDir: target };
  const watched = settings.watch && kind === 'file' ? { source, content, target } : undefined;
  // A URL (json-server cannot watch one) or a script is taken once, at an import: the file's line becomes this one.
  const said =
    settings.watch && kind !== 'file'
      ? [
          ...warnings.filter((line) => !line.startsWith('--watch:')),
          `--watch: ${source} is ${kind === 'url' ? 'a URL' : 'a script'}, taken once at its import: nothing is ` +
            'watched (--reimport takes it again)',
        ]
      : warnings;
  const options = { ...settings.options, ...place, resources, seed: false };
  return { options, lines, warnings: said, declaration, watched };
}

/** The refusal of a start whose source changed since its import: the ways on, as the source allows them. */
function changedSince(
  source: string,
  kind: SourceKind,
  folder: string,
  record: ImportRecord,
  command: string,
): JsonServerError {
  const kept = `the records served so far are kept in ${folder}.previous`;
  if (kind === 'script')
    return new JsonServerError(
      `${source} has changed since its data was imported into ${folder} (${record.imported_at}): pass --reimport ` +
        `to run it again and import what it returns (${kept})`,
    );
  return new JsonServerError(
    `${source} has changed since it was imported into ${folder} (${record.imported_at}); the records served ` +
      `from there may have changed too: pass --reimport to import the file again (${kept}), or run ${command} ` +
      `export ${source} --force to write the served ones over it`,
  );
}

/** The line of a later run: what is served, and how to take the source anew. */
function servedAgain(source: string, kind: SourceKind, record: ImportRecord, target: string, command: string): string {
  const serving = `serving the records kept in ${shown(target)}`;
  const when = record.imported_at;
  if (kind === 'url')
    return `${source}: fetched at its import (${when}), not again; ${serving} (--reimport fetches it)`;
  if (kind === 'script')
    return `${source}: unchanged since its data was imported (${when}); ${serving} (--reimport runs it again)`;
  return (
    `${source}: unchanged since its import (${when}); ${serving} ` +
    `(writes go there, not into ${source}: ${command} export ${source} --force writes them back)`
  );
}

/** Where the records served are: a data directory, or the database (its password left out). */
export function shown(target: string): string {
  return isDatabaseUrl(target) ? `the database ${withoutPassword(target)}` : target;
}

/**
 * The first import, or another (--reimport): what was there moves to `….previous` (the folder, and a data directory
 * outside it), put back if the import fails; the records go into `target`, the declaration into `declaration`.
 */
async function importInto(
  request: JsonServerRequest,
  place: {
    readonly folder: string;
    readonly declaration: string;
    readonly target: string;
    readonly content: string;
    /** What a URL or a script gave, and the file in the folder it is kept in. */
    readonly made: { readonly text: string; readonly file: string } | undefined;
  },
): Promise<string[]> {
  const { source, reimport } = request;
  const { folder, declaration, target, content, made } = place;
  if (made === undefined) await refuseDeclaration(source);
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
    if (made !== undefined) await writeFile(made.file, made.text);
    const access = request.access ?? 'open';
    const file = made?.file ?? source;
    const summary = await importFile({ file, resources: declaration, target, access, force: reimport });
    const kind = sourceKind(source);
    const record: ImportRecord = {
      file: sourceName(source, kind),
      content,
      imported_at: isoTimestamp(),
      into: intoOf(folder, target),
      access,
    };
    await writeRecord(folder, record);
    return [
      ...summary,
      ...moved.map(([from, to]) => `moved ${from} to ${to}: the records served until now`),
      `imported ${source} into ${folder} (${made === undefined ? '' : `what it gave kept as ${made.file}, `}the ` +
        `declaration ${declaration}, the records in ${shown(target)}): served from there from now on; ` +
        (kind === 'url'
          ? `${source} is fetched again only with --reimport`
          : `${source} is ${kind === 'script' ? 'run' : 'read'} again only if it changes`),
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

/** The lines that explain why the command stopped, when `error` is one it explains; else undefined. */
export function failureLines(error: unknown): readonly string[] | undefined {
  if (error instanceof ImportError) return error.lines.map((line) => `cannot import: ${line}`);
  const system = typeof (error as Partial<NodeJS.ErrnoException> | undefined)?.syscall === 'string';
  if (error instanceof JsonServerError || error instanceof UnreadableRecord || error instanceof StartupError || system)
    return [`cannot start: ${(error as Error).message}`];
  return undefined;
}
