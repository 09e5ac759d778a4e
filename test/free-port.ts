// A loopback port that was free a moment ago, for a process the test starts with a port of its own (the command line,
// a throwaway PostgreSQL, the embedding examples, the benchmarks' servers): listen on port 0, note the port, close.
// Another process may take it in between; the callers that start a server there say so when it happens.

import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
