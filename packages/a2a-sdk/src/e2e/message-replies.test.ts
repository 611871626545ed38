import {
  ListTasksRequest,
  type Message,
  Role,
  SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { AgentFailureError, defineAgent } from '@agentport/core';
import { createEchoAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRemoteSdkAgent } from '../client/remote-agent.ts';
import {
  eventually,
  FLAVOURS,
  kindsOf,
  officialClient,
  outputOf,
  textOf,
  textRequest,
} from '../test-support/sdk-client.ts';
import { type ServedAgent, serveAgent } from '../test-support/servers.ts';
import { createWaitingAgent, sendAndLeave } from '../test-support/waiting-agent.ts';

const failing = defineAgent({
  name: 'failing',
  async *run() {
    yield { type: 'text-delta', delta: 'partial' };
    throw new AgentFailureError({ agentName: 'failing', message: 'Failed on purpose' });
  },
});

const waiting = createWaitingAgent();
const { started } = waiting;

let echo: ServedAgent;
let failure: ServedAgent;
let wait: ServedAgent;

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  [echo, failure, wait] = await Promise.all([
    serveAgent(createEchoAgent(), { replyWith: 'message' }),
    serveAgent(failing, { replyWith: 'message' }),
    serveAgent(waiting.agent, { replyWith: 'message' }),
  ]);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([echo?.close(), failure?.close(), wait?.close()]);
});

function asMessage(result: Message | Task): Message {
  expect(result).toHaveProperty('messageId');
  return result as Message;
}

function asTask(result: Message | Task): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

/** The tasks a server holds for one conversation (read on the server, for every flavour). */
async function tasksOf(served: ServedAgent, contextId: string): Promise<Task[]> {
  const page = await served.server.requestHandler.listTasks(
    ListTasksRequest.fromJSON({ contextId }),
    new ServerCallContext({ requestedVersion: '1.0' }),
  );
  return page.tasks;
}

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe.each(FLAVOURS)(
  'replyWith message, the official client over $binding (A2A $version)',
  (flavour) => {
    it('answers a new message with an agent message holding the output, and stores no task', async () => {
      const client = await officialClient(echo.cardUrl, flavour);
      const contextId = `message-${flavour.binding}-${flavour.version}`;
      const message = asMessage(
        await client.sendMessage(textRequest('hello as a message', { contextId })),
      );
      expect(message.role).toBe(Role.ROLE_AGENT);
      expect(textOf(message.parts)).toBe('hello as a message');
      expect(message.contextId).toBe(contextId);
      expect(message.taskId ?? '').toBe('');
      expect(message.messageId).not.toBe('');
      expect(await tasksOf(echo, contextId)).toEqual([]);
    });

    it('assigns a new contextId when the message has none', async () => {
      const client = await officialClient(echo.cardUrl, flavour);
      const first = asMessage(await client.sendMessage(textRequest('one')));
      const second = asMessage(await client.sendMessage(textRequest('two')));
      expect(first.contextId).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.contextId).not.toBe(first.contextId);
    });

    it('still streams a task: SendStreamingMessage gives the task and its completion', async () => {
      const client = await officialClient(echo.cardUrl, flavour);
      const events = await collect(client.sendMessageStream(textRequest('streamed words')));
      expect(kindsOf(events)).toEqual(['task', 'statusUpdate:TASK_STATE_COMPLETED']);
      const first = events[0]?.payload;
      expect(first?.$case === 'task' && outputOf(first.value)).toBe('streamed words');
    });

    it('answers a non-blocking request with a task the client can poll', async () => {
      const client = await officialClient(echo.cardUrl, flavour);
      const task = asTask(
        await client.sendMessage(textRequest('later', { returnImmediately: true })),
      );
      const done = await eventually(async () => {
        const current = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
        return current.status?.state === TaskState.TASK_STATE_COMPLETED ? current : undefined;
      });
      expect(outputOf(done)).toBe('later');
    });

    it('answers a failed run with its failed task, stored, with the partial output', async () => {
      const client = await officialClient(failure.cardUrl, flavour);
      const contextId = `failed-${flavour.binding}-${flavour.version}`;
      const task = asTask(await client.sendMessage(textRequest('anything', { contextId })));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(textOf(task.status?.message?.parts)).toBe('Failed on purpose');
      expect(task.contextId).toBe(contextId);
      expect(outputOf(task)).toBe('partial');
      const stored = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
      expect(stored.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(stored.history?.map((message) => textOf(message.parts))).toEqual([
        'anything',
        'Failed on purpose',
      ]);
      expect((await tasksOf(failure, contextId)).map((each) => each.id)).toEqual([task.id]);
    });

    it('aborts the agent when the caller goes away, and stores nothing', async () => {
      const client = await officialClient(wait.cardUrl, flavour);
      const input = `abandoned ${flavour.binding} ${flavour.version}`;
      const contextId = crypto.randomUUID();
      await sendAndLeave(client, waiting, input, contextId);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await tasksOf(wait, contextId)).toEqual([]);
    });

    it('routes a follow-up with a taskId through its task', async () => {
      const client = await officialClient(echo.cardUrl, flavour);
      const task = asTask(
        await client.sendMessage(textRequest('first', { returnImmediately: true })),
      );
      await eventually(async () => {
        const current = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
        return current.status?.state === TaskState.TASK_STATE_COMPLETED ? current : undefined;
      });
      const followUp = SendMessageRequest.fromJSON({
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'more' }],
          taskId: task.id,
        },
      });
      await expect(client.sendMessage(followUp)).rejects.toMatchObject({
        name: 'UnsupportedOperationError',
      });
      const unknown = SendMessageRequest.fromJSON({
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'more' }],
          taskId: 'no-such-task',
        },
      });
      await expect(client.sendMessage(unknown)).rejects.toMatchObject({
        name: 'TaskNotFoundError',
      });
    });
  },
);

describe('replyWith message, at shutdown and through a remote agent', () => {
  it('answers a reply still running at close() with its canceled task', async () => {
    const served = await serveAgent(waiting.agent, { replyWith: 'message' });
    try {
      const client = await officialClient(
        served.cardUrl,
        FLAVOURS[0] ?? { binding: 'JSONRPC', version: '1.0' },
      );
      const answer = client.sendMessage(textRequest('closing time'));
      await eventually(async () => (started.includes('closing time') ? true : undefined));
      served.server.close();
      const task = asTask(await answer);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const stored = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
      expect(stored.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    } finally {
      await served.close();
    }
  });

  it('serves createRemoteSdkAgent: invoke gets the output, a failure its error', async () => {
    const remote = await createRemoteSdkAgent({ url: echo.baseUrl });
    expect(await remote.invoke('via a remote agent')).toBe('via a remote agent');
    const failingRemote = await createRemoteSdkAgent({ url: failure.baseUrl });
    await expect(failingRemote.invoke('x')).rejects.toMatchObject({
      code: 'agent_failure',
      message: 'Failed on purpose',
    });
  });
});
