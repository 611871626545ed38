import { type Task as A2ATask, ListTasksRequest, TaskState } from '@a2a-js/sdk';
import type { Task } from '@agentport/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltinGateway } from './testing/in-process-gateway.ts';
import {
  collect,
  FLAVOURS,
  officialClient,
  streamedOutput,
  textRequest,
} from './testing/sdk-client.ts';

let url = '';
let stop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  ({ url, stop } = await startBuiltinGateway());
});

afterAll(async () => {
  await stop();
});

const cardOf = (agent: string) => `${url}/a2a/${agent}/.well-known/agent-card.json`;

async function handRolled(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, init);
  return { status: response.status, body: await response.json() };
}

async function createTask(agent: string, input: string): Promise<Task> {
  const { status, body } = await handRolled(`/agents/${agent}/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  expect(status).toBe(201);
  return (body as { task: Task }).task;
}

describe.each(FLAVOURS)('one task model, SDK over $binding $version', (flavour) => {
  it('a task sent with SendMessage is read and canceled through the hand-rolled routes', async () => {
    const client = await officialClient(cardOf('ticker'), flavour);
    const sent = (await client.sendMessage(
      textRequest('100 every 50ms', { returnImmediately: true }),
    )) as A2ATask;

    const read = await handRolled(`/agents/ticker/tasks/${sent.id}`);
    expect(read.status).toBe(200);
    const task = (read.body as { task: Task }).task;
    expect(task).toMatchObject({ id: sent.id, contextId: sent.contextId, agentName: 'ticker' });
    expect(['submitted', 'working']).toContain(task.status);
    expect(task.messages[0]?.parts).toEqual([{ kind: 'text', text: '100 every 50ms' }]);
    // Another agent's routes do not see it.
    expect((await handRolled(`/agents/echo/tasks/${sent.id}`)).status).toBe(404);

    const canceled = await handRolled(`/agents/ticker/tasks/${sent.id}/cancel`, { method: 'POST' });
    expect(canceled.status).toBe(200);
    expect((canceled.body as { task: Task }).task.status).toBe('canceled');

    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(
      client.cancelTask({ tenant: '', id: sent.id, metadata: undefined }),
    ).resolves.toMatchObject({ status: { state: TaskState.TASK_STATE_CANCELED } });
    await expect(
      (await officialClient(cardOf('echo'), flavour)).getTask({
        tenant: '',
        id: sent.id,
        historyLength: undefined,
      }),
    ).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('a task created by POST /tasks is read, followed and refused a second cancel by the SDK', async () => {
    const client = await officialClient(cardOf('ticker'), flavour);
    const created = await createTask('ticker', '4 every 60ms');

    const got = await client.getTask({ tenant: '', id: created.id, historyLength: undefined });
    expect(got).toMatchObject({ id: created.id, contextId: created.contextId });
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(
      got.status?.state,
    );

    const events = await collect(client.resubscribeTask({ tenant: '', id: created.id }));
    expect(events[0]?.payload?.$case).toBe('task');
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    expect(streamedOutput(events)).toBe('tick 1\ntick 2\ntick 3\ntick 4');

    const done = (await handRolled(`/agents/ticker/tasks/${created.id}`)).body as { task: Task };
    expect(done.task).toMatchObject({
      status: 'completed',
      output: 'tick 1\ntick 2\ntick 3\ntick 4',
    });
    await expect(
      client.cancelTask({ tenant: '', id: created.id, metadata: undefined }),
    ).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
  });
});

describe.each(FLAVOURS.filter((flavour) => flavour.version === '1.0'))(
  'one task model, SDK ListTasks over $binding',
  (flavour) => {
    it('lists a task created by POST /tasks, in its context', async () => {
      const client = await officialClient(cardOf('ticker'), flavour);
      const created = await createTask('ticker', '1 every 1ms');
      const page = await client.listTasks(
        ListTasksRequest.fromJSON({ contextId: created.contextId, includeArtifacts: true }),
      );
      expect(page.tasks.map((task) => task.id)).toEqual([created.id]);
      expect(page.totalSize).toBe(1);
      const all = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 100 }));
      expect(all.tasks.map((task) => task.id)).toContain(created.id);
    });
  },
);
