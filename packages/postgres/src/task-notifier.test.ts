import type { Pool } from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { randomSchema, useStores } from './test-support/database.ts';

const makeStores = useStores();

/** Counts the notification statements sent through `pool`. */
function countNotifications(pool: Pool): () => number {
  const query = pool.query.bind(pool);
  let count = 0;
  pool.query = ((...args: Parameters<Pool['query']>) => {
    const [config] = args as unknown as [{ name?: string }];
    if (config.name?.endsWith('.notify') === true) count += 1;
    return query(...args);
  }) as Pool['query'];
  return () => count;
}

describe('the notifications of committed steps', () => {
  it('reach another process for every step, a burst of them in a few statements', async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema });
    const b = await makeStores({ schema });
    const heard = new Map<string, number>();
    b.tasks.subscribe((task) => heard.set(task.id, task.seq));
    await vi.waitFor(async () => expect(await b.tasks.feedReady()).toBe(true));
    const notifications = countNotifications(a.pool);
    const ids = Array.from({ length: 60 }, (_, index) => `t${index}`);
    await Promise.all(
      ids.map((id) => a.tasks.create({ id, agentName: 'echo', input: 'hi', metadata: {} })),
    );
    await vi.waitFor(() => expect(heard.size).toBe(60));
    // Steps committed side by side share the statements that notify of them.
    expect(notifications()).toBeLessThan(60);
    // The steps of one task are heard in their order, up to the last.
    await a.tasks.update('t0', { status: 'working' }, { expectedStatus: 'submitted' });
    for (const delta of ['a', 'b', 'c']) {
      await a.tasks.append('t0', [{ type: 'text-delta', delta }]);
    }
    await vi.waitFor(() => expect(heard.get('t0')).toBe(5));
    expect((await b.tasks.get('t0'))?.output).toBe('abc');
  });

  it('notifies a step made alone in its own statement, with nothing sent after it', async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema });
    const b = await makeStores({ schema });
    const heard: number[] = [];
    b.tasks.subscribe((task) => heard.push(task.seq));
    await vi.waitFor(async () => expect(await b.tasks.feedReady()).toBe(true));
    const notifications = countNotifications(a.pool);
    await a.tasks.create({ id: 'alone', agentName: 'echo', input: 'hi', metadata: {} });
    await a.tasks.update('alone', { status: 'working' }, { expectedStatus: 'submitted' });
    await vi.waitFor(() => expect(heard.at(-1)).toBe(2));
    expect(notifications()).toBe(0);
  });
});
