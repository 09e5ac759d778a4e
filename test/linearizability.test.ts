// Linearizability across crashes (issue 48; README: Storage and durability). The checker (test/linearizability.ts) on
// hand-written register histories, the issue's anomalies among them; then a short run of the real server, killed
// (SIGKILL) while clients read, write and compare-and-set a few products (test/crash-histories.ts): every record's
// history must be linearizable. Killed once, three times in the long run (test/long-run.ts); a longer hunt:
// bench/crash-histories.ts. CRASH_SEED repeats a run.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { crashRun, describeRun } from './crash-histories.ts';
import type { Outcome, RegisterOp, RegisterState } from './linearizability.ts';
import { ANY, checkRegister, describeHistory, minimalViolation } from './linearizability.ts';
import { scaled } from './long-run.ts';
import { REPOSITORY_ROOT } from './repository.ts';

/** One operation on register 1: `[invoke, complete]` in ms; a kill's unanswered operation completes at the kill. */
function op(
  client: number,
  [invoke, complete]: readonly [number, number],
  kind: RegisterOp['kind'],
  outcome: Outcome,
  values: { value?: string; expected?: string; observed?: string } = {},
): RegisterOp {
  return { key: 1, client, kind, outcome, invoke, complete, ...values };
}
const read = (client: number, span: readonly [number, number], observed: string): RegisterOp =>
  op(client, span, 'read', 'ok', { observed });
const write = (client: number, span: readonly [number, number], value: string, outcome: Outcome = 'ok'): RegisterOp =>
  op(client, span, 'write', outcome, { value });
const cas = (
  client: number,
  span: readonly [number, number],
  expected: string,
  value: string,
  outcome: Outcome,
): RegisterOp => op(client, span, 'cas', outcome, { expected, value });

function linearizable(history: readonly RegisterOp[], initial: RegisterState = 'a'): boolean {
  const verdict = checkRegister(history, initial);
  assert.equal(verdict.gaveUp, false);
  return verdict.linearizable;
}

