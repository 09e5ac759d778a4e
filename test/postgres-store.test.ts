// The PostgreSQL store (packages/postgres, CONTRACT §12) serving the example domain's
// main flows over HTTP (test/store-flows.ts), on a throwaway PostgreSQL
// (test/postgres-cluster.ts); skipped, saying why, where PostgreSQL is not installed.

import { after } from 'node:test';
import pg from 'pg';
import { HttpError } from '../src/http/errors.js';
import { exampleResources } from '../src/resources/example-domain.js';
import { NeedData } from '../src/store/store.js';
import { openPostgresStore } from '../packages/postgres/src/open.js';
import type { CoreKit } from '../packages/postgres/src/postgres-store.js';
import type { PostgresCluster } from './postgres-cluster.js';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.js';
import { describeStoreFlows } from './store-flows.js';

const KIT: CoreKit = {
  needData: (fetch) => new NeedData(fetch),
  unavailable: (detail) => new HttpError('not_ready', detail, { headers: { 'Retry-After': '1' } }),
};

let cluster: PostgresCluster | undefined;
after(() => cluster?.stop());

describeStoreFlows('the PostgreSQL store serves the same API', POSTGRES_SKIP, async () => {
  cluster = await startCluster();
  const url = cluster.url(await cluster.createDatabase());
  const opened = await openPostgresStore({ url, resources: exampleResources(), kit: KIT });
  if (opened.store === undefined) throw new Error(`the schema was refused: ${JSON.stringify(opened.problems)}`);
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  return {
    store: opened.store,
    ordersOf: async (userId) => Number((await probe.query('SELECT count(*) AS n FROM orders WHERE user_id = $1', [userId])).rows[0].n),
    close: async () => {
      await probe.end();
    },
  };
});
