// Input fuzzing (the hardening issue, item 1): seeded, deterministic mutations of valid
// requests (test/fuzz-cases.ts) sent to one real server with a data directory, every
// case judged by the same oracle. Convention: OWASP API Security Top 10 (2023), API8
// Security Misconfiguration and API4 Unrestricted Resource Consumption.
//
// The oracle, for every case:
// - the status is below 500 and one the contract allows for the route, method and
//   mutation — or, for framing errors and bodies over the limit only, the connection
//   closed without an answer (counted per mutation in the test's diagnostics);
// - no answer (body or header) carries a stack frame, `node:internal`, `.ts:`, `.js:`,
//   an error name (`Error:`, `RangeError:`), the repository's path or a temporary
//   directory's;
// - a 4xx with a body is JSON problem details with a snake_case `code`, its `status`,
//   `type` and `title`; a JSON success body parses; an X-Request-Id is sane;
// - nothing stored changed but what an accepted (2xx) write names: every user, product
//   and order is read through the admin token before and after each window of cases and
//   compared deeply;
// and afterwards: /healthz answers 200 on a fresh connection, a normal request works,
// no prototype of this process (the server runs in it) was polluted, and a restart
// from the data directory gives back exactly the same records.
//
// FUZZ_CASES=<n> runs more cases (default 1000, 3000 in the long run: test/long-run.ts), FUZZ_SEED=<n> another seed, and
// FUZZ_ONLY=<i>[,<j>…] only those cases: every failure prints what to replay.

import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Fixture, FuzzCase } from './fuzz-cases.ts';
import {
  ERROR_NAME,
  FAMILIES,
  MUTATIONS,
  STACK_FRAME,
  caseAt,
  describeCase,
  familyOf,
  leakMarkers,
  markedCase,
  mutationNames,
  shorten,
} from './fuzz-cases.ts';
import type { TestServer } from './helpers.ts';
import { recordingLogger, startTestServer, temporaryDirectory, tokenFor } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';
import { scaled } from './long-run.ts';
import { heldByServer } from './server-sockets.ts';

const SEED = readNumber('FUZZ_SEED', 20_260_101);
const CASES = readNumber('FUZZ_CASES', scaled(1000, 3000));
const ONLY = process.env['FUZZ_ONLY']?.split(',').map((index) => Number(index.trim()));
/** Requests in flight at once. */
const CONCURRENCY = 16;
/** Cases between two snapshots of every stored record. */
const WINDOW = 250;
/** A request unanswered for this long has hung: a busy machine answers in seconds at worst. */
const HTTP_TIMEOUT_MS = 30_000;
const RAW_TIMEOUT_MS = 30_000;
/** How often a raw request looks whether the server is waiting for more of its bytes. */
const RAW_LOOK_MS = 10;
/** After the expected answers, how long to wait for unexpected extra ones. */
const RAW_GRACE_MS = 20;
/** Failures printed in full per test, beyond one per failing mutation. */
const SHOWN_FAILURES = 12;

const MARKERS = leakMarkers(REPOSITORY_ROOT, tmpdir());

function readNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, not ${text}`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

// ---------------------------------------------------------------------------------
// Sending a case and reading the answer

interface Answer {
  readonly status: number;
  /** Lower-case names; repeated fields joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
  readonly text: string;
}

type Outcome =
  | { readonly kind: 'answered'; readonly answers: readonly Answer[]; readonly cutShort: boolean }
  | {
      readonly kind: 'closed';
      readonly reason: string;
      /** The client half-closed first, still unanswered: a write in progress then may or may not have happened. */
      readonly clientGaveUp?: boolean;
    }
  | { readonly kind: 'hang'; readonly partial: string };

function headerMap(entries: Iterable<readonly [string, string | string[] | undefined]>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    const key = name.toLowerCase();
    map.set(key, map.has(key) ? `${map.get(key)}, ${text}` : text);
  }
  return map;
}

/** One request on the shared keep-alive agent; a stale reused socket is retried once. */
async function sendHttp(origin: URL, agent: Agent, fuzzCase: FuzzCase): Promise<Outcome> {
  const first = await sendHttpOnce(origin, agent, fuzzCase);
  if (first.outcome.kind === 'closed' && first.reusedSocket)
    return (await sendHttpOnce(origin, agent, fuzzCase)).outcome;
  return first.outcome;
}

function sendHttpOnce(
  origin: URL,
  agent: Agent,
  fuzzCase: FuzzCase,
): Promise<{ outcome: Outcome; reusedSocket: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    const req = request({
      host: origin.hostname,
      port: Number(origin.port),
      method: fuzzCase.method,
      path: fuzzCase.target,
      headers: Object.fromEntries(fuzzCase.headers),
      agent,
      setHost: false,
    });
    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ outcome, reusedSocket: req.reusedSocket });
    };
    const timer = setTimeout(() => {
      settle({ kind: 'hang', partial: '' });
      req.destroy();
    }, HTTP_TIMEOUT_MS);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = (cutShort: boolean): void => {
        const headers = headerMap(Object.entries(res.headers));
        const answer = { status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') };
        settle({ kind: 'answered', answers: [answer], cutShort });
      };
      res.on('end', () => done(false));
      res.on('aborted', () => done(true));
      res.on('error', () => done(true));
    });
    req.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'closed', reason: error.code ?? error.message }));
    const body = fuzzCase.body;
    if (body !== undefined && fuzzCase.chunked) {
      // The case carries Transfer-Encoding: chunked, so node:http frames these two writes as chunks.
      req.write(body.subarray(0, Math.floor(body.length / 2)));
      req.end(body.subarray(Math.floor(body.length / 2)));
    } else {
      req.end(body);
    }
  });
}

/** The requests each of the server's connections has begun and not finished answering (Node's diagnostics channels). */
const unanswered = new WeakMap<Socket, Set<IncomingMessage>>();
subscribe('http.server.request.start', (message) => {
  const { request, socket } = message as { request: IncomingMessage; socket: Socket };
  const requests = unanswered.get(socket) ?? new Set();
  unanswered.set(socket, requests.add(request));
});
subscribe('http.server.response.finish', (message) => {
  const { request, socket } = message as { request: IncomingMessage; socket: Socket };
  unanswered.get(socket)?.delete(request);
});

/**
 * The server (in this process) waits for more of the bytes `client` sent, `sent` of them: it
 * has read them all, and no request it began has all its body and no answer yet (one being
 * answered, a durable write perhaps). Not once it has closed the connection.
 */
function serverWaitsForMore(client: Socket, sent: number): boolean {
  const [server] = heldByServer([client]);
  if (server === undefined || server.bytesRead < sent) return false;
  for (const request of unanswered.get(server) ?? []) if (request.complete) return false;
  return true;
}

/**
 * The exact bytes on a fresh connection, read until the server closes it or has sent the
 * answers the bytes ask for. Only requests cut short on purpose are half-closed at once:
 * Node's server takes a client's FIN as an abort and drops the answer of a request still
 * in progress (a durable write). Anything else still unanswered is half-closed once the
 * server waits for more bytes (serverWaitsForMore): never while it is answering, however
 * long a busy machine takes to.
 */
function sendRaw(origin: URL, fuzzCase: FuzzCase): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const isHead = fuzzCase.method === 'HEAD';
    let reason = 'closed by the server';
    let hung = false;
    let grace: NodeJS.Timeout | undefined;
    const bytes = fuzzCase.raw ?? new Uint8Array(0);
    const socket = connectSocket(Number(origin.port), origin.hostname, () => {
      if (fuzzCase.halfClose) socket.end(bytes);
      else socket.write(bytes);
    });
    let gaveUp = false;
    const halfClose = setInterval(() => {
      if (fuzzCase.halfClose || !serverWaitsForMore(socket, bytes.length)) return;
      clearInterval(halfClose);
      gaveUp = chunks.length === 0;
      socket.end();
    }, RAW_LOOK_MS);
    const timer = setTimeout(() => {
      hung = true;
      socket.destroy();
    }, RAW_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(grace);
      const { answers, cutShort } = parseResponses(Buffer.concat(chunks), isHead);
      const closing = /close/i.test(answers[answers.length - 1]?.headers.get('connection') ?? '');
      if (!cutShort && answers.length >= fuzzCase.expectedAnswers && !closing)
        grace = setTimeout(() => socket.destroy(), RAW_GRACE_MS);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      reason = error.code ?? error.message;
    });
    socket.on('close', () => {
      for (const pending of [timer, grace]) clearTimeout(pending);
      clearInterval(halfClose);
      const data = Buffer.concat(chunks);
      if (hung) return resolve({ kind: 'hang', partial: data.toString('latin1') });
      const { answers, cutShort } = parseResponses(data, isHead);
      resolve(
        answers.length === 0 && !cutShort
          ? { kind: 'closed', reason, clientGaveUp: gaveUp }
          : { kind: 'answered', answers, cutShort },
      );
    });
  });
}

/** Splits raw bytes into HTTP/1.1 responses (Content-Length, chunked, or until close); 1xx are skipped. */
function parseResponses(data: Buffer, firstIsHead: boolean): { answers: Answer[]; cutShort: boolean } {
  const answers: Answer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const headEnd = data.indexOf('\r\n\r\n', offset);
    if (headEnd === -1) return { answers, cutShort: true };
    const [statusLine = '', ...lines] = data.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3}) /.exec(statusLine);
    if (match === null) return { answers, cutShort: true };
    const status = Number(match[1]);
    const fields = lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()] as const;
    });
    const headers = headerMap(fields);
    offset = headEnd + 4;
    if (status < 200) continue;
    let body: Buffer = Buffer.alloc(0);
    const length = headers.get('content-length');
    if ((firstIsHead && answers.length === 0) || status === 204 || status === 304) {
      // no body
    } else if (length !== undefined) {
      const end = offset + Number(length);
      if (!Number.isSafeInteger(end) || end > data.length) return { answers, cutShort: true };
      body = data.subarray(offset, end);
      offset = end;
    } else if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
      const decoded = decodeChunked(data, offset);
      if (decoded === undefined) return { answers, cutShort: true };
      body = decoded.body;
      offset = decoded.end;
    } else {
      body = data.subarray(offset);
      offset = data.length;
    }
    answers.push({ status, headers, text: body.toString('utf8') });
  }
  return { answers, cutShort: false };
}

function decodeChunked(data: Buffer, start: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  let offset = start;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isSafeInteger(size)) return undefined;
    offset = lineEnd + 2;
    if (size === 0) {
      const trailerEnd = data.indexOf('\r\n', offset);
      return trailerEnd === -1 ? undefined : { body: Buffer.concat(parts), end: trailerEnd + 2 };
    }
    parts.push(data.subarray(offset, offset + size));
    offset += size + 2;
  }
}

function send(origin: URL, agent: Agent, fuzzCase: FuzzCase): Promise<Outcome> {
  return fuzzCase.transport === 'raw' ? sendRaw(origin, fuzzCase) : sendHttp(origin, agent, fuzzCase);
}

// ---------------------------------------------------------------------------------
// The oracle

/** Stack frames, internal paths and error names, in the body or any header. */
function leaks(answer: Answer): string[] {
  const found: string[] = [];
  const headers = [...answer.headers].map(([name, value]): [string, string] => [`header ${name}`, value]);
  const places: [string, string][] = [['body', answer.text], ...headers];
  for (const [where, text] of places) {
    const frame = STACK_FRAME.exec(text);
    if (frame !== null) found.push(`the ${where} carries a stack frame: ${shorten(frame[0], 120)}`);
    if (ERROR_NAME.test(text)) found.push(`the ${where} carries an error name ("Error:")`);
    for (const marker of MARKERS) if (text.includes(marker)) found.push(`the ${where} carries "${marker}"`);
  }
  return found;
}

/** The problems of an error body that is not problem details (README: Errors). */
function problemDetailsIssues(answer: Answer, type: string): string[] {
  if (type !== 'application/json' && type !== 'application/problem+json')
    return [`a ${answer.status} body sent as "${type}"`];
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return ['the error body is not JSON'];
  }
  if (!isRecord(body)) return ['the error body is not a JSON object'];
  const issues: string[] = [];
  const code = body['code'];
  if (typeof code !== 'string' || !/^[a-z]+(_[a-z]+)*$/.test(code)) issues.push('the problem has no snake_case `code`');
  if (body['status'] !== answer.status) issues.push(`the problem says status ${String(body['status'])}`);
  if (body['type'] !== 'about:blank' || typeof body['title'] !== 'string')
    issues.push('the problem lacks `type` or `title`');
  return issues;
}

/** A 4xx body is problem details; a JSON success body parses; X-Request-Id is sane (no echo of odd input). */
function shapeIssues(answer: Answer): string[] {
  const issues: string[] = [];
  const requestId = answer.headers.get('x-request-id');
  if (requestId !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(requestId)) {
    issues.push(`X-Request-Id echoes an unsafe value: ${shorten(requestId, 80)}`);
  }
  if (answer.text === '') return issues;
  const type = answer.headers.get('content-type') ?? '';
  if (answer.status >= 400) return [...issues, ...problemDetailsIssues(answer, type)];
  if (type === 'application/json') {
    try {
      JSON.parse(answer.text);
    } catch {
      issues.push('the success body is not JSON');
    }
  }
  return issues;
}

function judge(fuzzCase: FuzzCase, outcome: Outcome): string[] {
  if (outcome.kind === 'hang') {
    const got = outcome.partial === '' ? '' : `; got ${shorten(outcome.partial, 200)}`;
    return [`no answer, and the connection stayed open (a hang)${got}`];
  }
  if (outcome.kind === 'closed')
    return fuzzCase.mayClose ? [] : [`the connection closed without an answer (${outcome.reason})`];
  const problems: string[] = [];
  if (outcome.cutShort) problems.push('an answer was cut short or is not HTTP/1.1');
  for (const answer of outcome.answers) {
    if (answer.status >= 500) problems.push(`status ${answer.status}: the server failed`);
    else if (!fuzzCase.allowed.includes(answer.status))
      problems.push(`status ${answer.status} is not one the contract allows here`);
    problems.push(...leaks(answer), ...shapeIssues(answer));
  }
  return problems;
}

// ---------------------------------------------------------------------------------
// Every stored record, read through the admin token, and what accepted writes explain

/** `users:3` → the record as the admin reads it. */
type Snapshot = ReadonlyMap<string, Record<string, unknown>>;

interface Touched {
  readonly records: Set<string>;
  /** Users deleted together with their orders. */
  readonly cascaded: Set<number>;
  /** Collections that got a record whose Location could not be read. */
  readonly createdSomewhere: Set<string>;
}

function nothingTouched(): Touched {
  return { records: new Set(), cascaded: new Set(), createdSomewhere: new Set() };
}

function getJson(origin: URL, agent: Agent, path: string, token: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const options = {
      host: origin.hostname,
      port: Number(origin.port),
      path,
      agent,
      headers: { authorization: `Bearer ${token}` },
    };
    const req = request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function listAll(origin: URL, agent: Agent, path: string, token: string): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await getJson(origin, agent, `${path}?limit=100&page=${page}`, token);
    assert.equal(status, 200, `snapshot: GET ${path} page ${page} answered ${status}`);
    assert.ok(
      isRecord(body) && Array.isArray(body['data']) && isRecord(body['meta']),
      `snapshot: GET ${path} is not a list envelope`,
    );
    records.push(...(body['data'] as unknown[]).filter(isRecord));
    if (page >= Number(body['meta']['pages'])) return records;
  }
}

async function snapshot(origin: URL, agent: Agent, token: string): Promise<Snapshot> {
  const records = new Map<string, Record<string, unknown>>();
  const users = await listAll(origin, agent, '/v1/users', token);
  for (const user of users) records.set(`users:${String(user['id'])}`, user);
  for (const product of await listAll(origin, agent, '/v1/products', token))
    records.set(`products:${String(product['id'])}`, product);
  const orderLists = await inPool(users, 8, (user) =>
    listAll(origin, agent, `/v1/users/${String(user['id'])}/orders`, token),
  );
  for (const order of orderLists.flat()) records.set(`orders:${String(order['id'])}`, order);
  return records;
}

/**
 * Marks what an accepted first answer to this case may have changed, or a write the
 * client stopped waiting for (Node drops the answer of a request in progress when its
 * client half-closes, but the write itself may have been made).
 */
function noteAcceptedWrite(fuzzCase: FuzzCase, outcome: Outcome, touched: Touched): void {
  const target = fuzzCase.writes;
  const answer = outcome.kind === 'answered' ? outcome.answers[0] : undefined;
  const accepted = answer !== undefined && answer.status >= 200 && answer.status <= 299;
  const abandoned = outcome.kind === 'closed' && outcome.clientGaveUp === true;
  if (target === undefined || !(accepted || abandoned)) return;
  if (target.id !== 'created') {
    touched.records.add(`${target.collection}:${target.id}`);
    if (target.cascade) touched.cascaded.add(target.id);
    return;
  }
  // An abandoned create has no Location: its record may be any new one of the collection.
  const created = /\/([1-9][0-9]*)$/.exec(answer?.headers.get('location') ?? '')?.[1];
  if (created === undefined) touched.createdSomewhere.add(target.collection);
  else touched.records.add(`${target.collection}:${created}`);
}

/** True when the base request (`PUT /v1/users/2 (en)`) addresses the record `users:2`, or its collection. */
function addresses(base: string, key: string): boolean {
  const [collection = '', id = ''] = key.split(':');
  const words: Record<string, readonly string[]> = {
    users: ['users', 'usuarios'],
    products: ['products', 'produtos'],
    orders: ['orders', 'pedidos'],
  };
  return (words[collection] ?? []).some((word) => new RegExp(`/${word}(/${id})?( |$)`).test(base));
}

interface Change {
  readonly key: string;
  readonly text: string;
  /** The case whose marker a new record carries (the case that created it). */
  readonly madeBy: number | undefined;
}

/** Changes between two snapshots that no accepted write explains. */
function unexplainedChanges(before: Snapshot, afterwards: Snapshot, touched: Touched): Change[] {
  const changes: Change[] = [];
  for (const key of new Set([...before.keys(), ...afterwards.keys()])) {
    const old = before.get(key);
    const now = afterwards.get(key);
    if (isDeepStrictEqual(old, now) || touched.records.has(key)) continue;
    const [collection = ''] = key.split(':');
    if (collection === 'orders' && [old, now].some((order) => touched.cascaded.has(Number(order?.['user_id']))))
      continue;
    if (old === undefined && touched.createdSomewhere.has(collection)) continue;
    const what = old === undefined ? 'appeared' : now === undefined ? 'disappeared' : 'changed';
    const shown = (record: Record<string, unknown> | undefined): string =>
      shorten(JSON.stringify(record) ?? 'none', 300);
    const text = `${key} ${what}\n    before: ${shown(old)}\n    after:  ${shown(now)}`;
    changes.push({ key, text, madeBy: old === undefined ? markedCase(SEED, JSON.stringify(now)) : undefined });
  }
  return changes;
}

// ---------------------------------------------------------------------------------
// Running cases in windows, and the report

async function inPool<T, R>(items: readonly T[], width: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

interface Failure {
  readonly fuzzCase: FuzzCase | undefined;
  readonly problems: readonly string[];
  readonly evidence: string;
  readonly recordChanged: boolean;
}

interface RunReport {
  readonly failures: Failure[];
  /** `family/mutation` → cases whose connection closed without an answer (allowed for them). */
  readonly closures: Map<string, number>;
  /** Status → answers, to show how deep the cases reach. */
  readonly statuses: Map<number, number>;
  cases: number;
  raw: number;
}

interface Harness {
  readonly origin: URL;
  readonly agent: Agent;
  readonly fixture: Fixture;
  readonly serverLog: () => readonly string[];
}

/** A sent case and its answers, kept for one window to name the culprit of a stray change. */
interface Attempt {
  readonly fuzzCase: FuzzCase;
  readonly answer: string;
}

function evidenceOf(outcome: Outcome, serverLog: readonly string[]): string {
  if (outcome.kind !== 'answered') return '';
  const lines = outcome.answers.map((answer) => `  answer: ${answer.status} ${shorten(answer.text, 300)}`);
  for (const answer of outcome.answers) {
    const id = answer.headers.get('x-request-id');
    if (id === undefined) continue;
    for (const line of serverLog) if (line.includes(id)) lines.push(`  server log: ${shorten(line, 400)}`);
  }
  return lines.join('\n');
}

function describeAttempt({ fuzzCase, answer }: Attempt): string {
  const request = `${shorten(fuzzCase.method, 20)} ${shorten(fuzzCase.target, 80)}`;
  return `#${fuzzCase.index} ${fuzzCase.family}/${fuzzCase.mutation} via ${fuzzCase.transport}: ${request} → ${answer}`;
}

