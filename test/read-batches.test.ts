// Reads by id sent together (packages/postgres read-batches.ts), against a fake database:
// a read alone goes out at once as its single statement; reads arriving while every
// connection is busy go out together, one statement per shape, each read answered with
// its own row; a failed statement fails its reads and no others.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Row } from '../packages/postgres/src/read-batches.ts';
import { ReadBatches } from '../packages/postgres/src/read-batches.ts';
import { MAX_BATCH, StatementBatches } from '../packages/postgres/src/statement-batches.ts';
import { rowsByIdBatchQuery, rowsByIdQuery } from '../packages/postgres/src/sql-records.ts';

interface Sent {
  readonly text: string;
  readonly values: unknown[];
  answer(rows: readonly Row[]): void;
  fail(error: unknown): void;
}

/** A database that answers when the test says so. */
function fakeDatabase(): { sent: Sent[]; send: (text: string, values: unknown[]) => Promise<readonly Row[]> } {
  const sent: Sent[] = [];
  return {
    sent,
    send: (text, values) =>
      new Promise((resolve, reject) => {
        sent.push({ text, values, answer: resolve, fail: reject });
      }),
  };
}

/** Lets the promise callbacks queued so far run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('reads by id sent together', () => {
  test('a read that finds a connection free goes out at once, as its single statement', async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 2, () => 'bigint');
    const row = reads.read(['products'], [7], undefined);
    assert.equal(db.sent.length, 1);
    assert.deepEqual(db.sent[0], { ...db.sent[0], ...rowsByIdQuery([{ table: 'products', id: 7 }], undefined) });
    db.sent[0]?.answer([{ r0: { id: 7 } }]);
    assert.deepEqual(await row, { r0: { id: 7 } });
  });

  test('while every connection is busy, reads wait; when one returns they go out as one statement, each answered with its own row', async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 1, () => 'bigint');
    const first = reads.read(['products'], [1], { id: 5, role: 'admin' });
    const waiting = [2, 3, 4].map((id, index) =>
      reads.read(['products'], [id], { id: 10 + index, role: index === 1 ? null : 'user' }),
    );
    assert.equal(db.sent.length, 1, 'the others wait for the one connection');
    db.sent[0]?.answer([{ r0: { id: 1 }, caller: true }]);
    assert.deepEqual(await first, { r0: { id: 1 }, caller: true });
    assert.equal(db.sent.length, 2);
    const batch = db.sent[1] as Sent;
    assert.equal(batch.text, rowsByIdBatchQuery(['products'], ['bigint'], true));
    assert.deepEqual(batch.values, [
      [2, 3, 4],
      [10, 11, 12],
      ['user', null, 'user'],
    ]);
    batch.answer([2, 3, 4].map((id) => ({ r0: { id }, caller: id !== 3 })));
    assert.deepEqual(await Promise.all(waiting), [
      { r0: { id: 2 }, caller: true },
      { r0: { id: 3 }, caller: false },
      { r0: { id: 4 }, caller: true },
    ]);
  });

  test('reads of another shape (other tables, or without the caller check) go in a statement of their own', async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 1, () => 'bigint');
    void reads.read(['products'], [1], undefined);
    const products = [reads.read(['products'], [2], undefined), reads.read(['products'], [3], undefined)];
    const orders = [
      reads.read(['users', 'orders'], [5, 8], { id: 1, role: 'admin' }),
      reads.read(['users', 'orders'], [6, 9], { id: 1, role: 'admin' }),
    ];
    db.sent[0]?.answer([{ r0: null }]);
    await settle();
    assert.equal(db.sent.length, 2, 'one connection: one shape at a time');
    assert.equal(db.sent[1]?.text, rowsByIdBatchQuery(['products'], ['bigint'], false));
    assert.deepEqual(db.sent[1]?.values, [[2, 3]]);
    db.sent[1]?.answer([{ r0: { id: 2 } }, { r0: { id: 3 } }]);
    await settle();
    assert.equal(db.sent[2]?.text, rowsByIdBatchQuery(['users', 'orders'], ['bigint', 'bigint'], true));
    assert.deepEqual(db.sent[2]?.values, [
      [5, 6],
      [8, 9],
      [1, 1],
      ['admin', 'admin'],
    ]);
    db.sent[2]?.answer([
      { r0: { id: 5 }, r1: { id: 8 }, caller: true },
      { r0: { id: 6 }, r1: { id: 9 }, caller: true },
    ]);
    assert.deepEqual(await Promise.all(products), [{ r0: { id: 2 } }, { r0: { id: 3 } }]);
    assert.deepEqual(
      (await Promise.all(orders)).map((row) => (row['r1'] as { id: number }).id),
      [8, 9],
    );
  });

  test(`at most ${MAX_BATCH} reads in one statement; the rest go in the next`, async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 1, () => 'bigint');
    void reads.read(['products'], [0], undefined);
    const many = Array.from({ length: MAX_BATCH + 3 }, (_, index) => reads.read(['products'], [index + 1], undefined));
    db.sent[0]?.answer([{}]);
    await settle();
    assert.equal((db.sent[1]?.values[0] as number[]).length, MAX_BATCH);
    db.sent[1]?.answer(Array.from({ length: MAX_BATCH }, (_, index) => ({ r0: { id: index + 1 } })));
    await settle();
    assert.deepEqual(db.sent[2]?.values, [[MAX_BATCH + 1, MAX_BATCH + 2, MAX_BATCH + 3]]);
    db.sent[2]?.answer([1, 2, 3].map((offset) => ({ r0: { id: MAX_BATCH + offset } })));
    assert.deepEqual(
      (await Promise.all(many)).map((row) => (row['r0'] as { id: number }).id),
      Array.from({ length: MAX_BATCH + 3 }, (_, index) => index + 1),
    );
  });

  test('a shape with more than a statement waiting goes behind the others: another shape is not held back by its backlog', async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 1, () => 'bigint');
    void reads.read(['products'], [0], undefined);
    const backlog = Array.from({ length: MAX_BATCH + 50 }, (_, index) =>
      reads.read(['products'], [index + 1], undefined),
    );
    const other = reads.read(['orders'], [1], undefined);
    db.sent[0]?.answer([{}]);
    await settle();
    assert.equal((db.sent[1]?.values[0] as number[]).length, MAX_BATCH);
    db.sent[1]?.answer(Array.from({ length: MAX_BATCH }, () => ({})));
    await settle();
    assert.deepEqual(db.sent[2]?.values, [1], 'the other shape before the rest of the backlog');
    db.sent[2]?.answer([{ r0: { id: 1 } }]);
    assert.deepEqual(await other, { r0: { id: 1 } });
    await settle();
    assert.equal((db.sent[3]?.values[0] as number[]).length, 50);
    db.sent[3]?.answer(Array.from({ length: 50 }, () => ({})));
    assert.equal((await Promise.all(backlog)).length, MAX_BATCH + 50);
  });

  test('reads of tables named like the check are not taken for checked reads (a collection may be called "checked")', async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 1, () => 'bigint');
    void reads.read(['products'], [0], undefined);
    void reads.read(['checked', 'users'], [1, 2], undefined);
    void reads.read(['users'], [3], { id: 1, role: 'admin' });
    db.sent[0]?.answer([{}]);
    await settle();
    db.sent[1]?.answer([{}]);
    await settle();
    assert.deepEqual(
      db.sent.slice(1).map((sent) => sent.text),
      [
        rowsByIdQuery(
          [
            { table: 'checked', id: 1 },
            { table: 'users', id: 2 },
          ],
          undefined,
        ).text,
        rowsByIdQuery([{ table: 'users', id: 3 }], { id: 1, role: 'admin' }).text,
      ],
    );
  });

  test('a shape that throws at once fails its items, and what comes after is still sent', async () => {
    const batches = new StatementBatches<number, number>(1);
    const broken = {
      alone: (): Promise<number> => {
        throw new Error('broken at once');
      },
      together: (): Promise<readonly number[]> => {
        throw new Error('broken at once');
      },
    };
    await assert.rejects(
      batches.send('broken', () => broken, 1),
      /broken at once/,
    );
    const fine = {
      alone: async (item: number): Promise<number> => item * 2,
      together: async (items: readonly number[]): Promise<readonly number[]> => items.map((item) => item * 2),
    };
    assert.equal(await batches.send('fine', () => fine, 21), 42, 'nothing is left counted in flight');
  });

  test('a statement that fails fails its reads, and the reads after it are sent', async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 1, () => 'bigint');
    const alone = reads.read(['products'], [1], undefined);
    const together = [reads.read(['products'], [2], undefined), reads.read(['products'], [3], undefined)];
    const lost = new Error('connection lost');
    db.sent[0]?.fail(lost);
    await assert.rejects(alone, lost);
    db.sent[1]?.fail(lost);
    for (const read of together) await assert.rejects(read, lost);
    const later = reads.read(['products'], [4], undefined);
    assert.equal(db.sent.length, 3, 'nothing is left in flight');
    db.sent[2]?.answer([{ r0: { id: 4 } }]);
    assert.deepEqual(await later, { r0: { id: 4 } });
  });

  test('a batch answered with another number of rows than its reads is an error for each of them, never a row given to the wrong read', async () => {
    const db = fakeDatabase();
    const reads = new ReadBatches(db.send, 1, () => 'bigint');
    void reads.read(['products'], [1], undefined);
    const together = [reads.read(['products'], [2], undefined), reads.read(['products'], [3], undefined)];
    db.sent[0]?.answer([{}]);
    await settle();
    db.sent[1]?.answer([{ r0: { id: 2 } }]);
    for (const read of together) await assert.rejects(read, /a statement for 2 items gave 1 answers/);
  });
});
