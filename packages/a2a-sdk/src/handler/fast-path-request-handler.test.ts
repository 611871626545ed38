import {
  ListTasksRequest,
  type Message,
  Role,
  SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  type AgentExecutionEvent,
  type AgentExecutor,
  ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { type Agent, defineAgent } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentCard } from '../card/agent-card.ts';
import { createAgentExecutor } from '../executor/agent-executor.ts';
import { ListenerExecutionEventBusManager } from '../store/event-bus.ts';
import { createA2ATaskStore } from '../store/memory-task-store.ts';
import { eventually, kindsOf, outputOf, textOf, textRequest } from '../test-support/sdk-client.ts';
import { FastPathRequestHandler } from './fast-path-request-handler.ts';

const echo = createEchoAgent();

function handlerFor(
  agent: Agent,
  executor: AgentExecutor = createAgentExecutor({ agent }),
  options: { store?: TaskStore; replyWith?: string } = {},
) {
  const card = createAgentCard({
    agent,
    card: {
      name: agent.name,
      version: '1.0.0',
      description: agent.name,
      url: 'http://127.0.0.1:1/a2a/agent',
    },
  });
  return new FastPathRequestHandler(
    card,
    options.store ?? createA2ATaskStore(),
    executor,
    new ListenerExecutionEventBusManager(),
    options.replyWith === undefined ? {} : { replyWith: options.replyWith as 'task' },
  );
}

const context = () => new ServerCallContext({ requestedVersion: '1.0' });

function asTask(result: Message | Task): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

function followUp(taskId: string, text: string, configuration?: object): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], taskId },
    ...(configuration === undefined ? {} : { configuration }),
  });
}

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const historyOf = (task: Task) => (task.history ?? []).map((message) => textOf(message.parts));

