// The source's layout holds (src/README.md): no import circle, type-only imports
// included; each folder imports only its own files and the folders below it in LAYERS;
// the root of src/ holds only the entry points. Read from the files' import and export
// statements, so a new arrow that runs back up fails here, naming both ends.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, test } from 'node:test';
import { REPOSITORY_ROOT } from './repository.ts';

/** The folders of src/, bottom first: a folder may import from those before it. */
const LAYERS = [
  // Foundations that know nothing of plainrest's resources.
  'logging', // where lines go, and secrets kept out of them
  'errors', // the API's error codes and their statuses (RFC 9457 problem details)
  'records', // JSON values, merge patches, timestamps
  'patterns', // declared patterns, matched in linear time
  'feed', // the change feed's events and the log that keeps them
  // What the API serves, and where it keeps it.
  'resources', // definitions, vocabularies, ownership, validation, representations
  'declarations', // a declaration file checked and compiled into resources
  'store', // records in memory, the journal and snapshots, the database door
  'auth', // tokens, passwords and permissions
  'http', // the protocol's pieces: bodies, negotiation, lists, conditional requests
  'config', // the settings a server starts with
  'events', // the change feed over HTTP: lists and Server-Sent Events
  'routing', // the route table and the path router
  'handlers', // one function per operation
  'webhooks', // the change feed delivered to subscribers' URLs, signed, retried
  'home', // the home page
  'openapi', // the OpenAPI document
  'json-server', // json-server 0.17's dialect, translated to and from the core's requests
  'server', // the request pipeline and the node:http server
  'importing', // a json-server file read into a declaration and records
  'cli', // the command line
];
/** The only files at the root of src/: what `npm start` and the package's importers load. */
const ENTRY_POINTS = ['index.ts', 'main.ts', 'one-file.ts'];

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** Every .ts file under `directory`, relative to the repository. */
function sourceFiles(directory: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(REPOSITORY_ROOT, directory), { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** Each file's relative imports, as repository paths. */
function importGraph(directories: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of directories.flatMap(sourceFiles)) {
    const text = readFileSync(join(REPOSITORY_ROOT, file), 'utf8');
    graph.set(
      file,
      [...text.matchAll(SPECIFIER)].map((match) => normalize(join(dirname(file), (match[1] ?? match[2]) as string))),
    );
  }
  return graph;
}

/** The import circles of `graph` (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    lowest.set(file, order.get(file) as number);
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (stack.includes(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, order.get(target) as number));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

/** The folder of a file of src/ (`store` for src/store/journal.ts), or '' at the root. */
function folderOf(file: string): string {
  const inside = relative('src', dirname(file));
  return inside.split('/')[0] ?? '';
}

/** Each import of `graph` from a folder to one above it (or to a folder not in LAYERS), as "file → target". */
function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const upwards: string[] = [];
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === '') continue; // the entry points may import anything
    for (const target of targets) {
      const to = folderOf(target);
      const below = LAYERS.indexOf(to) >= 0 && LAYERS.indexOf(to) < LAYERS.indexOf(from);
      if (to !== from && !below) upwards.push(`${file} → ${target}`);
    }
  }
  return upwards;
}

describe('the import graph', () => {
  const source = importGraph(['src']);

  test('has no circle, in src/ or in the PostgreSQL package', () => {
    assert.deepEqual(circles(source), []);
    assert.deepEqual(circles(importGraph(['packages/postgres/src'])), []);
  });

  test('runs only downwards: each folder imports its own files and the folders below it', () => {
    assert.deepEqual(upwardImports(source), []);
  });

  test('every folder of src/ has its place in the layers, and the root holds only the entry points', () => {
    const folders = new Set([...source.keys()].map(folderOf).filter((folder) => folder !== ''));
    assert.deepEqual([...folders].sort(), [...LAYERS].sort());
    assert.deepEqual(
      [...source.keys()]
        .filter((file) => folderOf(file) === '')
        .map((file) => relative('src', file))
        .sort(),
      ENTRY_POINTS,
    );
  });

  test('the checks see an arrow that runs back up, and a circle', () => {
    const planted = new Map<string, string[]>([
      ['src/store/a.ts', ['src/store/b.ts']],
      ['src/store/b.ts', ['src/store/a.ts']],
    ]);
    assert.deepEqual(circles(planted), [['src/store/a.ts', 'src/store/b.ts']]);
    const upward = new Map<string, string[]>([
      ['src/store/a.ts', ['src/records/json.ts', 'src/store/b.ts', 'src/http/body.ts']],
      ['src/main.ts', ['src/server/server.ts']],
    ]);
    assert.deepEqual(upwardImports(upward), ['src/store/a.ts → src/http/body.ts']);
  });
});
