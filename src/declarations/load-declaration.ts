// Reading a declaration (README: Your own resources) from a file or an embedder's object: parse it, check it, compile
// it. A declaration that cannot be used is refused with every problem at once, one line each, naming the file and the
// JSON pointer of the offending member (or the line and column of a JSON syntax error), so that a start can print
// them and exit 2 with nothing listening.

import { readFile, stat } from 'node:fs/promises';
import type { ResourceTable } from '../resources/definition.ts';
import type { Hooks } from './compile-declaration.ts';
import { compileDeclaration } from './compile-declaration.ts';
import { checkDeclaration } from './check-declaration.ts';
import type { ResourcesDeclaration } from './declaration.ts';

/** Larger declaration files are refused before they are read. */
export const MAX_DECLARATION_BYTES = 4 * 1024 * 1024;
/** At most this many problems are listed, then how many more there are. */
const MOST_PROBLEMS_SHOWN = 100;

/** A declaration that cannot be served; `lines` are `<file>: <pointer>: <problem>`. */
export class DeclarationError extends Error {
  readonly lines: readonly string[];
  constructor(lines: readonly string[]) {
    super(lines.join('\n'));
    this.lines = lines;
  }
}

/** Parses, checks and compiles a declaration's text; throws DeclarationError. */
export function parseDeclaration(fileName: string, text: string, hooks: Hooks = {}): ResourceTable {
  const parsed = parseJson(fileName, text);
  if (typeof parsed === 'string') throw new DeclarationError([parsed]);
  return checkAndCompile(fileName, parsed.value, hooks);
}

/** A declaration given as an object (embedding): checked like a file named `resources`. */
export function compileObject(declaration: ResourcesDeclaration, hooks: Hooks = {}): ResourceTable {
  // A copy through JSON: what is compiled is plain data, whatever the object held.
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(declaration));
  } catch (error) {
    // A cycle, a BigInt, or nesting deeper than JSON.stringify can follow.
    throw new DeclarationError([
      `resources: (top level): is not plain JSON data (${error instanceof Error ? error.message : String(error)})`,
    ]);
  }
  return checkAndCompile('resources', copy, hooks);
}

function checkAndCompile(fileName: string, declaration: unknown, hooks: Hooks): ResourceTable {
  const problems = checkDeclaration(declaration);
  if (problems.length > 0) {
    const lines = problems
      .slice(0, MOST_PROBLEMS_SHOWN)
      .map(({ pointer, message }) => `${fileName}: ${pointer === '' ? '(top level)' : pointer}: ${message}`);
    if (problems.length > MOST_PROBLEMS_SHOWN)
      lines.push(`${fileName}: and ${problems.length - MOST_PROBLEMS_SHOWN} more problems`);
    throw new DeclarationError(lines);
  }
  return compileDeclaration(declaration as ResourcesDeclaration, hooks);
}

/** Reads and compiles the declaration file at `path`. */
export async function loadDeclarationFile(path: string, hooks: Hooks = {}): Promise<ResourceTable> {
  let text: string;
  try {
    const { size } = await stat(path);
    if (size > MAX_DECLARATION_BYTES)
      throw new DeclarationError([
        `${path}: is ${size} bytes; a declaration is limited to ${MAX_DECLARATION_BYTES} bytes`,
      ]);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof DeclarationError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'a directory, not a file'
          : code === 'EACCES'
            ? 'not readable'
            : String(code ?? error);
    throw new DeclarationError([`${path}: cannot read the declaration: ${reason}`]);
  }
  return parseDeclaration(path, text, hooks);
}

/** The parsed value, or the line saying where the JSON is broken. */
function parseJson(fileName: string, text: string): { value: unknown } | string {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    const offset = position === null ? text.length : Number(position[1]);
    const before = text.slice(0, offset).split('\n');
    const line = before.length;
    const column = (before.at(-1) ?? '').length + 1;
    const reason = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    return `${fileName}:${line}:${column}: not valid JSON (${reason})`;
  }
}
