import { describeTaskStoreContract } from '../testing/task-store-contract.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';

describeTaskStoreContract('createMemoryTaskStore', ({ now, ttlMs, maxEventsPerTask }) =>
  createMemoryTaskStore({ now, ttlMs, maxEventsPerTask }),
);
