// test/orders.test.ts again, on two servers sharing one PostgreSQL, each request to the next
// server in turn (helpers.ts: TEST_STORE=postgres); skipped, saying why, without PostgreSQL.
// In the long run only (test/long-run.ts): the default run keeps the orders' hook, transitions
// and cascade on PostgreSQL in postgres-store, postgres-processes and postgres-schema.test.ts.

import { test } from 'node:test';
import { LONG_RUN } from './long-run.ts';

if (LONG_RUN) {
  // Loaded here: the default run's skip needs neither the helpers nor the server's modules.
  const { againOnSharedPostgres } = await import('./helpers.ts');
  await againOnSharedPostgres('orders', () => import('./orders.test.ts'));
} else test('orders on two servers sharing PostgreSQL', { skip: 'the long run only: SUITE=long npm test' }, () => {});