/** A failure for a stored change: the case its marker names, else the cases whose valid form addresses the record. */
function strayChangeFailure(change: Change, attempts: readonly Attempt[], window: readonly number[]): Failure {
  const suspects = attempts
    .filter(({ fuzzCase }) =>
      change.madeBy === undefined ? addresses(fuzzCase.base, change.key) : fuzzCase.index === change.madeBy,
    )
    .sort((a, b) => Number(/^2/.test(a.answer)) - Number(/^2/.test(b.answer)));
  const culprit = change.madeBy === undefined ? undefined : suspects[0]?.fuzzCase;
  const heading =
    culprit === undefined
      ? 'requests in that window whose valid form addresses it'
      : 'it carries the marker of this case';
  return {
    fuzzCase: culprit,
    problems: [
      `a stored record changed that no accepted write names (cases #${window[0]}–#${window[window.length - 1]}): ${change.text}`,
    ],
    evidence: `  ${heading} (answers as received):\n    ${suspects.slice(0, 20).map(describeAttempt).join('\n    ')}`,
    recordChanged: true,
  };
}

/** Runs the cases in windows: snapshot, the window's cases in parallel, snapshot, compare. */
async function runCases(harness: Harness, indices: readonly number[], report: RunReport): Promise<void> {
  const { origin, agent, fixture } = harness;
  let before = await snapshot(origin, agent, fixture.adminToken);
  for (let start = 0; start < indices.length; start += WINDOW) {
    const window = indices.slice(start, start + WINDOW);
    const touched = nothingTouched();
    const attempts: Attempt[] = [];
    await inPool(window, CONCURRENCY, async (index) => {
      const fuzzCase = caseAt(SEED, index, fixture);
      const outcome = await send(origin, agent, fuzzCase);
      report.cases++;
      if (fuzzCase.transport === 'raw') report.raw++;
      if (outcome.kind === 'closed') count(report.closures, `${fuzzCase.family}/${fuzzCase.mutation}`);
      const answers = outcome.kind === 'answered' ? outcome.answers : [];
      for (const answer of answers) count(report.statuses, answer.status);
      const problems = judge(fuzzCase, outcome);
      if (problems.length > 0) {
        report.failures.push({
          fuzzCase,
          problems,
          evidence: evidenceOf(outcome, harness.serverLog()),
          recordChanged: false,
        });
      }
      noteAcceptedWrite(fuzzCase, outcome, touched);
      attempts.push({
        fuzzCase,
        answer: answers.length > 0 ? answers.map((answer) => answer.status).join(' then ') : outcome.kind,
      });
    });
    const afterwards = await snapshot(origin, agent, fixture.adminToken);
    for (const change of unexplainedChanges(before, afterwards, touched)) {
      report.failures.push(strayChangeFailure(change, attempts, window));
    }
    before = afterwards;
  }
}

