// For bench/scale-bench.ts only, preloaded into plainrest with `--expose-gc --import`: SIGUSR2 runs full collections,
// then writes the memory the JavaScript objects take (heap and array buffers) as one line, `collected {…}`, so that
// plainrest's memory is read after a collection, as the Map floor's is (bench/map-floor.ts).

process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  process.stdout.write(`collected ${JSON.stringify({ heapUsed, arrayBuffers })}\n`);
});
