// Histories of clients reading, writing and compare-and-setting a few records of a real plainrest process that is
// killed (SIGKILL) and restarted on its data directory, checked for linearizability (test/linearizability.ts; issue
// 48). Each write gives a product's description a token no other write uses; an answer's ETag names the token it came
// with, and a compare-and-set sends one as If-Match. Used by test/linearizability.test.ts and bench/crash-histories.ts.

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Outcome, RegisterOp, RegisterState, Verdict } from './linearizability.ts';
import { byKey, checkRegister, describeHistory, minimalViolation } from './linearizability.ts';
import { mulberry32 } from './random.ts';

export interface CrashRunOptions {
  /** The server's entry point, run with `node` (dist/plainrest.mjs of the code under test). */
  readonly main: string;
  readonly seed: number;
  /** SIGKILLs, each followed by a restart on the same data directory. */
  readonly kills: number;
  readonly clients: number;
  readonly records: number;
  /** How long the clients run before each kill (and before the final stop): a random time in this range, in ms. */
  readonly phaseMs: readonly [number, number];
  /** COMPACT_AFTER_BYTES: a small value makes kills land during compactions too. */
  readonly compactAfterBytes?: number;
}

export interface RecordViolation {
  readonly key: number;
  readonly verdict: Verdict;
  /** The whole history of that record, and a small part of it that is not linearizable either. */
  readonly history: readonly RegisterOp[];
  readonly minimal: readonly RegisterOp[];
}

export interface CrashRunResult {
  readonly seed: number;
  readonly ops: readonly RegisterOp[];
  /** Operations by kind and answer: `write ok`, `cas failed`, `read unknown` (dropped), … */
  readonly counts: ReadonlyMap<string, number>;
  readonly violations: readonly RecordViolation[];
  /** Records whose search gave up (too many configurations): neither proved nor refuted. */
  readonly undecided: readonly number[];
  /** Answers the run did not expect: statuses other than the API's for these requests, an ETag naming two tokens. */
  readonly surprises: readonly string[];
  /** The moments each killed process was seen to have exited (the clock of the operations). */
  readonly kills: readonly number[];
  /** How long checking the histories took, in ms. */
  readonly checkMs: number;
}

const ADMIN_PASSWORD = 'linearizability-admin-password';
const TOKEN_SECRET = 'linearizability-token-secret-of-32-characters-or-more';
/** A request not answered in this long counts as unanswered: it may or may not take effect before the process ends. */
const REQUEST_TIMEOUT_MS = 30_000;

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
}

interface Answer {
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: string;
}

/** An operation sent: its answer fills in the rest (an unanswered one's `complete` is the moment its process ended). */
type Pending = Omit<RegisterOp, 'outcome' | 'complete' | 'observed'>;

