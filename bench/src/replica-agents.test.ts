import { type Agent, createTaskRunner } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { createReplicaAgents, takeAbortTime, wallClock } from './replica-agents.ts';

const agentNamed = (name: string) =>
  createReplicaAgents().find((agent) => agent.name === name) as Agent;
const stamp = agentNamed('stamp');
const hold = agentNamed('hold');

describe('the cross-replica agents', () => {
  it('stamp yields one delta a tick, each the wall clock of its yield', async () => {
    const stamps: number[] = [];
    for await (const event of stamp.stream('3 every 5ms')) {
      if (event.type === 'text-delta') stamps.push(Number(event.delta) - wallClock());
    }
    expect(stamps).toHaveLength(3);
    // Read within the loop's turn: the stamp is a moment ago, never later.
    for (const behind of stamps) expect(behind).toBeLessThanOrEqual(0);
    for (const behind of stamps) expect(behind).toBeGreaterThan(-50);
  });

  it('hold runs until its task is canceled and records when its signal aborted, once', async () => {
    const runner = createTaskRunner({ agent: hold });
    try {
      const task = await runner.submit('hold');
      for await (const { event } of runner.follow(task.id)) {
        if (event.type === 'text-delta') break;
      }
      expect(takeAbortTime(task.id)).toBeUndefined();
      const sent = wallClock();
      expect((await runner.cancel(task.id)).status).toBe('canceled');
      const aborted = takeAbortTime(task.id) as number;
      expect(aborted).toBeGreaterThanOrEqual(sent);
      expect(aborted).toBeLessThanOrEqual(wallClock());
      expect(takeAbortTime(task.id)).toBeUndefined();
    } finally {
      await runner.close();
    }
  });
});
