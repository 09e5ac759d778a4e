// `plainrest import <db.json>` (README: Moving in from json-server): a json-server data file planned into a
// declaration and records (importing/import-plan.ts); the declaration (never over one without --force) and the id
// mapping written beside it, the records loaded into an empty data directory or database, all or nothing. Resolves
// with the summary's lines; a problem stops it before anything is written, with one line each.

import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { isoTimestamp } from '../records/timestamps.ts';
import { isDatabaseUrl } from '../config/config.ts';
import type { CollectionDeclaration } from '../declarations/declaration.ts';
import { declarationText } from '../importing/declaration-text.ts';
import { Json5Error, parseJson5 } from '../importing/json5.ts';
import type { ImportAccess } from '../importing/import-declaration.ts';
import { ACCESS_CHOICES } from '../importing/import-declaration.ts';
import { planImport } from '../importing/import-plan.ts';
import { counted } from './banner.ts';
import { CopyError, writeInto } from './copy-data.ts';

export interface ImportRequest {
  /** The json-server data file (`db.json`). */
  readonly file: string;
  /** Where the declaration goes; default `resources.json` beside the file. */
  readonly resources: string | undefined;
  /** The data directory or postgres:// URL the records go to: empty, or not there yet. */
  readonly target: string;
  readonly access: ImportAccess;
  /** Write the declaration (and the id mapping) over files already there. */
  readonly force: boolean;
}

/** Stops an import: one line per problem, nothing written. */
export class ImportError extends Error {
  readonly lines: readonly string[];
  constructor(lines: readonly string[]) {
    super(lines.join('\n'));
    this.lines = lines;
  }
}

export async function importFile(request: ImportRequest): Promise<string[]> {
  const data = await readData(request.file);
  const plan = planImport(data, request.access, isoTimestamp());
  if (!plan.ok) throw new ImportError(plan.problems);
  const declarationPath = declarationPathOf(request);
  const renumbered = [...plan.renumbered].filter(([, ids]) => ids.size > 0);
  const idsPath = join(dirname(declarationPath), `${basename(declarationPath, '.json')}.ids.json`);
  const files: [string, string][] = [[declarationPath, declarationText(plan.declaration)]];
  if (renumbered.length > 0) {
    const mapping = Object.fromEntries(renumbered.map(([collection, ids]) => [collection, Object.fromEntries(ids)]));
    files.push([idsPath, `${JSON.stringify(mapping, null, 2)}\n`]);
  }
  for (const [path] of files) await refuseOutputPath(path, request);

  // The files are written first, beside where they go, so that a place that cannot take them stops the import before
  // any record is loaded; they are moved into place once the records are.
  const written: string[] = [];
  let target: string;
  try {
    for (const [path, text] of files) {
      const temporary = `${path}.${process.pid}.tmp`;
      written.push(temporary);
      await writeFile(temporary, text, { mode: 0o644 }).catch((error: unknown) => {
        throw new ImportError([`${path} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`]);
      });
    }
    target = await writeInto(request.target, plan.table, plan.collections).catch((error: unknown) => {
      throw error instanceof CopyError ? new ImportError([error.message]) : error;
    });
  } catch (error) {
    await Promise.all(written.map((temporary) => rm(temporary, { force: true })));
    throw error;
  }
  // Renamed beside their temporaries, on one file system: a rename that fails here is the machine's failure.
  for (const [index, [path]] of files.entries()) await rename(written[index] as string, path);

  const loaded = [...plan.collections].map(([collection, { records }]) => counted(records.length, collection));
  return [
    ...Object.entries(plan.declaration.resources).map(([collection, declared]) => inferred(collection, declared)),
    ...plan.notes,
    `wrote ${declarationPath}: ${plan.collections.size} collection(s); access ${ACCESS_CHOICES[request.access].words}`,
    ...(renumbered.length > 0 ? [`wrote ${idsPath}: each renumbered id as the file had it, and its new id`] : []),
    `loaded ${loaded.length > 0 ? loaded.join(', ') : 'nothing'} into ${target}`,
  ];
}

/** `posts: title (string, x-search, required), views (integer, x-sort, required)`: what was inferred. */
function inferred(collection: string, declared: CollectionDeclaration): string {
  const required = new Set(declared.required ?? []);
  const properties = Object.entries(declared.properties ?? {}).map(([name, schema]) => {
    const type = Array.isArray(schema.type)
      ? `${schema.type.filter((entry) => entry !== 'null')[0]} or null`
      : schema.type;
    const traits = [
      schema.format === undefined ? (type ?? 'string') : `${type ?? 'string'} ${schema.format}`,
      ...(schema['x-references'] === undefined ? [] : [`x-references ${schema['x-references']}`]),
      ...(['x-filter', 'x-sort', 'x-search'] as const).filter((keyword) => schema[keyword] === true),
      ...(required.has(name) ? ['required'] : []),
    ];
    return `${name} (${traits.join(', ')})`;
  });
  const kind = declared['x-singleton'] === true ? ' (a singleton)' : '';
  return `${collection}${kind}: ${properties.length > 0 ? properties.join(', ') : 'no properties'}`;
}

/** Where the declaration goes: `--resources`, else `resources.json` beside the data file. */
export function declarationPathOf(request: ImportRequest): string {
  return request.resources ?? join(dirname(request.file), 'resources.json');
}

/** The file as JSON (JSON5 when it is named so); a file that cannot be read or parsed is a problem line naming it. */
async function readData(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ImportError([`${file}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? 'error'})`}`]);
  }
  const content = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // json-server 1.x reads db.json5 too.
  if (extname(file) === '.json5') {
    try {
      return parseJson5(content);
    } catch (error) {
      if (!(error instanceof Json5Error)) throw error;
      throw new ImportError([`${file}: not JSON5 (${error.message})`]);
    }
  }
  try {
    return JSON.parse(content) as unknown;
  } catch (error) {
    throw new ImportError([`${file}: not JSON (${(error as Error).message}); json-server's db.json is a JSON object`]);
  }
}

/** Refuses a place for a file the import writes: a file there (without --force), a directory, the data directory. */
async function refuseOutputPath(path: string, request: ImportRequest): Promise<void> {
  const found = await stat(path).catch(() => undefined);
  if (found?.isDirectory() === true) throw new ImportError([`${path} is a directory; name a file with --resources`]);
  if (found !== undefined && !request.force)
    throw new ImportError([`${path} exists; name another file with --resources, or pass --force`]);
  const dataDir = isDatabaseUrl(request.target) ? undefined : resolve(request.target);
  if (dataDir !== undefined && (resolve(path) + sep).startsWith(dataDir + sep))
    throw new ImportError([`${path} is inside the data directory ${request.target}; write it beside it`]);
}
