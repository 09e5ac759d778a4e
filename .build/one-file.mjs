// The one-file build (docs/one-file.md): src/ bundled by esbuild into one readable ECMAScript module,
// dist/plainrest.mjs, and its source map. Run by `npm run build` and `prepack` after tsc, and by `npm test`.
// Not minified; every module keeps its header comment and appears in src/README.md's layer order.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version as esbuildVersion } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = join(ROOT, 'src');
const ENTRY = join(SOURCE, 'one-file.ts');
export const OUTPUT = join(ROOT, 'dist', 'plainrest.mjs');
/** How the file says it was made: the command, and the build's script. */
const COMMAND = 'npm run build (node .build/one-file.mjs)';

/** Builds dist/plainrest.mjs and dist/plainrest.mjs.map; resolves when both are written, rejects on any problem. */
export async function buildOneFile() {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const filled = {
    // The values a module reads from a file beside it in src/ and dist/, which the one file has not.
    'cli/version.ts': { BUILT_VERSION: version },
    'declarations/example-files.ts': { EMBEDDED_FILES: exampleFiles() },
  };
  const result = await build({
    entryPoints: [ENTRY],
    outfile: OUTPUT,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: false,
    treeShaking: false,
    legalComments: 'inline',
    sourcemap: 'linked',
    charset: 'ascii',
    banner: { js: banner(version) },
    logLevel: 'warning',
    plugins: [readableModules(filled)],
    write: false,
  });
  if (result.errors.length > 0 || result.warnings.length > 0) throw new Error('the one-file build has warnings');
  mkdirSync(dirname(OUTPUT), { recursive: true });
  for (const file of result.outputFiles) {
    if (file.path === OUTPUT) writeFileSync(file.path, inLatin1(file.text), { mode: 0o755 });
    else writeFileSync(file.path, file.contents);
  }
}

/** The typographic characters of the comments, as ASCII writes them. */
const IN_ASCII = {
  '\u2013': '-', // en dash
  '\u2014': '--', // em dash
  '\u2026': '...',
  '\u2190': '<-',
  '\u2192': '->',
  '\u2212': '-', // minus sign
  '\u2260': '!=',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
};

/**
 * `text` with no character above U+00FF, so that V8 keeps the file's source, which it holds while the program runs,
 * at one byte a character (about 0.6 MiB less than two): esbuild escapes every other character in code (charset
 * ascii), and what is left, in the comments it keeps, is written in ASCII (IN_ASCII). Throws on any other character.
 */
export function inLatin1(text) {
  return text.replace(/[^\u0000-\u00ff]/gu, (character) => {
    const ascii = IN_ASCII[character];
    if (ascii === undefined) throw new Error(`a comment has ${character}: add it to IN_ASCII in .build/one-file.mjs`);
    return ascii;
  });
}

/** The lines under the hashbang: what the file is, how it was made and where its source is. */
function banner(version) {
  return [
    `// plainrest ${version}, the whole program in one ECMAScript module (docs/one-file.md): the command line when`,
    '// node runs this file (`node plainrest.mjs --help`), the embedding API when a program imports it.',
    `// Made by \`${COMMAND}\` with esbuild ${esbuildVersion}, unminified, from the TypeScript in the`,
    "// repository's src/: each module follows its path and header; plainrest.mjs.map maps every line back to it.",
  ].join('\n');
}

/** data/example/'s files by name (the example's declaration and seed snapshots, example-files.ts). */
function exampleFiles() {
  const folder = join(ROOT, 'data', 'example');
  return Object.fromEntries(
    readdirSync(folder)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => [name, readFileSync(join(folder, name), 'utf8')]),
  );
}

/**
 * The folders of src/ in src/README.md's layer order (its table of layers): each imports only those before it, so
 * importing them in this order lays the bundle out bottom first.
 */
function layers() {
  const guide = readFileSync(join(SOURCE, 'README.md'), 'utf8');
  const folders = [...guide.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((match) => match[1]);
  const present = readdirSync(SOURCE, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const missing = present.map((entry) => entry.name).filter((name) => !folders.includes(name));
  if (missing.length > 0) throw new Error(`src/README.md's layers do not list ${missing.join(', ')}`);
  return folders;
}

/**
 * What esbuild is given of each module of src/, so that the bundle reads as the source does:
 * - the header comment becomes a legal comment (`//!`), which esbuild keeps where it stands;
 * - a module loaded by `import('./…')` is imported statically instead: in one file it is loaded anyway, and esbuild
 *   would otherwise wrap it, and every module it imports, in a lazy initialiser;
 * - the entry first imports every module, folder by folder in the layers' order;
 * - `filled` values replace their placeholders (`const NAME… = undefined;` or `= {};`).
 */
function readableModules(filled) {
  return {
    name: 'readable-modules',
    setup(context) {
      context.onLoad({ filter: /\.ts$/ }, (args) => {
        const path = relative(SOURCE, args.path);
        if (path.startsWith('..')) return undefined;
        let text = withLegalHeader(readFileSync(args.path, 'utf8'), path);
        text = withStaticImports(text);
        for (const [name, value] of Object.entries(filled[path] ?? {})) text = withValue(text, path, name, value);
        if (args.path === ENTRY) text = withImports(text, everyModule());
        return { contents: text, loader: 'ts' };
      });
    },
  };
}

/** The module's opening `//` lines (after a hashbang) as `//!` lines. */
function withLegalHeader(text, path) {
  const lines = text.split('\n');
  let index = lines[0].startsWith('#!') ? 1 : 0;
  if (!lines[index]?.startsWith('// ')) throw new Error(`src/${path} has no header comment`);
  for (; lines[index]?.startsWith('//'); index++) lines[index] = `//!${lines[index].slice(2)}`;
  return lines.join('\n');
}

/** `import('./x.ts')` as `Promise.resolve(x_namespace)`, with `import * as x_namespace from './x.ts'` at the top. */
function withStaticImports(text) {
  const names = new Map();
  const replaced = text.replace(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g, (_, specifier) => {
    if (!names.has(specifier)) {
      const name = `${specifier.replace(/^.*\//, '').replace(/\.ts$/, '').replace(/\W/g, '_')}_namespace`;
      if ([...names.values()].includes(name)) throw new Error(`two modules imported as ${name}: rename one`);
      names.set(specifier, name);
    }
    return `Promise.resolve(${names.get(specifier)})`;
  });
  return withImports(
    replaced,
    [...names].map(([specifier, name]) => `import * as ${name} from '${specifier}';`),
  );
}

/** `lines` inserted before the module's first import or export statement. */
function withImports(text, lines) {
  if (lines.length === 0) return text;
  const at = text.search(/^(import|export) /m);
  if (at < 0) throw new Error('a module with no import to insert before');
  return `${text.slice(0, at)}${lines.join('\n')}\n${text.slice(at)}`;
}

/** The placeholder of `const NAME` replaced by `value` as JSON. */
function withValue(text, path, name, value) {
  const placeholder = new RegExp(`^(const ${name}\\b[^=\\n]*= )(undefined|\\{\\});$`, 'm');
  if (!placeholder.test(text)) throw new Error(`src/${path} has no placeholder \`const ${name} … = …;\` to fill`);
  return text.replace(placeholder, (_, declaration) => `${declaration}${JSON.stringify(value, null, 2)};`);
}

/** `import './folder/module.ts';` for every module of src/, folder by folder in the layers' order. */
function everyModule() {
  return layers().flatMap((folder) =>
    readdirSync(join(SOURCE, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .sort()
      .map((name) => `import './${folder}/${name}';`),
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await buildOneFile();
