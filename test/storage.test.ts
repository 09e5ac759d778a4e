// Storage (README: Storage and durability): a snapshot per collection ({next_id, journal_seq, records},
// one record per line, written atomically) plus an append-only journal of JSON lines
// (`journal-<first seq>.jsonl`, one line per commit, on disk before the answer — written
// with O_DSYNC or fdatasync'ed — concurrent commits sharing a flush). A line is
// {seq, at, changes}; each change of a declared record carries its event facts for the
// change feed (README: Events: `created` when a put created the record, `under`, `owner`),
// and a line takes one number per change, so the next line's seq follows the last of them.
// A write is on disk when its answer arrives;
// a start after a crash replays the journal; a torn last line is cut with a warning; a
// damaged line before it or a corrupt snapshot stops the start naming the file (and
// line) and changes nothing; compaction folds the journal into the snapshots and
// deletes the segments they cover that the change feed no longer keeps, leaving no
// temporary file; `plainrest.lock` keeps a second
// server off the directory (a lock whose process is gone is taken over); close()
// leaves the snapshots, holding everything, and only those journal segments whose events
// the feed keeps, holding nothing the snapshots do not cover. Restarts keep records and id
// counters; a first start seeds. Every start ensures the administrator (a user record:
// id 1 in an empty store, id 3 after the example seed), and without a configured
// tokenSecret the data directory also holds `token-secret` (mode 0600).
//
// These tests read the files themselves (they decode the journal without the server's
// code), so they check the format on disk as much as the behaviour.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { constants, existsSync, readFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { appendFile, copyFile, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { connect as openSocket } from 'node:net';
import { join } from 'node:path';
import { afterEach, before, beforeEach, describe, test } from 'node:test';
import type { ServerOptions } from '../src/index.ts';
import { startServer, StartupError } from '../src/index.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';
import {
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_AUTH_OPTIONS,
  connect,
  createProduct,
  createUser,
  eventually,
  hashDirectory,
  login,
  recordingLogger,
  startTestServer,
  temporaryDirectory,
  wrap,
  cleanUpAfterEach,
  scratchDirectory,
} from './helpers.ts';

const EXAMPLE_DIR = join(REPOSITORY_ROOT, 'data', 'example');
const SNAPSHOT_FILES = [
  'deliveries.json',
  'idempotency_keys.json',
  'keys.json',
  'orders.json',
  'products.json',
  'users.json',
  'webhooks.json',
];
/** A data dir started without a configured tokenSecret also keeps the generated one. */
const DATA_DIR_FILES = [
  'deliveries.json',
  'idempotency_keys.json',
  'keys.json',
  'orders.json',
  'products.json',
  'token-secret',
  'users.json',
  'webhooks.json',
];
const LOCK_FILE = 'plainrest.lock';
const SEGMENT_NAME = /^journal-(\d{12})\.jsonl$/;
const TIMESTAMP = '2026-01-01T00:00:00.000Z';

interface Snapshot {
  next_id: number;
  journal_seq: number;
  records: any[];
}

/**
 * A change of a declared collection's record carries the facts the change feed needs
 * (README: Events): `created` (only on a put that created the record), `under` (the ids
 * above the record on its path, outermost first) and `owner` (when the record has one).
 * An idempotency key's change carries none.
 */
interface EventFacts {
  created?: true;
  under: number[];
  owner?: number;
}

type JournalChange = ({ put: string; record: any } | { delete: string; id: number }) & Partial<EventFacts>;

interface JournalLine {
  seq: number;
  /** When the line was committed: an ISO 8601 date in UTC. */
  at: string;
  changes: JournalChange[];
}

async function readSnapshot(dataDir: string, collection: string): Promise<Snapshot> {
  return JSON.parse(await readFile(join(dataDir, `${collection}.json`), 'utf8')) as Snapshot;
}

/** The ids of the records a start reads for `collection`. */
async function recordIds(dataDir: string, collection: string): Promise<number[]> {
  return (await diskContent(dataDir, collection)).records.map((record: { id: number }) => record.id);
}

async function fileNames(dataDir: string): Promise<string[]> {
  return (await readdir(dataDir)).sort();
}

/** The journal segments, oldest first (the 12-digit names sort by their first seq). */
async function segmentNames(dataDir: string): Promise<string[]> {
  return (await fileNames(dataDir)).filter((name) => SEGMENT_NAME.test(name));
}

function firstSeqOf(segment: string): number {
  return Number((SEGMENT_NAME.exec(segment) as RegExpExecArray)[1]);
}

/** The collections of the example declaration, whose changes carry event facts: how deep each sits (users/{id}/orders: 1). */
const DECLARED_DEPTH: Readonly<Record<string, number>> = { users: 0, products: 0, orders: 1 };

/**
 * Checks a change's keys and event facts exactly: an idempotency key's change is
 * {put, record} or {delete, id}; a declared record's adds `under` (as many positive ids
 * as the collection is deep), `created: true` on a put that created the record, and
 * `owner` where the record has one: a user owns itself, an order is its user's
 * (`under[0]`), a product has no owner.
 */
function checkChange(change: JournalChange, line: string): void {
  const collection = 'put' in change ? change.put : change.delete;
  const base = 'put' in change ? ['put', 'record'] : ['delete', 'id'];
  const depth = DECLARED_DEPTH[collection];
  if (depth === undefined) {
    assert.equal(
      collection,
      'idempotency_keys',
      `a change of a collection the example declares, or an idempotency key: ${line}`,
    );
    assert.deepEqual(
      Object.keys(change).sort(),
      base.sort(),
      `an idempotency key's change carries no event facts: ${line}`,
    );
    return;
  }
  const id = 'put' in change ? (change.record.id as number) : change.id;
  const owner = collection === 'users' ? id : collection === 'orders' ? change.under?.[0] : undefined;
  const expected = [
    ...base,
    'under',
    ...('put' in change && change.created !== undefined ? ['created'] : []),
    ...(owner === undefined ? [] : ['owner']),
  ];
  assert.deepEqual(Object.keys(change).sort(), expected.sort(), `the keys of a ${collection} change: ${line}`);
  if (change.created !== undefined) assert.equal(change.created, true, `created is true or absent: ${line}`);
  assert.ok(Array.isArray(change.under) && change.under.length === depth, `under holds ${depth} id(s): ${line}`);
  for (const above of change.under) assert.ok(Number.isSafeInteger(above) && above >= 1, `under holds ids: ${line}`);
  if ('put' in change && collection === 'orders')
    assert.deepEqual(change.under, [change.record.user_id], `an order is under its user: ${line}`);
  assert.equal(change.owner, owner, `the owner of a ${collection} record: ${line}`);
}

/** The numbers a line takes: one per change (journal-format.ts seqsTaken), so the next line's seq is its seq plus this. */
function seqsTaken(line: JournalLine): number {
  return Math.max(1, line.changes.length);
}

/**
 * Every journal line, oldest first, decoded and checked: each segment ends with a
 * complete line, each line is exactly {seq, at, changes} (`at` an ISO date), each seq
 * follows the numbers the line before took (one per change; the first not below its
 * segment's name), each change is {put, record} or {delete, id} with exactly the event
 * facts its collection calls for (checkChange).
 */
async function journalLines(dataDir: string): Promise<JournalLine[]> {
  const lines: JournalLine[] = [];
  for (const segment of await segmentNames(dataDir)) {
    const text = await readFile(join(dataDir, segment), 'utf8');
    assert.ok(
      text === '' || text.endsWith('\n'),
      `${segment} ends with a complete line: ${JSON.stringify(text.slice(-80))}`,
    );
    for (const line of text.split('\n').slice(0, -1)) {
      const entry = JSON.parse(line) as JournalLine;
      assert.deepEqual(Object.keys(entry).sort(), ['at', 'changes', 'seq'], line);
      assert.ok(
        typeof entry.at === 'string' && new Date(entry.at).toISOString() === entry.at,
        `at is an ISO date: ${line}`,
      );
      assert.ok(Number.isSafeInteger(entry.seq) && entry.seq >= firstSeqOf(segment), `seq of ${line} in ${segment}`);
      const previous = lines.at(-1);
      if (previous !== undefined)
        assert.equal(
          entry.seq,
          previous.seq + seqsTaken(previous),
          `seq follows the numbers the line before took: ${line}`,
        );
      assert.ok(Array.isArray(entry.changes) && entry.changes.length > 0, line);
      for (const change of entry.changes) checkChange(change, line);
      lines.push(entry);
    }
  }
  return lines;
}

/** A change as a comparable string: "put products 3", "delete orders 1". */
function changeName(change: JournalChange): string {
  return 'put' in change ? `put ${change.put} ${change.record.id}` : `delete ${change.delete} ${change.id}`;
}

