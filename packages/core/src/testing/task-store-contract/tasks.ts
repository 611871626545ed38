import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../../message.ts';
import type { Task } from '../../tasks/task.ts';
import type { TaskEvent } from '../../tasks/task-event.ts';
import { UNFINISHED_STATUSES } from '../../tasks/task-lifecycle.ts';
import type { TaskPatch } from '../../tasks/task-store.ts';
import {
  CONTRACT_TTL_MS,
  contractStore,
  finish,
  newTask,
  type TaskStoreFactory,
  typesOf,
} from './support.ts';

const hello: Message = { messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] };

/** Runs a change that may throw (on a frozen object), ignoring that it did. */
function attempt(change: () => unknown): void {
  try {
    change();
  } catch {
    // Frozen: refused, as it should be.
  }
}

/** The contract's tests of creating, reading and updating tasks. */
export function describeTaskWrites(createStore: TaskStoreFactory): void {
  describe('tasks', () => {
    it('creates a task in submitted at seq 1, in a new context named by its id, and gets it back', async () => {
      const { store } = await contractStore(createStore);
      const task = await store.create(newTask('t1'));
      expect(task).toEqual({
        id: 't1',
        contextId: 't1',
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
      const other = await store.create(newTask('t2'));
      expect(other.contextId).not.toBe(task.contextId);
      const joined = await store.create(newTask('t3', { contextId: task.contextId }));
      expect(joined.contextId).toBe(task.contextId);
    });

    it('starts the history with the messages it is given, each logged after the submitted status', async () => {
      const { store } = await contractStore(createStore);
      const task = await store.create(newTask('t1', { messages: [hello] }));
      expect(task).toMatchObject({ messages: [hello], seq: 2 });
      const entries = await store.events('t1');
      expect(entries).toEqual([
        {
          seq: 1,
          event: { type: 'status-update', status: 'submitted', timestamp: task.createdAt },
        },
        { seq: 2, event: { type: 'message', message: hello } },
      ]);
    });

    it('creates a task started in working when asked, in one step logging submitted, then working', async () => {
      const { store } = await contractStore(createStore);
      const listener = vi.fn();
      store.subscribe(listener);
      const task = await store.create({
        ...newTask('t1', { messages: [hello] }),
        status: 'working',
      });
      expect(task).toMatchObject({ status: 'working', seq: 3 });
      await expect(store.get('t1')).resolves.toEqual(task);
      const submitted = { type: 'status-update', status: 'submitted', timestamp: task.createdAt };
      const working = { type: 'status-update', status: 'working', timestamp: task.createdAt };
      expect((await store.events('t1')).map((entry) => entry.event)).toEqual([
        submitted,
        { type: 'message', message: hello },
        working,
      ]);
      expect(listener).toHaveBeenCalledTimes(1);
      const done = await store.update('t1', { status: 'completed' }, { expectedStatus: 'working' });
      expect(done.status).toBe('completed');
      const odd = { ...newTask('t2'), status: 'completed' } as unknown as Parameters<
        typeof store.create
      >[0];
      await expect(store.create(odd)).rejects.toMatchObject({ code: 'invalid_input' });
    });

    it('refuses a duplicate id, an empty contextId and a malformed message', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      await expect(store.create(newTask('t1'))).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(store.create(newTask('t2', { contextId: '' }))).rejects.toMatchObject({
        code: 'invalid_input',
      });
      const broken = { messageId: 'm', role: 'robot', parts: [] } as unknown as Message;
      await expect(store.create(newTask('t3', { messages: [broken] }))).rejects.toThrow(TypeError);
      await expect(store.get('t3')).resolves.toBeUndefined();
    });

    it('hands out tasks that cannot change the store', async () => {
      const { store } = await contractStore(createStore);
      const given = { trace: 'a' };
      const text = { kind: 'text' as const, text: 'a' };
      const task = await store.create(
        newTask('t1', {
          metadata: given,
          messages: [{ messageId: 'm1', role: 'user', parts: [text] }],
        }),
      );
      given.trace = 'b';
      text.text = 'b';
      // Frozen (the memory store) or a copy (a durable one): either way the store keeps its own.
      attempt(() => (task.messages as Message[]).push(hello));
      attempt(() => Object.assign(task.metadata, { trace: 'c' }));
      const again = await store.get('t1');
      expect(again).toMatchObject({
        metadata: { trace: 'a' },
        messages: [{ messageId: 'm1', parts: [{ text: 'a' }] }],
      });
      expect(again?.messages).toHaveLength(1);
    });

    it('applies an update only while the task is in an expected status', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      const working = await store.update(
        't1',
        { status: 'working' },
        { expectedStatus: 'submitted' },
      );
      expect(working).toMatchObject({ status: 'working', seq: 2 });
      await expect(
        store.update('t1', { status: 'canceled' }, { expectedStatus: 'submitted' }),
      ).rejects.toMatchObject({ code: 'task_conflict', taskStatus: 'working' });
      await expect(
        store.update(
          't1',
          { status: 'canceled' },
          { expectedStatus: ['submitted', 'input-required'] },
        ),
      ).rejects.toMatchObject({ code: 'task_conflict' });
      const progress = await store.update(
        't1',
        { output: 'so far' },
        { expectedStatus: 'working' },
      );
      expect(progress).toMatchObject({ status: 'working', output: 'so far', seq: 3 });
      expect(typesOf(await store.events('t1'))).toEqual([
        'status:submitted',
        'status:working',
        'status:working',
      ]);
    });

    it('rejects a move the lifecycle forbids, and any change of a terminal task', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      await expect(
        store.update('t1', { status: 'completed' }, { expectedStatus: 'submitted' }),
      ).rejects.toMatchObject({ code: 'invalid_transition', from: 'submitted', to: 'completed' });
      const done = await finish(store, 't1');
      for (const patch of [
        { status: 'working' },
        { output: 'rewritten' },
        { messages: [hello] },
      ] as TaskPatch[]) {
        await expect(
          store.update('t1', patch, { expectedStatus: 'completed' }),
        ).rejects.toMatchObject({
          code: 'invalid_transition',
        });
      }
      // A patch that sets nothing changes nothing: no event, the task as it is.
      await expect(store.update('t1', {}, { expectedStatus: 'completed' })).resolves.toEqual(done);
      await expect(store.get('t1')).resolves.toEqual(done);
    });

    it('answers a cancel of a finished task with a conflict, and cancels any unfinished one', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('done'));
      await finish(store, 'done');
      const cancel = { status: 'canceled' } as const;
      await expect(
        store.update('done', cancel, { expectedStatus: UNFINISHED_STATUSES }),
      ).rejects.toMatchObject({ code: 'task_conflict', taskStatus: 'completed' });
      await store.create(newTask('asking'));
      await store.update('asking', { status: 'working' }, { expectedStatus: 'submitted' });
      await store.update('asking', { status: 'input-required' }, { expectedStatus: 'working' });
      await expect(
        store.update('asking', cancel, { expectedStatus: UNFINISHED_STATUSES }),
      ).resolves.toMatchObject({ status: 'canceled' });
    });

    it('answers task_not_found for an unknown task on every write and read of its log', async () => {
      const { store } = await contractStore(createStore);
      const patch = { status: 'working' } as const;
      await expect(
        store.update('nope', patch, { expectedStatus: 'submitted' }),
      ).rejects.toMatchObject({
        code: 'task_not_found',
      });
      await expect(
        store.append('nope', [{ type: 'text-delta', delta: 'x' }]),
      ).rejects.toMatchObject({
        code: 'task_not_found',
      });
      await expect(store.events('nope')).rejects.toMatchObject({ code: 'task_not_found' });
    });

    it('refuses values it could not keep, and changes nothing for them', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      const working = await store.update(
        't1',
        { status: 'working' },
        { expectedStatus: 'submitted' },
      );
      const patches = [
        { status: 'completed', output: 42 },
        { status: 'failed', error: { code: 7, message: 'x' } },
        { status: 'failed', error: 'boom' },
        { statusMessage: { messageId: 'm', role: 'user', parts: [{ kind: 'text' }] } },
        { messages: [{ messageId: 'm', role: 'agent', parts: 'text' }] },
        { artifacts: [{ artifactId: '', parts: [] }] },
        { artifacts: [{ artifactId: 'a', parts: [{ kind: 'file', mediaType: 'text/plain' }] }] },
        { progress: [{ type: 'text-delta', delta: 5 }] },
        { progress: [{ type: 'status-update', status: 'completed' }] },
      ] as unknown as TaskPatch[];
      for (const patch of patches) {
        await expect(store.update('t1', patch, { expectedStatus: 'working' })).rejects.toThrow(
          TypeError,
        );
      }
      await expect(store.get('t1')).resolves.toEqual(working);
      expect(await store.events('t1', { after: 2 })).toEqual([]);
    });
  });
}

