// `plainrest --version`: the version in package.json, read from beside this module
// (`src/cli/` in a checkout, `dist/cli/` in an installed package: both two levels down).

import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const { version } = JSON.parse(text) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
