import { ListTasksRequest, Role, type Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { createMemoryTaskStore, createTaskRunner, defineAgent } from '@agentport/core';
import { createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { textPart } from '../executor/parts.ts';
import { createGatedAgent } from '../test-support/gated-agent.ts';
import { createCoreTaskStore } from './core-task-store.ts';

const context = new ServerCallContext();

const userMessage = (messageId: string, text: string, taskId = '') => ({
  messageId,
  contextId: '',
  taskId,
  role: Role.ROLE_USER,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

describe('createCoreTaskStore', () => {
  it('loads a core task in the SDK shape: state, history, text as the output artifact', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const message = {
      messageId: 'm1',
      role: 'user' as const,
      parts: [
        { kind: 'text' as const, text: 'hello' },
        { kind: 'file' as const, bytes: 'aGk=', mediaType: 'text/plain', name: 'hi.txt' },
      ],
    };
    const task = await runner.submitAndWait('hello', { id: 't1', messages: [message] });
    const loaded = (await createCoreTaskStore(runner).load('t1', context)) as Task;
    expect(loaded).toMatchObject({ id: 't1', contextId: task.contextId });
    expect(loaded.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(loaded.artifacts.map((artifact) => artifact.artifactId)).toEqual(['output']);
    expect(loaded.history[0]?.parts.map((part) => part.content?.$case)).toEqual(['text', 'raw']);
    expect(loaded.history[0]?.parts[1]?.filename).toBe('hi.txt');
    expect(await createCoreTaskStore(runner).load('no-such-task', context)).toBeUndefined();
  });

  it("never loads another agent's task from a shared store", async () => {
    const store = createMemoryTaskStore();
    const echo = createTaskRunner({ agent: createEchoAgent(), store });
    const other = createTaskRunner({ agent: createGatedAgent('other').agent, store });
    await echo.submitAndWait('mine', { id: 'mine' });
    expect(await createCoreTaskStore(other).load('mine', context)).toBeUndefined();
  });

  it('says why a task failed in its status message, as its stream said it', async () => {
    const failing = defineAgent({
      name: 'failing',
      // biome-ignore lint/correctness/useYield: it fails before any event
      async *run() {
        throw new Error('secret detail');
      },
    });
    const runner = createTaskRunner({ agent: failing });
    await runner.submitAndWait('x', { id: 'f1' });
    const loaded = (await createCoreTaskStore(runner).load('f1', context)) as Task;
    expect(loaded.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const parts = loaded.status?.message?.parts ?? [];
    expect(parts[0]?.content).toEqual({ $case: 'text', value: "Agent 'failing' failed" });
    expect(JSON.stringify(loaded)).not.toContain('secret detail');
  });

  it('lists by context, pages with core cursors and counts what the filters select', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    for (const id of ['a', 'b', 'c']) await runner.submitAndWait(id, { id, contextId: 'ctx' });
    await runner.submitAndWait('elsewhere', { id: 'd' });
    const store = createCoreTaskStore(runner);
    const first = await store.list(
      ListTasksRequest.fromJSON({ contextId: 'ctx', pageSize: 2 }),
      context,
    );
    expect(first.tasks.map((task) => task.id)).toEqual(['c', 'b']);
    expect(first.totalSize).toBe(3);
    expect(first.tasks[0]?.artifacts).toEqual([]);
    const second = await store.list(
      ListTasksRequest.fromJSON({ contextId: 'ctx', pageSize: 2, pageToken: first.nextPageToken }),
      context,
    );
    expect(second.tasks.map((task) => task.id)).toEqual(['a']);
    expect(second.nextPageToken).toBe('');
    await expect(
      store.list(ListTasksRequest.fromJSON({ pageToken: 'garbage!' }), context),
    ).rejects.toMatchObject({ message: 'Invalid page token format.' });
  });

  it('adds a follow-up message to the history of a running task, and nothing else', async () => {
    const gated = createGatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    await runner.submit('first', {
      id: 'r1',
      messages: [{ messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'first' }] }],
    });
    const store = createCoreTaskStore(runner);
    const copy = (await store.load('r1', context)) as Task;
    copy.history.push(userMessage('m2', 'and another thing', 'r1'));
    copy.status = { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: '' };
    await store.save(copy, context);
    const stored = await runner.get('r1');
    expect(stored.messages.map((message) => message.messageId)).toEqual(['m1', 'm2']);
    expect(stored.status).not.toBe('completed');
    await runner.close();
  });

  it('stores a task the runner never ran (a failed message answer) as it ended', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const store = createCoreTaskStore(runner);
    await store.save(
      {
        id: 'ended',
        contextId: 'ctx',
        status: {
          state: TaskState.TASK_STATE_FAILED,
          message: { ...userMessage('s1', 'It broke'), role: Role.ROLE_AGENT },
          timestamp: '',
        },
        artifacts: [],
        history: [userMessage('m1', 'please', 'ended')],
        metadata: undefined,
      },
      context,
    );
    expect(await runner.get('ended')).toMatchObject({
      status: 'failed',
      contextId: 'ctx',
      input: 'please',
      error: { message: 'It broke' },
    });
  });

  it("refuses a new task when core's store is full, in the SDK surface's words", async () => {
    const gated = createGatedAgent();
    const runner = createTaskRunner({
      agent: gated.agent,
      store: createMemoryTaskStore({ maxTasks: 1 }),
    });
    await runner.submit('holds the only place');
    const store = createCoreTaskStore(runner);
    await expect(
      store.save(
        {
          id: 'another',
          contextId: '',
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: '' },
          artifacts: [],
          history: [userMessage('m1', 'x', 'another')],
          metadata: undefined,
        },
        context,
      ),
    ).rejects.toMatchObject({ metadata: { code: 'task_store_full' } });
    await runner.close();
  });
});
