// Several test files in one process (test/run-suite.mjs's groups, http-suites.postgres.test.ts): each is imported
// inside a describe() of its name, so that its tests and its top-level hooks (before, after, beforeEach, afterEach)
// are that suite's, as they were the file's; node:test runs the suites one after another.

import { describe } from 'node:test';

/** A test file: its name, and its import. */
export type TestFile = readonly [name: string, load: () => Promise<unknown>];

/**
 * A suite for each of `files`. node:test calls each describe()'s function at once, so every import starts now; each
 * suite then waits for all of them, so that no file's loading (its top-level code included) runs beside another's
 * tests, as none did with a process for each file.
 */
export function fileSuites(files: readonly TestFile[]): void {
  const loading: Promise<unknown>[] = [];
  for (const [name, load] of files) {
    describe(name, async () => {
      const loaded = load();
      loading.push(loaded);
      await loaded;
      await Promise.allSettled(loading);
    });
  }
}
