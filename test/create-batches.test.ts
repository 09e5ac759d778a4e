// Creates sent together (packages/postgres create-batches.ts), against a fake database:
// a create alone is its own statement; creates arriving while every connection is busy
// go out as one statement of arrays (columns, callers, events), each create answered
// with its own row; a statement that fails is sent again one create at a time, so each
// create gets the answer it would have had alone.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import type { Create } from '../packages/postgres/src/create-batches.ts';
import { CreateBatches, manyCreatesText } from '../packages/postgres/src/create-batches.ts';
import type { TablePlan } from '../packages/postgres/src/schema.ts';

interface Sent {
  readonly text: string;
  readonly values: unknown[];
  answer(rows: readonly Record<string, unknown>[]): void;
  fail(error: unknown): void;
}

function fakeDatabase(): {
  sent: Sent[];
  send: (text: string, values: unknown[]) => Promise<readonly Record<string, unknown>[]>;
} {
  const sent: Sent[] = [];
  return {
    sent,
    send: (text, values) =>
      new Promise((resolve, reject) => sent.push({ text, values, answer: resolve, fail: reject })),
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const PLAN = {
  table: 'products',
  columns: [
    { name: 'id', type: 'bigint', notNull: true },
    { name: 'name', type: 'text', notNull: true },
    { name: 'price', type: 'double precision', notNull: true },
  ],
} as unknown as TablePlan;

function create(name: string, price: number, caller?: { id: number; role: string }, events?: string): Create {
  return { alone: { text: `alone ${name}`, values: [name, price] }, columns: [name, price], caller, events };
}

describe('creates sent together', () => {
  test('a create that finds a connection free is its own statement', async () => {
    const db = fakeDatabase();
    const creates = new CreateBatches(db.send, 1);
    const made = creates.create(PLAN, create('Tea', 3));
    assert.deepEqual(
      db.sent.map(({ text, values }) => ({ text, values })),
      [{ text: 'alone Tea', values: ['Tea', 3] }],
    );
    db.sent[0]?.answer([{ created: 7 }]);
    assert.deepEqual(await made, { created: 7 });
  });

  test('while the connection is busy, creates wait, then go out as one statement: a column per array, then the callers, then the events; each gets its row', async () => {
    const db = fakeDatabase();
    const creates = new CreateBatches(db.send, 1);
    void creates.create(PLAN, create('First', 1, { id: 1, role: 'admin' }, '[{"n":1}]'));
    const waiting = [
      create('A', 2, { id: 1, role: 'admin' }, '[{"n":2}]'),
      create('B', 3, { id: 4, role: 'user' }, '[{"n":3}]'),
    ].map((one) => creates.create(PLAN, one));
    db.sent[0]?.answer([{ created: 1, last: 1 }]);
    await settle();
    assert.equal(db.sent[1]?.text, manyCreatesText(PLAN, true, true));
    assert.deepEqual(db.sent[1]?.values, [
      ['A', 'B'],
      [2, 3],
      [1, 4],
      ['admin', 'user'],
      ['[{"n":2}]', '[{"n":3}]'],
    ]);
    db.sent[1]?.answer([
      { created: 2, last: 3, events: 2 },
      { created: null, last: 3, events: 2 },
    ]);
    assert.deepEqual(await Promise.all(waiting), [
      { created: 2, last: 3, events: 2 },
      { created: null, last: 3, events: 2 },
    ]);
  });

  test('a statement of many that PostgreSQL refuses is sent again one create at a time: each gets its own row or its own error', async () => {
    const db = fakeDatabase();
    const creates = new CreateBatches(db.send, 1);
    void creates.create(PLAN, create('First', 1));
    const waiting = [create('Fine', 2), create('Refused', 3)].map((one) => creates.create(PLAN, one));
    db.sent[0]?.answer([{ created: 1 }]);
    await settle();
    db.sent[1]?.fail(
      Object.assign(new pg.DatabaseError('insert or update violates foreign key constraint', 0, 'error'), {
        code: '23503',
      }),
    );
    await settle();
    assert.deepEqual(
      db.sent.slice(2).map((sent) => sent.text),
      ['alone Fine', 'alone Refused'],
    );
    const refusal = new Error('violates a foreign key');
    db.sent[2]?.answer([{ created: 2 }]);
    db.sent[3]?.fail(refusal);
    const [fine, refused] = await Promise.allSettled(waiting);
    assert.deepEqual(fine, { status: 'fulfilled', value: { created: 2 } });
    assert.deepEqual(refused, { status: 'rejected', reason: refusal });
  });

  test('a statement of many whose connection is lost fails every create in it, and none is sent again (it may have been committed)', async () => {
    const db = fakeDatabase();
    const creates = new CreateBatches(db.send, 1);
    void creates.create(PLAN, create('First', 1));
    const waiting = [create('A', 2), create('B', 3)].map((one) => creates.create(PLAN, one));
    db.sent[0]?.answer([{ created: 1 }]);
    await settle();
    const lost = Object.assign(new Error('the database cannot be reached'), { code: 'not_ready' });
    db.sent[1]?.fail(lost);
    for (const made of waiting) await assert.rejects(made, lost);
    assert.equal(db.sent.length, 2, 'nothing sent again');
  });

  test('creates of another table or shape go in statements of their own', async () => {
    const db = fakeDatabase();
    const creates = new CreateBatches(db.send, 1);
    const other = { ...PLAN, table: 'gadgets' } as TablePlan;
    void creates.create(PLAN, create('First', 1));
    const waiting = [
      creates.create(PLAN, create('A', 2)),
      creates.create(other, create('G', 5)),
      creates.create(PLAN, create('B', 3, { id: 1, role: 'admin' })),
    ];
    db.sent[0]?.answer([{ created: 1 }]);
    await settle();
    assert.equal(db.sent[1]?.text, 'alone A');
    db.sent[1]?.answer([{ created: 2 }]);
    await settle();
    assert.equal(db.sent[2]?.text, 'alone G');
    db.sent[2]?.answer([{ created: 3 }]);
    await settle();
    assert.equal(db.sent[3]?.text, 'alone B');
    db.sent[3]?.answer([{ created: 4 }]);
    assert.deepEqual(await Promise.all(waiting), [{ created: 2 }, { created: 3 }, { created: 4 }]);
  });
});