/** The puts and deletes of one journal line as comparable strings, sorted. */
function changeSummary(line: JournalLine | undefined): string[] {
  assert.ok(line !== undefined, 'a journal line');
  return line.changes.map(changeName).sort();
}

/**
 * What a start would load for a collection, read straight from the files: its
 * snapshot (if any), then every journal line after the snapshot's journal_seq; the id
 * counter moves past every id a put gives, as a start's replay does.
 */
async function diskContent(dataDir: string, collection: string): Promise<{ next_id: number; records: any[] }> {
  const names = await fileNames(dataDir);
  const snapshot = names.includes(`${collection}.json`) ? await readSnapshot(dataDir, collection) : undefined;
  const records = new Map<number, any>((snapshot?.records ?? []).map((record) => [record.id as number, record]));
  let nextId = snapshot?.next_id ?? 1;
  for (const line of await journalLines(dataDir)) {
    if (line.seq <= (snapshot?.journal_seq ?? 0)) continue;
    for (const change of line.changes) {
      if ('put' in change && change.put === collection) {
        records.set(change.record.id as number, change.record);
        nextId = Math.max(nextId, (change.record.id as number) + 1);
      }
      if ('delete' in change && change.delete === collection) records.delete(change.id);
    }
  }
  return { next_id: nextId, records: [...records.values()].sort((a, b) => a.id - b.id) };
}

async function diskRecords(dataDir: string, collection: string): Promise<any[]> {
  return (await diskContent(dataDir, collection)).records;
}

/** Only the files a data directory may hold: snapshots, token-secret, the lock, journal segments. No temporary files. */
function assertOnlyDataFiles(names: readonly string[]): void {
  for (const name of names) {
    const known = DATA_DIR_FILES.includes(name) || name === LOCK_FILE || SEGMENT_NAME.test(name);
    assert.ok(known, `unexpected file ${name} in the data dir: ${names.join(', ')}`);
  }
}

/** What a running server's directory holds: `expected` plus the lock and at least one journal segment. */
async function assertRunningDirectory(dataDir: string, expected: readonly string[]): Promise<void> {
  const names = await fileNames(dataDir);
  assertOnlyDataFiles(names);
  assert.deepEqual(
    names.filter((name) => name !== LOCK_FILE && !SEGMENT_NAME.test(name)),
    [...expected].sort(),
  );
  assert.ok(names.includes(LOCK_FILE), `the lock is held: ${names.join(', ')}`);
  assert.ok((await segmentNames(dataDir)).length >= 1, `a journal segment is open: ${names.join(', ')}`);
}

/**
 * What a clean stop leaves: exactly `expected` (the snapshots, and token-secret when the
 * server kept one) besides journal segments, and no lock. Nothing is rewritten at a stop:
 * the snapshots are the last compaction's, and the journal goes on from them (its lines
 * are numbered without a gap, journalLines checks, and begin no later than the first
 * seq a snapshot does not cover). Returns the last seq stored.
 */
async function assertClosedDirectory(dataDir: string, expected: readonly string[]): Promise<number> {
  const names = await fileNames(dataDir);
  assertOnlyDataFiles(names);
  assert.deepEqual(
    names.filter((name) => !SEGMENT_NAME.test(name)),
    [...expected].sort(),
    'the snapshots (and the secret) are there, the lock is gone',
  );
  const snapshots = expected.filter((name) => name.endsWith('.json'));
  const seqs = await Promise.all(
    snapshots.map(async (name) => (await readSnapshot(dataDir, name.replace('.json', ''))).journal_seq ?? 0),
  );
  const lines = await journalLines(dataDir);
  const first = lines[0];
  const last = lines.at(-1);
  if (first !== undefined)
    assert.ok(first.seq <= Math.min(...seqs) + 1, `the journal (from seq ${first.seq}) goes on from the snapshots`);
  const lastSeq = last === undefined ? 0 : last.seq + seqsTaken(last) - 1;
  return Math.max(lastSeq, ...seqs);
}

/**
 * Renames `user` until a compaction has covered the journal's last line: with compactAfterBytes 1 a write starts
 * one unless one is running, and a write that comes during one is covered only by the compaction after it.
 */
async function compactedThroughLast(api: TestServer, dataDir: string, user: number): Promise<void> {
  for (let round = 0; round < 100; round++) {
    assert.equal((await api.patch(`/v1/users/${user}`, { name: `Renamed ${round}` })).status, 200);
    const last = (await journalLines(dataDir)).at(-1) as JournalLine;
    for (let wait = 0; wait < 20; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const seqs = await Promise.all(
        SNAPSHOT_FILES.map(async (name) => (await readSnapshot(dataDir, name.replace('.json', ''))).journal_seq),
      );
      if (seqs.every((seq) => seq >= last.seq)) return;
    }
  }
  assert.fail('no compaction covered the last line');
}

/** Every file of the directory as text, joined: to look for something that must never be stored. */
async function allText(directory: string): Promise<string> {
  // A compaction running meanwhile may rename a temporary file away between the listing and its read: read all again.
  for (;;) {
    try {
      const names = await fileNames(directory);
      return (await Promise.all(names.map((name) => readFile(join(directory, name), 'utf8')))).join('\n');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** The pid of a process that has surely exited (it ran and was waited for). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
  assert.ok(child.pid !== undefined);
  return child.pid;
}

/**
 * What `kill -9` of the server owning `from` would leave behind, in `to`: every file as
 * it is, and the lock naming a process that no longer runs. Call it
 * only while no write and no compaction is under way, so the copy is one moment.
 */
async function copyAsCrashed(from: string, to: string): Promise<void> {
  for (const name of await readdir(from)) await copyFile(join(from, name), join(to, name));
  if ((await readdir(to)).includes(LOCK_FILE)) await writeFile(join(to, LOCK_FILE), `${await deadPid()}\n`);
}

interface FileEvent {
  /** `durable-write`: a write to a file opened with O_DSYNC, on disk when it returns. */
  readonly kind: 'written' | 'durable-write' | 'synced';
  readonly fd: number;
  readonly text: string;
}

/** True when `fd` was opened with O_DSYNC (Linux shows the open flags, in octal, in /proc/self/fdinfo). */
function opensSynchronously(fd: number): boolean {
  const path = `/proc/self/fdinfo/${fd}`;
  if (!existsSync(path)) return false;
  const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(path, 'utf8'))?.[1];
  return flags !== undefined && (Number.parseInt(flags, 8) & constants.O_DSYNC) !== 0;
}

/**
 * Records, in order, every completed write and fsync (sync or datasync) of every file
 * handle in this process (the server under test runs here), until the test ends.
 * `writeDelayMs` makes every write that much slower, like a busy disk.
 */
async function watchFileHandles(writeDelayMs = 0): Promise<FileEvent[]> {
  const probe = await open(join(await scratchDirectory(defer), 'probe'), 'w');
  type Method = 'write' | 'appendFile' | 'sync' | 'datasync';
  const prototype = Object.getPrototypeOf(probe) as Record<Method, (...args: unknown[]) => Promise<unknown>>;
  await probe.close();
  const original = {
    write: prototype.write,
    appendFile: prototype.appendFile,
    sync: prototype.sync,
    datasync: prototype.datasync,
  };
  const events: FileEvent[] = [];
  for (const method of ['write', 'appendFile'] as const) {
    prototype[method] = async function (this: FileHandle, ...args: unknown[]) {
      if (writeDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, writeDelayMs));
      const result = await original[method].apply(this, args);
      events.push({
        kind: opensSynchronously(this.fd) ? 'durable-write' : 'written',
        fd: this.fd,
        text: String(args[0]),
      });
      return result;
    };
  }
  for (const method of ['sync', 'datasync'] as const) {
    prototype[method] = async function (this: FileHandle, ...args: unknown[]) {
      const fd = this.fd;
      const result = await original[method].apply(this, args);
      events.push({ kind: 'synced', fd, text: '' });
      return result;
    };
  }
  defer(async () => {
    Object.assign(prototype, original);
  });
  return events;
}

/**
 * The last write holding `needle` was on disk before its answer (call it as the answer
 * arrives): written to a file opened with O_DSYNC, or followed by an fsync of the same file.
 */
function assertDurableBeforeAnswer(events: readonly FileEvent[], needle: string): void {
  const written = events.findLastIndex((event) => event.kind !== 'synced' && event.text.includes(needle));
  assert.ok(written >= 0, `a write holds ${needle}`);
  const { fd, kind } = events[written] as FileEvent;
  if (kind === 'durable-write') return;
  assert.ok(
    events.slice(written + 1).some((event) => event.kind === 'synced' && event.fd === fd),
    `the write holding ${needle} was fsynced before its answer`,
  );
}

