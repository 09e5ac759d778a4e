// The SQL statements in-process servers send to PostgreSQL while some work runs, read by
// wrapping node-postgres's Client.prototype.query (every pooled connection's): for tests
// that count a request's round trips, and name them.

import pg from 'pg';
import { DELIVERIES, WEBHOOKS } from '../src/declarations/built-in-webhooks.ts';

/** A statement on the webhook worker's tables (none of the tests' own requests reads them). */
const WEBHOOK_WORKER_TABLES = new RegExp(`"(${WEBHOOKS}|${DELIVERIES})"`);

/**
 * The statements the servers send while `work` runs, but the change feeds' own reads of each commit's events and the
 * webhook worker's reads of its subscriptions and deliveries (a poll a second, docs/webhooks.md: under load one falls
 * inside the work).
 */
export async function statementsOf(work: () => Promise<void>): Promise<string[]> {
  const texts: string[] = [];
  const original = pg.Client.prototype.query;
  const counting = function (this: pg.Client, ...args: unknown[]): unknown {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    // The feeds' listeners read each commit's events, asynchronously and on their own connections.
    const feeds = text.startsWith('SELECT * FROM "__events" WHERE "id" >') || text.startsWith('LISTEN');
    if (!feeds && !WEBHOOK_WORKER_TABLES.test(text)) texts.push(text);
    return (original as (...given: unknown[]) => unknown).apply(this, args);
  };
  pg.Client.prototype.query = counting as typeof pg.Client.prototype.query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = original;
  }
  return texts;
}
