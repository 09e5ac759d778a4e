// The reference for the benchmarks: a bare node:http server doing the minimum — the
// same products in a Map, JSON.stringify per answer, no validation, no auth, no disk.
// GET of a list answers a page computed once at start (what "kept sorted" would cost).
// Usage: reference-server.ts <dataDir>; prints its URL on the first line.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readDataDirectory } from '../src/store/data-directory.js';
import type { JsonObject, StoredRecord } from '../src/json.js';

const [dataDir] = process.argv.slice(2);
if (dataDir === undefined) {
  console.error('usage: reference-server.ts <dataDir>');
  process.exit(2);
}
const products = new Map<number, JsonObject>((await readDataDirectory(dataDir)).collections.get('products')?.records ?? new Map<number, StoredRecord>());
let nextId = Math.max(0, ...products.keys()) + 1;
const teaByPrice = [...products.values()].filter((product) => product['category'] === 'tea').sort((a, b) => (b['price'] as number) - (a['price'] as number));
const page = JSON.stringify({ data: teaByPrice.slice(0, 20), meta: { page: 1, limit: 20, total: teaByPrice.length } });

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const send = (status: number, body: string): void => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  if (req.method === 'GET' && url.startsWith('/v1/products?')) return send(200, page);
  const id = Number(url.slice('/v1/products/'.length));
  if (req.method === 'GET') {
    const product = products.get(id);
    return product === undefined ? send(404, '{}') : send(200, JSON.stringify(product));
  }
  let text = '';
  req.on('data', (chunk: Buffer) => (text += chunk.toString()));
  req.on('end', () => {
    const fields = JSON.parse(text) as JsonObject;
    if (req.method === 'POST') {
      const product = { id: nextId++, ...fields };
      products.set(product.id, product);
      return send(201, JSON.stringify(product));
    }
    const product = { ...products.get(id), ...fields };
    products.set(id, product);
    return send(200, JSON.stringify(product));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