/** Disk flushes: fsyncs, and writes that were durable by themselves. */
function countFlushes(events: readonly FileEvent[]): number {
  return events.filter((event) => event.kind !== 'written').length;
}

function productRecord(id: number, name = `P${id}`): Record<string, unknown> {
  return { id, name, category: 'c', price: 1, created_at: TIMESTAMP, updated_at: TIMESTAMP };
}

/** One journal line as the format prescribes, with its newline (`at`: when it was committed). */
function journalLine(seq: number, changes: JournalChange[]): string {
  return `${JSON.stringify({ seq, at: TIMESTAMP, changes })}\n`;
}

/** A line creating a product: a top-level record without an owner, so `under` is empty. */
function putProduct(seq: number, id: number, name?: string): string {
  return journalLine(seq, [{ put: 'products', created: true, under: [], record: productRecord(id, name) }]);
}

// Each test registers what it starts and creates; afterEach closes the servers, then removes the dirs.
const defer = cleanUpAfterEach();

/** A server on `dataDir` (seed false unless given), closed after the test; closing it twice is safe. */
async function startOn(dataDir: string, options: ServerOptions = {}): Promise<TestServer> {
  const api = await startTestServer({ dataDir, seed: false, ...options });
  defer(() => api.close());
  return api;
}

let exampleHashesBefore: Record<string, string>;
before(async () => {
  exampleHashesBefore = await hashDirectory(EXAMPLE_DIR);
});

