// `plainrest db.json [flags]` (docs/json-server.md: One command): json-server 0.17's command line as its yargs reads
// it (names, short aliases, `--name=value`), beside plainrest's own settings, the import's `--access` and
// `--reimport`. This file reads the words only; json-server-command.ts decides what each flag does.

import type { Setting } from './settings.ts';
import { SETTINGS } from './settings.ts';

/** A flag json-server 0.17 reads (its lib/cli/index.js): a switch, a value, or a value it takes repeatedly. */
export interface JsonServerFlag {
  readonly name: string;
  /** Other spellings: the alias json-server documents first (`-p`, `--ro`), then yargs' camelCase (`--readOnly`). */
  readonly aliases: readonly string[];
  readonly takes: 'switch' | 'value' | 'values';
  /** What plainrest makes of it, for --help. */
  readonly meaning: string;
}

export const JSON_SERVER_FLAGS: readonly JsonServerFlag[] = [
  { name: 'port', aliases: ['-p'], takes: 'value', meaning: 'TCP port (default 3000)' },
  { name: 'host', aliases: ['-H'], takes: 'value', meaning: "interface (default 127.0.0.1; json-server's: localhost)" },
  { name: 'delay', aliases: ['-d'], takes: 'value', meaning: 'every answer waits this many ms first (DELAY_MS)' },
  { name: 'read-only', aliases: ['--ro', '--readOnly'], takes: 'switch', meaning: 'GET only; /v1 writes admins only' },
  { name: 'static', aliases: ['-s'], takes: 'value', meaning: 'a directory served at / (default ./public if there)' },
  { name: 'routes', aliases: ['-r'], takes: 'value', meaning: 'a JSON file of rewrite rules ({"/api/*": "/$1"})' },
  { name: 'no-cors', aliases: ['--nc', '--noCors'], takes: 'switch', meaning: 'no CORS at all (default: any origin)' },
  {
    name: 'no-gzip',
    aliases: ['--ng', '--noGzip'],
    takes: 'switch',
    meaning: 'noted: 1 KiB and more compressed only for a client asking',
  },
  { name: 'quiet', aliases: ['-q'], takes: 'switch', meaning: 'no access log' },
  { name: 'watch', aliases: ['-w'], takes: 'switch', meaning: 'a change is told while serving (--reimport serves it)' },
  {
    name: 'snapshots',
    aliases: ['-S'],
    takes: 'value',
    meaning: 'noted: no s + Enter; GET /db or plainrest export saves',
  },
  { name: 'id', aliases: ['-i'], takes: 'value', meaning: 'only id (the import reads id, Id or ID)' },
  {
    name: 'foreignKeySuffix',
    aliases: ['--fks', '--foreign-key-suffix'],
    takes: 'value',
    meaning: 'Id or _id (the import knows postId and post_id)',
  },
  { name: 'middlewares', aliases: ['-m'], takes: 'values', meaning: 'refused: plainrest runs no Express middleware' },
  {
    name: 'config',
    aliases: ['-c'],
    takes: 'value',
    meaning: 'a JSON file of these flags (default ./json-server.json)',
  },
];

/** This command's own switches and values beside json-server's and the settings. */
const OWN_SWITCHES = ['reimport'] as const;
const OWN_VALUES = ['access'] as const;

export type JsonServerValue = string | boolean | readonly string[];

/** The words of `plainrest db.json …`, read; nothing checked yet but their shape. */
export interface JsonServerArguments {
  readonly source: string;
  /** json-server's flags given, by name (`read-only`, not `--ro`). */
  readonly flags: ReadonlyMap<string, JsonServerValue>;
  /** plainrest's settings given as flags (`--data-dir`, `--rate-limit` …), their text as written. */
  readonly settings: ReadonlyMap<Setting, string>;
  readonly access: string | undefined;
  readonly reimport: boolean;
}

export type JsonServerReading =
  JsonServerArguments | { readonly problem: string } | { readonly help: true } | { readonly version: true };

/** The json-server flag a word names (`-p`, `--port`, `--readOnly`), or undefined. */
export function jsonServerFlag(word: string): JsonServerFlag | undefined {
  return JSON_SERVER_FLAGS.find((flag) => `--${flag.name}` === word || flag.aliases.includes(word));
}

/**
 * The data file a command line names, when it names one: a word that is neither a flag nor a flag's value
 * (`plainrest --port 3004 db.json`, `plainrest db.json -p 3004`). A command line without one is a server's.
 */
export function sourceArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (!word.startsWith('-')) return word;
    if (!word.includes('=') && takesValue(word)) i++;
  }
  return undefined;
}

function takesValue(word: string): boolean {
  const flag = jsonServerFlag(word);
  if (flag !== undefined) return flag.takes !== 'switch';
  const name = word.slice(2);
  return (OWN_VALUES as readonly string[]).includes(name) || SETTINGS.some((setting) => setting.flag === name);
}

/** Reads `plainrest db.json …`: the source, json-server's flags, the settings, or the first word that is none. */
export function readJsonServerArguments(args: readonly string[]): JsonServerReading {
  const flags = new Map<string, JsonServerValue>();
  const settings = new Map<Setting, string>();
  let source: string | undefined;
  let access: string | undefined;
  let reimport = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--help' || word === '-h') return { help: true };
    if (word === '--version' || word === '-v') return { version: true };
    if (!word.startsWith('-')) {
      if (source !== undefined) return { problem: `one data file at a time: ${source} or ${word}` };
      source = word;
      continue;
    }
    const [name = '', inline] = splitOnce(word, '=');
    const flag = jsonServerFlag(name);
    const setting = SETTINGS.find((candidate) => `--${candidate.flag}` === name);
    if (flag?.takes === 'switch' || name === `--${OWN_SWITCHES[0]}`) {
      const on = inline === undefined ? true : switchValue(inline);
      if (on === undefined) return { problem: `${name} is a switch: ${name}, ${name}=true or ${name}=false` };
      if (flag === undefined) reimport = on;
      else flags.set(flag.name, on);
      continue;
    }
    if (flag === undefined && setting === undefined && name !== `--${OWN_VALUES[0]}`)
      return { problem: `unknown argument ${word}` };
    const value = inline ?? args[i + 1];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('-')))
      return { problem: `${name} needs a value` };
    if (inline === undefined) i++;
    if (flag?.takes === 'values') flags.set(flag.name, [...((flags.get(flag.name) as string[]) ?? []), value]);
    else if (flag !== undefined) flags.set(flag.name, value);
    else if (setting !== undefined) settings.set(setting, value);
    else access = value;
  }
  if (source === undefined) return { problem: 'name the data file: plainrest db.json' };
  const refused = sourceProblem(source);
  return refused === undefined ? { source, flags, settings, access, reimport } : { problem: refused };
}

/** json-server 0.17 serves a *.json file, a script or a URL (json-server-source.ts); and JSON5 as 1.x. */
function sourceProblem(source: string): string | undefined {
  if (/^https?:/.test(source)) return URL.canParse(source) ? undefined : `${source}: not a URL`;
  if (/\.c?js$/.test(source)) return undefined;
  if (!/\.json5?$/.test(source))
    return `${source}: neither a subcommand nor a source (db.json, db.json5, db.js or a URL, as json-server's)`;
  return undefined;
}

/** A switch's written value (`--watch=false`), as yargs reads booleans. */
export function switchValue(text: string): boolean | undefined {
  if (text === 'true') return true;
  if (text === 'false') return false;
  return undefined;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
