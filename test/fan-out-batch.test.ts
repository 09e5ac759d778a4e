// A fan-out's bytes (src/events/fan-out-batch.ts): a batch that streams show whole is
// one buffer written to each of them, so a thousand streams, stalled ones included,
// share it instead of holding a copy each; a stream shown part of it gets its own.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventBlock } from '../src/events/event-json.ts';
import { FanOutBatch } from '../src/events/fan-out-batch.ts';
import type { FeedEvent } from '../src/feed/feed-event.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';

const table = exampleResources();

function productEvent(id: number): FeedEvent {
  const at = '2026-11-27T12:00:00.000Z';
  return {
    id,
    type: 'created',
    collection: 'products',
    recordId: id,
    under: [],
    owner: undefined,
    at,
    record: { id, name: `Product ${id}`, price: 9.5, created_at: at, updated_at: at },
  };
}

describe('the bytes of a fan-out', () => {
  const events = [productEvent(1), productEvent(2), productEvent(3)];

  test('every stream shown the whole batch in one language is written the same buffer', () => {
    const batch = new FanOutBatch(events, table, true, '');
    const first = batch.bytes(events, 'en');
    assert.equal(batch.bytes([...events], 'en'), first, 'the same Buffer object, not an equal copy');
    assert.equal(first.toString(), events.map((event) => eventBlock(event, table, 'en', true, '').toString()).join(''));
    assert.match(first.toString(), /^id: 1\nevent: created\ndata: \{"id":1,"type":"created","collection":"products",/);
    const portuguese = batch.bytes(events, 'pt');
    assert.notEqual(portuguese, first);
    assert.match(portuguese.toString(), /"collection":"produtos"/);
    assert.equal(batch.bytes(events, 'pt'), portuguese);
  });

  test('a stream shown part of it gets exactly its events', () => {
    const batch = new FanOutBatch(events, table, true, '');
    assert.equal(
      batch.bytes([events[0] as FeedEvent, events[2] as FeedEvent], 'en').toString(),
      `${eventBlock(events[0] as FeedEvent, table, 'en', true, '')}` +
        `${eventBlock(events[2] as FeedEvent, table, 'en', true, '')}`,
    );
    assert.equal(batch.bytes([], 'en').length, 0);
  });

  test('with caches off (CACHES=false) the same bytes, each block made afresh', () => {
    const kept = new FanOutBatch(events, table, true, '').bytes(events, 'pt');
    const afresh = new FanOutBatch(events, table, false, '').bytes(events, 'pt');
    assert.equal(afresh.toString(), kept.toString());
    const event = events[1] as FeedEvent;
    assert.notEqual(
      eventBlock(event, table, 'en', false, ''),
      eventBlock(event, table, 'en', false, ''),
      'a new Buffer each time',
    );
    assert.equal(eventBlock(event, table, 'en', true, ''), eventBlock(event, table, 'en', true, ''), 'the kept Buffer');
  });
});