function failureReport(family: string, report: RunReport, fixture: Fixture): string {
  const byMutation = new Map<string, Failure[]>();
  for (const failure of report.failures) {
    const mutation =
      failure.fuzzCase === undefined ? 'unknown case' : `${failure.fuzzCase.family}/${failure.fuzzCase.mutation}`;
    const key = `${mutation}${failure.recordChanged ? ' (stored record changed)' : ''}`;
    byMutation.set(key, [...(byMutation.get(key) ?? []), failure]);
  }
  const summary = [...byMutation].map(([key, failures]) => {
    const indices = failures.flatMap((failure) =>
      failure.fuzzCase === undefined ? [] : [`#${failure.fuzzCase.index}`],
    );
    const listed = indices.length === 0 ? '' : `: ${indices.slice(0, 30).join(' ')}${indices.length > 30 ? ' …' : ''}`;
    return `  ${key} ×${failures.length}${listed}`;
  });
  // One example of every failing mutation first, then the rest in order.
  const firsts = [...byMutation.values()].map((failures) => failures[0] as Failure);
  const shown = [...new Set([...firsts, ...report.failures])].slice(0, Math.max(SHOWN_FAILURES, firsts.length));
  const details = shown.map((failure) => {
    const head = failure.fuzzCase === undefined ? 'window check' : describeCase(failure.fuzzCase, fixture);
    return [head, ...failure.problems.map((problem) => `  → ${problem}`), failure.evidence]
      .filter((line) => line !== '')
      .join('\n');
  });
  return [
    `${report.failures.length} problem(s) in ${report.cases} ${family} cases (seed ${SEED}), by mutation:\n${summary.join('\n')}`,
    `replay one case: FUZZ_SEED=${SEED} FUZZ_ONLY=<index> node --import tsx --test test/fuzz.test.ts`,
    ...details,
    report.failures.length > shown.length
      ? `… and ${report.failures.length - shown.length} more (listed above by index)`
      : '',
  ].join('\n\n');
}

