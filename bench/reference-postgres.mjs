// The yardstick of `npm run bench -- --postgres`: a bare node:http server on the products
// table plainrest made, one SQL statement per request through a pg pool of the same size
// as plainrest's. GET item: the row by id; with the header `Reference-Checks-Caller: yes`
// the statement plainrest sends instead (packages/postgres, sql-records.ts
// rowsByIdQuery): the record as `to_jsonb` and whether its caller, as it last read it,
// still holds (here the administrator, user 1, whose token the bench sends). GET list: the
// page, the total and the caller's check in one statement, the one plainrest's store
// sends (sql-records.ts listQuery), so the ratio measures the server, not the SQL. POST:
// INSERT … RETURNING of the row plainrest writes (its search words included, which its
// search index holds), and with the header `Reference-Writes-Event: yes` the same INSERT
// with the create's change-feed event in the one statement plainrest sends
// (packages/postgres event-sql.ts: the event row under the feed's commit-order lock, and
// a NOTIFY). No validation, no authentication, no access log. Statements are sent by name
// (parsed once per connection), as plainrest sends its own. Plain JavaScript, like
// reference-server.mjs.
// Usage: node bench/reference-postgres.mjs <database-url> <port> <pool-size>
//   It answers GET /v1/products/<id>, GET /v1/products?category=<c>[&limit=<n>] (sorted
//   by price descending, ties by id: the bench's sort=-price) and POST /v1/products.

import { createServer } from 'node:http';
import pg from 'pg';

const [databaseUrl, port, poolSize] = process.argv.slice(2);
if (databaseUrl === undefined || port === undefined || poolSize === undefined) {
  console.error('usage: node bench/reference-postgres.mjs <database-url> <port> <pool-size>');
  process.exit(2);
}
const LIST_PATH = '/v1/products';
const ITEM_PREFIX = `${LIST_PATH}/`;

// Ids and the total as numbers, as plainrest answers them (bigint is text by default).
pg.types.setTypeParser(20, Number);
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize) });
pool.on('error', () => {});

const GET_ITEM = 'SELECT * FROM "products" WHERE "id" = $1';
/** The caller plainrest checks (sql-records.ts callerHolds): the bench's token is the administrator's. */
const CALLER = [1, 'admin'];
/** plainrest's check, its id and role the statement's parameters `first` and `first + 1`. */
function callerHolds(first) {
  return `EXISTS (SELECT 1 FROM "users" WHERE "id" = $${first}::bigint AND "role" IS NOT DISTINCT FROM $${first + 1}::text)`;
}
const GET_ITEM_CHECKING_CALLER = `SELECT (SELECT to_jsonb(t) FROM "products" t WHERE "id" = $1) AS "r0", ${callerHolds(2)} AS "caller"`;
/** The statement plainrest sends for the page, the limit written into it as plainrest writes it. */
function listPage(limit) {
  return (
    'WITH matching AS (SELECT "id", "name", "category", "price", "description", "created_at", "updated_at" FROM "products" WHERE "category" = $1), ' +
    `page AS (SELECT * FROM matching ORDER BY "price" DESC, "id" ASC LIMIT ${limit}) ` +
    `SELECT page.*, total.n AS "__total", ${callerHolds(2)} AS "__caller" FROM (SELECT count(*)::bigint AS n FROM matching) total ` +
    'LEFT JOIN page ON true ORDER BY page."price" DESC, page."id" ASC'
  );
}
const INSERT =
  'INSERT INTO "products" ("name", "category", "price", "description", "created_at", "updated_at", "__search") ' +
  'VALUES ($1, $2, $3, $4, $5, $5, $6) RETURNING *';
