// For bench/scale-bench.ts only, preloaded into plainrest with `--expose-gc --import`: SIGUSR2 runs full collections,
// so that plainrest's memory is read after a collection, as the Map floor's is (bench/map-floor.ts).

process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
});
