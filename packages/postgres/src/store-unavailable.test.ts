import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '@agentport/core';
import { describe, expect, it, vi } from 'vitest';
import { createPostgresStores } from './postgres-stores.ts';
import { DATABASE_URL, useStores } from './test-support/database.ts';

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

describe('a database that drops its connections', () => {
  const makeStores = useStores();

  it('lets go of a pooled connection the server ended, and serves the next call on another', async () => {
    const name = `ended_${randomUUID().slice(0, 8)}`;
    const url = new URL(DATABASE_URL);
    url.searchParams.set('application_name', name);
    const stores = await makeStores({ url: url.href });
    await stores.tasks.create({ id: 't1', agentName: 'echo', input: 'hi', metadata: {} });
    // Its step's notification sent too: every connection of the pool idle.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await vi.waitFor(() => expect(stores.pool.idleCount).toBe(stores.pool.totalCount));
    const other = createPostgresStores({ url: DATABASE_URL });
    try {
      // The server ends every idle connection of the pool (a restart, an operator, a proxy).
      await other.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = $1 AND state = 'idle'`,
        [name],
      );
    } finally {
      await other.close();
    }
    // The pool's idle connection errs (an 'error' no one else listens to), and is dropped.
    await vi.waitFor(() => expect(stores.pool.totalCount).toBe(0));
    await expect(stores.tasks.get('t1')).resolves.toMatchObject({ id: 't1' });
  });
});