/** plainrest-postgres's EVENTS_LOCK and EVENTS_CHANNEL (event-schema.ts). */
const EVENTS_LOCK = 0x706c6e65;
const INSERT_WITH_EVENT =
  `WITH "changed" AS (${INSERT}), ` +
  `"locked" AS MATERIALIZED (SELECT pg_advisory_xact_lock(${EVENTS_LOCK}) FROM (SELECT count(*) FROM "changed") AS "done"), ` +
  '"added" AS (INSERT INTO "__events" ("id", "type", "collection", "record_id", "under", "owner", "at", "record") ' +
  `SELECT nextval('"__events_id_seq"'), 'created', 'products', "changed"."id", '[]'::jsonb, NULL, clock_timestamp(), to_jsonb("changed") FROM "locked", "changed" RETURNING "id") ` +
  `SELECT "changed".*, (SELECT pg_notify('plainrest_events', max("id")::text) FROM "added") AS "__notified" FROM "changed"`;

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function failed(res, error) {
  console.error(error);
  send(res, 500, '{"error":"internal"}');
}

function readJson(req, then) {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (text += chunk));
  req.on('end', () => then(JSON.parse(text)));
}

/** A row without its NULL columns, as plainrest leaves an absent property out. */
function recordOf(row) {
  const record = {};
  for (const name in row) if (row[name] !== null) record[name] = row[name];
  return record;
}

function getItem(res, id) {
  pool.query({ name: 'get_item', text: GET_ITEM, values: [id] }).then(
    (result) => {
      const row = result.rows[0];
      if (row === undefined) return send(res, 404, '{"error":"not found"}');
      send(res, 200, JSON.stringify(recordOf(row)));
    },
    (error) => failed(res, error),
  );
}

function getItemCheckingCaller(res, id) {
  pool.query({ name: 'get_item_checking_caller', text: GET_ITEM_CHECKING_CALLER, values: [id, ...CALLER] }).then(
    (result) => {
      const { r0: record, caller } = result.rows[0];
      if (!caller) return send(res, 401, '{"error":"unauthenticated"}');
      if (record === null) return send(res, 404, '{"error":"not found"}');
      send(res, 200, JSON.stringify(recordOf(record)));
    },
    (error) => failed(res, error),
  );
}

function getList(res, query) {
  const limit = Math.max(0, Math.floor(Number(query.get('limit') ?? 20)) || 0);
  pool.query({ name: `list_${limit}`, text: listPage(limit), values: [query.get('category'), ...CALLER] }).then(
    (result) => {
      if (result.rows[0]?.__caller !== true) return send(res, 401, '{"error":"unauthenticated"}');
      const total = result.rows[0]?.__total ?? 0;
      const data = result.rows.filter((row) => row.id !== null).map(({ __total, __caller, ...row }) => recordOf(row));
      send(res, 200, JSON.stringify({ data, meta: { page: 1, limit, total } }));
    },
    (error) => failed(res, error),
  );
}

/** The row's search words, as plainrest writes them in its `__search` column (its store/search-words.ts, short): the same row, the same index entries. */
function searchWords(...texts) {
  const words = new Set();
  for (const text of texts) {
    if (typeof text !== 'string') continue;
    for (const word of text
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u))
      if (word !== '') words.add(word);
  }
  return JSON.stringify([...words]);
}

function create(req, res) {
  readJson(req, (fields) => {
    const values = [
      fields.name,
      fields.category,
      fields.price,
      fields.description ?? null,
      new Date().toISOString(),
      searchWords(fields.name, fields.description),
    ];
    const statement =
      req.headers['reference-writes-event'] === 'yes'
        ? { name: 'insert_with_event', text: INSERT_WITH_EVENT, values }
        : { name: 'insert', text: INSERT, values };
    pool.query(statement).then(
      (result) => {
        const { __notified, __search, ...row } = result.rows[0];
        send(res, 201, JSON.stringify(recordOf(row)));
      },
      (error) => failed(res, error),
    );
  });
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (req.method === 'GET' && url.startsWith(`${LIST_PATH}?`))
    return getList(res, new URLSearchParams(url.slice(LIST_PATH.length + 1)));
  if (req.method === 'POST' && url === LIST_PATH) return create(req, res);
  if (req.method === 'GET' && url.startsWith(ITEM_PREFIX)) {
    const id = Number(url.slice(ITEM_PREFIX.length));
    return req.headers['reference-checks-caller'] === 'yes' ? getItemCheckingCaller(res, id) : getItem(res, id);
  }
  send(res, 405, '{"error":"method not allowed"}');
});
server.listen(Number(port), '127.0.0.1');
