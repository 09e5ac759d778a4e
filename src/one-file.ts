#!/usr/bin/env node
// The one-file build's entry (docs/one-file.md: `dist/plainrest.mjs`, the package's `plainrest` command and export):
// imported, it is index.ts's embedding API, and does nothing to the process; run by node as the main module, it is
// also the command line (cli/command-line.ts), as main.ts is.

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCommandLine } from './cli/command-line.ts';

export * from './index.ts';

/**
 * Whether this module is the script node was started with: `node plainrest.mjs`, or the `plainrest` command, a link
 * to it (hence the real paths); not when a program imports it.
 */
function isMainModule(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMainModule()) runCommandLine();
