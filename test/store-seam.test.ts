// The store's door (store/store.ts: Store.serve): the same handlers serve a store whose
// data is elsewhere. Against test/loading-store.ts — every request's first read of
// anything suspends until it is "loaded" on a later turn — the example domain's main
// flows (test/store-flows.ts) answer exactly as with the memory store.

import { LoadingStore } from './loading-store.ts';
import { describeStoreFlows } from './store-flows.ts';

describeStoreFlows('the store seam: a store that loads before it answers serves the same API', false, async () => {
  const store = new LoadingStore();
  return {
    store,
    loads: () => store.loads,
    ordersOf: async (userId) =>
      store.inner.query('orders', { filters: [{ field: 'user_id', value: userId }], sort: [], offset: 0, limit: 10 })
        .total,
  };
});