/** An executor that publishes the given events, then returns (or throws `error`). */
function scripted(
  events: (taskId: string, contextId: string) => AgentExecutionEvent[],
  error?: Error,
) {
  return {
    async execute(requestContext, bus) {
      for (const event of events(requestContext.taskId, requestContext.contextId)) {
        bus.publish(event);
      }
      if (error !== undefined) throw error;
    },
    async cancelTask() {},
  } satisfies AgentExecutor;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('FastPathRequestHandler', () => {
  it('answers a new task without deep-copying anything', async () => {
    const handler = handlerFor(echo);
    const clone = vi.spyOn(globalThis, 'structuredClone');
    const task = asTask(await handler.sendMessage(textRequest('no copies'), context()));
    const events = await collect(handler.sendMessageStream(textRequest('nor here'), context()));
    expect(clone).not.toHaveBeenCalled();
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(task)).toBe('no copies');
    expect(kindsOf(events)).toEqual(['task', 'statusUpdate:TASK_STATE_COMPLETED']);
  });

  it('saves a task once per batch of events: a quick task once, in its final state', async () => {
    const store = createA2ATaskStore();
    const save = vi.spyOn(store, 'save');
    const handler = handlerFor(echo, undefined, { store });
    const task = asTask(await handler.sendMessage(textRequest('one two three'), context()));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(save).toHaveBeenCalledTimes(1);
    expect(save.mock.calls[0]?.[0].status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const events = await collect(handler.sendMessageStream(textRequest('four five'), context()));
    expect(save).toHaveBeenCalledTimes(2);
    // Each streamed task event is the task as it was right after that event.
    const first = events[0]?.payload;
    expect(first?.$case === 'task' && first.value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(kindsOf(events)).toEqual(['task', 'statusUpdate:TASK_STATE_COMPLETED']);
  });

  it('refuses a historyLength that is not a non-negative integer, whatever the binding', async () => {
    const handler = handlerFor(echo);
    const task = asTask(await handler.sendMessage(textRequest('kept'), context()));
    const refusal = (message: string) => ({ name: 'RequestMalformedError', message });
    const negative = refusal('historyLength must be non-negative');
    const fraction = refusal('historyLength must be a valid integer');
    await expect(
      handler.getTask({ tenant: '', id: task.id, historyLength: -1 }, context()),
    ).rejects.toMatchObject(negative);
    // The v0.3 converter passes the wire value on as it is.
    const v03 = { tenant: '', id: task.id, historyLength: '2' as unknown as number };
    await expect(handler.getTask(v03, context())).rejects.toMatchObject(fraction);
    const list = ListTasksRequest.fromJSON({ historyLength: 1.5 });
    await expect(handler.listTasks(list, context())).rejects.toMatchObject(fraction);
    const send = textRequest('never', { historyLength: -3 });
    await expect(handler.sendMessage(send, context())).rejects.toMatchObject(negative);
    await expect(collect(handler.sendMessageStream(send, context()))).rejects.toMatchObject(
      negative,
    );
    const listed = await handler.listTasks(
      ListTasksRequest.fromJSON({ historyLength: 0 }),
      context(),
    );
    expect(listed.tasks.map((listedTask) => listedTask.id)).toEqual([task.id]);
    expect(listed.tasks[0]?.history ?? []).toEqual([]);
  });

  it('answers a non-blocking request with the task as its first event left it', async () => {
    const handler = handlerFor(echo);
    const task = asTask(
      await handler.sendMessage(textRequest('quick', { returnImmediately: true }), context()),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const stored = await handler.getTask(
      { tenant: '', id: task.id, historyLength: undefined },
      context(),
    );
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('saves the finished task with its history, and applies historyLength to the answer only', async () => {
    const handler = handlerFor(echo);
    const answer = asTask(
      await handler.sendMessage(textRequest('keep me', { historyLength: 0 }), context()),
    );
    expect(answer.history ?? []).toEqual([]);
    const stored = await handler.getTask(
      { tenant: '', id: answer.id, historyLength: undefined },
      context(),
    );
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(historyOf(stored)).toEqual(['keep me']);
    expect(outputOf(stored)).toBe('keep me');
  });

  it('returns at once when asked to: the task is observable with GetTask while it runs, and cancelable', async () => {
    const handler = handlerFor(createTickerAgent());
    const started = asTask(
      await handler.sendMessage(
        textRequest('50 every 40ms', { returnImmediately: true }),
        context(),
      ),
    );
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const running = await eventually(async () => {
      const task = await handler.getTask(
        { tenant: '', id: started.id, historyLength: undefined },
        context(),
      );
      return outputOf(task).includes('tick 2') ? task : undefined;
    });
    expect(running.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(historyOf(running)).toEqual(['50 every 40ms']);
    const canceled = await handler.cancelTask(
      { tenant: '', id: started.id, metadata: undefined },
      context(),
    );
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const later = await handler.getTask(
      { tenant: '', id: started.id, historyLength: undefined },
      context(),
    );
    expect(later.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(outputOf(later)).not.toContain('tick 50');
  });

  it('lets a follow-up message join a running task, answered once it ends, each chunk stored once', async () => {
    const handler = handlerFor(createTickerAgent());
    const started = asTask(
      await handler.sendMessage(
        textRequest('3 every 60ms', { returnImmediately: true }),
        context(),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 80));
    const joined = asTask(await handler.sendMessage(followUp(started.id, 'and then?'), context()));
    expect(joined.id).toBe(started.id);
    expect(joined.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The SDK's own path would consume the task's events a second time, into a second copy saved
    // over the first: a chunk already saved when it joined was stored twice.
    expect(outputOf(joined)).toBe('tick 1\ntick 2\ntick 3');
    const stored = await handler.getTask(
      { tenant: '', id: started.id, historyLength: undefined },
      context(),
    );
    expect(historyOf(stored)).toEqual(['3 every 60ms', 'and then?']);
    expect(outputOf(stored)).toBe('tick 1\ntick 2\ntick 3');
  });

  it('serves a task started with referenceTaskIds on its own path: a follow-up stores each chunk once', async () => {
    const handler = handlerFor(createTickerAgent());
    const earlier = asTask(await handler.sendMessage(textRequest('1'), context()));
    const request = textRequest('3 every 60ms', { returnImmediately: true });
    (request.message as Message).referenceTaskIds = [earlier.id];
    const started = asTask(await handler.sendMessage(request, context()));
    await new Promise((resolve) => setTimeout(resolve, 80));
    const joined = asTask(await handler.sendMessage(followUp(started.id, 'and then?'), context()));
    expect(outputOf(joined)).toBe('tick 1\ntick 2\ntick 3');
    const stored = await handler.getTask(
      { tenant: '', id: started.id, historyLength: undefined },
      context(),
    );
    expect(outputOf(stored)).toBe('tick 1\ntick 2\ntick 3');
  });

  it("hands the executor the stored tasks a message refers to, and logs no caller's id", async () => {
    const seen: Array<string[] | undefined> = [];
    const executor = createAgentExecutor({ agent: echo });
    const recording: AgentExecutor = {
      execute(requestContext, bus) {
        seen.push(requestContext.referenceTasks?.map((task) => task.id));
        return executor.execute(requestContext, bus);
      },
      cancelTask: (taskId, bus) => executor.cancelTask(taskId, bus),
    };
    const handler = handlerFor(echo, recording);
    const earlier = asTask(await handler.sendMessage(textRequest('earlier'), context()));
    const warn = vi.spyOn(console, 'warn');
    const forged = 'x\n{"level":30,"msg":"forged"}';
    for (const streaming of [false, true]) {
      const request = textRequest('refers');
      (request.message as Message).referenceTaskIds = [earlier.id, forged];
      if (streaming) await collect(handler.sendMessageStream(request, context()));
      else expect(asTask(await handler.sendMessage(request, context())).id).not.toBe(earlier.id);
    }
    expect(seen).toEqual([undefined, [earlier.id], [earlier.id]]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('refuses a new task when the store is full of running ones, and stops its run', async () => {
    const aborted: string[] = [];
    const waiting = defineAgent({
      name: 'waiting',
      async *run(input, { signal }) {
        yield { type: 'text-delta', delta: 'started' };
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        aborted.push(input);
      },
    });
    const handler = handlerFor(waiting, undefined, { store: createA2ATaskStore({ maxTasks: 1 }) });
    const first = asTask(
      await handler.sendMessage(textRequest('first', { returnImmediately: true }), context()),
    );
    await expect(
      handler.sendMessage(textRequest('second', { returnImmediately: true }), context()),
    ).rejects.toThrow('Too many unfinished tasks: try again later');
    await expect(
      collect(handler.sendMessageStream(textRequest('third'), context())),
    ).rejects.toThrow('Too many unfinished tasks');
    await eventually(async () => (aborted.length === 2 ? aborted : undefined));
    expect(aborted.sort()).toEqual(['second', 'third']);
    await handler.cancelTask({ tenant: '', id: first.id, metadata: undefined }, context());
  });

  it('answers a non-blocking follow-up to a running task at once, with the task as it is', async () => {
    const handler = handlerFor(createTickerAgent());
    const started = asTask(
      await handler.sendMessage(
        textRequest('3 every 60ms', { returnImmediately: true }),
        context(),
      ),
    );
    const request = followUp(started.id, 'and then?', { returnImmediately: true });
    const joined = asTask(await handler.sendMessage(request, context()));
    expect(joined.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(historyOf(joined)).toEqual(['3 every 60ms', 'and then?']);
    const stored = await eventually(async () => {
      const task = await handler.getTask(
        { tenant: '', id: started.id, historyLength: undefined },
        context(),
      );
      return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
    });
    expect(historyOf(stored)).toEqual(['3 every 60ms', 'and then?']);
    expect(outputOf(stored)).toBe('tick 1\ntick 2\ntick 3');
  });

  it('ends a streaming follow-up to a running task with UnsupportedOperation, as the SDK does', async () => {
    // The SDK's handler wants a follow-up's stream to start with a Task, and the running task's
    // next event on its bus is an update (documented; SubscribeToTask follows a running task).
    const handler = handlerFor(createTickerAgent());
    const started = asTask(
      await handler.sendMessage(
        textRequest('3 every 60ms', { returnImmediately: true }),
        context(),
      ),
    );
    await expect(
      collect(handler.sendMessageStream(followUp(started.id, 'and then?'), context())),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
    const subscribed = await collect(
      handler.resubscribe({ tenant: '', id: started.id }, context()),
    );
    expect(kindsOf(subscribed)[0]).toBe('task');
    expect(kindsOf(subscribed).at(-1)).toBe('statusUpdate:TASK_STATE_COMPLETED');
    // The error is the stream's: the message joined the task (documented: do not send it again).
    const ended = await handler.getTask({ tenant: '', id: started.id }, context());
    const texts = (ended.history ?? []).map((entry) => entry.parts[0]?.content);
    expect(texts).toContainEqual(expect.objectContaining({ value: 'and then?' }));
  });

  it('refuses a streaming follow-up to a finished task before any event, as the SDK does', async () => {
    const handler = handlerFor(echo);
    const task = asTask(await handler.sendMessage(textRequest('done'), context()));
    await expect(
      collect(handler.sendMessageStream(followUp(task.id, 'more'), context())),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('refuses a follow-up message to a finished task, as the SDK does', async () => {
    const handler = handlerFor(echo);
    const task = asTask(await handler.sendMessage(textRequest('done'), context()));
    await expect(handler.sendMessage(followUp(task.id, 'more'), context())).rejects.toMatchObject({
      name: 'UnsupportedOperationError',
    });
  });

  it('fails the task when the executor throws, blocking or streaming', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const handler = handlerFor(
      echo,
      scripted(() => [], new Error('boom')),
    );
    const task = asTask(await handler.sendMessage(textRequest('x'), context()));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(task.status?.message?.parts)).toBe('Agent execution error: boom');
    expect(historyOf(task)[0]).toBe('x');
    const events = await collect(handler.sendMessageStream(textRequest('y'), context()));
    expect(kindsOf(events)).toEqual(['task', 'statusUpdate:TASK_STATE_FAILED']);
  });

  it('passes a Message answer through, blocking or streaming', async () => {
    const reply = (_taskId: string, contextId: string) => [
      AgentEvent.message({
        messageId: 'reply',
        contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: [
          {
            content: { $case: 'text', value: 'no task needed' },
            mediaType: 'text/plain',
            filename: '',
            metadata: undefined,
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    ];
    const handler = handlerFor(echo, scripted(reply));
    const message = (await handler.sendMessage(textRequest('hi'), context())) as Message;
    expect(textOf(message.parts)).toBe('no task needed');
    const events = await collect(handler.sendMessageStream(textRequest('hi'), context()));
    expect(kindsOf(events)).toEqual(['message']);
  });

  it('rejects an executor that publishes nothing, and a stream that starts with an update', async () => {
    const silent = handlerFor(
      echo,
      scripted(() => []),
    );
    await expect(silent.sendMessage(textRequest('x'), context())).rejects.toThrow(
      'Agent execution finished without a result',
    );
    await expect(
      silent.sendMessage(textRequest('x', { returnImmediately: true }), context()),
    ).rejects.toMatchObject({ name: 'RequestMalformedError' });
    const early = handlerFor(
      echo,
      scripted((taskId, contextId) => [
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: '' },
          metadata: undefined,
        }),
      ]),
    );
    await expect(
      collect(early.sendMessageStream(textRequest('x'), context())),
    ).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });

  it('refuses an unknown replyWith, or message replies from an executor that cannot reply', () => {
    const create = (executor: AgentExecutor, replyWith: string) =>
      handlerFor(echo, executor, { replyWith });
    expect(() => create(createAgentExecutor({ agent: echo }), 'messages')).toThrow(
      "replyWith must be 'task' or 'message', got 'messages'",
    );
    expect(() =>
      create(
        scripted(() => []),
        'message',
      ),
    ).toThrow(/needs an executor that can reply/);
    expect(() =>
      create(
        scripted(() => []),
        'task',
      ),
    ).not.toThrow();
  });

  it('with replyWith message, answers a blocking new message with a message and stores nothing', async () => {
    const store = createA2ATaskStore();
    const save = vi.spyOn(store, 'save');
    const handler = handlerFor(echo, undefined, { store, replyWith: 'message' });
    const reply = await handler.sendMessage(textRequest('plain answer'), context());
    expect(reply).toMatchObject({ role: Role.ROLE_AGENT });
    expect(textOf((reply as Message).parts)).toBe('plain answer');
    expect(save).not.toHaveBeenCalled();
    const task = asTask(
      await handler.sendMessage(textRequest('as a task', { returnImmediately: true }), context()),
    );
    expect(task.id).not.toBe('');
  });
});
