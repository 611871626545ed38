import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { randomSchema, useStores } from './test-support/database.ts';

const makeStores = useStores();

const newTask = (id: string) => ({ id, agentName: 'echo', input: 'hi', metadata: {} });

/** Counts the statements of steps (not notifications) sent through `pool` while `use` runs. */
async function statementsOf(pool: Pool, use: () => Promise<unknown>): Promise<number> {
  const query = pool.query.bind(pool);
  let count = 0;
  pool.query = ((...args: Parameters<Pool['query']>) => {
    const [config] = args as unknown as [{ name?: string }];
    if (config.name?.endsWith('.notify') !== true) count += 1;
    return query(...args);
  }) as Pool['query'];
  try {
    await use();
  } finally {
    pool.query = query;
  }
  return count;
}

describe('the rows a store wrote last', () => {
  it('lets the steps of a task it runs write without reading the row first', async () => {
    const { tasks, pool } = await makeStores();
    const statements = await statementsOf(pool, async () => {
      await tasks.create(newTask('run'));
      await tasks.update('run', { status: 'working' }, { expectedStatus: 'submitted' });
      await tasks.append('run', [{ type: 'text-delta', delta: 'hel' }]);
      await tasks.update(
        'run',
        { status: 'completed', output: 'hello' },
        { expectedStatus: 'working' },
      );
    });
    // One statement per step: no read before any of them.
    expect(statements).toBe(4);
    expect(await tasks.get('run')).toMatchObject({ status: 'completed', output: 'hello', seq: 4 });
  });

  it("reads the row again when another process stepped the task, keeping that process's change", async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema });
    const b = await makeStores({ schema });
    await a.tasks.create(newTask('shared'));
    await a.tasks.update('shared', { status: 'working' }, { expectedStatus: 'submitted' });
    await b.tasks.append('shared', [{ type: 'text-delta', delta: 'from b ' }]);
    // A's remembered row is behind: its write changes nothing, and it steps from the row read.
    await a.tasks.append('shared', [{ type: 'text-delta', delta: 'from a' }]);
    expect(await b.tasks.get('shared')).toMatchObject({ output: 'from b from a', seq: 4 });
    // A cancel from B: A's step refused by what the database holds, not by its old row.
    await b.tasks.update('shared', { status: 'canceled' }, { expectedStatus: 'working' });
    await expect(
      a.tasks.update('shared', { status: 'completed' }, { expectedStatus: 'working' }),
    ).rejects.toMatchObject({ code: 'task_conflict' });
    expect((await a.tasks.get('shared'))?.status).toBe('canceled');
  });
});
