import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createMemoryTaskStore } from './memory-task-store.ts';
import type { Task } from './task.ts';
import type { TaskEvent } from './task-event.ts';
import type { TaskPatch, TaskStore } from './task-store.ts';

function newTask(id: string, agentName = 'echo') {
  return { id, agentName, input: `input ${id}`, metadata: { id } };
}

async function finish(store: TaskStore, id: string): Promise<void> {
  await store.update(id, { status: 'working' }, { expectedStatus: 'submitted' });
  await store.update(id, { status: 'completed', output: 'ok' }, { expectedStatus: 'working' });
}

describe('createMemoryTaskStore', () => {
  it('creates a task in submitted with timestamps and gets it back', async () => {
    const store = createMemoryTaskStore({ now: () => Date.UTC(2026, 0, 1) });
    const task = await store.create(newTask('t1'));
    expect(task).toEqual({
      id: 't1',
      contextId: expect.any(String),
      agentName: 'echo',
      status: 'submitted',
      input: 'input t1',
      messages: [],
      artifacts: [],
      metadata: { id: 't1' },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      seq: 1,
    });
    await expect(store.get('t1')).resolves.toEqual(task);
    await expect(store.get('missing')).resolves.toBeUndefined();
  });

  it('hands out frozen tasks so callers cannot change stored state', async () => {
    const store = createMemoryTaskStore();
    const task = await store.create(newTask('t1'));
    expect(Object.isFrozen(task)).toBe(true);
    expect(Object.isFrozen(task.metadata)).toBe(true);
    // Its own copy: the caller's object can change afterwards without changing the task.
    const given = { trace: 'a' };
    const copied = await store.create({ ...newTask('t2'), metadata: given });
    given.trace = 'b';
    expect(copied.metadata).toEqual({ trace: 'a' });
    // Tasks without metadata share one frozen empty object (one object less kept per task).
    const bare = await store.create({ ...newTask('t3'), metadata: {} });
    const other = await store.create({ ...newTask('t4'), metadata: {} });
    expect(bare.metadata).toEqual({});
    expect(Object.isFrozen(bare.metadata)).toBe(true);
    expect(bare.metadata).toBe(other.metadata);
  });

  it('keeps none of the tasks it hands out: a stored task is one object of its own', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const store = createMemoryTaskStore();
    const handedOut: WeakRef<Task>[] = [];
    const failure = { status: 'failed', error: { code: 'x', message: 'y' } } as const;
    await (async () => {
      handedOut.push(new WeakRef(await store.create(newTask('t1'))));
      const working = await store.update(
        't1',
        { status: 'working' },
        { expectedStatus: 'submitted' },
      );
      handedOut.push(new WeakRef(working));
      handedOut.push(new WeakRef(await store.update('t1', failure, { expectedStatus: 'working' })));
      handedOut.push(new WeakRef((await store.get('t1')) as Task));
    })();
    // A WeakRef holds its target until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(handedOut.every((ref) => ref.deref() === undefined)).toBe(true);
    const kept = await store.get('t1');
    expect(kept).toMatchObject(failure);
    expect(Object.isFrozen(kept)).toBe(true);
    expect(kept).not.toHaveProperty('output');
  });

  it('refuses an output that is not a string, or an error without string code and message, and evicts nothing for it', async () => {
    const store = createMemoryTaskStore();
    await store.create(newTask('kept'));
    await finish(store, 'kept');
    await store.create(newTask('t1'));
    await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
    const patches = [
      { status: 'completed', output: 42 },
      { status: 'failed', error: { code: 7, message: 'x' } },
      { status: 'failed', error: 'boom' },
    ] as unknown as TaskPatch[];
    for (const patch of patches) {
      await expect(store.update('t1', patch, { expectedStatus: 'working' })).rejects.toThrow(
        TypeError,
      );
    }
    expect(await store.get('t1')).toMatchObject({ status: 'working' });
    expect((await store.list()).tasks.map((task) => task.id)).toEqual(['t1', 'kept']);
  });

  it('gives no cursor when the last page is exactly full', async () => {
    const store = createMemoryTaskStore();
    await store.create(newTask('t1'));
    await store.create(newTask('t2'));
    expect((await store.list({ limit: 2 })).nextCursor).toBeUndefined();
  });

  it('deletes finished tasks whose TTL ran out, never running ones', async () => {
    let clock = 0;
    const store = createMemoryTaskStore({ ttlMs: 1_000, now: () => clock });
    await store.create(newTask('done'));
    await store.create(newTask('running'));
    await finish(store, 'done');
    await store.update('running', { status: 'working' }, { expectedStatus: 'submitted' });
    clock = 999;
    await expect(store.deleteExpired()).resolves.toBe(0);
    clock = 5_000;
    await expect(store.deleteExpired()).resolves.toBe(1);
    await expect(store.get('done')).resolves.toBeUndefined();
    await expect(store.get('running')).resolves.toMatchObject({ status: 'working' });
  });

  it('sweeps a task of a shorter retention from the middle of the finished ones, queue whole', async () => {
    let clock = 0;
    const store = createMemoryTaskStore({ ttlMs: 1_000, maxTasks: 3, now: () => clock });
    await store.create(newTask('first'));
    await store.create({ ...newTask('short'), retainMs: 10 });
    await finish(store, 'first');
    await finish(store, 'short');
    clock = 20;
    await expect(store.deleteExpired()).resolves.toBe(1);
    // The queue goes on after the swept task: later tasks finish behind `first` and are evicted in turn.
    for (const id of ['a', 'b', 'c']) {
      await store.create(newTask(id));
      await finish(store, id);
    }
    expect((await store.list()).tasks.map((task) => task.id)).toEqual(['c', 'b', 'a']);
    clock = 5_000;
    await expect(store.deleteExpired()).resolves.toBe(3);
    expect((await store.list()).tasks).toEqual([]);
  });

  it('does not hand out a finished task past its TTL, before any create evicts it', async () => {
    let clock = 0;
    const store = createMemoryTaskStore({ ttlMs: 100, now: () => clock });
    await store.create(newTask('done'));
    await store.create(newTask('running'));
    await finish(store, 'done');
    clock = 99;
    await expect(store.get('done')).resolves.toBeDefined();
    clock = 300;
    expect((await store.list()).tasks.map((task) => task.id)).toEqual(['running']);
    await expect(store.get('done')).resolves.toBeUndefined();
    await expect(store.get('running')).resolves.toBeDefined();
  });

  it('forgets a finished task past its TTL at a get alone', async () => {
    let clock = 0;
    const store = createMemoryTaskStore({ ttlMs: 100, now: () => clock });
    await store.create(newTask('done'));
    await finish(store, 'done');
    clock = 300;
    await expect(store.get('done')).resolves.toBeUndefined();
    await expect(store.deleteExpired()).resolves.toBe(0);
  });

  it('evicts the oldest finished tasks first when full, and never a running one', async () => {
    const store = createMemoryTaskStore({ maxTasks: 3 });
    await store.create(newTask('running'));
    await store.update('running', { status: 'working' }, { expectedStatus: 'submitted' });
    await store.create(newTask('old'));
    await store.create(newTask('newer'));
    await finish(store, 'old');
    await finish(store, 'newer');
    await store.create(newTask('fourth'));
    await expect(store.get('old')).resolves.toBeUndefined();
    await expect(store.get('newer')).resolves.toBeDefined();
    await expect(store.get('running')).resolves.toBeDefined();
    await store.create(newTask('fifth'));
    await expect(store.get('newer')).resolves.toBeUndefined();
    // Full of unfinished tasks: a create is refused rather than growing the store past its cap.
    await expect(store.create(newTask('sixth'))).rejects.toMatchObject({
      code: 'task_store_full',
      status: 503,
    });
    expect((await store.list()).tasks.map((task) => task.id)).toEqual([
      'fifth',
      'fourth',
      'running',
    ]);
    await finish(store, 'fourth');
    await store.create(newTask('sixth'));
    const ids = (await store.list()).tasks.map((task) => task.id);
    expect(ids).toEqual(['sixth', 'fifth', 'running']);
  });

  it('keeps its tasks within maxBytes: the oldest finished go first, then creates are refused', async () => {
    const store = createMemoryTaskStore({ maxBytes: 64 * 1024 });
    const big = 'x'.repeat(8 * 1024); // 16 KiB counted (two bytes a character)
    for (let index = 0; index < 6; index += 1) {
      await store.create({ ...newTask(`t${index}`), input: big });
      await finish(store, `t${index}`);
    }
    // Three of 16 KiB and their output fit in 64 KiB; the older ones were dropped.
    const kept = (await store.list()).tasks.map((task) => task.id);
    expect(kept).toEqual(['t5', 't4', 't3']);
    // Metadata counts by what it holds in memory, not by its JSON length.
    const arrays = { m: Array.from({ length: 5_000 }, () => []) };
    expect(JSON.stringify(arrays).length).toBeLessThan(16 * 1024);
    await expect(store.create({ ...newTask('heavy'), metadata: arrays })).rejects.toMatchObject({
      code: 'task_store_full',
    });
    // Refused without dropping a finished task for nothing.
    expect((await store.list()).tasks.map((task) => task.id)).toEqual(['t5', 't4', 't3']);
    // Unfinished tasks are never dropped: once they fill the budget, creates are refused.
    await store.create({ ...newTask('r1'), input: big });
    await store.create({ ...newTask('r2'), input: big });
    await store.create({ ...newTask('r3'), input: big });
    await expect(store.create({ ...newTask('r4'), input: big })).rejects.toMatchObject({
      code: 'task_store_full',
    });
    expect((await store.list()).tasks.map((task) => task.id)).toEqual(['r3', 'r2', 'r1']);
  });

  it('keeps evicting in finishing order across thousands of tasks', async () => {
    let clock = 0;
    const store = createMemoryTaskStore({ maxTasks: 100, ttlMs: 1_000_000, now: () => clock });
    for (let index = 0; index < 5_000; index += 1) {
      clock = index;
      await store.create(newTask(`t${index}`));
      await finish(store, `t${index}`);
      // A later write to a finished task must not count it twice in the eviction order.
      await store.update(`t${index}`, {}, { expectedStatus: 'completed' });
    }
    const kept: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 100, ...(cursor === undefined ? {} : { cursor }) });
      kept.push(...page.tasks.map((task) => task.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(kept).toHaveLength(100);
    expect(kept[0]).toBe('t4999');
    expect(kept.at(-1)).toBe('t4900');
    clock = 4_999 + 1_000_000 - 50;
    await expect(store.deleteExpired()).resolves.toBe(50);
    await expect(store.get('t4949')).resolves.toBeUndefined();
    await expect(store.get('t4950')).resolves.toBeDefined();
  });

  it("counts the logs in maxBytes: finished tasks' logs go first, oldest first, then the tasks", async () => {
    const store = createMemoryTaskStore({ maxBytes: 256 * 1024 });
    const chatty = (index: number) =>
      Array.from({ length: 100 }, () => ({
        type: 'text-delta' as const,
        delta: `${index}`.repeat(100),
      }));
    // Each task's log holds ~26 KiB (100 deltas of 200 bytes and their slots), its output ~20 KiB.
    for (let index = 0; index < 4; index += 1) {
      await store.create(newTask(`t${index}`));
      await store.update(`t${index}`, { status: 'working' }, { expectedStatus: 'submitted' });
      await store.append(`t${index}`, chatty(index));
      await store.update(`t${index}`, { status: 'completed' }, { expectedStatus: 'working' });
    }
    await expect(store.events('t0', { after: 2, limit: 1 })).resolves.toHaveLength(1);
    // A running task's log is never dropped for the budget, however large.
    await store.create(newTask('running'));
    await store.update('running', { status: 'working' }, { expectedStatus: 'submitted' });
    for (let round = 0; round < 2; round += 1) await store.append('running', chatty(9));
    // Over the budget: the oldest finished tasks lost their logs, but are still there to read.
    await expect(store.get('t0')).resolves.toMatchObject({ status: 'completed', seq: 103 });
    await expect(store.events('t0', { after: 2 })).rejects.toMatchObject({
      code: 'events_expired',
      earliestAfter: 103,
    });
    await expect(store.events('t0', { after: 103 })).resolves.toEqual([]);
    await expect(store.events('t3', { after: 102 })).resolves.toHaveLength(1);
    await expect(store.events('running')).resolves.toHaveLength(202);
    // Past what dropping every finished log frees, finished tasks go, oldest first.
    for (let round = 0; round < 4; round += 1) await store.append('running', chatty(8));
    await expect(store.get('t0')).resolves.toBeUndefined();
    await expect(store.events('running')).resolves.toHaveLength(602);
  });

  it("keeps at most 10,000 events of a task's log by default, dropping its oldest", async () => {
    const store = createMemoryTaskStore();
    await store.create(newTask('t1'));
    await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
    const deltas = Array.from({ length: 2_001 }, () => ({
      type: 'text-delta' as const,
      delta: 'x',
    }));
    for (let round = 0; round < 5; round += 1) await store.append('t1', deltas);
    const task = await store.update('t1', { status: 'completed' }, { expectedStatus: 'working' });
    expect(task.seq).toBe(10_008);
    expect(task.output).toHaveLength(10_005);
    await expect(store.events('t1', { after: 7 })).rejects.toMatchObject({ earliestAfter: 8 });
    const kept = await store.events('t1', { after: 8 });
    expect(kept).toHaveLength(10_000);
    expect(kept[0]?.seq).toBe(9);
    expect(kept.at(-1)).toMatchObject({ seq: 10_008, event: { status: 'completed' } });
  });

  it('tells its listeners every event of each step, with the task after it', async () => {
    const store = createMemoryTaskStore();
    const heard: Array<[number, TaskEvent[]]> = [];
    store.subscribe((task, events) => heard.push([task.seq, [...events]]));
    const message = {
      messageId: 'm1',
      role: 'user' as const,
      parts: [{ kind: 'text' as const, text: 'hi' }],
    };
    await store.create({ ...newTask('t1'), messages: [message] });
    await store.update(
      't1',
      { status: 'working', progress: [{ type: 'text-delta', delta: 'a' }] },
      { expectedStatus: 'submitted' },
    );
    expect(heard).toEqual([
      [2, [expect.objectContaining({ status: 'submitted' }), { type: 'message', message }]],
      [4, [{ type: 'text-delta', delta: 'a' }, expect.objectContaining({ status: 'working' })]],
    ]);
    // What the store logged is frozen: a listener cannot change it.
    expect(Object.isFrozen(heard[1]?.[1][1])).toBe(true);
  });
});