/** The contract's tests of listings, expiry and change notifications. */
export function describeTaskReads(createStore: TaskStoreFactory): void {
  describe('listing, expiry and subscriptions', () => {
    it('lists newest first in pages with a cursor, filtered by status and agent', async () => {
      const { store } = await contractStore(createStore);
      for (let index = 1; index <= 5; index += 1) {
        await store.create(newTask(`t${index}`, { agentName: index === 2 ? 'other' : 'echo' }));
      }
      await finish(store, 't4');
      const first = await store.list({ limit: 2 });
      expect(first.tasks.map((task) => task.id)).toEqual(['t5', 't4']);
      const second = await store.list({ limit: 2, cursor: first.nextCursor as string });
      expect(second.tasks.map((task) => task.id)).toEqual(['t3', 't2']);
      const third = await store.list({ limit: 2, cursor: second.nextCursor as string });
      expect(third).toEqual({ tasks: [expect.objectContaining({ id: 't1' })] });
      expect((await store.list({ status: 'completed' })).tasks.map((task) => task.id)).toEqual([
        't4',
      ]);
      const echo = await store.list({ agentName: 'echo' });
      expect(echo.tasks.map((task) => task.id)).toEqual(['t5', 't4', 't3', 't1']);
      await store.create(newTask('t6', { contextId: 't3' }));
      const thread = await store.list({ contextId: 't3' });
      expect(thread.tasks.map((task) => task.id)).toEqual(['t6', 't3']);
      await expect(store.list({ cursor: 'garbage!' })).rejects.toMatchObject({ field: 'cursor' });
      await expect(store.list({ limit: 0 })).rejects.toMatchObject({ field: 'limit' });
      await expect(store.list({ limit: 101 })).rejects.toMatchObject({ field: 'limit' });
    });

    it('expires finished tasks after their TTL, never unfinished ones', async () => {
      const { store, clock } = await contractStore(createStore);
      await store.create(newTask('done'));
      await store.create(newTask('running'));
      await finish(store, 'done');
      await store.update('running', { status: 'working' }, { expectedStatus: 'submitted' });
      clock.now += CONTRACT_TTL_MS - 1;
      await expect(store.deleteExpired()).resolves.toBe(0);
      await expect(store.get('done')).resolves.toBeDefined();
      clock.now += 2;
      // Gone for every read at once, whether or not anything deleted it yet.
      await expect(store.get('done')).resolves.toBeUndefined();
      await expect(store.events('done')).rejects.toMatchObject({ code: 'task_not_found' });
      expect((await store.list()).tasks.map((task) => task.id)).toEqual(['running']);
      await expect(store.get('running')).resolves.toMatchObject({ status: 'working' });
      clock.now += 10 * CONTRACT_TTL_MS;
      await expect(store.get('running')).resolves.toBeDefined();
    });

    it("keeps a task with a retention of its own for that long, behind others' or not", async () => {
      const { store, clock } = await contractStore(createStore);
      await store.create(newTask('kept'));
      await store.create(newTask('short', { retainMs: CONTRACT_TTL_MS / 10 }));
      await finish(store, 'kept');
      await finish(store, 'short');
      clock.now += CONTRACT_TTL_MS / 10 - 1;
      await expect(store.get('short')).resolves.toBeDefined();
      clock.now += 2;
      // Expired behind a task finished before it, which is kept on.
      await expect(store.get('short')).resolves.toBeUndefined();
      await expect(store.events('short')).rejects.toMatchObject({ code: 'task_not_found' });
      expect((await store.list()).tasks.map((task) => task.id)).toEqual(['kept']);
      await expect(store.deleteExpired()).resolves.toBe(1);
      await expect(store.get('kept')).resolves.toBeDefined();
      await expect(store.create(newTask('bad', { retainMs: -1 }))).rejects.toMatchObject({
        field: 'retainMs',
      });
    });

    it('deletes expired tasks on deleteExpired, saying how many', async () => {
      const { store, clock } = await contractStore(createStore);
      await store.create(newTask('a'));
      await store.create(newTask('b'));
      await finish(store, 'a');
      await finish(store, 'b');
      await expect(store.deleteExpired(new Date(clock.now + CONTRACT_TTL_MS + 1))).resolves.toBe(2);
      await expect(store.deleteExpired(new Date(clock.now + CONTRACT_TTL_MS + 1))).resolves.toBe(0);
    });

    it('tells subscribers of every step with the task after it and the events it appended', async () => {
      const { store } = await contractStore(createStore);
      const heard: Array<[Task, TaskEvent[]]> = [];
      const unsubscribe = store.subscribe((task, events) => heard.push([task, [...events]]));
      store.subscribe(() => {
        throw new Error('a broken listener');
      });
      const created = await store.create(newTask('t1'));
      const working = await store.update(
        't1',
        { status: 'working' },
        { expectedStatus: 'submitted' },
      );
      const grown = await store.append('t1', [
        { type: 'text-delta', delta: 'a' },
        { type: 'text-delta', delta: 'b' },
      ]);
      expect(grown).toMatchObject({ output: 'ab', seq: 4 });
      // A durable store's feed may tell its listeners later than the write resolves.
      await vi.waitFor(() => expect(heard).toHaveLength(3));
      unsubscribe();
      await store.update('t1', { status: 'canceled' }, { expectedStatus: 'working' });
      expect(heard.map(([task]) => task)).toEqual([created, working, grown]);
      // The events a listener gets are the last of its step's, ending at the task's seq (a
      // store that cannot carry them all may pass fewer).
      for (const [task, events] of heard) {
        const logged = await store.events('t1', {
          after: task.seq - events.length,
          limit: events.length,
        });
        expect(logged.map((entry) => entry.event)).toEqual(events);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toHaveLength(3);
    });
  });
}
