import { describe, expect, it, vi } from 'vitest';
import { sleep } from '../abortable.ts';
import { defineAgent } from '../define-agent.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import type { Task } from './task.ts';
import { createTaskRunner } from './task-runner.ts';

/** An agent that yields each group of deltas in one turn, waiting a few milliseconds between groups. */
function burstAgent(groups: string[][], failAfter = false) {
  return defineAgent({
    name: 'bursts',
    async *run() {
      for (const [index, group] of groups.entries()) {
        if (index > 0) await sleep(5);
        for (const delta of group) yield { type: 'text-delta', delta };
      }
      if (failAfter) throw new Error('broke');
    },
  });
}

function recordedUpdates(runner: ReturnType<typeof createTaskRunner>): Task[] {
  const updates: Task[] = [];
  runner.store.subscribe((task) => updates.push(task));
  return updates;
}

describe('task runner progress writes', () => {
  it('schedules one callback for every task with progress due at once, and writes each', async () => {
    const runner = createTaskRunner({ agent: burstAgent([['a'], ['b']]), maxConcurrency: 3 });
    const updates = recordedUpdates(runner);
    const scheduled = vi.spyOn(process, 'nextTick');
    try {
      const tasks = await Promise.all(['x', 'y', 'z'].map((input) => runner.submit(input)));
      await sleep(2);
      expect(scheduled).toHaveBeenCalledTimes(1);
      const written = updates.filter((update) => update.status === 'working' && update.output);
      expect(written.map((update) => [update.id, update.output])).toEqual(
        tasks.map((task) => [task.id, 'a']),
      );
      const done = await Promise.all(tasks.map((task) => runner.wait(task.id)));
      expect(done.map((task) => task.output)).toEqual(['ab', 'ab', 'ab']);
    } finally {
      scheduled.mockRestore();
    }
  });

  it('writes deltas yielded in the same turn once, and the final output with completion', async () => {
    const runner = createTaskRunner({ agent: burstAgent([['a', ' b', ' c', ' d']]) });
    const updates = recordedUpdates(runner);
    const task = await runner.submit('x');
    const done = await runner.wait(task.id);
    expect(done).toMatchObject({ status: 'completed', output: 'a b c d' });
    const progress = updates.filter((update) => update.status === 'working' && update.output);
    expect(progress.length).toBeLessThanOrEqual(1);
    expect(updates.map((update) => update.status)).toEqual([
      'submitted',
      'working',
      ...progress.map(() => 'working'),
      'completed',
    ]);
  });

  it('lets watchers see the output grow when an agent yields across turns', async () => {
    const runner = createTaskRunner({ agent: burstAgent([['a', 'b'], ['c'], ['d', 'e']]) });
    const task = await runner.submit('x');
    const outputs: Array<string | undefined> = [];
    for await (const update of runner.watch(task.id)) outputs.push(update.output);
    expect(outputs).toEqual(expect.arrayContaining(['ab', 'abc', 'abcde']));
    expect(outputs.indexOf('ab')).toBeLessThan(outputs.indexOf('abc'));
  });

  it('keeps the output produced before an agent fails', async () => {
    const runner = createTaskRunner({ agent: burstAgent([['partial', ' out']], true) });
    const task = await runner.submit('x');
    const done = await runner.wait(task.id);
    expect(done).toMatchObject({ status: 'failed', output: 'partial out' });
    expect(done.error?.code).toBe('agent_failure');
  });

  it('fails the task when a progress write fails, with a safe message', async () => {
    const store = createMemoryTaskStore();
    const update = store.update.bind(store);
    store.update = async (id, patch, options) => {
      if (patch.status === undefined && patch.output !== undefined) throw new Error('disk full');
      return update(id, patch, options);
    };
    const runner = createTaskRunner({ agent: burstAgent([['a'], ['b'], ['c']]), store });
    const task = await runner.submit('x');
    const done = await runner.wait(task.id);
    expect(done.status).toBe('failed');
    // The store's failure, not the agent's.
    expect(done.error?.code).toBe('internal_error');
    expect(JSON.stringify(done)).not.toContain('disk full');
  });
});