describe('storage: with a data directory', () => {
  test('a restart with the same dataDir keeps every record and the id counters (a deleted highest id is not reused)', async () => {
    const dir = await scratchDirectory(defer);
    const first = await startOn(dir);
    const p1 = await createProduct(first, { name: 'One' });
    const p2 = await createProduct(first, { name: 'Two', description: 'second' });
    const p3 = await createProduct(first, { name: 'Three' });
    const user = await createUser(first, { email: 'keep@example.com' });
    const order = await first.post(`/v1/users/${user}/orders`, { items: [{ product_id: p2.id, quantity: 2 }] });
    assert.equal(order.status, 201, order.text);
    assert.equal((await first.delete(`/v1/products/${p3.id}`)).status, 204);
    const userBefore = await first.get(`/v1/users/${user}`);
    await first.close();
    assert.equal((await diskContent(dir, 'products')).next_id, 4);

    const second = await startOn(dir);
    const products = await second.get('/v1/products');
    assert.deepEqual(products.body.data, [p1, p2]);
    const userAfter = await second.get(`/v1/users/${user}`);
    assert.deepEqual(userAfter.body, userBefore.body);
    assert.equal(userAfter.headers.get('etag'), userBefore.headers.get('etag'));
    assert.deepEqual((await second.get(`/v1/users/${user}/orders/${order.body.id}`)).body, order.body);

    const p4 = await createProduct(second, { name: 'Four' });
    assert.equal(p4.id, 4);
    const secondUser = await createUser(second);
    assert.equal(secondUser, user + 1);
  });

  test('snapshot files are {next_id, journal_seq, records} with one record per line (a compaction, then close)', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir, { compactAfterBytes: 1 });
    const product = await createProduct(api, { name: 'Line "quoted"\nbreak', description: 'multi\nline' });
    const second = await createProduct(api, { name: 'Second' });
    const user = await createUser(api, { password: 'a secret password' });
    await api.post(`/v1/users/${user}/orders`, { items: [{ product_id: product.id, quantity: 1 }] });
    await compactedThroughLast(api, dir, user);
    await api.close();

    const covered = await assertClosedDirectory(dir, SNAPSHOT_FILES);
    const seqs = new Set<number>();
    for (const collection of ['users', 'products', 'orders']) {
      const text = await readFile(join(dir, `${collection}.json`), 'utf8');
      const snapshot = JSON.parse(text) as Snapshot;
      assert.deepEqual(Object.keys(snapshot).sort(), ['journal_seq', 'next_id', 'records'], collection);
      assert.ok(Number.isInteger(snapshot.next_id), collection);
      assert.ok(Number.isInteger(snapshot.journal_seq) && snapshot.journal_seq >= 0, collection);
      assert.ok(Array.isArray(snapshot.records), collection);
      seqs.add(snapshot.journal_seq);
      // every record is alone on its own line: each line holding a record parses to exactly it
      const recordLines = text.split('\n').filter((line) => line.trimStart().startsWith('{"'));
      assert.equal(recordLines.length, snapshot.records.length, collection);
      recordLines.forEach((line, index) => {
        assert.deepEqual(
          JSON.parse(line.trim().replace(/,$/, '')),
          snapshot.records[index],
          `${collection} line ${index}`,
        );
      });
    }
    assert.deepEqual(
      [...seqs],
      [covered],
      `one compaction covers every collection up to the same seq: ${[...seqs].join(', ')}`,
    );
    assert.deepEqual(await diskContent(dir, 'products'), { next_id: 3, records: [product, second] });
  });

  test('the password is stored hashed, never in plain text (neither in the journal nor in the snapshot)', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir, { compactAfterBytes: 1 });
    const id = await createUser(api, { password: 'plain-text-never-stored' });
    // right after the answer: the journal line holds the user with a hash only
    const line = (await journalLines(dir)).at(-1);
    assert.deepEqual(changeSummary(line), [`put users ${id}`]);
    const journaled = (line?.changes[0] as { record: any }).record;
    assert.equal(journaled.password, undefined);
    assert.equal(typeof journaled.password_hash, 'string');
    assert.equal((await allText(dir)).includes('plain-text-never-stored'), false);

    await compactedThroughLast(api, dir, id);
    await api.close();
    const text = await readFile(join(dir, 'users.json'), 'utf8');
    assert.equal(text.includes('plain-text-never-stored'), false);
    const record = (JSON.parse(text) as Snapshot).records.find((stored: { id: number }) => stored.id === id);
    assert.ok(record !== undefined, text);
    assert.equal(record.password, undefined);
    assert.equal(record.password_hash, journaled.password_hash);
  });

  test('no temporary files are left in the dataDir after many concurrent writes', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir);
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, n) => api.post('/v1/products', { name: `P${n}`, category: 'c', price: n })),
    );
    for (const response of created) assert.equal(response.status, 201);
    await Promise.all([
      api.patch('/v1/products/1', { price: 99 }),
      api.put('/v1/products/2', { name: 'Put', category: 'c', price: 1 }),
      api.delete('/v1/products/3'),
      createUser(api),
    ]);
    const expectedIds = Array.from({ length: 30 }, (_, n) => n + 1).filter((id) => id !== 3);
    await assertRunningDirectory(dir, SNAPSHOT_FILES);
    assert.deepEqual(
      (await diskRecords(dir, 'products')).map((record) => record.id),
      expectedIds,
    );

    const products = (await api.get('/v1/products?limit=100')).body.data;
    await api.close();
    await assertClosedDirectory(dir, SNAPSHOT_FILES);
    assert.deepEqual(await recordIds(dir, 'products'), expectedIds);
    const again = await startOn(dir);
    assert.deepEqual(
      (await again.get('/v1/products?limit=100')).body.data,
      products,
      'a restart gives the same records',
    );
  });

  test('every acknowledged write is on disk when its response arrives (POST, PUT, PATCH, DELETE): a journal line holds it', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir);
    /** The newest journal line, read right after the answer, and what snapshot + journal now give. */
    const lastLine = async (): Promise<JournalLine> => (await journalLines(dir)).at(-1) as JournalLine;

    const events = await watchFileHandles();
    /**
     * Each answer is checked as it arrives: the write of its journal line was durable before it.
     * `change` builds the change exactly as the line holds it, its keys in the line's order.
     */
    const durable = async (
      response: Promise<TestResponse>,
      change: (body: any) => JournalChange,
    ): Promise<TestResponse> => {
      const answered = await response;
      assertDurableBeforeAnswer(events, JSON.stringify(change(answered.body)));
      return answered;
    };

    const created = await durable(api.post('/v1/products', { name: 'Durable', category: 'c', price: 1.5 }), (body) => ({
      put: 'products',
      created: true,
      under: [],
      record: body,
    }));
    assert.equal(created.status, 201);
    assert.deepEqual((await lastLine()).changes, [{ put: 'products', created: true, under: [], record: created.body }]);
    assert.deepEqual(await diskRecords(dir, 'products'), [created.body]);

    // a put that replaces a record: no `created`
    const put = await durable(
      api.put(`/v1/products/${created.body.id}`, { name: 'Put', category: 'd', price: 2 }),
      (body) => ({
        put: 'products',
        under: [],
        record: body,
      }),
    );
    assert.equal(put.status, 200);
    assert.deepEqual((await lastLine()).changes, [{ put: 'products', under: [], record: put.body }]);
    assert.deepEqual(await diskRecords(dir, 'products'), [put.body]);

    const patched = await durable(api.patch(`/v1/products/${created.body.id}`, { description: 'patched' }), (body) => ({
      put: 'products',
      under: [],
      record: body,
    }));
    assert.equal(patched.status, 200);
    assert.deepEqual((await lastLine()).changes, [{ put: 'products', under: [], record: patched.body }]);
    assert.deepEqual(await diskRecords(dir, 'products'), [patched.body]);

    const user = await api.post('/v1/users', { name: 'Ann', email: 'ann@example.com' });
    assertDurableBeforeAnswer(events, '"email":"ann@example.com"');
    assert.equal(user.status, 201);
    assert.deepEqual(changeSummary(await lastLine()), [`put users ${user.body.id}`]);
    // a user owns itself
    const { record: _userRecord, ...userFacts } = (await lastLine()).changes[0] as { record: unknown };
    assert.deepEqual(userFacts, { put: 'users', created: true, under: [], owner: user.body.id });
    // the administrator (id 1) comes first; the new user is the last record
    const storedUsers = await diskRecords(dir, 'users');
    assert.deepEqual(
      storedUsers.map((record: { id: number }) => record.id),
      [1, user.body.id],
    );
    const storedUser = storedUsers.at(-1);
    assert.equal(storedUser.id, user.body.id);
    assert.equal(storedUser.email, 'ann@example.com');

    // an order sits under its user, who owns it
    const order = await durable(
      api.post(`/v1/users/${user.body.id}/orders`, { items: [{ product_id: created.body.id, quantity: 3 }] }),
      (body) => ({
        put: 'orders',
        created: true,
        under: [user.body.id],
        owner: user.body.id,
        record: body,
      }),
    );
    assert.equal(order.status, 201);
    assert.deepEqual((await lastLine()).changes, [
      { put: 'orders', created: true, under: [user.body.id], owner: user.body.id, record: order.body },
    ]);
    assert.deepEqual(await diskRecords(dir, 'orders'), [order.body]);

    const deleted = await durable(api.delete(`/v1/products/${created.body.id}`), () => ({
      delete: 'products',
      id: created.body.id,
      under: [],
    }));
    assert.equal(deleted.status, 204);
    assert.deepEqual((await lastLine()).changes, [{ delete: 'products', id: created.body.id, under: [] }]);
    assert.deepEqual(await diskRecords(dir, 'products'), []);
    // one line per acknowledged write: the administrator, then the six above
    assert.equal((await journalLines(dir)).length, 7);
  });

  test('deleting a user deletes their orders too, in ONE journal line (replayed all or nothing)', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir, { seed: true });
    assert.deepEqual(
      (await diskRecords(dir, 'orders')).map((record) => record.id),
      [1, 2, 3, 4, 5],
    );
    const linesBefore = (await journalLines(dir)).length;

    const response = await api.delete('/v1/users/1');
    assert.equal(response.status, 204);
    const lines = await journalLines(dir);
    assert.equal(lines.length, linesBefore + 1, 'the cascade is a single commit');
    // alice (1) had orders 1, 2 and 3
    assert.deepEqual(changeSummary(lines.at(-1)), [
      'delete orders 1',
      'delete orders 2',
      'delete orders 3',
      'delete users 1',
    ]);
    // each deletion carries the facts of the record as it was: the orders were under alice and hers
    const cascade = lines.at(-1) as JournalLine;
    assert.deepEqual(
      [...cascade.changes].sort((a, b) => changeName(a).localeCompare(changeName(b))),
      [
        { delete: 'orders', id: 1, under: [1], owner: 1 },
        { delete: 'orders', id: 2, under: [1], owner: 1 },
        { delete: 'orders', id: 3, under: [1], owner: 1 },
        { delete: 'users', id: 1, under: [], owner: 1 },
      ],
    );
    // the line took one number per change: the next write's line starts four further on
    await createProduct(api, { name: 'After the cascade' });
    assert.equal(((await journalLines(dir)).at(-1) as JournalLine).seq, cascade.seq + 4);
    assert.deepEqual(
      (await diskRecords(dir, 'users')).map((record) => record.id),
      [2, 3],
    ); // bob, and the administrator (id 3)
    assert.deepEqual(
      (await diskRecords(dir, 'orders')).map((record: { id: number; user_id: number }) => [record.id, record.user_id]),
      [
        [4, 2],
        [5, 2],
      ],
    );
    assert.equal((await api.get('/v1/users/1/orders/1')).status, 404);

    await api.close();
    assert.deepEqual(await recordIds(dir, 'users'), [2, 3]);
    const orders = await diskContent(dir, 'orders');
    assert.deepEqual(
      orders.records.map((record: { id: number }) => record.id),
      [4, 5],
    );
    assert.equal(orders.next_id, 6);
  });

  test('first start with an empty dir and seed:true writes the example data (2 users, 12 products, 5 orders) and the administrator', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir, { seed: true });
    // at once: snapshots of the example data; with the journal they also hold the administrator
    await assertRunningDirectory(dir, SNAPSHOT_FILES);
    for (const collection of ['products', 'orders']) {
      const example = JSON.parse(await readFile(join(EXAMPLE_DIR, `${collection}.json`), 'utf8')) as Snapshot;
      assert.deepEqual(await diskRecords(dir, collection), example.records, collection);
    }
    assert.deepEqual(
      (await diskRecords(dir, 'users')).map((record: { id: number; email: string; role: string }) => [
        record.id,
        record.email,
        record.role,
      ]),
      [
        [1, 'alice@example.com', 'user'],
        [2, 'bob@example.com', 'user'],
        [3, TEST_ADMIN_EMAIL, 'admin'],
      ],
    );
    assert.equal((await api.get('/v1/products')).body.meta.total, 12);
    assert.deepEqual(await api.server.app.recordCounts(), { users: 3, products: 12, orders: 5, keys: 0 });

    await api.close();
    await assertClosedDirectory(dir, SNAPSHOT_FILES);
    for (const [collection, count] of [
      ['users', 2],
      ['products', 12],
      ['orders', 5],
    ] as const) {
      const snapshot = await diskContent(dir, collection);
      // users.json also holds the administrator ensured at start, after the example users
      const written =
        collection === 'users' ? { next_id: snapshot.next_id - 1, records: snapshot.records.slice(0, -1) } : snapshot;
      const example = JSON.parse(await readFile(join(EXAMPLE_DIR, `${collection}.json`), 'utf8')) as Snapshot;
      assert.equal(written.records.length, count, collection);
      assert.deepEqual(written, example, collection);
    }
    const users = await diskContent(dir, 'users');
    assert.equal(users.records.length, 3);
    assert.deepEqual(
      users.records.map((record: { id: number; email: string; role: string }) => [
        record.id,
        record.email,
        record.role,
      ]),
      [
        [1, 'alice@example.com', 'user'],
        [2, 'bob@example.com', 'user'],
        [3, TEST_ADMIN_EMAIL, 'admin'],
      ],
    );
  });

  test('without a tokenSecret the dir also holds token-secret (mode 0600); the seeded users have the administrator as id 3', async () => {
    const dir = await scratchDirectory(defer);
    const server = await startServer({ port: 0, dataDir: dir, seed: true, adminPassword: TEST_ADMIN_PASSWORD });
    defer(() => server.close());
    await assertRunningDirectory(dir, DATA_DIR_FILES);
    const secretFile = join(dir, 'token-secret');
    assert.equal((await stat(secretFile)).mode & 0o777, 0o600);
    assert.ok((await readFile(secretFile, 'utf8')).trim().length >= 32, 'the kept secret is at least 32 characters');
    assert.equal((await allText(dir)).includes(TEST_ADMIN_PASSWORD), false, 'the admin password is stored hashed only');

    // the stored hash is the configured password's, and a token signed with the kept secret is accepted
    const token = await login(wrap(server, undefined), TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const me = await wrap(server, token).get('/v1/users/3');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.role, 'admin');

    await server.close();
    await assertClosedDirectory(dir, DATA_DIR_FILES);
    assert.equal((await allText(dir)).includes(TEST_ADMIN_PASSWORD), false, 'the admin password is stored hashed only');
    const users = await diskContent(dir, 'users');
    assert.equal(users.next_id, 4);
    assert.deepEqual(
      users.records.map((record: { id: number }) => record.id),
      [1, 2, 3],
    );
    const admin = users.records[2];
    assert.equal(admin.id, 3);
    assert.equal(admin.email, TEST_ADMIN_EMAIL);
    assert.equal(admin.role, 'admin');
    assert.equal(admin.password, undefined);
    assert.equal(typeof admin.password_hash, 'string');
    assert.ok(admin.password_hash.length > 0);
  });

  test('a missing dataDir is created', async () => {
    const nested = join(await scratchDirectory(defer), 'a', 'b');
    const api = await startOn(nested);
    await assertRunningDirectory(nested, SNAPSHOT_FILES);
    await api.close();
    await assertClosedDirectory(nested, SNAPSHOT_FILES);
  });

  test('seed:false starts empty (but for the administrator) and writes empty snapshots', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir);
    for (const collection of ['products', 'orders']) {
      assert.deepEqual(await diskContent(dir, collection), { next_id: 1, records: [] }, collection);
    }
    assert.deepEqual(
      (await diskRecords(dir, 'users')).map((record: { id: number; email: string; role: string }) => [
        record.id,
        record.email,
        record.role,
      ]),
      [[1, TEST_ADMIN_EMAIL, 'admin']],
    );
    assert.deepEqual((await api.get('/v1/products')).body.meta.total, 0);
    assert.deepEqual((await api.get('/v1/users')).body.meta.total, 1);

    await api.close();
    for (const collection of ['products', 'orders']) {
      assert.deepEqual(await diskContent(dir, collection), { next_id: 1, records: [] }, collection);
    }
    const users = await diskContent(dir, 'users');
    assert.equal(users.next_id, 2);
    assert.deepEqual(
      users.records.map((record: { id: number; email: string; role: string }) => [
        record.id,
        record.email,
        record.role,
      ]),
      [[1, TEST_ADMIN_EMAIL, 'admin']],
    );
  });

  test('a dir that already has snapshots is not re-seeded, even empty ones', async () => {
    const dir = await scratchDirectory(defer);
    const first = await startOn(dir);
    await createProduct(first, { name: 'Mine' });
    await first.close();
    const before = await hashDirectory(dir);

    const second = await startOn(dir, { seed: true });
    const products = await second.get('/v1/products');
    assert.deepEqual(
      products.body.data.map((record: { name: string }) => record.name),
      ['Mine'],
    );
    assert.equal((await second.get('/v1/users')).body.meta.total, 1); // the administrator only
    await second.close();
    assert.deepEqual(await hashDirectory(dir), before);
  });

  test('a dir holding only products.json is not a first start: the other collections start empty', async () => {
    const dir = await scratchDirectory(defer);
    const only = `{"next_id":8,"records":[${JSON.stringify(productRecord(7, 'Kept'))}]}\n`;
    await writeFile(join(dir, 'products.json'), only);
    const api = await startOn(dir, { seed: true });
    assert.deepEqual(
      (await api.get('/v1/products')).body.data.map((record: { id: number }) => record.id),
      [7],
    );
    assert.deepEqual(
      (await api.get('/v1/users')).body.data.map((record: { id: number; email: string }) => [record.id, record.email]),
      [[1, TEST_ADMIN_EMAIL]],
    ); // the administrator only: the example users were not seeded
    assert.equal((await api.get('/v1/users')).body.meta.total, 1);
    assert.equal((await api.get('/v1/users/1/orders')).body.meta.total, 0);
    assert.equal((await createProduct(api)).id, 8);
  });
});

