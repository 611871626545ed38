import { describe, expect, it, vi } from 'vitest';
import { sleep } from '../abortable.ts';
import type { Agent } from '../agent.ts';
import { defineAgent } from '../define-agent.ts';
import { defineTool } from '../tool.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import type { Task } from './task.ts';
import type { TaskEvent } from './task-event.ts';
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

/** Every change the runner's store reports: the task and how many events the step appended. */
function recordedSteps(runner: ReturnType<typeof createTaskRunner>): Array<[Task, TaskEvent[]]> {
  const steps: Array<[Task, TaskEvent[]]> = [];
  runner.store.subscribe((task, events) => steps.push([task, [...events]]));
  return steps;
}

/** The types of a task's logged events, in order (a status update as `status:<status>`). */
async function loggedTypes(runner: ReturnType<typeof createTaskRunner>, id: string) {
  return (await runner.events(id)).map(({ event }) =>
    event.type === 'status-update' ? `status:${event.status}` : event.type,
  );
}

describe('task runner progress log', () => {
  it('schedules one callback for every task with progress due at once, and appends each', async () => {
    const runner = createTaskRunner({ agent: burstAgent([['a'], ['b']]), maxConcurrency: 3 });
    const steps = recordedSteps(runner);
    const scheduled = vi.spyOn(process, 'nextTick');
    try {
      const tasks = await Promise.all(['x', 'y', 'z'].map((input) => runner.submit(input)));
      await sleep(2);
      expect(scheduled).toHaveBeenCalledTimes(1);
      const appended = steps.filter(([task]) => task.status === 'working' && task.output);
      expect(appended.map(([task, events]) => [task.id, task.output, events])).toEqual(
        tasks.map((task) => [task.id, 'a', [{ type: 'text-delta', delta: 'a' }]]),
      );
      const done = await Promise.all(tasks.map((task) => runner.wait(task.id)));
      expect(done.map((task) => task.output)).toEqual(['ab', 'ab', 'ab']);
    } finally {
      scheduled.mockRestore();
    }
  });

  it('logs deltas yielded in the turn the run ends in with the update that ends it', async () => {
    const runner = createTaskRunner({ agent: burstAgent([['a', ' b', ' c', ' d']]) });
    const steps = recordedSteps(runner);
    const done = await runner.submitAndWait('x');
    expect(done).toMatchObject({ status: 'completed', output: 'a b c d', seq: 7 });
    // Two steps: created started (a slot was free), ended (with the four deltas).
    expect(steps.map(([task, events]) => [task.status, events.length])).toEqual([
      ['working', 2],
      ['completed', 5],
    ]);
    expect(await loggedTypes(runner, done.id)).toEqual([
      'status:submitted',
      'status:working',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'status:completed',
    ]);
    // The output is what the deltas made: the completion changes nothing of it.
    const last = (await runner.events(done.id, { after: 6 }))[0];
    expect(last?.event).toEqual({
      type: 'status-update',
      status: 'completed',
      timestamp: done.updatedAt,
    });
  });

  it('logs the final output with the completion when it is not the text the deltas made', async () => {
    const agent = defineAgent({
      name: 'summarizer',
      async *run() {
        yield { type: 'text-delta', delta: 'thinking...' };
        return 'the answer';
      },
    });
    const runner = createTaskRunner({ agent });
    const done = await runner.submitAndWait('x');
    expect(done.output).toBe('the answer');
    const entries = await runner.events(done.id, { after: 2 });
    expect(entries.map((entry) => entry.event)).toEqual([
      { type: 'text-delta', delta: 'thinking...' },
      {
        type: 'status-update',
        status: 'completed',
        output: 'the answer',
        timestamp: done.updatedAt,
      },
    ]);
  });

  it('logs tool calls, results and handoffs as the agent emits them, in order', async () => {
    const double = defineTool({
      name: 'double',
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
      execute: ({ n }: { n: number }) => n * 2,
    });
    const helper = defineAgent({
      name: 'helper',
      async *run() {
        yield { type: 'text-delta', delta: 'helped' };
      },
    });
    const agent = defineAgent({
      name: 'worker',
      tools: [double],
      handoffs: [helper],
      async *run(_input, context) {
        const doubled = yield* context.callTool(double, { n: 21 });
        yield { type: 'text-delta', delta: `${doubled} ` };
        await sleep(1);
        return yield* context.handoff(helper, 'go');
      },
    });
    const runner = createTaskRunner({ agent });
    const done = await runner.submitAndWait('x');
    expect(done).toMatchObject({ status: 'completed', output: 'helped' });
    const events = (await runner.events(done.id)).map((entry) => entry.event);
    expect(events.slice(2, -1)).toEqual([
      { type: 'tool-call', id: expect.any(String), name: 'double', input: { n: 21 } },
      { type: 'tool-result', id: expect.any(String), name: 'double', output: 42 },
      { type: 'text-delta', delta: '42 ' },
      { type: 'handoff', from: 'worker', to: 'helper' },
      { type: 'text-delta', delta: 'helped' },
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

  it('keeps the output produced before an agent fails, and its deltas in the log', async () => {
    const runner = createTaskRunner({ agent: burstAgent([['partial', ' out']], true) });
    const done = await runner.submitAndWait('x');
    expect(done).toMatchObject({ status: 'failed', output: 'partial out' });
    expect(done.error?.code).toBe('agent_failure');
    expect(await loggedTypes(runner, done.id)).toEqual([
      'status:submitted',
      'status:working',
      'text-delta',
      'text-delta',
      'status:failed',
    ]);
  });

  it("fails a task whose hand-written agent yields an event the log cannot keep, as the agent's doing", async () => {
    const agent: Agent = {
      name: 'sloppy',
      tools: [],
      handoffs: [],
      invoke: () => Promise.reject(new Error('not used')),
      async *stream() {
        yield { type: 'text-delta', delta: 'fine ' };
        yield { type: 'text-delta', delta: 7 } as never;
        yield { type: 'done', output: 'never' };
      },
    };
    const runner = createTaskRunner({ agent });
    const done = await runner.submitAndWait('x');
    expect(done).toMatchObject({
      status: 'failed',
      output: 'fine ',
      error: { code: 'agent_failure', message: "Agent 'sloppy' failed" },
    });
  });

  it('fails the task when an append fails, with a safe message', async () => {
    const store = createMemoryTaskStore();
    store.append = async () => {
      throw new Error('disk full');
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