// ---------------------------------------------------------------------------------
// The fixture

async function createRecord(api: TestServer, path: string, body: Record<string, unknown>): Promise<number> {
  const response = await api.post(path, body);
  const parsed: unknown = JSON.parse(response.text);
  if (response.status !== 201 || !isRecord(parsed) || typeof parsed['id'] !== 'number') {
    throw new Error(`fixture: POST ${path} answered ${response.status} ${response.text}`);
  }
  return parsed['id'];
}

async function createFixture(api: TestServer): Promise<Fixture> {
  if (api.token === undefined) throw new Error('fixture: the test server has no admin token');
  const ownerEmail = 'owner@fuzz.example';
  const ownerPassword = 'owner-password-1';
  const ownerId = await createRecord(api, '/v1/users', {
    name: 'Fuzz owner',
    email: ownerEmail,
    password: ownerPassword,
  });
  const victimUserId = await createRecord(api, '/v1/users', { name: 'Fuzz victim', email: 'victim@fuzz.example' });
  const product = { name: 'Fuzz fixture', category: 'fuzz', price: 3.5, description: 'the fixture product' };
  const productId = await createRecord(api, '/v1/products', product);
  const victimProductId = await createRecord(api, '/v1/products', { name: 'Fuzz victim', category: 'fuzz', price: 1 });
  const orders = `/v1/users/${ownerId}/orders`;
  const orderId = await createRecord(api, orders, { items: [{ product_id: productId, quantity: 1 }] });
  const victimOrderId = await createRecord(api, orders, { items: [{ product_id: productId, quantity: 5 }] });
  const adminToken = api.token;
  const ownerToken = tokenFor(ownerId);
  return {
    adminToken,
    ownerToken,
    ownerId,
    ownerEmail,
    ownerPassword,
    productId,
    orderId,
    victimUserId,
    victimProductId,
    victimOrderId,
  };
}

