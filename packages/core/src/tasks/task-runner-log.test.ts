import { describe, expect, it } from 'vitest';
import { sleep } from '../abortable.ts';
import { createEchoAgent } from '../agents/echo.ts';
import { defineAgent } from '../define-agent.ts';
import type { Message } from '../message.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import type { TaskLogEntry } from './task-event.ts';
import { createTaskRunner } from './task-runner.ts';
import type { TaskStore } from './task-store.ts';

/** An agent that yields `count` deltas a few milliseconds apart. */
function trickle(count: number) {
  return defineAgent({
    name: 'trickle',
    async *run() {
      for (let index = 1; index <= count; index += 1) {
        await sleep(2);
        yield { type: 'text-delta', delta: `${index} ` };
      }
    },
  });
}

function kinds(entries: readonly TaskLogEntry[]): string[] {
  return entries.map(({ event }) =>
    event.type === 'status-update' ? `status:${event.status}` : event.type,
  );
}

describe('createTaskRunner and the event log', () => {
  it('creates tasks in the context and with the history it is given, or in a new context of their own', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const message: Message = {
      messageId: 'm1',
      role: 'user',
      parts: [{ kind: 'text', text: 'hello there' }],
    };
    const task = await runner.submitAndWait('hello there', {
      contextId: 'conversation-1',
      messages: [message],
    });
    expect(task).toMatchObject({
      status: 'completed',
      contextId: 'conversation-1',
      messages: [message],
      output: 'hello there',
    });
    const fresh = await runner.submit('x');
    expect(fresh.contextId).toBe(fresh.id);
    await expect(runner.submit('x', { contextId: '' })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'contextId',
    });
  });

  it('follows a task live from its start to its end, each event once, in order', async () => {
    const runner = createTaskRunner({ agent: trickle(5) });
    const task = await runner.submit('go');
    const entries: TaskLogEntry[] = [];
    for await (const entry of runner.follow(task.id)) entries.push(entry);
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(kinds(entries)).toEqual([
      'status:submitted',
      'status:working',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'status:completed',
    ]);
    expect((await runner.get(task.id)).seq).toBe(8);
  });

  it('follows a task it has just created started from its seq without reading the store', async () => {
    const memory = createMemoryTaskStore();
    let reads = 0;
    const store: TaskStore = {
      ...memory,
      get: (id) => {
        reads += 1;
        return memory.get(id);
      },
      events: (id, options) => {
        reads += 1;
        return memory.events(id, options);
      },
    };
    const runner = createTaskRunner({ agent: trickle(3), store });
    const created = await runner.submit('go', { startWorking: true });
    const entries: TaskLogEntry[] = [];
    for await (const entry of runner.follow(created.id, { task: created, after: created.seq })) {
      entries.push(entry);
    }
    expect(kinds(entries)).toEqual(['text-delta', 'text-delta', 'text-delta', 'status:completed']);
    expect(reads).toBe(0);
    // Created queued behind another run, alike: its start is heard too.
    const queue = createTaskRunner({ agent: trickle(2), store, maxConcurrency: 1 });
    const running = await queue.submit('go', { startWorking: true });
    const queued = await queue.submit('go', { startWorking: true });
    expect(queued.status).toBe('submitted');
    const all: TaskLogEntry[] = [];
    for await (const entry of queue.follow(queued.id, { task: queued, after: queued.seq })) {
      all.push(entry);
    }
    expect(kinds(all)).toEqual(['status:working', 'text-delta', 'text-delta', 'status:completed']);
    expect(reads).toBe(0);
    await queue.wait(running.id);
    // A change heard before the follow listened is read: nothing is missed.
    const second = await runner.submit('go', { startWorking: true });
    while ((await memory.get(second.id))?.seq === second.seq) await sleep(1);
    const late: TaskLogEntry[] = [];
    for await (const entry of runner.follow(second.id, { task: second, after: second.seq })) {
      late.push(entry);
    }
    expect(kinds(late)).toEqual(['text-delta', 'text-delta', 'text-delta', 'status:completed']);
    expect(reads).toBeGreaterThan(0);
  });

  it('resumes a dropped follower after the last event it got: nothing missed, nothing twice', async () => {
    const runner = createTaskRunner({ agent: trickle(6) });
    const task = await runner.submit('go');
    const first: TaskLogEntry[] = [];
    const controller = new AbortController();
    for await (const entry of runner.follow(task.id, { signal: controller.signal })) {
      first.push(entry);
      if (entry.seq === 4) controller.abort();
    }
    expect(first.at(-1)?.seq).toBe(4);
    await sleep(5);
    const rest: TaskLogEntry[] = [];
    for await (const entry of runner.follow(task.id, { after: 4 })) rest.push(entry);
    expect([...first, ...rest].map((entry) => entry.seq)).toEqual(
      Array.from({ length: 9 }, (_, index) => index + 1),
    );
    expect(rest.at(-1)?.event).toMatchObject({ type: 'status-update', status: 'completed' });
    await expect(runner.events(task.id, { after: 10 })).rejects.toMatchObject({
      code: 'events_ahead',
    });
  });

  it("treats another agent's task in a shared store as not found, for its log too", async () => {
    const store = createMemoryTaskStore();
    const echo = createTaskRunner({ agent: createEchoAgent(), store });
    const other = createTaskRunner({ agent: createEchoAgent('other'), store });
    const task = await echo.submitAndWait('x');
    await expect(other.events(task.id)).rejects.toMatchObject({ code: 'task_not_found' });
    const following = other.follow(task.id)[Symbol.asyncIterator]();
    await expect(following.next()).rejects.toMatchObject({ code: 'task_not_found' });
    await expect(echo.events(task.id)).resolves.toHaveLength(4);
  });

  it('ends its followers when it closes, having logged the cancel of its own tasks', async () => {
    const runner = createTaskRunner({ agent: trickle(1_000) });
    const task = await runner.submit('go');
    const followed = (async () => {
      const entries: TaskLogEntry[] = [];
      for await (const entry of runner.follow(task.id)) entries.push(entry);
      return entries;
    })();
    await sleep(10);
    await runner.close();
    const entries = await followed;
    expect(entries.at(-1)?.event).toMatchObject({ type: 'status-update', status: 'canceled' });
    // Once closed, a follower reads what is there and ends.
    const late: TaskLogEntry[] = [];
    for await (const entry of runner.follow(task.id, { after: 1 })) late.push(entry);
    expect(late.at(-1)?.event).toMatchObject({ status: 'canceled' });
  });

  it('cancels a task waiting for input, and refuses to cancel a rejected one', async () => {
    const store = createMemoryTaskStore();
    const runner = createTaskRunner({ agent: createEchoAgent(), store });
    await store.create({ id: 'asking', agentName: 'echo', input: 'x', metadata: {} });
    await store.update('asking', { status: 'working' }, { expectedStatus: 'submitted' });
    await store.update('asking', { status: 'input-required' }, { expectedStatus: 'working' });
    await expect(runner.cancel('asking')).resolves.toMatchObject({ status: 'canceled' });
    await store.create({ id: 'declined', agentName: 'echo', input: 'x', metadata: {} });
    await store.update('declined', { status: 'rejected' }, { expectedStatus: 'submitted' });
    await expect(runner.cancel('declined')).rejects.toMatchObject({
      code: 'task_not_cancelable',
      taskStatus: 'rejected',
    });
  });
});
