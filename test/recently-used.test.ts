// Unit tests for the bounded map with second-chance eviction (src/store/recently-used.ts),
// which holds the list pages, the sorted views and the rate limiter's buckets.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RecentlyUsed } from '../src/store/recently-used.ts';

/** A map filled with keys 1..count, none read since. */
function filled(limit: number, count = limit): RecentlyUsed<number, string> {
  const map = new RecentlyUsed<number, string>(limit);
  for (let key = 1; key <= count; key++) map.set(key, `value ${key}`);
  return map;
}

function keysOf(map: RecentlyUsed<number, string>): number[] {
  return [...map.values()].map((value) => Number(value.slice('value '.length)));
}

describe('RecentlyUsed', () => {
  test('holds at most its limit; with nothing read, the oldest entry makes room', () => {
    const map = filled(3, 5);
    assert.equal(map.size, 3);
    assert.deepEqual(keysOf(map), [3, 4, 5]);
    assert.equal(map.get(1), undefined);
    assert.equal(map.get(2), undefined);
    assert.equal(map.get(5), 'value 5');
  });

  test('an entry read since it was added is passed over once (its second chance), and a later unread one goes instead', () => {
    const map = filled(3);
    assert.equal(map.get(1), 'value 1');
    map.set(4, 'value 4');
    assert.deepEqual(keysOf(map), [3, 1, 4], '2 is forgotten; 1 goes to the back of the line');
    map.set(5, 'value 5');
    assert.deepEqual(keysOf(map), [1, 4, 5], 'then 3, the oldest unread');
    map.set(6, 'value 6');
    assert.deepEqual(keysOf(map), [4, 5, 6], '1 was not read again after its second chance, so it goes now');
  });

  test('when every entry has been read, each is passed over once and the oldest goes', () => {
    const map = filled(3);
    for (const key of [1, 2, 3]) map.get(key);
    map.set(4, 'value 4');
    assert.deepEqual(keysOf(map), [2, 3, 4]);
    map.set(5, 'value 5');
    assert.deepEqual(keysOf(map), [3, 4, 5], 'the marks were cleared on the way round');
  });

  test('peek does not count as a use', () => {
    const map = filled(2);
    assert.equal(map.peek(1), 'value 1');
    map.set(3, 'value 3');
    assert.equal(map.peek(1), undefined);
    assert.deepEqual(keysOf(map), [2, 3]);
  });

  test('setting a key it holds replaces the value, forgets nothing and counts as a use', () => {
    const map = filled(2);
    map.set(1, 'value 1, again');
    assert.equal(map.size, 2);
    assert.equal(map.peek(1), 'value 1, again');
    map.set(3, 'value 3');
    assert.equal(map.peek(1), 'value 1, again', 'the replaced entry got its second chance');
    assert.equal(map.peek(2), undefined);
  });

  test('delete frees a place without forgetting another entry', () => {
    const map = filled(3);
    map.delete(2);
    map.set(4, 'value 4');
    assert.deepEqual(keysOf(map), [1, 3, 4]);
  });

  test('a limit that is not a positive integer is refused', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) assert.throws(() => new RecentlyUsed(limit), RangeError);
  });

  test('random use (seeded): never over the limit, and an entry read since the last time it was passed over is never forgotten while an unread one is held', () => {
    let seed = 20261122;
    const random = (below: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % below;
    };
    const limit = 8;
    const map = new RecentlyUsed<number, number>(limit);
    /** Keys read, or set again, since they were added or last passed over, as the test sees them. */
    const read = new Set<number>();
    for (let step = 0; step < 20_000; step++) {
      const key = random(24);
      if (random(3) === 0) {
        if (map.get(key) !== undefined) read.add(key);
        continue;
      }
      const before = new Set([...map.values()]);
      const wasHeld = before.has(key);
      map.set(key, key);
      assert.ok(map.size <= limit);
      if (wasHeld) {
        read.add(key);
        assert.deepEqual(new Set([...map.values()]), before, 'setting a held key forgets nothing');
        continue;
      }
      const after = new Set([...map.values()]);
      const forgotten = [...before].filter((held) => !after.has(held));
      assert.equal(forgotten.length, before.size === limit ? 1 : 0);
      const gone = forgotten[0];
      if (gone !== undefined) {
        const unreadBefore = [...before].filter((held) => !read.has(held));
        if (unreadBefore.length === 0) {
          read.clear(); // every entry was passed over once and lost its mark
        } else {
          assert.ok(
            !read.has(gone),
            `step ${step}: ${gone} was read, yet forgotten while ${unreadBefore.join(', ')} were not`,
          );
          // Every entry in front of the forgotten one was passed over and lost its mark.
          for (const held of before) {
            if (held === gone) break;
            read.delete(held);
          }
        }
        read.delete(gone);
      }
      read.delete(key); // a new entry starts unread
    }
  });
});