/** A fixture with made-up tokens, for the generator's own checks (no server needed). */
const SAMPLE_FIXTURE: Fixture = {
  adminToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
  ownerToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIyIn0.c2lnbmF0dXJl',
  ownerId: 2,
  ownerEmail: 'owner@fuzz.example',
  ownerPassword: 'owner-password-1',
  productId: 1,
  orderId: 1,
  victimUserId: 3,
  victimProductId: 2,
  victimOrderId: 2,
};

function prototypeShape(): string[] {
  const prototypes = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
  return prototypes.map((prototype) => Object.getOwnPropertyNames(prototype).sort().join(','));
}

// ---------------------------------------------------------------------------------

describe(`input fuzzing: seeded mutations of valid requests (seed ${SEED}, ${ONLY === undefined ? CASES : ONLY.length} cases)`, () => {
  const indices = ONLY ?? Array.from({ length: CASES }, (_, index) => index);
  const logger = recordingLogger();
  const prototypesBefore = prototypeShape();
  const started = performance.now();
  /** What the process warned of while the cases ran (the server runs in it): a listener added per bad chunk, say. */
  const processWarnings: string[] = [];
  const onWarning = (warning: Error): void => {
    if (warning.name !== 'ExperimentalWarning') processWarnings.push(`${warning.name}: ${warning.message}`);
  };
  process.on('warning', onWarning);
  let dataDirectory: { path: string; remove: () => Promise<void> };
  let api: TestServer;
  let agent: Agent;
  let harness: Harness;

  before(async () => {
    dataDirectory = await temporaryDirectory();
    api = await startTestServer({ dataDir: dataDirectory.path, logger });
    agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const fixture = await createFixture(api);
    const serverLog = (): string[] => logger.lines.filter((line) => line.level !== 'info').map((line) => line.message);
    harness = { origin: new URL(api.url), agent, fixture, serverLog };
  });

  after(async () => {
    agent.destroy();
    await api.close();
    await dataDirectory.remove();
  });

  test('the generator: the same seed gives the same cases, every mutation is used, and no input looks like a leak', () => {
    const sample = Array.from({ length: Math.min(2 * MUTATIONS.length, 400) }, (_, index) => index);
    const cases = sample.map((index) => caseAt(SEED, index, SAMPLE_FIXTURE));
    cases.forEach((fuzzCase, index) =>
      assert.deepEqual(caseAt(SEED, index, SAMPLE_FIXTURE), fuzzCase, `case #${index} is deterministic`),
    );
    assert.ok(
      cases.some((fuzzCase, index) => !isDeepStrictEqual(caseAt(SEED + 1, index, SAMPLE_FIXTURE), fuzzCase)),
      'another seed gives other cases',
    );
    const used = new Set(cases.map((fuzzCase) => `${fuzzCase.family}/${fuzzCase.mutation}`));
    assert.deepEqual([...used].sort(), mutationNames().sort(), 'every mutation is used within the first N cases');
    for (const fuzzCase of cases) {
      const payload = Buffer.from(fuzzCase.raw ?? fuzzCase.body ?? new Uint8Array()).toString('latin1');
      const sent = [fuzzCase.target, ...fuzzCase.headers.flat(), payload].join('\n');
      const index = fuzzCase.index;
      for (const marker of MARKERS)
        assert.ok(!sent.includes(marker), `case #${index} sends "${marker}", which an echo would make a leak`);
      assert.ok(
        !STACK_FRAME.test(sent) && !ERROR_NAME.test(sent),
        `case #${index} sends something that looks like a stack trace`,
      );
      assert.ok(
        fuzzCase.allowed.every((status) => status < 500),
        `case #${index} allows a 5xx`,
      );
      assert.equal(familyOf(index), fuzzCase.family);
    }
  });

  for (const family of FAMILIES) {
    test(`${family} mutations: no 5xx, no leak, problem details, only allowed statuses, no stray writes`, async (t) => {
      const mine = indices.filter((index) => familyOf(index) === family);
      const report: RunReport = { failures: [], closures: new Map(), statuses: new Map(), cases: 0, raw: 0 };
      const familyStarted = performance.now();
      await runCases(harness, mine, report);
      const seconds = ((performance.now() - familyStarted) / 1000).toFixed(1);
      t.diagnostic(`${report.cases} ${family} cases (${report.raw} over raw sockets) in ${seconds} s`);
      const statuses = [...report.statuses].sort(([a], [b]) => a - b);
      t.diagnostic(`statuses: ${statuses.map(([status, answers]) => `${status}×${answers}`).join(' ')}`);
      if (report.closures.size > 0) {
        const closures = [...report.closures].map(([key, cases]) => `${key} ×${cases}`).join(', ');
        t.diagnostic(`closed without an answer (allowed for these): ${closures}`);
      }
      assert.equal(report.failures.length, 0, failureReport(family, report, harness.fixture));
    });
  }

  test('afterwards /healthz answers 200 on a fresh connection and a normal request still works', async (t) => {
    const fresh = new Agent({ keepAlive: false });
    try {
      const health = await getJson(harness.origin, fresh, '/healthz', harness.fixture.adminToken);
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
    } finally {
      fresh.destroy();
    }
    const created = await api.post('/v1/products', { name: 'After the fuzz', category: 'fuzz', price: 1.25 });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.get('location') ?? '';
    const read = await api.get(location);
    assert.equal(read.status, 200, read.text);
    const parsed: unknown = JSON.parse(read.text);
    assert.ok(isRecord(parsed) && parsed['name'] === 'After the fuzz' && parsed['price'] === 1.25, read.text);
    assert.equal((await api.delete(location)).status, 204);
    t.diagnostic(
      `${indices.length} cases, seed ${SEED}, ${((performance.now() - started) / 1000).toFixed(1)} s in all`,
    );
  });

  test('the process warned of nothing while the cases ran', () => {
    process.off('warning', onWarning);
    assert.deepEqual(processWarnings, []);
  });

  test('no prototype of the process was polluted (the server runs in it)', () => {
    assert.deepEqual(prototypeShape(), prototypesBefore);
    const probe: Record<string, unknown> = {};
    for (const name of ['polluted', 'role', 'admin']) assert.equal(probe[name], undefined, `({}).${name} is set`);
  });

  test('a restart from the data directory gives back exactly the stored records', async () => {
    const { origin, fixture } = harness;
    const last = await snapshot(origin, agent, fixture.adminToken);
    agent.destroy();
    await api.close();
    api = await startTestServer({ dataDir: dataDirectory.path, logger });
    agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const reloaded = await snapshot(new URL(api.url), agent, fixture.adminToken);
    const changes = unexplainedChanges(last, reloaded, nothingTouched()).map((change) => change.text);
    assert.deepEqual(changes, [], `records differ after a restart (seed ${SEED}):\n${changes.join('\n')}`);
    const warnings = logger.lines.filter(
      (line) => line.level !== 'info' && /journal|snapshot|corrupt/i.test(line.message),
    );
    assert.deepEqual(warnings, [], 'the restart warned about its files');
  });
});
