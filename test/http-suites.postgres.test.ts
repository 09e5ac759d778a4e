// The HTTP suites whose requests reach what the PostgreSQL package does in SQL of its own — lists, range filters,
// filter operators, nulls, delete behaviour, singletons, batches, declared resources and ids, search, idempotency keys,
// embedding — again on two servers sharing one PostgreSQL, each request to the next server in turn (helpers.ts:
// TEST_STORE=postgres), in one process and so on one throwaway PostgreSQL; skipped, saying why, without PostgreSQL.
// The long run (test/long-run.ts) adds products, permissions, field selection, provider tokens and API keys, whose
// requests read and write records by id as the suites above do (and postgres-processes.test.ts, across processes).
// Each file is a suite of its own (file-suites.ts), as in npm test's groups. orders.postgres.test.ts runs the orders,
// in a process of its own beside this one.

import { fileSuites } from './file-suites.ts';
import { againOnSharedPostgres } from './helpers.ts';
import { LONG_RUN } from './long-run.ts';

/** Each suite: its file's name, its import, and whether only the long run runs it. */
const SUITES: readonly [string, () => Promise<unknown>, boolean][] = [
  ['products', () => import('./products.test.ts'), true],
  ['lists', () => import('./lists.test.ts'), false],
  ['idempotency', () => import('./idempotency.test.ts'), false],
  ['permissions', () => import('./permissions.test.ts'), true],
  ['declared-resources', () => import('./declared-resources.test.ts'), false],
  ['field-selection', () => import('./field-selection.test.ts'), true],
  ['range-filters', () => import('./range-filters.test.ts'), false],
  ['list-operators', () => import('./list-operators.test.ts'), false],
  ['list-operators-property', () => import('./list-operators-property.test.ts'), false],
  ['nullable', () => import('./nullable.test.ts'), false],
  ['delete-behaviour', () => import('./delete-behaviour.test.ts'), false],
  ['delete-order', () => import('./delete-order.test.ts'), false],
  ['delete-permissions', () => import('./delete-permissions.test.ts'), false],
  ['list-operator-edges', () => import('./list-operator-edges.test.ts'), false],
  ['nullable-unchanged', () => import('./nullable-unchanged.test.ts'), false],
  ['batches', () => import('./batches.test.ts'), false],
  ['singletons', () => import('./singletons.test.ts'), false],
  ['declared-ids', () => import('./declared-ids.test.ts'), false],
  ['search', () => import('./search.test.ts'), false],
  ['embed', () => import('./embed.test.ts'), false],
  ['provider-tokens', () => import('./provider-tokens.test.ts'), true],
  ['api-keys', () => import('./api-keys.test.ts'), true],
];

await againOnSharedPostgres(
  'lists, idempotency keys, declared resources, range filters, filter operators, nulls, delete behaviour, singletons, ' +
    'batches, declared ids, search, embedding' +
    (LONG_RUN ? ', and products, permissions, field selection, provider tokens, API keys' : ''),
  async () => {
    fileSuites(SUITES.filter(([, , longRunOnly]) => !longRunOnly || LONG_RUN).map(([name, load]) => [name, load]));
  },
);
