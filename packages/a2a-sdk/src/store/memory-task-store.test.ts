import { ListTasksRequest, type Task, TaskState } from '@a2a-js/sdk';
import { InMemoryTaskStore, ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { textPart } from '../executor/parts.ts';
import { createA2ATaskStore } from './memory-task-store.ts';

const context = new ServerCallContext({ user: new UnauthenticatedUser() });

function task(id: string, state: TaskState, timestamp: string, contextId = 'ctx'): Task {
  return {
    id,
    contextId,
    status: { state, message: undefined, timestamp },
    artifacts: [
      {
        artifactId: 'output',
        name: 'output',
        description: '',
        parts: [textPart(id)],
        metadata: undefined,
        extensions: [],
      },
    ],
    history: [],
    metadata: undefined,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createA2ATaskStore', () => {
  it('hands out copies: changing a loaded or saved task does not change the store', async () => {
    const store = createA2ATaskStore();
    const saved = task('a', TaskState.TASK_STATE_WORKING, '2026-01-01T00:00:00.000Z');
    await store.save(saved, context);
    saved.artifacts.pop();
    const loaded = await store.load('a', context);
    if (loaded?.artifacts[0] === undefined) throw new Error('missing');
    loaded.status = {
      state: TaskState.TASK_STATE_FAILED,
      message: undefined,
      timestamp: undefined,
    };
    loaded.artifacts[0].parts = [];
    loaded.artifacts.push(loaded.artifacts[0]);
    const again = await store.load('a', context);
    expect(again?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(again?.artifacts).toHaveLength(1);
    expect(again?.artifacts[0]?.parts).toHaveLength(1);
  });

  it('lists exactly like the SDK InMemoryTaskStore: filters, order, pages and cursors', async () => {
    const ours = createA2ATaskStore();
    const reference = new InMemoryTaskStore();
    const tasks = [
      task('t1', TaskState.TASK_STATE_COMPLETED, '2026-01-01T00:00:01.000Z'),
      task('t2', TaskState.TASK_STATE_WORKING, '2026-01-01T00:00:03.000Z'),
      task('t3', TaskState.TASK_STATE_COMPLETED, '2026-01-01T00:00:03.000Z', 'other'),
      task('t4', TaskState.TASK_STATE_FAILED, '2026-01-01T00:00:02.000Z'),
    ];
    for (const item of tasks) {
      await ours.save(item, context);
      await reference.save(item, context);
    }
    const queries = [
      {},
      { pageSize: 2 },
      { contextId: 'ctx' },
      { status: 'TASK_STATE_COMPLETED' },
      { statusTimestampAfter: '2026-01-01T00:00:01.500Z', includeArtifacts: true },
    ];
    for (const query of queries) {
      const request = ListTasksRequest.fromJSON(query);
      const expected = await reference.list(request, context);
      expect(await ours.list(request, context)).toEqual(expected);
      if (expected.nextPageToken) {
        const next = ListTasksRequest.fromJSON({ ...query, pageToken: expected.nextPageToken });
        expect(await ours.list(next, context)).toEqual(await reference.list(next, context));
      }
    }
  });

  it('keeps tasks apart by tenant and user', async () => {
    const store = createA2ATaskStore();
    await store.save(task('a', TaskState.TASK_STATE_WORKING, '2026-01-01T00:00:00.000Z'), context);
    const tenant = new ServerCallContext({ user: new UnauthenticatedUser(), tenant: 'acme' });
    expect(await store.load('a', tenant)).toBeUndefined();
    expect((await store.list(ListTasksRequest.fromJSON({}), tenant)).totalSize).toBe(0);
  });

  it('forgets finished tasks after the retention time, never running ones', async () => {
    vi.useFakeTimers();
    const store = createA2ATaskStore({ ttlMs: 1000 });
    await store.save(
      task('done', TaskState.TASK_STATE_COMPLETED, '2026-01-01T00:00:00.000Z'),
      context,
    );
    await store.save(
      task('busy', TaskState.TASK_STATE_WORKING, '2026-01-01T00:00:00.000Z'),
      context,
    );
    vi.advanceTimersByTime(1500);
    expect(await store.load('done', context)).toBeUndefined();
    expect(await store.load('busy', context)).toBeDefined();
  });

  it('goes on listing after a cursor whose task is gone or has moved on', async () => {
    vi.useFakeTimers();
    const store = createA2ATaskStore({ maxTasks: 4 });
    const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
    await store.save(task('w', TaskState.TASK_STATE_WORKING, at(0)), context);
    for (const [id, second] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const) {
      vi.advanceTimersByTime(10);
      await store.save(task(id, TaskState.TASK_STATE_COMPLETED, at(second)), context);
    }
    const ids = (page: { tasks: Task[] }) => page.tasks.map((each) => each.id);
    const first = await store.list(ListTasksRequest.fromJSON({ pageSize: 2 }), context);
    expect(ids(first)).toEqual(['c', 'b']);
    // Two newer tasks push the oldest finished ones, b (the cursor's) and a, out.
    for (const [id, second] of [
      ['d', 4],
      ['e', 5],
    ] as const) {
      vi.advanceTimersByTime(10);
      await store.save(task(id, TaskState.TASK_STATE_COMPLETED, at(second)), context);
    }
    expect(await store.load('b', context)).toBeUndefined();
    const next = ListTasksRequest.fromJSON({ pageSize: 2, pageToken: first.nextPageToken });
    expect(ids(await store.list(next, context))).toEqual(['w']);
  });

  it('drops the oldest finished tasks past its cap, never running ones', async () => {
    vi.useFakeTimers();
    const store = createA2ATaskStore({ maxTasks: 2 });
    await store.save(
      task('running', TaskState.TASK_STATE_WORKING, '2026-01-01T00:00:00.000Z'),
      context,
    );
    await store.save(
      task('old', TaskState.TASK_STATE_COMPLETED, '2026-01-01T00:00:00.000Z'),
      context,
    );
    vi.advanceTimersByTime(10);
    await store.save(
      task('new', TaskState.TASK_STATE_COMPLETED, '2026-01-01T00:00:00.000Z'),
      context,
    );
    expect(await store.load('old', context)).toBeUndefined();
    expect(await store.load('running', context)).toBeDefined();
    expect(await store.load('new', context)).toBeDefined();
  });
  it('never evicts a task that finished and was saved running again', async () => {
    vi.useFakeTimers();
    const store = createA2ATaskStore({ maxTasks: 2 });
    const at = '2026-01-01T00:00:00.000Z';
    await store.save(task('resumed', TaskState.TASK_STATE_COMPLETED, at), context);
    await store.save(task('resumed', TaskState.TASK_STATE_WORKING, at), context);
    vi.advanceTimersByTime(10);
    await store.save(task('first', TaskState.TASK_STATE_COMPLETED, at), context);
    vi.advanceTimersByTime(10);
    await store.save(task('second', TaskState.TASK_STATE_COMPLETED, at), context);
    expect(await store.load('resumed', context)).toBeDefined();
    expect(await store.load('first', context)).toBeUndefined();
    expect(await store.load('second', context)).toBeDefined();
  });

  it('keeps evicting in finishing order over many times its cap', async () => {
    const store = createA2ATaskStore({ maxTasks: 100 });
    const at = '2026-01-01T00:00:00.000Z';
    for (let index = 0; index < 5000; index += 1) {
      await store.save(task(`t${index}`, TaskState.TASK_STATE_COMPLETED, at), context);
    }
    expect(await store.load('t4899', context)).toBeUndefined();
    expect(await store.load('t4900', context)).toBeDefined();
    const page = await store.list(ListTasksRequest.fromJSON({ pageSize: 1000 }), context);
    expect(page.totalSize).toBe(100);
  });

  it('evicts finished tasks in the order they finished, across tenants', async () => {
    vi.useFakeTimers();
    const store = createA2ATaskStore({ maxTasks: 3 });
    const tenant = new ServerCallContext({ user: new UnauthenticatedUser(), tenant: 'acme' });
    const at = '2026-01-01T00:00:00.000Z';
    await store.save(task('a', TaskState.TASK_STATE_WORKING, at), context);
    await store.save(task('b', TaskState.TASK_STATE_COMPLETED, at), tenant);
    vi.advanceTimersByTime(10);
    await store.save(task('a', TaskState.TASK_STATE_COMPLETED, at), context);
    vi.advanceTimersByTime(10);
    await store.save(task('c', TaskState.TASK_STATE_COMPLETED, at), context);
    await store.save(task('d', TaskState.TASK_STATE_COMPLETED, at), tenant);
    expect(await store.load('b', tenant)).toBeUndefined();
    expect(await store.load('a', context)).toBeDefined();
    await store.save(task('e', TaskState.TASK_STATE_COMPLETED, at), context);
    expect(await store.load('a', context)).toBeUndefined();
    expect(await store.load('c', context)).toBeDefined();
    expect(await store.load('d', tenant)).toBeDefined();
    expect(await store.load('e', context)).toBeDefined();
  });

  it('keeps its tasks within maxBytes: the oldest finished go first, then new running ones are refused', async () => {
    const store = createA2ATaskStore({ maxBytes: 64 * 1024 });
    const heavy = (id: string, state: TaskState) => {
      const value = task(id, state, `2026-01-01T00:00:0${id.at(-1)}.000Z`);
      value.metadata = { pad: 'x'.repeat(8 * 1024) }; // ~16 KiB counted
      return value;
    };
    for (let index = 1; index <= 6; index += 1) {
      await store.save(heavy(`t${index}`, TaskState.TASK_STATE_COMPLETED), context);
    }
    const ids = async () =>
      (await store.list(ListTasksRequest.fromJSON({}), context)).tasks.map((each) => each.id);
    expect(await ids()).toEqual(['t6', 't5', 't4']);
    // Running tasks are never dropped: once they fill the budget, a new one is refused.
    await store.save(heavy('r1', TaskState.TASK_STATE_WORKING), context);
    await store.save(heavy('r2', TaskState.TASK_STATE_WORKING), context);
    await store.save(heavy('r3', TaskState.TASK_STATE_WORKING), context);
    await expect(store.save(heavy('r4', TaskState.TASK_STATE_WORKING), context)).rejects.toThrow(
      'Too many unfinished tasks: try again later',
    );
    expect(await ids()).toEqual(['r3', 'r2', 'r1']);
    // A running task saved again is not a new one, and one that finishes makes room.
    await store.save(heavy('r1', TaskState.TASK_STATE_COMPLETED), context);
    await store.save(heavy('r4', TaskState.TASK_STATE_WORKING), context);
    expect(await ids()).toContain('r4');
  });

  it('refuses a new running task past maxTasks when only running ones are kept', async () => {
    const store = createA2ATaskStore({ maxTasks: 2 });
    await store.save(task('a', TaskState.TASK_STATE_WORKING, '2026-01-01T00:00:01.000Z'), context);
    await store.save(
      task('b', TaskState.TASK_STATE_SUBMITTED, '2026-01-01T00:00:02.000Z'),
      context,
    );
    await expect(
      store.save(task('c', TaskState.TASK_STATE_WORKING, '2026-01-01T00:00:03.000Z'), context),
    ).rejects.toThrow('Too many unfinished tasks');
    // A finished one is stored (and evicts the oldest finished, none here but itself).
    await store.save(
      task('d', TaskState.TASK_STATE_COMPLETED, '2026-01-01T00:00:04.000Z'),
      context,
    );
    expect(await store.load('a', context)).toBeDefined();
  });
});
