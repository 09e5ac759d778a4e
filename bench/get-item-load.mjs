// A fixed number of GET item requests (get-item-counted.sh), where get-item-outside.sh runs wrk for a time: request n
// asks for id 1 + (n × 7919 mod the last id), over `connections` kept-alive connections, with a user's Bearer token.
// Exits non-zero if any answer is not a 200.
// Usage: TOKEN=… node bench/get-item-load.mjs <port> <requests> <connections> <last id>

import { Agent, get } from 'node:http';

const [port, requests, connections, lastId] = process.argv.slice(2).map(Number);
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const headers = { authorization: `Bearer ${process.env.TOKEN}` };
let sent = 0;
let failed = 0;

const one = () =>
  new Promise((resolve) => {
    sent += 1;
    const path = `/v1/products/${1 + ((sent * 7919) % lastId)}`;
    const request = get({ host: '127.0.0.1', port, path, agent, headers }, (answer) => {
      if (answer.statusCode !== 200) failed += 1;
      answer.resume();
      answer.on('end', resolve);
    });
    request.on('error', () => {
      failed += 1;
      resolve();
    });
  });

const connection = async () => {
  while (sent < requests) await one();
};
await Promise.all(Array.from({ length: connections }, connection));
agent.destroy();
if (failed > 0) {
  console.error(`${failed} of ${requests} requests failed`);
  process.exit(1);
}
