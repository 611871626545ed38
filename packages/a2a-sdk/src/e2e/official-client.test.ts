import {
  ListTasksRequest,
  SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { AgentFailureError, defineAgent } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
  description: 'Always fails',
  async *run() {
    yield { type: 'text-delta', delta: 'starting' };
    throw new AgentFailureError({
      agentName: 'failing',
      message: 'The failing agent failed on purpose',
    });
  },
});

const waiting = createWaitingAgent();

let echo: ServedAgent;
let ticker: ServedAgent;
let failure: ServedAgent;
let wait: ServedAgent;

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  [echo, ticker, failure, wait] = await Promise.all([
    serveAgent(createEchoAgent()),
    serveAgent(createTickerAgent()),
    serveAgent(failing),
    serveAgent(waiting.agent),
  ]);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([echo?.close(), ticker?.close(), failure?.close(), wait?.close()]);
});

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

describe.each(FLAVOURS)('the official client over $binding (A2A $version)', (flavour) => {
  let echoClient: Client;
  let tickerClient: Client;
  let failingClient: Client;

  beforeAll(async () => {
    [echoClient, tickerClient, failingClient] = await Promise.all([
      officialClient(echo.cardUrl, flavour),
      officialClient(ticker.cardUrl, flavour),
      officialClient(failure.cardUrl, flavour),
    ]);
  });

  it('uses the transport of its flavour', () => {
    expect(echoClient.transport.protocolName).toBe(flavour.binding);
  });

  it('sends a message and gets the completed task with the answer (blocking)', async () => {
    const task = asTask(await echoClient.sendMessage(textRequest('hello over the wire')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(task)).toBe('hello over the wire');
    expect(task.history?.[0]?.parts.map((part) => part.content?.value)).toEqual([
      'hello over the wire',
    ]);
  });

  it('returns at once when asked to, and the task completes in the background', async () => {
    const first = asTask(
      await tickerClient.sendMessage(textRequest('3 every 50ms', { returnImmediately: true })),
    );
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(
      first.status?.state,
    );
    const done = await eventually(async () => {
      const task = await tickerClient.getTask({
        tenant: '',
        id: first.id,
        historyLength: undefined,
      });
      return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
    });
    expect(outputOf(done)).toBe('tick 1\ntick 2\ntick 3');
  });

  it('streams the task as it runs: working with the first tick, each tick appended, completed', async () => {
    const events = await collect(tickerClient.sendMessageStream(textRequest('3 every 40ms')));
    expect(kindsOf(events)).toEqual([
      'task',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate:TASK_STATE_COMPLETED',
    ]);
    const first = events[0]?.payload;
    expect(first?.$case === 'task' && first.value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(first?.$case === 'task' && outputOf(first.value)).toBe('tick 1');
    const updates = events.flatMap((event) =>
      event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : [],
    );
    expect(updates.map((update) => textOf(update.artifact?.parts))).toEqual([
      '\ntick 2',
      '\ntick 3',
    ]);
    // The SDK's v0.3 REST client drops `append` when decoding (the server sends it, see the
    // parity tests), so it is only checked on the other transports.
    if (flavour.binding === 'JSONRPC' || flavour.version === '1.0') {
      expect(updates.map((update) => update.append)).toEqual([true, true]);
    }
  });

  it('gets a task with its whole history, or none with historyLength 0', async () => {
    const task = asTask(await echoClient.sendMessage(textRequest('remember me')));
    const full = await echoClient.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(full.history?.map((message) => textOf(message.parts))).toEqual(['remember me']);
    const bare = await echoClient.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(bare.history ?? []).toEqual([]);
    expect(outputOf(bare)).toBe('remember me');
  });

  it('cancels the task of a blocking send whose caller went away: the agent stops', async () => {
    const client = await officialClient(wait.cardUrl, flavour);
    const input = `abandoned ${flavour.binding} ${flavour.version}`;
    const contextId = crypto.randomUUID();
    await sendAndLeave(client, waiting, input, contextId);
    const tasks = await eventually(async () => {
      const page = await wait.server.requestHandler.listTasks(
        ListTasksRequest.fromJSON({ contextId }),
        new ServerCallContext({ requestedVersion: '1.0' }),
      );
      return page.tasks[0]?.status?.state === TaskState.TASK_STATE_CANCELED
        ? page.tasks
        : undefined;
    });
    expect(tasks).toHaveLength(1);
  });

  it('cancels a running task: the agent stops and the task ends canceled', async () => {
    const started = asTask(
      await tickerClient.sendMessage(textRequest('50 every 100ms', { returnImmediately: true })),
    );
    await eventually(async () => {
      const task = await tickerClient.getTask({
        tenant: '',
        id: started.id,
        historyLength: undefined,
      });
      return outputOf(task).includes('tick 2') ? task : undefined;
    });
    const canceled = await tickerClient.cancelTask({
      tenant: '',
      id: started.id,
      metadata: undefined,
    });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const outputAtCancel = outputOf(canceled);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await tickerClient.getTask({
      tenant: '',
      id: started.id,
      historyLength: undefined,
    });
    expect(later.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(outputOf(later)).toBe(outputAtCancel);
    expect(outputAtCancel).not.toContain('tick 50');
  });

  it('refuses to cancel a completed task', async () => {
    const task = asTask(await echoClient.sendMessage(textRequest('finished')));
    await expect(
      echoClient.cancelTask({ tenant: '', id: task.id, metadata: undefined }),
    ).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
  });

  it('subscribes to a running task and follows it to the end', async () => {
    const started = asTask(
      await tickerClient.sendMessage(textRequest('4 every 60ms', { returnImmediately: true })),
    );
    const events = await collect(tickerClient.resubscribeTask({ tenant: '', id: started.id }));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(kindsOf(events).at(-1)).toBe('statusUpdate:TASK_STATE_COMPLETED');
    const done = await tickerClient.getTask({
      tenant: '',
      id: started.id,
      historyLength: undefined,
    });
    expect(outputOf(done)).toBe('tick 1\ntick 2\ntick 3\ntick 4');
  });

  it('answers an unknown task with TaskNotFoundError', async () => {
    await expect(
      echoClient.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(
      echoClient.cancelTask({ tenant: '', id: 'no-such-task', metadata: undefined }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('answers a streamed follow-up to an unknown task with TaskNotFoundError', async () => {
    const followUp = SendMessageRequest.fromJSON({
      message: {
        messageId: 'follow-up',
        role: 'ROLE_USER',
        taskId: 'no-such-task',
        parts: [{ text: 'x' }],
      },
    });
    const events = async () => {
      for await (const _event of echoClient.sendMessageStream(followUp)) {
        // Nothing should come before the error.
      }
    };
    await expect(events()).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('fails the task when the agent fails, with the agent error as status message', async () => {
    const task = asTask(await failingClient.sendMessage(textRequest('anything')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(task.status?.message?.parts)).toBe('The failing agent failed on purpose');
  });
});

describe.each(FLAVOURS.filter((flavour) => flavour.version === '1.0'))(
  'ListTasks over $binding',
  (flavour) => {
    it('lists the tasks of a context, newest first', async () => {
      const client = await officialClient(echo.cardUrl, flavour);
      const contextId = `list-${flavour.binding}`;
      const first = asTask(await client.sendMessage(textRequest('one', { contextId })));
      const second = asTask(await client.sendMessage(textRequest('two', { contextId })));
      const page = await client.listTasks(
        ListTasksRequest.fromJSON({ contextId, includeArtifacts: true }),
      );
      expect(page.totalSize).toBe(2);
      expect(page.tasks.map((task) => task.id).sort()).toEqual([first.id, second.id].sort());
      expect(page.tasks.map(outputOf).sort()).toEqual(['one', 'two']);
    });

    it('lists for a request built as a plain object (the client sends status UNRECOGNIZED)', async () => {
      const client = await officialClient(echo.cardUrl, flavour);
      const task = asTask(await client.sendMessage(textRequest('plain')));
      const page = await client.listTasks({ pageSize: 100 } as ListTasksRequest);
      expect(page.tasks.map((listed) => listed.id)).toContain(task.id);
    });
  },
);
