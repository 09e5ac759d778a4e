// A plainrest server for the benchmarks, run as its own process so the load generator
// does not share its CPU. Usage: bench-server.ts <durable|memory> <dataDir>
// durable: the data directory with the journal, as in production.
// memory:  the same records loaded into a memory-only store (journaling off).
// Prints the URL on its first line.

import { startServer, MemoryStore } from '../src/index.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';
import { readDataDirectory } from '../src/store/data-directory.ts';
import { BENCH_ADMIN_PASSWORD, BENCH_TOKEN_SECRET } from './bench-support.ts';

const [mode, dataDir] = process.argv.slice(2);
if ((mode !== 'durable' && mode !== 'memory') || dataDir === undefined) {
  console.error('usage: bench-server.ts <durable|memory> <dataDir>');
  process.exit(2);
}
// As `npm start` runs it, with only the rate limit off: the JSON access log goes to stdout
// (a pipe the benchmark drains, like stdout to a file).
const logger = {
  info: (line: string) => process.stdout.write(`${line}\n`),
  warn: () => {},
  error: (line: string) => console.error(line),
};
const common = {
  port: 0,
  adminPassword: BENCH_ADMIN_PASSWORD,
  tokenSecret: BENCH_TOKEN_SECRET,
  rateLimit: 0,
  accessLog: 'json' as const,
  logger,
};
const server =
  mode === 'durable'
    ? await startServer({ ...common, dataDir })
    : await startServer({
        ...common,
        store: new MemoryStore((await readDataDirectory(dataDir, exampleResources())).collections),
      });
process.stdout.write(`${server.url}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
