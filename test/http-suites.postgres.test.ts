// The HTTP suites of products, lists, idempotency keys, permissions, declared resources, field
// selection, range filters, filter operators, nulls, delete behaviour, singletons, batches, declared ids, search,
// embedding, provider tokens and API keys again, on two servers sharing one PostgreSQL, each request to the next
// server in turn (helpers.ts: TEST_STORE=postgres), in one process and so on one throwaway PostgreSQL;
// skipped, saying why, without PostgreSQL. orders.postgres.test.ts runs the orders (its
// own process: that suite's hooks are file-wide).

import { againOnSharedPostgres } from './helpers.ts';

await againOnSharedPostgres(
  'products, lists, idempotency keys, permissions, declared resources, field selection, range filters, filter operators, nulls, ' +
    'delete behaviour, singletons, batches, declared ids, ' +
    'search, embedding, ' +
    'provider tokens, API keys',
  async () => {
    await import('./products.test.ts');
    await import('./lists.test.ts');
    await import('./idempotency.test.ts');
    await import('./permissions.test.ts');
    await import('./declared-resources.test.ts');
    await import('./field-selection.test.ts');
    await import('./range-filters.test.ts');
    await import('./list-operators.test.ts');
    await import('./list-operators-property.test.ts');
    await import('./nullable.test.ts');
    await import('./delete-behaviour.test.ts');
    await import('./delete-order.test.ts');
    await import('./delete-permissions.test.ts');
    await import('./list-operator-edges.test.ts');
    await import('./nullable-unchanged.test.ts');
    await import('./batches.test.ts');
    await import('./singletons.test.ts');
    await import('./declared-ids.test.ts');
    await import('./search.test.ts');
    await import('./embed.test.ts');
    await import('./provider-tokens.test.ts');
    await import('./api-keys.test.ts');
  },
);
