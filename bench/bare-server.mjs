// The yardstick of `npm run bench:idle` (bench/README.md, "Idle memory"): the barest ECMAScript module node:http
// server, one module and no work, answering every request 200. Plain JavaScript, run by bare `node`.
// Usage: node bench/bare-server.mjs <port>

import { createServer } from 'node:http';

createServer((request, response) => response.end('ok')).listen(Number(process.argv[2]), '127.0.0.1');
