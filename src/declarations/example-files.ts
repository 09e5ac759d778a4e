// The example domain's files (README: The example domain): data/example/'s declaration and seed snapshots, read two
// directories up from this module (`src/declarations/`, `dist/declarations/`) or, in the one-file build
// (docs/one-file.md), carried inside it, so that the file copied alone still serves the example.

import { readFileSync } from 'node:fs';

/** Each file's text by name, written here by the one-file build; empty elsewhere, where the files are read. */
const EMBEDDED_FILES: Readonly<Record<string, string>> = {};

/** The text of data/example/`name`, or undefined when the example has no such file. */
export function exampleFileText(name: string): string | undefined {
  if (Object.keys(EMBEDDED_FILES).length > 0)
    return Object.hasOwn(EMBEDDED_FILES, name) ? EMBEDDED_FILES[name] : undefined;
  try {
    return readFileSync(new URL(`../../data/example/${name}`, import.meta.url), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
