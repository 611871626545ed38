import { describeTaskStoreContract } from '@agentport/core/testing';
import { useStores } from './test-support/database.ts';

const makeStores = useStores();

describeTaskStoreContract('createPostgresTaskStore', async ({ now, ttlMs, maxEventsPerTask }) => {
  const stores = await makeStores({ now, ttlMs, maxEventsPerTask });
  return stores.tasks;
});
