// `plainrest --help` (README: Configuration): the commands, the settings table (settings.ts) with each variable and
// flag, and json-server 0.17's flags as `plainrest db.json` reads them (json-server-flags.ts).

import { JSON_SERVER_FLAGS } from './json-server-flags.ts';
import { SETTINGS } from './settings.ts';

export function helpText(): string {
  const flagWidth = Math.max(...SETTINGS.map((setting) => setting.flag.length)) + 2;
  const variableWidth = Math.max(...SETTINGS.map((setting) => setting.variable.length));
  const rows = SETTINGS.map(
    (setting) =>
      `  ${`--${setting.flag}`.padEnd(flagWidth)} ${setting.variable.padEnd(variableWidth)} ${setting.meaning} ` +
      `(default: ${setting.fallback})`,
  );
  return [
    'Usage: plainrest [--flag value]...            start the server',
    '       plainrest token <email> [--flag value]  ' +
      'print a token for an existing user (reads DATA_DIR, or DATABASE_URL)',
    '       plainrest copy --from A --to B          copy every record, id and password hash from A into an empty B,',
    '         [--resources FILE]                    each a data directory or postgres://… (README: Configuration)',
    '       plainrest openapi [--resources FILE]    print the OpenAPI 3.1 document',
    '       plainrest import db.json                serve a json-server file: write resources.json beside it and load',
    '         [--access open|read|closed] [--force] its records into DATA_DIR, or DATABASE_URL (README: Moving in)',
    '       plainrest db.json [flags]               import db.json on its first run into db.plainrest/ beside it,',
    "         [--access open|read|closed]           then serve it: json-server 0.17's routes at /, the conventions",
    '         [--reimport] [--flag value]...        at /v1 (--access open by default; docs/json-server.md)',
    '       plainrest db.js | http://…/db.json      the same with what a script returns or a URL answers, taken once',
    "       plainrest export db.json [--force]      write the records back in json-server's shape and names, from",
    '         [--data-dir DIR | --database-url URL] db.plainrest/ beside it unless named (or DATA_DIR, DATABASE_URL)',
    '         [--resources FILE]',
    '       plainrest check-resources FILE          check a declaration file without starting',
    '       plainrest --version                     print the version',
    '',
    `  ${'flag'.padEnd(flagWidth)} ${'variable'.padEnd(variableWidth)} meaning`,
    ...rows,
    '',
    "json-server 0.17's flags (plainrest db.json only; docs/json-server.md: The flags):",
    ...jsonServerFlagRows(),
    '',
    'A flag wins over its environment variable.',
    'Exit status: 0 after a clean stop (SIGINT, SIGTERM); 2 when the command cannot run (a setting,',
    'the data or the machine prevents it: one line on stderr says why and what to do); 1 for a failure while running.',
  ].join('\n');
}

/** `  -p, --port            TCP port (default 3000)`: json-server's flags, for --help. */
function jsonServerFlagRows(): string[] {
  // Each flag as json-server's --help shows it: its documented alias (the first), then its name.
  const names = JSON_SERVER_FLAGS.map((flag) => `${flag.aliases[0]}, --${flag.name}`);
  const width = Math.max(...names.map((name) => name.length)) + 2;
  return JSON_SERVER_FLAGS.map((flag, index) => `  ${(names[index] as string).padEnd(width)}${flag.meaning}`);
}
