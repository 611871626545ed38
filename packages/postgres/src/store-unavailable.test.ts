import { StoreUnavailableError } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { createPostgresStores } from './postgres-stores.ts';

// Port 9 (discard) on loopback: nothing listens there on the project's machines.
const NOWHERE = 'postgres://postgres@127.0.0.1:9/test';

describe('a database that cannot be reached', () => {
  it('makes every call reject with StoreUnavailableError, and the process keeps running', async () => {
    const stores = createPostgresStores({ url: NOWHERE });
    const stopped = () => undefined;
    stores.tasks.subscribe(stopped);
    try {
      const calls = [
        stores.migrate(),
        stores.tasks.get('t1'),
        stores.tasks.create({ id: 't1', agentName: 'echo', input: 'hi', metadata: {} }),
        stores.tasks.update('t1', { status: 'working' }, { expectedStatus: 'submitted' }),
        stores.tasks.events('t1'),
        stores.tasks.list(),
        stores.tasks.deleteExpired(),
        stores.conversations.get('c1'),
        stores.conversations.append('c1', { agentName: 'echo', messages: [] }),
      ];
      for (const call of calls) {
        const error = await call.then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(StoreUnavailableError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: 'store_unavailable', status: 503 });
        // The driver's words stay in the cause, out of what a caller is told.
        expect((error as Error).message).not.toContain('127.0.0.1');
      }
      await expect(stores.ready()).resolves.toBe(false);
    } finally {
      await stores.close();
    }
  });
});
