// The next-tick entry startServer and createApp hold (server/next-tick-shape.ts, bench/README.md: "GET item and the
// next-tick entry"): an entry of process.nextTick's queue, with the keys every entry has, so that V8 keeps their shape
// for as long as the process lives. If a Node release stopped handing a callback its entry, this would fail.

import assert from 'node:assert/strict';
import { executionAsyncResource } from 'node:async_hooks';
import { test } from 'node:test';
import { heldNextTickEntry, keepNextTickShape } from '../src/server/next-tick-shape.ts';

/** The entry of a callback of process.nextTick's own, for comparison. */
function entryOfATick(): Promise<object> {
  return new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
}

/** An object's own keys, symbols included, by name. */
function keysOf(value: object): string[] {
  return Reflect.ownKeys(value).map(String);
}

test('keepNextTickShape holds one entry of the next-tick queue, shaped as every entry is', async () => {
  assert.equal(heldNextTickEntry(), undefined);
  keepNextTickShape();
  keepNextTickShape();
  const other = await entryOfATick();
  const held = heldNextTickEntry();
  assert.ok(held !== undefined);
  assert.notEqual(held, other);
  assert.notEqual(held, executionAsyncResource());
  assert.deepEqual(keysOf(held), keysOf(other));
  assert.ok(keysOf(held).includes('callback'), `the keys: ${keysOf(held).join(', ')}`);
  assert.equal(typeof Reflect.get(held, 'callback'), 'function');
  // Once per process: a later call holds no other entry.
  keepNextTickShape();
  await entryOfATick();
  assert.equal(heldNextTickEntry(), held);
});