describe('storage: the journal', () => {
  test('50 concurrent writes: all 201, one journal line each, sharing disk flushes; a restart after a crash shows all 50', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir);
    // Each write takes 20 ms, as on a busy disk: a durable write on an idle one can be
    // quicker than the next request takes to arrive, and then nothing waits to share it.
    const events = await watchFileHandles(20);
    // each answer is checked as it arrives: its journal line was on disk before it
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        api.post('/v1/products', { name: `C${n}`, category: 'c', price: n }).then((response) => {
          assertDurableBeforeAnswer(events, `"name":"C${n}"`);
          return response;
        }),
      ),
    );
    const flushes = countFlushes(events);
    for (const response of responses) assert.equal(response.status, 201, response.text);
    assert.ok(flushes >= 1, 'the journal is flushed to disk');
    assert.ok(flushes <= 25, `50 concurrent commits share disk flushes (group commit), but ${flushes} ran`);

    const bodies = responses.map((response) => response.body).sort((a, b) => a.id - b.id);
    assert.deepEqual(
      bodies.map((body) => body.id),
      Array.from({ length: 50 }, (_, n) => n + 1),
    );
    const productLines = (await journalLines(dir)).filter((line) =>
      line.changes.some((change) => 'put' in change && change.put === 'products'),
    );
    assert.equal(productLines.length, 50, 'one line per commit');
    const journaled = productLines
      .flatMap((line) => line.changes.map((change) => (change as { record: any }).record))
      .sort((a, b) => a.id - b.id);
    assert.deepEqual(journaled, bodies);

    const copy = await scratchDirectory(defer);
    await copyAsCrashed(dir, copy);
    const restarted = await startOn(copy);
    const list = await restarted.get('/v1/products?limit=100');
    assert.equal(list.body.meta.total, 50);
    assert.deepEqual(list.body.data, bodies);
  });

  test('a start after a crash (no close, the lock left behind) replays the journal: records, updates, deletes and id counters', async () => {
    const dir = await scratchDirectory(defer);
    const first = await startOn(dir);
    const p1 = await createProduct(first, { name: 'One' });
    const p2 = await createProduct(first, { name: 'Two' });
    const p3 = await createProduct(first, { name: 'Three' });
    const patched = await first.patch(`/v1/products/${p2.id}`, { price: 5, description: 'patched' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await first.delete(`/v1/products/${p3.id}`)).status, 204); // the highest id: never reused
    const user = await createUser(first, { email: 'crash@example.com' });
    const order = await first.post(`/v1/users/${user}/orders`, { items: [{ product_id: p1.id, quantity: 2 }] });
    assert.equal(order.status, 201, order.text);
    const userBefore = await first.get(`/v1/users/${user}`);

    const copy = await scratchDirectory(defer);
    await copyAsCrashed(dir, copy);
    assert.ok((await journalLines(copy)).length >= 7, 'the writes are in the journal, not yet in a snapshot');

    const second = await startOn(copy);
    assert.equal(
      (await readFile(join(copy, LOCK_FILE), 'utf8')).trim(),
      String(process.pid),
      'the stale lock was taken over',
    );
    assert.deepEqual((await second.get('/v1/products')).body.data, [p1, patched.body]);
    const userAfter = await second.get(`/v1/users/${user}`);
    assert.deepEqual(userAfter.body, userBefore.body);
    assert.equal(userAfter.headers.get('etag'), userBefore.headers.get('etag'));
    assert.deepEqual((await second.get(`/v1/users/${user}/orders/${order.body.id}`)).body, order.body);

    assert.equal((await createProduct(second, { name: 'Four' })).id, 4);
    assert.equal(await createUser(second), user + 1);
    const nextOrder = await second.post(`/v1/users/${user}/orders`, { items: [{ product_id: p1.id, quantity: 1 }] });
    assert.equal(nextOrder.body.id, order.body.id + 1);
  });

  test('journal lines written by hand are replayed over the snapshots; lines a snapshot already holds (seq ≤ journal_seq) are skipped', async () => {
    const dir = await scratchDirectory(defer);
    const snapshot = {
      next_id: 3,
      journal_seq: 2,
      records: [productRecord(1, 'From the snapshot'), productRecord(2, 'Kept')],
    };
    await writeFile(join(dir, 'products.json'), `${JSON.stringify(snapshot)}\n`);
    const journalUser = {
      id: 7,
      name: 'Journal',
      email: 'journal@example.com',
      role: 'user',
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    };
    await writeFile(
      join(dir, 'journal-000000000001.jsonl'),
      putProduct(1, 1, 'Older than the snapshot') +
        putProduct(2, 2, 'Kept') +
        putProduct(3, 5, 'Replayed') +
        journalLine(4, [{ delete: 'products', id: 2, under: [] }]) +
        journalLine(5, [{ put: 'users', created: true, under: [], owner: 7, record: journalUser }]), // users has no snapshot: replayed from the start
    );
    const api = await startOn(dir, { seed: true });
    assert.deepEqual(
      (await api.get('/v1/products')).body.data.map((record: { id: number; name: string }) => [record.id, record.name]),
      [
        [1, 'From the snapshot'],
        [5, 'Replayed'],
      ],
    );
    assert.equal((await createProduct(api)).id, 6);
    const users = (await api.get('/v1/users')).body.data.map((record: { id: number; email: string }) => [
      record.id,
      record.email,
    ]);
    // not a first start, so not seeded; the administrator comes after the replayed user
    assert.deepEqual(users, [
      [7, 'journal@example.com'],
      [8, TEST_ADMIN_EMAIL],
    ]);

    const productsBefore = (await api.get('/v1/products')).body.data;
    await api.close();
    // a stop rewrites nothing: the snapshot stays as written, and the journal holds every line
    // after it, up to 7 (the administrator took 6, product 6 took 7)
    assert.equal(await assertClosedDirectory(dir, ['products.json']), 7);
    assert.ok((await segmentNames(dir)).includes('journal-000000000001.jsonl'));
    assert.deepEqual(await recordIds(dir, 'products'), [1, 5, 6]);
    assert.deepEqual(await recordIds(dir, 'users'), [7, 8]);

    // so a restart does not apply them again: product 1 stays as the snapshot had it
    const again = await startOn(dir);
    assert.deepEqual((await again.get('/v1/products')).body.data, productsBefore);
    assert.equal((await again.get('/v1/products/1')).body.name, 'From the snapshot');
    assert.deepEqual(
      (await again.get('/v1/users')).body.data.map((record: { id: number }) => record.id),
      [7, 8],
    );
  });

  test('a torn last line is cut back with a warning: the start succeeds without it, and later writes append and survive a restart', async () => {
    const dir = await scratchDirectory(defer);
    const first = await startOn(dir);
    // multi-byte characters before the tear: the cut must count bytes, not characters
    const p1 = await createProduct(first, { name: 'Café ☕ ünïcødé' });
    const p2 = await createProduct(first, { name: 'Zweite Größe' });
    const copy = await scratchDirectory(defer);
    await copyAsCrashed(dir, copy);

    const segment = join(copy, (await segmentNames(copy)).at(-1) as string);
    const good = await readFile(segment);
    const last = (await journalLines(copy)).at(-1) as JournalLine;
    // the next line, as a crash during its append would leave it: cut inside the ☕
    const whole = Buffer.from(putProduct(last.seq + seqsTaken(last), 3, 'Torn ☕ never acknowledged'));
    const torn = whole.subarray(0, whole.indexOf(Buffer.from('☕')) + 1);
    await appendFile(segment, torn);

    const logger = recordingLogger();
    const second = await startOn(copy, { logger });
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    assert.equal(warnings.length, 1, JSON.stringify(logger.lines));
    assert.ok(warnings[0]?.message.includes(segment), warnings[0]?.message);
    assert.deepEqual(
      logger.lines.filter((line) => line.level === 'error'),
      [],
    );
    assert.ok((await readFile(segment)).equals(good), 'the segment is cut back to its good bytes');

    assert.deepEqual((await second.get('/v1/products')).body.data, [p1, p2]);
    assert.equal((await second.get('/v1/products/3')).status, 404, 'the torn write is not there');
    const p3 = await createProduct(second, { name: 'After the tear' });
    assert.equal(p3.id, 3);
    assert.deepEqual((await journalLines(copy)).at(-1)?.changes, [
      { put: 'products', created: true, under: [], record: p3 },
    ]); // every segment parses
    assert.deepEqual(await diskRecords(copy, 'products'), [p1, p2, p3]);

    await second.close();
    const third = await startOn(copy, { logger });
    assert.deepEqual((await third.get('/v1/products')).body.data, [p1, p2, p3]);
    assert.equal(logger.lines.filter((line) => line.level === 'warn').length, 1, 'no second warning');
  });
});

