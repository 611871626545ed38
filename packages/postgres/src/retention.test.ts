import { userMessage } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { randomSchema, useStores } from './test-support/database.ts';

const makeStores = useStores();

describe('retention', () => {
  it('deletes expired tasks and conversations, in one replica at a time', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const schema = randomSchema();
    const stores = await makeStores({
      schema,
      ttlMs: 1_000,
      conversationTtlMs: 1_000,
      now: () => clock.now,
    });
    await stores.tasks.create({ id: 't1', agentName: 'echo', input: 'x', metadata: {} });
    await stores.tasks.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
    await stores.tasks.update(
      't1',
      { status: 'completed', output: 'x' },
      { expectedStatus: 'working' },
    );
    await stores.conversations.append('c1', { agentName: 'echo', messages: [userMessage('hi')] });
    clock.now += 5_000;
    const retention = stores.startRetention({ intervalMs: 3_600_000 });
    const count = async (table: string) =>
      Number((await stores.pool.query(`SELECT count(*) AS n FROM "${schema}".${table}`)).rows[0].n);
    // Another replica holding the lock: this run skips.
    const other = await stores.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `agentport.retention.${schema}`,
      ]);
      expect(await retention.runOnce()).toBe(false);
      expect(await count('tasks')).toBe(1);
      expect(await count('conversations')).toBe(1);
    } finally {
      await other.query('COMMIT');
      other.release();
    }
    expect(await retention.runOnce()).toBe(true);
    expect(await count('tasks')).toBe(0);
    expect(await count('task_events')).toBe(0);
    expect(await count('conversations')).toBe(0);
    retention.stop();
  });
});
