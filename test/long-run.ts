// The long run (docs/testing.md: The long run): `SUITE=long npm test` repeats and scales what the default run shows
// once at a size that proves it: the load bursts, the crash loops, more seeds, rounds and cases, the large data sets,
// the HTTP suites again on PostgreSQL. Each file reads its sizes through `scaled`; a variable of its own still wins.

/** True under `SUITE=long` (npm test, or one file: `SUITE=long node --test test/x.test.ts`). */
export const LONG_RUN = process.env['SUITE'] === 'long';

/** `standard` in the default run, `long` under SUITE=long. */
export function scaled<T>(standard: T, long: T): T {
  return LONG_RUN ? long : standard;
}