describe('the checker', () => {
  test('one client, one operation after another: what a register answers', () => {
    const history = [
      read(1, [0, 1], 'a'),
      write(1, [2, 3], 'b'),
      read(1, [4, 5], 'b'),
      cas(1, [6, 7], 'b', 'c', 'ok'),
      cas(1, [8, 9], 'b', 'd', 'failed'),
      read(1, [10, 11], 'c'),
    ];
    assert.equal(linearizable(history), true);
    assert.equal(linearizable([write(1, [0, 1], 'b'), read(1, [2, 3], 'a')]), false, 'a stale read');
    assert.equal(linearizable([cas(1, [0, 1], 'a', 'b', 'failed')]), false, 'a 412 while the value was the expected');
    assert.equal(linearizable([cas(1, [0, 1], 'z', 'b', 'ok')]), false, 'a compare-and-set of a value never there');
  });

  test('operations that overlap take effect in either order, each once', () => {
    assert.equal(linearizable([write(1, [0, 10], 'b'), read(2, [1, 2], 'a'), read(2, [3, 4], 'b')]), true);
    assert.equal(linearizable([write(1, [0, 10], 'b'), read(2, [1, 2], 'b'), read(2, [3, 4], 'a')]), false);
    // Two writers, two readers that saw them in opposite orders.
    const opposite = [
      write(1, [0, 10], 'b'),
      write(2, [0, 10], 'c'),
      read(3, [1, 4], 'b'),
      read(3, [5, 9], 'c'),
      read(4, [1, 4], 'c'),
      read(4, [5, 9], 'b'),
    ];
    assert.equal(linearizable(opposite), false);
    // Two compare-and-sets from the same value cannot both succeed.
    assert.equal(linearizable([cas(1, [0, 5], 'a', 'b', 'ok'), cas(2, [0, 5], 'a', 'c', 'ok')]), false);
    assert.equal(linearizable([cas(1, [0, 5], 'a', 'b', 'ok'), cas(2, [0, 5], 'a', 'c', 'failed')]), true);
  });

  test('an unanswered write takes effect once before its process ended, or never', () => {
    // The write of b was sent, the process was killed at 10, restarted; no answer came.
    assert.equal(linearizable([write(1, [0, 10], 'b', 'unknown'), read(2, [11, 12], 'a')]), true, 'never');
    assert.equal(linearizable([write(1, [0, 10], 'b', 'unknown'), read(2, [11, 12], 'b')]), true, 'before the kill');
    assert.equal(
      linearizable([write(1, [0, 10], 'b', 'unknown'), read(2, [1, 2], 'a'), read(2, [3, 4], 'b')]),
      true,
      'between two reads',
    );
    assert.equal(
      linearizable([write(1, [0, 10], 'b', 'unknown'), read(2, [11, 12], 'a'), read(2, [13, 14], 'b')]),
      false,
      'not after the process that received it had died',
    );
    assert.equal(
      linearizable([write(1, [0, 10], 'b', 'unknown'), write(2, [11, 12], 'c'), read(2, [13, 14], 'b')]),
      false,
    );
    assert.equal(
      linearizable([cas(1, [0, 10], 'z', 'b', 'unknown'), read(2, [11, 12], 'b')]),
      false,
      'an unanswered compare-and-set only from its expected value',
    );
    // A request whose end is not known at all may take effect at any time after it was sent.
    assert.equal(
      linearizable([write(1, [0, Infinity], 'b', 'unknown'), read(2, [1, 2], 'a'), read(2, [50, 51], 'b')]),
      true,
    );
  });

  test('issue 48: a read saw a write not answered yet; after the kill the value is gone: not linearizable', () => {
    const history = [
      write(1, [0, 10], 'b', 'unknown'), // PATCH, applied in memory, not yet on disk; the process is killed at 10
      read(2, [1, 2], 'b'), // a GET answered with it
      read(2, [11, 12], 'a'), // after the restart: the value before it
    ];
    assert.equal(linearizable(history), false);
    // Had the GET been held until the write was durable, it could only have seen the value before it.
    assert.equal(linearizable([write(1, [0, 10], 'b', 'unknown'), read(2, [1, 2], 'a'), read(2, [11, 12], 'a')]), true);
  });

  test('issue 48: a 412 caused by a write that never happened: not linearizable', () => {
    const history = [
      read(2, [0, 1], 'a'), // the client read the value and its ETag
      write(1, [2, 10], 'b', 'unknown'), // another client's write, lost in the kill at 10
      cas(2, [3, 4], 'a', 'c', 'failed'), // If-Match with the ETag of a: 412
      read(2, [11, 12], 'a'), // after the restart, a is still the value
    ];
    assert.equal(linearizable(history), false);
    assert.equal(linearizable([...history.slice(0, 3), read(2, [11, 12], 'b')]), true, 'had the write survived');
  });

  test('deletes and 404s', () => {
    const deleted = op(1, [0, 1], 'delete', 'ok');
    const readAbsent = (span: readonly [number, number]): RegisterOp => op(2, span, 'read', 'absent');
    assert.equal(linearizable([deleted, readAbsent([2, 3]), op(2, [4, 5], 'write', 'absent', { value: 'b' })]), true);
    assert.equal(linearizable([deleted, read(2, [2, 3], 'a')]), false, 'a deleted record read');
    assert.equal(linearizable([readAbsent([0, 1])]), false, 'a 404 for a record that is there');
    assert.equal(
      linearizable([op(1, [0, 10], 'delete', 'unknown'), readAbsent([1, 2]), read(2, [11, 12], 'a')]),
      false,
    );
    assert.equal(linearizable([op(1, [0, 10], 'delete', 'unknown'), readAbsent([11, 12])]), true);
  });

  test('a history cut at a quiet moment starts from any state', () => {
    assert.equal(linearizable([read(1, [0, 1], 'q'), cas(1, [2, 3], 'q', 'r', 'ok')], ANY), true);
    assert.equal(linearizable([read(1, [0, 1], 'q'), read(1, [2, 3], 'r')], ANY), false);
  });

  test('the search stops at its budget and says so', () => {
    const history = Array.from({ length: 8 }, (_, client) => write(client, [0, 10], `v${client}`));
    const verdict = checkRegister(history, 'a', 5);
    assert.equal(verdict.gaveUp, true);
    assert.equal(checkRegister(history, 'a').linearizable, true);
  });

  test('a violation among hundreds of operations is shown in a few', () => {
    const history: RegisterOp[] = [];
    let time = 0;
    let value = 'a';
    // Four clients taking turns, every answer right, then the issue's anomaly, then more right answers.
    for (let n = 0; n < 300; n++) {
      const client = n % 4;
      if (n % 3 === 0) {
        const next = `w${n}`;
        history.push(write(client, [time, time + 1], next));
        value = next;
      } else if (n % 3 === 1) history.push(read(client, [time, time + 1], value));
      else {
        history.push(cas(client, [time, time + 1], 'nothing', `x${n}`, 'failed'));
      }
      time += 2;
    }
    const before = value;
    history.push(write(1, [time, time + 10], 'lost', 'unknown'), read(2, [time + 1, time + 2], 'lost'));
    time += 11;
    const restarted = time;
    for (let n = 0; n < 50; n++, time += 2) history.push(read(n % 4, [time, time + 1], before));
    assert.equal(linearizable(history), false);
    const minimal = minimalViolation(history, 'a');
    assert.equal(checkRegister(minimal, 'a').linearizable, false);
    assert.ok(minimal.length <= 4, describeHistory(minimal));
    assert.ok(minimal.some((one) => one.observed === 'lost'));
    assert.ok(minimal.some((one) => one.observed === before && one.invoke >= restarted));
  });
});

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
const KILLS = scaled(1, 3);

test(
  `a server killed ${KILLS === 1 ? 'once' : `${KILLS} times`} while 8 clients read, write and compare-and-set 5 products: every history linearizable`,
  { skip: existsSync(MAIN) ? false : 'dist/plainrest.mjs is not built (npm run build)' },
  async () => {
    const seed = Number(process.env['CRASH_SEED'] ?? Date.now() % 100000);
    const result = await crashRun({
      main: MAIN,
      seed,
      kills: KILLS,
      clients: 8,
      records: 5,
      phaseMs: [300, 1200],
      compactAfterBytes: seed % 2 === 0 ? 4096 : undefined,
    });
    const report = describeRun(result);
    assert.deepEqual(result.violations.length, 0, report);
    assert.deepEqual(result.undecided, [], report);
    assert.deepEqual(result.surprises, [], report);
    assert.ok(
      result.ops.some((one) => one.outcome === 'ok' && one.kind === 'read'),
      report,
    );
  },
);
