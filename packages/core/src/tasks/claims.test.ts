import { describe, expect, it } from 'vitest';
import { defineAgent } from '../define-agent.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import { createTaskRunner } from './task-runner.ts';

/** An agent whose runs wait until released, counting who ran them. */
function waitingAgent() {
  const release: Array<() => void> = [];
  const agent = defineAgent({
    name: 'worker',
    async *run(input) {
      await new Promise<void>((resolve) => release.push(resolve));
      yield { type: 'text-delta', delta: input };
    },
  });
  const releaseAll = () => {
    for (const resolve of release.splice(0)) resolve();
  };
  return { agent, releaseAll };
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('claiming tasks in a shared store', () => {
  it('runs, in a runner with free slots, the tasks a full runner left submitted', async () => {
    const store = createMemoryTaskStore();
    const { agent, releaseAll } = waitingAgent();
    const full = createTaskRunner({ agent, store, maxConcurrency: 1 });
    const ids: string[] = [];
    for (const input of ['a', 'b', 'c']) ids.push((await full.submit(input)).id);
    const working = async () =>
      (await Promise.all(ids.map((id) => store.get(id)))).filter(
        (task) => task?.status === 'working',
      ).length;
    // Alone, the full runner runs one at a time.
    await until(async () => (await working()) === 1);
    const helper = createTaskRunner({ agent, store, maxConcurrency: 4, claimTasks: true });
    await until(async () => (await working()) === 3);
    releaseAll();
    await until(async () =>
      (await Promise.all(ids.map((id) => store.get(id)))).every(
        (task) => task?.status === 'completed',
      ),
    );
    // Each ran once: its output is its input, not twice over.
    expect((await Promise.all(ids.map((id) => store.get(id)))).map((task) => task?.output)).toEqual(
      ['a', 'b', 'c'],
    );
    await Promise.all([full.close(), helper.close()]);
  });

  it('claims nothing without claimTasks, and nothing past its own free slots', async () => {
    const store = createMemoryTaskStore();
    const { agent, releaseAll } = waitingAgent();
    const full = createTaskRunner({ agent, store, maxConcurrency: 1 });
    for (const input of ['a', 'b', 'c', 'd']) await full.submit(input);
    const bystander = createTaskRunner({ agent, store, maxConcurrency: 4, claimIntervalMs: 10 });
    const small = createTaskRunner({
      agent,
      store,
      maxConcurrency: 1,
      claimTasks: true,
      claimIntervalMs: 10,
    });
    const count = async () => (await store.list({ status: 'working' })).tasks.length;
    await until(async () => (await count()) === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await count()).toBe(2);
    releaseAll();
    await Promise.all([full.close(), bystander.close(), small.close()]);
  });

  it('leaves a task just submitted to the runner that submitted it, taking it once it waited a poll', async () => {
    const store = createMemoryTaskStore();
    const { agent, releaseAll } = waitingAgent();
    const full = createTaskRunner({ agent, store, maxConcurrency: 1 });
    await full.submit('a');
    const queued = await full.submit('b');
    const helper = createTaskRunner({
      agent,
      store,
      maxConcurrency: 4,
      claimTasks: true,
      claimIntervalMs: 1_000,
    });
    // The helper's first poll runs at once: 'b' is too new to take.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await store.get(queued.id))?.status).toBe('submitted');
    await until(async () => (await store.get(queued.id))?.status === 'working');
    releaseAll();
    await Promise.all([full.close(), helper.close()]);
  });
});
