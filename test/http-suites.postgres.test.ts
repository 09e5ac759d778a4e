// The HTTP suites of products, lists, idempotency keys, permissions, declared resources, field
// selection, range filters, search and embedding again, on two servers sharing one PostgreSQL, each request to the next server in turn
// (helpers.ts: TEST_STORE=postgres), in one process and so on one throwaway PostgreSQL;
// skipped, saying why, without PostgreSQL. orders.postgres.test.ts runs the orders (its
// own process: that suite's hooks are file-wide).

import { againOnSharedPostgres } from './helpers.js';

await againOnSharedPostgres('products, lists, idempotency keys, permissions, declared resources, field selection, range filters, search, embedding', async () => {
  await import('./products.test.js');
  await import('./lists.test.js');
  await import('./idempotency.test.js');
  await import('./permissions.test.js');
  await import('./declared-resources.test.js');
  await import('./field-selection.test.js');
  await import('./range-filters.test.js');
  await import('./search.test.js');
  await import('./embed.test.js');
});
