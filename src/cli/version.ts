// `plainrest --version`: the version in package.json, read from beside this module (`src/cli/` in a checkout,
// `dist/cli/` in an installed package: both two levels down), or written into the one-file build (docs/one-file.md),
// which has no package.json beside it.

import { readFileSync } from 'node:fs';

/** package.json's version, written here by the one-file build; undefined elsewhere, where package.json is read. */
const BUILT_VERSION: string | undefined = undefined;

export function packageVersion(): string {
  if (BUILT_VERSION !== undefined) return BUILT_VERSION;
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const { version } = JSON.parse(text) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
