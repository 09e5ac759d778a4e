// `plainrest export <db.json>` (docs/json-server.md: Leaving): every record of a data directory or database written
// back as a json-server data file (json-server-file.ts: the file's names, ids as kept, singletons as objects), whole
// or not at all, never over a file without --force; by default from the folder `plainrest db.json` made beside it.

import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { ResourcesDeclaration } from '../declarations/declaration.ts';
import { DeclarationError, loadDeclarationFile } from '../declarations/load-declaration.ts';
import { StartupError } from '../store/data-directory.ts';
import { counted } from './banner.ts';
import { CopyError, readEveryRecord } from './copy-data.ts';
import { contentOf, folderOf, intoOf, readRecord, recordPath, writeRecord } from './import-record.ts';
import { jsonServerData } from './json-server-file.ts';

export interface ExportRequest {
  /** The json-server data file to write. */
  readonly file: string;
  /** The data directory or postgres:// URL the records are in; default the folder's, `db.plainrest/data`. */
  readonly from: string | undefined;
  /** Their declaration; default the folder's, `db.plainrest/resources.json`. */
  readonly resources: string | undefined;
  /** Write over a file already there. */
  readonly force: boolean;
  /** The administrator's email (ADMIN_EMAIL): the server made that user, the file did not hold it. */
  readonly administrator: string;
}

/** Stops an export, one line, nothing written. */
export class ExportError extends Error {}

export async function exportFile(request: ExportRequest): Promise<string[]> {
  const { file, force } = request;
  const folder = folderOf(file);
  const from = request.from ?? join(folder, 'data');
  const declarationPath = request.resources ?? join(folder, 'resources.json');
  if (request.resources === undefined && (await stat(declarationPath).catch(() => undefined)) === undefined)
    throw new ExportError(
      `${declarationPath} is not there (plainrest ${basename(file)} makes it): name the declaration with ` +
        '--resources and the records with --data-dir or --database-url',
    );
  const found = await stat(file).catch(() => undefined);
  if (found?.isDirectory() === true) throw new ExportError(`${file} is a directory; name a file`);
  if (found !== undefined && !force) throw new ExportError(`${file} exists; name another file, or pass --force`);

  const table = await loadDeclarationFile(declarationPath);
  const declaration = JSON.parse(await readFile(declarationPath, 'utf8')) as ResourcesDeclaration;
  const { data, counts } = jsonServerData(declaration, await readEveryRecord(from, table), request.administrator);
  // Written beside, then renamed over: the file is the old one or the whole new one, never half of it.
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const what = counts.map(([name, count]) => (count === 'singleton' ? name : counted(count, name)));
  return [
    `wrote ${file}: ${what.length > 0 ? what.join(', ') : 'nothing'}, from ${from}`,
    ...(await recordedAnew(file, folder, from)),
  ];
}

/**
 * When `file` is the one `plainrest db.json` imported into `from`, its record takes the file's new content: written
 * from the records served there, it has not changed for the next start.
 */
async function recordedAnew(file: string, folder: string, from: string): Promise<string[]> {
  const record = await readRecord(folder).catch(() => undefined);
  if (record === undefined || record.file !== basename(file) || record.into !== intoOf(folder, from)) return [];
  if (resolve(folder, '..', record.file) !== resolve(file)) return [];
  await writeRecord(folder, { ...record, content: await contentOf(file) });
  return [`${recordPath(folder)}: ${file} now holds the records served from ${from}, and a start serves them on`];
}

/** The lines that explain why the export stopped, when `error` is one it explains; else undefined. */
export function failureLines(error: unknown): readonly string[] | undefined {
  if (error instanceof DeclarationError) return error.lines.map((line) => `cannot export: ${line}`);
  const system = typeof (error as Partial<NodeJS.ErrnoException> | undefined)?.syscall === 'string';
  if (error instanceof ExportError || error instanceof CopyError || error instanceof StartupError || system)
    return [`cannot export: ${(error as Error).message}`];
  return undefined;
}
