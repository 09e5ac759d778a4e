// Nothing outlives a benchmark: the child processes it starts are killed and its
// temporary directories removed when it ends — normally, on an error, or on Ctrl-C.

import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

const children = new Set<ChildProcess>();
const directories = new Set<string>();

/** Kills `child` at exit if it is still running then. */
export function killAtExit(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Removes `dir` at exit (it may already be gone). */
export function removeAtExit(dir: string): void {
  directories.add(dir);
}

function cleanUp(): void {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of directories) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

process.once('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    process.exit(130);
  });
}
