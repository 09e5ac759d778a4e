// The record `plainrest db.json` keeps of its import (docs/json-server.md: One command): db.plainrest/ beside the file,
// and in it imported.json, naming the file, a digest of its data then, when, into where and with which access; a later
// run compares the file with it, and `plainrest export` over the file brings it up to date.

import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { isDatabaseUrl } from '../config/config.ts';
import type { ImportAccess } from '../importing/import-declaration.ts';
import { parseJson5 } from '../importing/json5.ts';
import { withoutPassword } from './banner.ts';

export interface ImportRecord {
  /** The data file's name, in the folder's directory. */
  readonly file: string;
  /** contentOf the file as it was imported (or last exported over). */
  readonly content: string;
  readonly imported_at: string;
  /** Where the records went: a data directory relative to the folder, or a database URL without its password. */
  readonly into: string;
  readonly access: ImportAccess;
}

/** A record that cannot be read as one: the command stops, naming it. */
export class UnreadableRecord extends Error {}

/** `db.json` → `db.plainrest`, beside it: the folder of its import. */
export function folderOf(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}.plainrest`);
}

export function recordPath(folder: string): string {
  return join(folder, 'imported.json');
}

/**
 * The file's content as a digest of its data, parsed (spaces, line ends and a byte order mark aside): a file laid out
 * anew has not changed; one that does not parse is digested as it is (its import says what is wrong), or with
 * `parsedOnly` is an Error (a file caught while it is being written).
 */
export async function contentOf(file: string, parsedOnly = false): Promise<string> {
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  let data: string;
  try {
    data = JSON.stringify(extname(file) === '.json5' ? parseJson5(text) : JSON.parse(text));
  } catch (error) {
    if (parsedOnly) throw error;
    data = text;
  }
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

export async function readRecord(folder: string): Promise<ImportRecord | undefined> {
  const path = recordPath(folder);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as Partial<ImportRecord>;
    if (typeof record.file === 'string' && typeof record.content === 'string' && typeof record.into === 'string')
      return record as ImportRecord;
  } catch {
    // told below
  }
  throw new UnreadableRecord(`${path} is not the record of an import plainrest wrote; pass --reimport to import again`);
}

/** Written beside, then renamed into place: a record is whole or absent. */
export async function writeRecord(folder: string, record: ImportRecord): Promise<void> {
  const path = recordPath(folder);
  await writeFile(`${path}.${process.pid}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  await rename(`${path}.${process.pid}.tmp`, path);
}

/** Where the records go, as a record names it: a data directory from the folder, a database without its password. */
export function intoOf(folder: string, target: string): string {
  return isDatabaseUrl(target) ? withoutPassword(target) : relative(folder, resolve(target)) || '.';
}
