// The change feed's HTTP suite (events.test.ts) again on two servers sharing one
// PostgreSQL, each request to the next server in turn (helpers.ts: TEST_STORE=postgres):
// a stream opened on one server carries the writes made through the other. Skipped,
// saying why, without PostgreSQL.

import { againOnSharedPostgres } from './helpers.ts';

await againOnSharedPostgres('the change feed', () => import('./events.test.ts'));
