// What `plainrest db.json` prints after the banner (docs/json-server.md: One command), as json-server prints its routes
// at a start: the dialect's paths at the root, the conventions at /v1, --routes' rules; and --watch's file watched,
// a change of its data said once (the records served stay plainrest's).

import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { FILE_NAMES_MEMBER, fileNamesOf } from '../declarations/file-names.ts';
import { contentOf } from './import-record.ts';
import type { PreparedServer } from './json-server-command.ts';
import { shown } from './json-server-command.ts';

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
