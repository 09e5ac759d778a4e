// The HTTP suites whose requests reach what the PostgreSQL package does in SQL of its own — lists, range filters,
// filter operators, nulls, delete behaviour, singletons, batches, declared resources and ids, search, idempotency keys,
// embedding — again on two servers sharing one PostgreSQL, each request to the next server in turn (helpers.ts:
// TEST_STORE=postgres), in one process and so on one throwaway PostgreSQL; skipped, saying why, without PostgreSQL.
// The long run (test/long-run.ts) adds products, permissions, field selection, provider tokens and API keys, whose
// requests read and write records by id as the suites above do (and postgres-processes.test.ts, across processes).
// orders.postgres.test.ts runs the orders (its own process: that suite's hooks are file-wide).

import { againOnSharedPostgres } from './helpers.ts';
import { LONG_RUN } from './long-run.ts';

await againOnSharedPostgres(
  'lists, idempotency keys, declared resources, range filters, filter operators, nulls, delete behaviour, singletons, ' +
    'batches, declared ids, search, embedding' +
    (LONG_RUN ? ', and products, permissions, field selection, provider tokens, API keys' : ''),
  async () => {
    if (LONG_RUN) await import('./products.test.ts');
    await import('./lists.test.ts');
    await import('./idempotency.test.ts');
    if (LONG_RUN) await import('./permissions.test.ts');
    await import('./declared-resources.test.ts');
    if (LONG_RUN) await import('./field-selection.test.ts');
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
    if (LONG_RUN) await import('./provider-tokens.test.ts');
    if (LONG_RUN) await import('./api-keys.test.ts');
  },
);