describe('storage: a damaged journal stops the start, names the file and line, and changes nothing', () => {
  const segment1 = 'journal-000000000001.jsonl';
  const cases: { name: string; files: Record<string, string>; names: string; line?: number }[] = [
    {
      name: 'a torn line before the last (not JSON)',
      files: { [segment1]: putProduct(1, 1) + '{"seq":2,"changes":[{"put":"prod\n' + putProduct(3, 3) },
      names: segment1,
      line: 2,
    },
    {
      // A well-formed name the declaration lacks is a removed collection, refused after the files are read (test/declared-startup.test.ts).
      name: 'JSON that is not an entry (a collection that cannot be a name)',
      files: {
        [segment1]:
          putProduct(1, 1) + journalLine(2, [{ put: '../nowhere', record: productRecord(2) }]) + putProduct(3, 3),
      },
      names: segment1,
      line: 2,
    },
    {
      name: 'a put of a record without timestamps',
      files: {
        [segment1]:
          putProduct(1, 1) + journalLine(2, [{ put: 'products', record: { id: 2, name: 'P' } }]) + putProduct(3, 3),
      },
      names: segment1,
      line: 2,
    },
    {
      name: 'an entry without a seq',
      files: { [segment1]: putProduct(1, 1) + '{"changes":[{"delete":"products","id":1}]}\n' + putProduct(3, 3) },
      names: segment1,
      line: 2,
    },
    {
      name: 'an empty line',
      files: { [segment1]: putProduct(1, 1) + '\n' + putProduct(3, 3) },
      names: segment1,
      line: 2,
    },
    {
      name: 'a seq that goes backwards',
      files: { [segment1]: putProduct(1, 1) + putProduct(3, 2) + putProduct(2, 3) + putProduct(4, 4) },
      names: segment1,
      line: 3,
    },
    {
      name: 'a repeated seq',
      files: { [segment1]: putProduct(1, 1) + putProduct(1, 2) },
      names: segment1,
      line: 2,
    },
    {
      name: 'a damaged last line in a segment that is not the newest',
      files: { [segment1]: putProduct(1, 1) + '{"seq":2,"chan', 'journal-000000000002.jsonl': putProduct(2, 2) },
      names: segment1,
    },
    {
      name: 'a newer segment whose seqs go back',
      files: { [segment1]: putProduct(1, 1) + putProduct(2, 2), 'journal-000000000003.jsonl': putProduct(2, 3) },
      names: 'journal-000000000003.jsonl',
    },
  ];
  for (const c of cases) {
    test(`${c.name} → startServer rejects with a StartupError naming ${c.names}${c.line === undefined ? '' : ` and line ${c.line}`}; bytes unchanged`, async () => {
      const dir = await scratchDirectory(defer);
      for (const [name, text] of Object.entries(c.files)) await writeFile(join(dir, name), text);
      await writeFile(join(dir, 'products.json'), '{"next_id": 1, "journal_seq": 0, "records": []}\n');
      const before = await hashDirectory(dir);

      await assert.rejects(
        startServer({ port: 0, dataDir: dir, seed: true, ...TEST_AUTH_OPTIONS }),
        (error: unknown) => {
          assert.ok(error instanceof StartupError, String(error));
          assert.ok(error.message.includes(join(dir, c.names)), error.message);
          if (c.line !== undefined) assert.match(error.message, new RegExp(`\\bline ${c.line}\\b`));
          return true;
        },
      );
      assert.deepEqual(
        await hashDirectory(dir),
        before,
        'no file written, cut, added or left behind (not even the lock)',
      );
    });
  }

  const corruptSnapshots = [
    { name: 'invalid JSON', text: '{"next_id": 2, "journal_seq": 1, "records": [' },
    { name: 'a negative journal_seq', text: '{"next_id": 1, "journal_seq": -1, "records": []}\n' },
    { name: 'a journal_seq that is a string', text: '{"next_id": 1, "journal_seq": "1", "records": []}\n' },
  ];
  for (const c of corruptSnapshots) {
    test(`a snapshot with ${c.name} beside a journal with a torn tail → StartupError naming the snapshot; the torn tail is not cut`, async () => {
      const dir = await scratchDirectory(defer);
      const snapshot = join(dir, 'orders.json');
      await writeFile(snapshot, c.text);
      await writeFile(join(dir, segment1), putProduct(1, 1) + '{"seq":2,"changes":[{"put":"prod');
      const before = await hashDirectory(dir);
      const logger = recordingLogger();

      await assert.rejects(
        startServer({ port: 0, dataDir: dir, seed: true, logger, ...TEST_AUTH_OPTIONS }),
        (error: unknown) => {
          assert.ok(error instanceof StartupError, String(error));
          assert.ok(error.message.includes(snapshot), error.message);
          return true;
        },
      );
      assert.deepEqual(await hashDirectory(dir), before);
      assert.deepEqual(logger.lines, [], 'nothing was skipped, so nothing is reported as skipped');
    });
  }
});

