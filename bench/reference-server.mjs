// The yardstick of `npm run bench`: a bare node:http server doing the least work for the
// requests plainrest is measured on — the same products in a Map, JSON.stringify per
// answer, no validation, no auth, nothing written to disk. GET of the list answers a page
// computed once at start (what keeping the list sorted would cost at best).
// It is plain JavaScript so that it starts with bare `node` and no loader: its start-up
// time is the yardstick for plainrest's.
// With --like-plainrest, a record's GET (what get-item-outside.sh measures) also does what plainrest's must
// (bench/README.md, "GET item, like for like"): the header fields ETag (made once a record), Vary and X-Request-Id (a
// counter), and an access-log line on standard output, JSON.stringify of its entry, written in batches (64 KiB, or
// 0.1 s). It has no token to check, so its lines' user_id is null.
// Usage: node bench/reference-server.mjs <products.json> <port> [collection] [--like-plainrest]
//   products.json: a plain JSON array of all the records; collection: the path segment
//   they are served under (default products).

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const likePlainrest = process.argv.includes('--like-plainrest');
const [file, port, collection = 'products'] = process.argv.slice(2).filter((arg) => arg !== '--like-plainrest');
if (file === undefined || port === undefined) {
  console.error('usage: node bench/reference-server.mjs <products.json> <port> [collection] [--like-plainrest]');
  process.exit(2);
}
const listPath = `/v1/${collection}`;
const itemPrefix = `${listPath}/`;

const products = new Map();
let nextId = 1;
for (const product of JSON.parse(readFileSync(file, 'utf8'))) {
  products.set(product.id, product);
  nextId = Math.max(nextId, product.id + 1);
}

// GET /v1/<collection>?category=tea&sort=-price&limit=20: by price descending, ties by id.
const tea = [...products.values()].filter((product) => product.category === 'tea');
tea.sort((a, b) => b.price - a.price || a.id - b.id);
const teaPage = JSON.stringify({ data: tea.slice(0, 20), meta: { page: 1, limit: 20, total: tea.length } });

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** --like-plainrest: each record's ETag, made once (plainrest keeps its representations' too). */
const etags = new Map();
const etagOf = (product) => {
  let etag = etags.get(product);
  if (etag === undefined) {
    etag = `"${createHash('sha1').update(JSON.stringify(product)).digest('base64url')}"`;
    etags.set(product, etag);
  }
  return etag;
};
const requestIdPrefix = randomBytes(4).toString('hex');
let requests = 0;
let pending = [];
let pendingBytes = 0;
const flush = () => {
  if (pending.length === 0) return;
  process.stdout.write(`${pending.join('\n')}\n`);
  pending = [];
  pendingBytes = 0;
};
if (likePlainrest) setInterval(flush, 100).unref();

/** send() with plainrest's three fields, then the request's access-log line. */
function sendLikePlainrest(req, res, status, body, product, started) {
  const requestId = `${requestIdPrefix}-${(++requests).toString(36)}`;
  const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
  if (product !== undefined) headers.ETag = etagOf(product);
  headers.Vary = 'Accept-Encoding';
  headers['X-Request-Id'] = requestId;
  res.writeHead(status, headers);
  res.end(body);
  const line = JSON.stringify({
    time: new Date().toISOString(),
    request_id: requestId,
    method: req.method,
    path: req.url,
    status,
    bytes: headers['Content-Length'],
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    user_id: null,
  });
  pending.push(line);
  pendingBytes += line.length + 1;
  if (pendingBytes >= 65536) flush();
}

function readJson(req, then) {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (text += chunk));
  req.on('end', () => then(JSON.parse(text)));
}

const server = createServer((req, res) => {
  const started = likePlainrest ? performance.now() : 0;
  const url = req.url ?? '/';
  if (req.method === 'GET' && url.startsWith(`${listPath}?`)) return send(res, 200, teaPage);
  if (req.method === 'POST' && url === listPath) {
    return readJson(req, (fields) => {
      const now = new Date().toISOString();
      const product = { id: nextId++, ...fields, created_at: now, updated_at: now };
      products.set(product.id, product);
      send(res, 201, JSON.stringify(product));
    });
  }
  const product = url.startsWith(itemPrefix) ? products.get(Number(url.slice(itemPrefix.length))) : undefined;
  if (product === undefined) return send(res, 404, '{"error":"not found"}');
  if (req.method === 'GET') {
    if (likePlainrest) return sendLikePlainrest(req, res, 200, JSON.stringify(product), product, started);
    return send(res, 200, JSON.stringify(product));
  }
  if (req.method === 'PATCH') {
    return readJson(req, (fields) => {
      const patched = { ...product, ...fields, updated_at: new Date().toISOString() };
      products.set(patched.id, patched);
      send(res, 200, JSON.stringify(patched));
    });
  }
  send(res, 405, '{"error":"method not allowed"}');
});
server.listen(Number(port), '127.0.0.1');
