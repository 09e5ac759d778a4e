// test/orders.test.ts again, on two servers sharing one PostgreSQL, each request to the next
// server in turn (helpers.ts: TEST_STORE=postgres); skipped, saying why, without PostgreSQL.

import { againOnSharedPostgres } from './helpers.ts';

await againOnSharedPostgres('orders', () => import('./orders.test.ts'));