describe('storage: compaction', () => {
  /**
   * The change feed keeps only the newest event (no event is kept for its age), so
   * compaction may keep only the segments holding the two newest: a compaction starts
   * with the write that fills the segment, before that write's event is published.
   */
  const LITTLE_HISTORY = { kept: 1, keptForMs: 0 } as const;
  const MOST_EVENTS_KEPT = LITTLE_HISTORY.kept + 1;

  /**
   * Waits until no compaction is under way and none is half done: no temporary file,
   * every snapshot at the same journal_seq, the current segment starting right after it,
   * and before it only segments the snapshots cover that still hold one of the events
   * the feed keeps (with LITTLE_HISTORY: one of the MOST_EVENTS_KEPT newest numbers up
   * to that seq; every change here is one event), and still so 200 ms later: a compaction whose rotation waits behind
   * the journal's last write leaves no trace on disk until it rotates. Returns that seq.
   */
  async function settled(dir: string): Promise<number> {
    let seq = -1;
    let seen = '';
    await eventually(async () => {
      const names = await fileNames(dir);
      assertOnlyDataFiles(names);
      const seqs = await Promise.all(
        SNAPSHOT_FILES.map(async (name) => (await readSnapshot(dir, name.replace('.json', ''))).journal_seq),
      );
      assert.equal(new Set(seqs).size, 1, `snapshots at one seq: ${seqs.join(', ')}`);
      seq = seqs[0] as number;
      const firstSeqs = (await segmentNames(dir)).map(firstSeqOf);
      assert.equal(firstSeqs.at(-1), seq + 1, `the current segment starts after seq ${seq}: ${firstSeqs.join(', ')}`);
      for (let index = 0; index + 1 < firstSeqs.length; index++) {
        const end = (firstSeqs[index + 1] as number) - 1;
        assert.ok(
          end > seq - MOST_EVENTS_KEPT,
          `the segment at ${firstSeqs[index]} (to ${end}) holds no event the feed keeps at seq ${seq}, yet it is left: ${firstSeqs.join(', ')}`,
        );
      }
      const state = `${seq}: ${firstSeqs.join(', ')}`;
      const unchanged = state === seen;
      seen = state;
      if (!unchanged) await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(unchanged, `the same 200 ms later (${state})`);
    });
    return seq;
  }

  test('many writes with compactAfterBytes: 2000 compact repeatedly and leave no temporary file', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir, { compactAfterBytes: 2000, events: LITTLE_HISTORY });
    for (let round = 0; round < 8; round++) {
      const created = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          api.post('/v1/products', { name: `R${round}-${n}`, category: 'c', price: n, description: 'x'.repeat(100) }),
        ),
      );
      for (const response of created) assert.equal(response.status, 201);
      assert.equal((await api.patch(`/v1/products/${created[0]?.body.id}`, { price: 1 })).status, 200);
      assert.equal((await api.delete(`/v1/products/${created[1]?.body.id}`)).status, 204);
    }
    const seq = await settled(dir);
    assert.ok(seq > 1, `the journal was compacted (snapshots at seq ${seq})`);
    assert.equal((await diskRecords(dir, 'products')).length, 80 - 8);

    // The write that fills a segment is answered before the compaction it starts has rotated the journal, so the
    // directory can look settled while one is due; closing lets a compaction under way finish.
    await api.close();
    await assertClosedDirectory(dir, SNAPSHOT_FILES);
    assert.equal((await fileNames(dir)).includes('journal-000000000001.jsonl'), false, 'the first segment was deleted');
    assert.equal((await diskContent(dir, 'products')).records.length, 80 - 8);
  });

  test('a compaction deletes the segments it covers; a restart after a crash, and after a close, sees the same records', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir, { compactAfterBytes: 2000, events: LITTLE_HISTORY });
    for (let n = 0; n < 40; n++) {
      const created = await createProduct(api, { name: `S${n}`, description: 'y'.repeat(80) });
      if (n % 5 === 0)
        assert.equal(
          (await api.put(`/v1/products/${created.id}`, { name: `S${n} v2`, category: 'd', price: 2 })).status,
          200,
        );
      if (n % 7 === 0) assert.equal((await api.delete(`/v1/products/${created.id}`)).status, 204);
    }
    const user = await createUser(api, { email: 'compacted@example.com' });
    const order = await api.post(`/v1/users/${user}/orders`, { items: [{ product_id: 2, quantity: 1 }] });
    assert.equal(order.status, 201, order.text);
    const expected = (await api.get('/v1/products?limit=100')).body;

    const seq = await settled(dir);
    assert.ok(seq > 1, `the journal was compacted (snapshots at seq ${seq})`);
    assert.equal((await fileNames(dir)).includes('journal-000000000001.jsonl'), false, 'the first segment was deleted');
    const products = await readSnapshot(dir, 'products');
    assert.ok(products.records.length > 0, 'the snapshot holds what the deleted segments held');

    const copy = await scratchDirectory(defer);
    await copyAsCrashed(dir, copy);
    const afterCrash = await startOn(copy);
    assert.deepEqual((await afterCrash.get('/v1/products?limit=100')).body, expected);
    assert.deepEqual((await afterCrash.get(`/v1/users/${user}/orders/${order.body.id}`)).body, order.body);
    assert.equal((await createProduct(afterCrash)).id, 41);

    await api.close();
    await assertClosedDirectory(dir, SNAPSHOT_FILES);
    const afterClose = await startOn(dir);
    assert.deepEqual((await afterClose.get('/v1/products?limit=100')).body, expected);
    assert.deepEqual((await afterClose.get(`/v1/users/${user}/orders/${order.body.id}`)).body, order.body);
    assert.equal((await createProduct(afterClose)).id, 41);
  });

  test('with the default history (10,000 events), compaction writes the snapshots but keeps every segment: each holds events the feed keeps', async () => {
    const dir = await scratchDirectory(defer);
    const api = await startOn(dir, { compactAfterBytes: 2000 });
    const created: any[] = [];
    // In rounds of ten writes (more than 2000 bytes): the first two each end with a compaction done, which
    // rotated the journal. (A write starts a compaction only when none is running.)
    for (let round = 0; round < 3; round++) {
      for (let n = 0; n < 10; n++)
        created.push(await createProduct(api, { name: `K${created.length}`, description: 'z'.repeat(100) }));
      if (round === 2) break;
      await eventually(async () => {
        assert.ok(
          (await segmentNames(dir)).length >= round + 2,
          `round ${round + 1} rotated the journal: ${(await segmentNames(dir)).join(', ')}`,
        );
        const seqs = await Promise.all(
          SNAPSHOT_FILES.map(async (name) => (await readSnapshot(dir, name.replace('.json', ''))).journal_seq),
        );
        assert.equal(new Set(seqs).size, 1, `its compaction is done: snapshots at one seq: ${seqs.join(', ')}`);
      });
    }
    assert.equal((await api.delete(`/v1/products/${created[0].id}`)).status, 204);
    await eventually(async () => {
      const seqs = await Promise.all(
        SNAPSHOT_FILES.map(async (name) => (await readSnapshot(dir, name.replace('.json', ''))).journal_seq),
      );
      assert.equal(new Set(seqs).size, 1, `snapshots at one seq: ${seqs.join(', ')}`);
      assert.ok((seqs[0] as number) > 1, `the journal was compacted (snapshots at seq ${seqs[0]})`);
    });
    const segments = await segmentNames(dir);
    assert.ok(segments.length > 2, `compaction rotated the journal several times: ${segments.join(', ')}`);
    // nothing deleted: every line from the administrator's (seq 1) on, without a gap (journalLines checks the numbering)
    const lines = await journalLines(dir);
    assert.equal(lines[0]?.seq, 1);
    assert.equal(lines.length, 1 + 30 + 1);
    const expected = (await api.get('/v1/products?limit=100')).body;

    await api.close();
    const covered = await assertClosedDirectory(dir, SNAPSHOT_FILES);
    assert.equal(covered, 32, 'everything stored, up to the last line');
    assert.deepEqual(
      (await segmentNames(dir)).map(firstSeqOf),
      segments.map(firstSeqOf).filter((first) => first <= covered),
      'only the empty current segment is gone',
    );
    assert.deepEqual(
      (await journalLines(dir)).map((line) => line.seq),
      Array.from({ length: 32 }, (_, n) => n + 1),
    );
    const again = await startOn(dir);
    assert.deepEqual(
      (await again.get('/v1/products?limit=100')).body,
      expected,
      'the covered lines are not applied again',
    );
    assert.equal((await createProduct(again)).id, 31);
  });
});