/** One run: a fresh data directory, `kills` SIGKILLs each followed by a restart, a clean stop; every record checked. */
export async function crashRun(options: CrashRunOptions): Promise<CrashRunResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'plainrest-linearizability-'));
  const random = mulberry32(options.seed);
  const ops: RegisterOp[] = [];
  const surprises: string[] = [];
  const initial = new Map<number, RegisterState>();
  const kills: number[] = [];
  /** Every ETag seen, with the token its answer carried. */
  const tokenOfTag = new Map<string, string>();
  /** Per client and record, the last ETag and token it was given: what its next compare-and-set expects. */
  const lastSeen = Array.from({ length: options.clients }, () => new Map<number, { etag: string; token: string }>());
  let tokens = 0;
  let server: Server | undefined;
  try {
    let authorization = '';
    let keys: number[] = [];
    for (let phase = 0; phase <= options.kills; phase++) {
      server = await startServer(options, dataDir);
      const agent = new Agent({ keepAlive: true, maxSockets: options.clients });
      const send = (method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> =>
        exchange(agent, (server as Server).url, method, path, { authorization, ...headers }, body);
      if (phase === 0) {
        authorization = `Bearer ${await logIn(send)}`;
        keys = await createRecords(send, options.records, initial);
      }

      const unanswered: Pending[] = [];
      const noteSeen = (client: number, key: number, answer: Answer): string | undefined => {
        let token: string;
        try {
          token = (JSON.parse(answer.body) as { description: string }).description;
        } catch {
          surprises.push(`an answer that is not a product: ${answer.status} ${answer.body.slice(0, 200)}`);
          return undefined;
        }
        if (answer.etag === undefined) surprises.push(`a ${answer.status} without an ETag`);
        else {
          const known = tokenOfTag.get(answer.etag);
          if (known !== undefined && known !== token)
            surprises.push(`ETag ${answer.etag} came with ${known} and with ${token}`);
          tokenOfTag.set(answer.etag, token);
          lastSeen[client]?.set(key, { etag: answer.etag, token });
        }
        return token;
      };
      let stopping = false;
      const runClient = async (client: number): Promise<void> => {
        while (!stopping) {
          const key = keys[Math.floor(random() * keys.length)] as number;
          const path = `/v1/products/${key}`;
          const seen = lastSeen[client]?.get(key);
          const dice = random();
          // The last record may also be deleted (rarely): its register ends absent, answering 404 from then on.
          const kind =
            key === keys[keys.length - 1] && dice < 0.004
              ? 'delete'
              : dice < 0.45 || (dice >= 0.65 && seen === undefined)
                ? 'read'
                : dice < 0.65
                  ? 'write'
                  : 'cas';
          const token = `t${++tokens}`;
          const base = { key, client, invoke: performance.now() };
          const op: Pending =
            kind === 'write'
              ? { ...base, kind, value: token }
              : kind === 'cas'
                ? { ...base, kind, value: token, expected: seen?.token as string }
                : { ...base, kind };
          let answer: Answer;
          try {
            if (kind === 'read') answer = await send('GET', path, {});
            else if (kind === 'delete') answer = await send('DELETE', path, {});
            else {
              const headers: Record<string, string> = { 'content-type': 'application/merge-patch+json' };
              if (kind === 'cas') headers['if-match'] = seen?.etag as string;
              answer = await send('PATCH', path, headers, JSON.stringify({ description: token }));
            }
          } catch {
            if (kind !== 'read') unanswered.push(op);
            continue;
          }
          const complete = performance.now();
          const outcome = outcomeOf(kind, answer.status);
          if (outcome === undefined) {
            surprises.push(
              `${kind === 'read' ? 'GET' : kind === 'delete' ? 'DELETE' : 'PATCH'} ${path}: ${answer.status}`,
            );
            if (kind !== 'read') ops.push(finished(op, 'unknown', complete));
            continue;
          }
          let observed: string | undefined;
          if (outcome === 'ok' && kind !== 'delete') {
            observed = noteSeen(client, key, answer);
            if (observed === undefined) continue;
            if (kind !== 'read' && observed !== token) surprises.push(`PATCH ${path} of ${token} answered ${observed}`);
          }
          ops.push(finished(op, outcome, complete, kind === 'read' ? observed : undefined));
        }
      };
      const clients = Array.from({ length: options.clients }, (_, client) => runClient(client));
      const [shortest, longest] = options.phaseMs;
      await sleep(shortest + random() * (longest - shortest));
      stopping = true;
      if (phase < options.kills) {
        server.child.kill('SIGKILL');
        await exited(server.child);
        const end = performance.now();
        kills.push(end);
        await Promise.all(clients);
        // Whatever was sent to the process it killed took effect before it died, or never.
        for (const op of unanswered) ops.push(finished(op, 'unknown', end));
      } else {
        await Promise.all(clients);
        server.child.kill('SIGTERM');
        await exited(server.child);
        const end = performance.now();
        if (server.child.exitCode !== 0)
          surprises.push(`the stop exited ${server.child.exitCode}:\n${server.output()}`);
        for (const op of unanswered) ops.push(finished(op, 'unknown', end));
      }
      agent.destroy();
      server = undefined;
    }
  } finally {
    if (server !== undefined) {
      server.child.kill('SIGKILL');
      await exited(server.child);
    }
    await rm(dataDir, { recursive: true, force: true });
  }

  const checking = performance.now();
  const violations: RecordViolation[] = [];
  const undecided: number[] = [];
  for (const [key, history] of byKey(ops)) {
    const from = initial.get(key) as RegisterState;
    const verdict = checkRegister(history, from);
    if (verdict.gaveUp) undecided.push(key);
    else if (!verdict.linearizable)
      violations.push({ key, verdict, history, minimal: minimalViolation(history, from) });
  }
  const checkMs = performance.now() - checking;
  return { seed: options.seed, ops, counts: countOps(ops), violations, undecided, surprises, kills, checkMs };
}