describe('storage: the lock', () => {
  test('a second server on the same dataDir is refused, naming plainrest.lock; the first keeps working', async () => {
    const dir = await scratchDirectory(defer);
    const first = await startOn(dir);
    const lock = join(dir, LOCK_FILE);
    assert.equal((await readFile(lock, 'utf8')).trim(), String(process.pid));
    await createProduct(first, { name: 'Before' });
    const before = await hashDirectory(dir);

    await assert.rejects(startServer({ port: 0, dataDir: dir, seed: true, ...TEST_AUTH_OPTIONS }), (error: unknown) => {
      assert.ok(error instanceof StartupError, String(error));
      assert.ok(error.message.includes(lock), error.message);
      return true;
    });
    assert.deepEqual(await hashDirectory(dir), before, 'the refused start wrote nothing and left the lock alone');

    const after = await createProduct(first, { name: 'After' });
    assert.equal(after.id, 2);
    assert.deepEqual(
      (await first.get('/v1/products')).body.data.map((record: { name: string }) => record.name),
      ['Before', 'After'],
    );
    assert.deepEqual(await diskRecords(dir, 'products'), (await first.get('/v1/products')).body.data);
    await first.close();
    await assertClosedDirectory(dir, SNAPSHOT_FILES);
  });

  test('a lock that holds no pid (not written by plainrest) is refused, named, and left alone', async () => {
    const dir = await scratchDirectory(defer);
    const lock = join(dir, LOCK_FILE);
    await writeFile(lock, 'garbage\n');
    await assert.rejects(
      startOn(dir),
      (error: unknown) => error instanceof StartupError && error.message.includes(lock),
    );
    assert.equal(await readFile(lock, 'utf8'), 'garbage\n');
  });

  for (const stale of [
    'the pid of a process that has exited',
    "this process's own pid (a container restarted as the same pid)",
  ]) {
    test(`a lock holding ${stale} is taken over`, async () => {
      const dir = await scratchDirectory(defer);
      const first = await startOn(dir);
      await createProduct(first, { name: 'Kept' });
      await first.close();
      const lock = join(dir, LOCK_FILE);
      await writeFile(lock, stale.startsWith('the pid') ? `${await deadPid()}\n` : `${process.pid}\n`);

      const api = await startOn(dir);
      assert.equal((await readFile(lock, 'utf8')).trim(), String(process.pid));
      assert.deepEqual(
        (await api.get('/v1/products')).body.data.map((record: { name: string }) => record.name),
        ['Kept'],
      );
      assert.equal((await createProduct(api)).id, 2);
      await api.close();
      await assertClosedDirectory(dir, SNAPSHOT_FILES);
    });
  }
});

describe('storage: a corrupt snapshot stops the start, names the file and changes nothing', () => {
  const record = (id: number): string => JSON.stringify(productRecord(id));
  const cases = [
    { name: 'invalid JSON', text: '{"next_id": 2, "records": [' },
    { name: 'an empty file', text: '' },
    { name: 'records not an array', text: '{"next_id": 2, "records": {"1": {}}}\n' },
    { name: 'next_id missing', text: `{"records": [${record(1)}]}\n` },
    { name: 'duplicate ids', text: `{"next_id": 3, "records": [${record(1)}, ${record(1)}]}\n` },
    { name: 'an id equal to next_id', text: `{"next_id": 2, "records": [${record(2)}]}\n` },
    { name: 'an id above next_id', text: `{"next_id": 2, "records": [${record(1)}, ${record(5)}]}\n` },
    { name: 'a record without an id', text: '{"next_id": 2, "records": [{"name":"P"}]}\n' },
  ];
  for (const collection of ['products', 'orders']) {
    for (const c of cases) {
      test(`${collection}.json with ${c.name} → startServer rejects naming the file; bytes unchanged`, async () => {
        const dir = await temporaryDirectory();
        try {
          const path = join(dir.path, `${collection}.json`);
          await writeFile(path, c.text);
          const other = '{"next_id": 1, "records": []}\n';
          await writeFile(join(dir.path, 'users.json'), other);
          const before = await hashDirectory(dir.path);

          await assert.rejects(startServer({ port: 0, dataDir: dir.path, seed: true }), (error: unknown) => {
            assert.ok(error instanceof StartupError, String(error));
            assert.ok(error.message.includes(path), error.message);
            return true;
          });
          assert.equal(await readFile(path, 'utf8'), c.text);
          assert.deepEqual(await hashDirectory(dir.path), before);
        } finally {
          await dir.remove();
        }
      });
    }
  }
});

describe('storage: close()', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await temporaryDirectory();
  });
  afterEach(() => dir.remove());

  test(
    'close() lets an in-flight write finish; its record is in the snapshot when close resolves',
    { timeout: 60_000 },
    async () => {
      const server = await startServer({ port: 0, dataDir: dir.path, seed: false, ...TEST_AUTH_OPTIONS });
      const { token } = await connect(server);
      const { port, hostname } = new URL(server.url);
      const body = JSON.stringify({ name: 'In flight', category: 'c', price: 3 });
      const socket = openSocket(Number(port), hostname);
      let received = '';
      const ended = new Promise<void>((resolve, reject) => {
        socket.on('end', resolve);
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      // Expect: 100-continue makes the server confirm it holds the request before the body is sent
      const continued = new Promise<void>((resolve) => {
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if (received.includes('100 Continue')) resolve();
        });
      });
      socket.write(
        `POST /v1/products HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
      );
      await continued;

      const closed = server.close();
      socket.write(body);
      await ended;
      socket.destroy();
      await closed;

      const final = received.slice(received.indexOf('\r\n\r\n') + 4);
      assert.match(final, /^HTTP\/1\.1 201 /);
      assert.match(final, /\r\nconnection: close\r\n/i);
      const snapshot = await diskContent(dir.path, 'products');
      assert.equal(snapshot.next_id, 2);
      assert.deepEqual(
        snapshot.records.map((record: { id: number; name: string }) => [record.id, record.name]),
        [[1, 'In flight']],
      );
    },
  );

  test('close() removes the lock and rewrites nothing: the journal goes on from the snapshots up to the last line, and a start reads everything', async () => {
    const server = await startServer({ port: 0, dataDir: dir.path, seed: true, ...TEST_AUTH_OPTIONS });
    const api = await connect(server);
    const product = await createProduct(api, { name: 'Journaled' });
    const user = await createUser(api, { email: 'closing@example.com' });
    const order = await api.post(`/v1/users/${user}/orders`, { items: [{ product_id: product.id, quantity: 4 }] });
    assert.equal(order.status, 201, order.text);
    assert.equal((await api.delete('/v1/products/1')).status, 204);
    const last = (await journalLines(dir.path)).at(-1) as JournalLine;
    const lastSeq = last.seq + seqsTaken(last) - 1; // the last number the last line took
    const expected: Record<string, any[]> = {};
    for (const collection of ['users', 'products', 'orders'])
      expected[collection] = await diskRecords(dir.path, collection);

    await server.close();
    assert.equal(await assertClosedDirectory(dir.path, SNAPSHOT_FILES), lastSeq);
    for (const collection of ['users', 'products', 'orders']) {
      assert.deepEqual((await diskContent(dir.path, collection)).records, expected[collection], collection);
    }
    assert.deepEqual(
      (await diskContent(dir.path, 'orders')).records.map((record: { id: number }) => record.id),
      [1, 2, 3, 4, 5, order.body.id],
    );

    const again = await connect(await startServer({ port: 0, dataDir: dir.path, seed: true, ...TEST_AUTH_OPTIONS }));
    try {
      assert.deepEqual((await again.get(`/v1/products/${product.id}`)).body, product);
      assert.equal((await again.get('/v1/products/1')).status, 404);
      assert.deepEqual((await again.get(`/v1/users/${user}/orders/${order.body.id}`)).body, order.body);
    } finally {
      await again.close();
    }
  });

  test('close() leaves complete snapshots and a closed server refuses connections', async () => {
    const server = await startServer({ port: 0, dataDir: dir.path, seed: true });
    const response = await fetch(`${server.url}/healthz`);
    assert.equal(response.status, 200);
    await response.text();
    await server.close();
    // started without a tokenSecret, so the generated one is kept beside the snapshots
    await assertClosedDirectory(dir.path, DATA_DIR_FILES);
    assert.equal((await diskContent(dir.path, 'products')).records.length, 12);
    await assert.rejects(fetch(`${server.url}/healthz`));
  });

  test('close() is safe to call twice', async () => {
    const server = await startServer({ port: 0, dataDir: dir.path, seed: false });
    await Promise.all([server.close(), server.close()]);
    await server.close();
    await assertClosedDirectory(dir.path, DATA_DIR_FILES);
  });
});

test('data/example/*.json is byte-for-byte unchanged after every test above', async () => {
  assert.deepEqual(Object.keys(exampleHashesBefore).sort(), [
    'orders.json',
    'products.json',
    'resources.json',
    'users.json',
  ]);
  assert.deepEqual(await hashDirectory(EXAMPLE_DIR), exampleHashesBefore);
});