/** The run in a few lines: what ran, and each violation's small history. */
export function describeRun(result: CrashRunResult): string {
  const counts = [...result.counts].map(([name, count]) => `${count} ${name}`).join(', ');
  const checked = `checked in ${(result.checkMs / 1000).toFixed(2)} s`;
  const lines = [`seed ${result.seed}: ${result.ops.length} operations (${counts}), ${checked}`];
  for (const { key, history, minimal } of result.violations) {
    lines.push(`product ${key}: NOT linearizable (${history.length} operations); a part that is not either:`);
    const marks = result.kills.map((time) => ({ time, label: 'the process is killed (SIGKILL), then restarted' }));
    lines.push(describeHistory(minimal, marks));
  }
  for (const key of result.undecided) lines.push(`product ${key}: the search gave up`);
  for (const surprise of result.surprises.slice(0, 20)) lines.push(`unexpected: ${surprise}`);
  return lines.join('\n');
}

function finished(op: Pending, outcome: Outcome, complete: number, observed?: string): RegisterOp {
  return observed === undefined ? { ...op, outcome, complete } : { ...op, outcome, complete, observed };
}

/** The answers the API gives these requests (README: Methods, Errors); another is a surprise. */
function outcomeOf(kind: RegisterOp['kind'], status: number): Outcome | undefined {
  if (status === 404) return 'absent';
  if (kind === 'delete') return status === 204 ? 'ok' : undefined;
  if (status === 200) return 'ok';
  if (kind === 'cas' && status === 412) return 'failed';
  return undefined;
}

function countOps(ops: readonly RegisterOp[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const op of ops) {
    const name = `${op.kind} ${op.outcome}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return new Map([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

async function startServer(options: CrashRunOptions, dataDir: string): Promise<Server> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SEED: 'false',
    ADMIN_PASSWORD,
    TOKEN_SECRET,
    RATE_LIMIT: '0',
    LOG_FORMAT: 'off',
  };
  if (options.compactAfterBytes !== undefined) env['COMPACT_AFTER_BYTES'] = String(options.compactAfterBytes);
  const child = spawn(process.execPath, [options.main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) resolve(match[1] as string);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${output}`)),
    );
  });
  return { child, url, output: () => output };
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await once(child, 'exit');
}

type Send = (method: string, path: string, headers: Record<string, string>, body?: string) => Promise<Answer>;

async function logIn(send: Send): Promise<string> {
  const body = JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD });
  const answer = await send('POST', '/v1/tokens', { 'content-type': 'application/json' }, body);
  if (answer.status !== 201) throw new Error(`cannot log in: ${answer.status} ${answer.body}`);
  return (JSON.parse(answer.body) as { access_token: string }).access_token;
}

/** The records (products), each a register starting at its create's token. */
async function createRecords(send: Send, count: number, initial: Map<number, RegisterState>): Promise<number[]> {
  const keys: number[] = [];
  for (let index = 0; index < count; index++) {
    const description = `initial-${index}`;
    const body = JSON.stringify({ name: `register ${index}`, category: 'registers', price: 1, description });
    const answer = await send('POST', '/v1/products', { 'content-type': 'application/json' }, body);
    if (answer.status !== 201) throw new Error(`cannot create a product: ${answer.status} ${answer.body}`);
    const key = (JSON.parse(answer.body) as { id: number }).id;
    keys.push(key);
    initial.set(key, description);
  }
  return keys;
}

function exchange(
  agent: Agent,
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      new URL(path, url),
      { method, agent, headers, timeout: REQUEST_TIMEOUT_MS },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const etag = incoming.headers['etag'];
          resolve({ status: incoming.statusCode as number, etag, body: Buffer.concat(chunks).toString() });
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer in time')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
