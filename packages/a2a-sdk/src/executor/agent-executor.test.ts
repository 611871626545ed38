import { type Message, Role, SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk';
import {
  type AgentExecutionEvent,
  DefaultExecutionEventBus,
  RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { type Agent, createTaskRunner, defineAgent, InvalidInputError } from '@agentport/core';
import { createAssistantAgent, createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { createNumericAgent } from '@agentport/core/testing';
import { describe, expect, it } from 'vitest';
import { createGatedAgent } from '../test-support/gated-agent.ts';
import { createAgentExecutor } from './agent-executor.ts';
import { textOfParts } from './parts.ts';

function requestContext(text: string, taskId = 'task-1'): RequestContext {
  const request = SendMessageRequest.fromJSON({
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text }], taskId, contextId: 'ctx-1' },
  });
  return new RequestContext(request, taskId, 'ctx-1', new ServerCallContext());
}

/** A user's text message, as a SendMessage request carries it. */
function userMessage(text: string): Message {
  return SendMessageRequest.fromJSON({
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text }] },
  }).message as Message;
}

function recorder() {
  const bus = new DefaultExecutionEventBus();
  const events: AgentExecutionEvent[] = [];
  bus.on('event', (event) => events.push(event));
  return { bus, events };
}

const summary = (events: AgentExecutionEvent[]) =>
  events.map((event) => {
    if (event.kind === 'statusUpdate') {
      const text = textOfParts(event.data.status?.message?.parts ?? []);
      return `${TaskState[event.data.status?.state ?? 0]}${text ? `: ${text.split('\n')[0]}` : ''}`;
    }
    if (event.kind === 'artifactUpdate') {
      return `${event.data.append ? 'append' : 'artifact'}: ${textOfParts(event.data.artifact?.parts ?? [])}`;
    }
    if (event.kind === 'task') {
      const output = event.data.artifacts.map((artifact) => textOfParts(artifact.parts)).join('');
      return `task ${TaskState[event.data.status?.state ?? 0]}${output ? `: ${output}` : ''}`;
    }
    return event.kind;
  });

describe('createAgentExecutor', () => {
  it('creates the task working with the first text, appends the rest and completes', async () => {
    const { bus, events } = recorder();
    await createAgentExecutor({ agent: createTickerAgent() }).execute(
      requestContext('2 every 10ms'),
      bus,
    );
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING: tick 1',
      'append: \ntick 2',
      'TASK_STATE_COMPLETED',
    ]);
    expect(events[0]).toMatchObject({ kind: 'task', data: { id: 'task-1', contextId: 'ctx-1' } });
  });

  it('publishes a quick answer in the task event itself: two events in all', async () => {
    const { bus, events } = recorder();
    await createAgentExecutor({ agent: createEchoAgent() }).execute(
      requestContext('one two three'),
      bus,
    );
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING: one two three',
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('merges text deltas that arrive in the same tick into one artifact update', async () => {
    const agent = defineAgent({
      name: 'bursty',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
        await new Promise((resolve) => setTimeout(resolve, 5));
        yield { type: 'text-delta', delta: 'b' };
        yield { type: 'text-delta', delta: 'c' };
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    });
    const { bus, events } = recorder();
    await createAgentExecutor({ agent }).execute(requestContext('x'), bus);
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING: a',
      'append: bc',
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('publishes the task at once, working, for an agent that is slow to start', async () => {
    const agent = defineAgent({
      name: 'slow',
      async *run() {
        await new Promise((resolve) => setTimeout(resolve, 20));
        yield { type: 'text-delta', delta: 'late' };
      },
    });
    const { bus, events } = recorder();
    const running = createAgentExecutor({ agent }).execute(requestContext('x'), bus);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(summary(events)).toEqual(['task TASK_STATE_WORKING']);
    await running;
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING',
      'artifact: late',
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('shows tool calls, tool results and handoffs as working-status messages', async () => {
    const { bus, events } = recorder();
    await createAgentExecutor({ agent: createAssistantAgent() }).execute(
      requestContext('what is 6*7'),
      bus,
    );
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING',
      "TASK_STATE_WORKING: Calling tool 'calculator'",
      "TASK_STATE_WORKING: Tool 'calculator' returned",
      'artifact: 6*7 = 42',
      'TASK_STATE_COMPLETED',
    ]);
    const handoff = recorder();
    await createAgentExecutor({ agent: createAssistantAgent() }).execute(
      requestContext('repeat hi'),
      handoff.bus,
    );
    expect(summary(handoff.events)).toContain(
      "TASK_STATE_WORKING: Handing off from 'assistant' to 'echo'",
    );
  });

  it('publishes the final output when the agent returns one it did not stream', async () => {
    const agent = defineAgent({
      name: 'returner',
      async *run() {
        yield { type: 'text-delta', delta: 'draft' };
        await new Promise((resolve) => setTimeout(resolve, 5));
        return 'final answer';
      },
    });
    const { bus, events } = recorder();
    await createAgentExecutor({ agent }).execute(requestContext('x'), bus);
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING: draft',
      'artifact: final answer',
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('fails the task with the agent error', async () => {
    const agent = defineAgent({
      name: 'picky',
      async *run(input) {
        yield* [];
        throw new InvalidInputError(`Cannot handle '${input}'`);
      },
    });
    const { bus, events } = recorder();
    await createAgentExecutor({ agent }).execute(requestContext('this'), bus);
    expect(summary(events).at(-1)).toBe("TASK_STATE_FAILED: Cannot handle 'this'");
  });

  it('fails the task, and a message reply, of a hand-written agent whose output is not a string', async () => {
    const executor = createAgentExecutor({ agent: createNumericAgent() });
    const { bus, events } = recorder();
    await executor.execute(requestContext('x'), bus);
    expect(summary(events).at(-1)).toBe("TASK_STATE_FAILED: Agent 'numeric' failed");
    const reply = await executor.reply({ message: userMessage('x'), contextId: 'ctx-2' });
    expect((reply as Task).status?.state).toBe(TaskState.TASK_STATE_FAILED);
    // Nothing of the number went out as output.
    expect(events.filter((event) => event.kind === 'artifactUpdate')).toEqual([]);
  });

  it('never puts the message of an unexpected error on the wire', async () => {
    const agent = defineAgent({
      name: 'leaky',
      async *run() {
        yield* [];
        throw new Error('database password is hunter2');
      },
    });
    const { bus, events } = recorder();
    await createAgentExecutor({ agent }).execute(requestContext('x'), bus);
    expect(summary(events).at(-1)).toBe("TASK_STATE_FAILED: Agent 'leaky' failed");
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('fails the task of a hand-written agent whose stream throws with agent_failure, as an error event would', async () => {
    const agent: Agent = {
      ...createEchoAgent(),
      stream: () => {
        throw new Error('secret detail');
      },
    };
    const { bus, events } = recorder();
    await createAgentExecutor({ agent }).execute(requestContext('x'), bus);
    const last = events.at(-1);
    expect(last?.kind).toBe('statusUpdate');
    const parts = last?.kind === 'statusUpdate' ? last.data.status?.message?.parts : undefined;
    expect(parts?.map((part) => part.content?.value)).toEqual([
      "Agent 'echo' failed",
      { type: 'error', code: 'agent_failure', message: "Agent 'echo' failed" },
    ]);
    expect(JSON.stringify(events)).not.toContain('secret');
  });

  it('aborts the agent signal on cancel and ends the task canceled', async () => {
    let signal: AbortSignal | undefined;
    const agent = defineAgent({
      name: 'sleeper',
      async *run(_input, context) {
        signal = context.signal;
        yield { type: 'text-delta', delta: 'zzz' };
        await new Promise((resolve) => setTimeout(resolve, 10_000));
      },
    });
    const executor = createAgentExecutor({ agent });
    const { bus, events } = recorder();
    const running = executor.execute(requestContext('x'), bus);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await executor.cancelTask('task-1', bus);
    await running;
    expect(signal?.aborted).toBe(true);
    expect(summary(events).slice(-2)).toEqual([
      'task TASK_STATE_WORKING: zzz',
      'TASK_STATE_CANCELED: The task was canceled',
    ]);
  });

  it('publishes no text after a cancel, only the canceled status (CancelTask stores each chunk again)', async () => {
    const executor = createAgentExecutor({
      agent: defineAgent({
        name: 'ticking',
        async *run() {
          yield { type: 'text-delta', delta: 'one' };
          await new Promise((resolve) => setTimeout(resolve, 20));
          yield { type: 'text-delta', delta: ' two' };
          // Asked for the next event while ' two' waits for the end of the tick: cancel now.
          void executor.cancelTask('task-1', bus);
          await new Promise((resolve) => setTimeout(resolve, 10_000));
        },
      }),
    });
    const { bus, events } = recorder();
    await executor.execute(requestContext('x'), bus);
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING: one',
      'TASK_STATE_CANCELED: The task was canceled',
    ]);
  });

  it('ends a task canceled when asked to cancel one that does not run here', async () => {
    const { bus, events } = recorder();
    await createAgentExecutor({ agent: createEchoAgent() }).cancelTask('elsewhere', bus);
    expect(summary(events)).toEqual(['TASK_STATE_CANCELED']);
  });

  it('cancels every running task on close', async () => {
    const signals: AbortSignal[] = [];
    const agent = defineAgent({
      name: 'sleeper',
      async *run(_input, context) {
        signals.push(context.signal);
        yield { type: 'text-delta', delta: 'zzz' };
        await new Promise((resolve) => setTimeout(resolve, 10_000));
      },
    });
    const executor = createAgentExecutor({ agent });
    const first = recorder();
    const second = recorder();
    const running = [
      executor.execute(requestContext('x', 'task-1'), first.bus),
      executor.execute(requestContext('y', 'task-2'), second.bus),
    ];
    await new Promise((resolve) => setTimeout(resolve, 20));
    executor.close();
    await Promise.all(running);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
    expect(summary(first.events).at(-1)).toBe('TASK_STATE_CANCELED: The task was canceled');
    expect(summary(second.events).at(-1)).toBe('TASK_STATE_CANCELED: The task was canceled');
  });

  it('ends runs asked for after close canceled, without running the agent', async () => {
    let runs = 0;
    const agent = defineAgent({
      name: 'counted',
      async *run(input) {
        runs += 1;
        yield { type: 'text-delta', delta: input };
      },
    });
    const executor = createAgentExecutor({ agent });
    executor.close();
    const late = recorder();
    await executor.execute(requestContext('late', 'task-9'), late.bus);
    expect(summary(late.events).at(-1)).toBe('TASK_STATE_CANCELED: The task was canceled');
    const reply = await executor.reply({
      message: SendMessageRequest.fromJSON({
        message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'late' }] },
      }).message as Message,
      contextId: 'ctx-2',
    });
    expect((reply as Task).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(runs).toBe(0);
  });
});

describe('createAgentExecutor on a shared runner', () => {
  it('runs its tasks in the runner it is given, by the SDK ids, with the caller message', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const executor = createAgentExecutor({ agent: runner.agent, runner });
    await executor.execute(requestContext('hello'), recorder().bus);
    expect(await runner.get('task-1')).toMatchObject({
      contextId: 'ctx-1',
      status: 'completed',
      output: 'hello',
      messages: [{ messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] }],
    });
    expect(() => createAgentExecutor({ agent: createTickerAgent(), runner })).toThrow(TypeError);
  });

  it('follows a task another surface started, and ends with its end', async () => {
    const gated = createGatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const executor = createAgentExecutor({ agent: gated.agent, runner });
    const started = await runner.submit('elsewhere', { id: 'task-1' });
    const { bus, events } = recorder();
    const context = requestContext('a follow-up');
    /** A follow-up to `task-1`, as the SDK's handler hands it over: with the task it loaded. */
    const followUp = (contextId: string) =>
      new RequestContext(context.request, 'task-1', contextId, context.context, {
        id: 'task-1',
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: '' },
        artifacts: [],
        history: [],
        metadata: undefined,
      });
    const following = executor.execute(followUp(started.contextId), bus);
    await new Promise((resolve) => setImmediate(resolve));
    gated.release('elsewhere');
    await following;
    expect(summary(events)).toEqual([
      'task TASK_STATE_WORKING',
      'artifact: done elsewhere',
      'TASK_STATE_COMPLETED',
    ]);
    // One that ended meanwhile is answered with its end, not run again.
    const late = recorder();
    await executor.execute(followUp(started.contextId), late.bus);
    expect(summary(late.events)).toEqual(['task TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(gated.started).toEqual(['elsewhere']);
  });
});

describe('createAgentExecutor reply', () => {
  const message = userMessage;

  it('answers with an agent message holding the whole output, in the given context', async () => {
    const executor = createAgentExecutor({ agent: createTickerAgent() });
    const reply = await executor.reply({ message: message('2 every 5ms'), contextId: 'ctx-9' });
    expect(reply).toMatchObject({ role: Role.ROLE_AGENT, contextId: 'ctx-9', taskId: '' });
    expect(textOfParts((reply as Message).parts)).toBe('tick 1\ntick 2');
  });

  it('answers a failed run with a failed task carrying the error, its code and the partial output', async () => {
    const agent = defineAgent({
      name: 'picky',
      async *run() {
        yield { type: 'text-delta', delta: 'so far' };
        throw new InvalidInputError('Not that');
      },
    });
    const reply = (await createAgentExecutor({ agent }).reply({
      message: message('x'),
      contextId: 'ctx-1',
    })) as Task;
    expect(reply.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(reply.contextId).toBe('ctx-1');
    expect(reply.status?.message?.parts.map((part) => part.content?.value)).toEqual([
      'Not that',
      { type: 'error', code: 'invalid_input', message: 'Not that' },
    ]);
    expect(reply.artifacts.map((artifact) => textOfParts(artifact.parts))).toEqual(['so far']);
    expect(reply.history.map((entry) => entry.taskId)).toEqual([reply.id, reply.id]);
  });

  it('never puts the message of an unexpected error on the wire', async () => {
    const agent: Agent = {
      ...createEchoAgent(),
      stream: () => {
        throw new Error('secret detail');
      },
    };
    const reply = (await createAgentExecutor({ agent }).reply({
      message: message('x'),
      contextId: 'ctx-1',
    })) as Task;
    expect(reply.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    // The same parts as a run that ends with an error event: the code is agent_failure.
    expect(reply.status?.message?.parts.map((part) => part.content?.value)).toEqual([
      "Agent 'echo' failed",
      { type: 'error', code: 'agent_failure', message: "Agent 'echo' failed" },
    ]);
    expect(JSON.stringify(reply)).not.toContain('secret');
  });

  it('aborts the agent when the caller signal aborts, or at close, and answers canceled', async () => {
    const executor = createAgentExecutor({ agent: createTickerAgent() });
    const caller = new AbortController();
    const first = executor.reply({
      message: message('50 every 20ms'),
      contextId: 'a',
      signal: caller.signal,
    });
    const second = executor.reply({ message: message('50 every 20ms'), contextId: 'b' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    caller.abort();
    const canceled = (await first) as Task;
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(textOfParts(canceled.artifacts[0]?.parts ?? [])).toContain('tick 1');
    executor.close();
    expect(((await second) as Task).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const late = await executor.reply({
      message: message('1'),
      contextId: 'c',
      signal: AbortSignal.abort(),
    });
    expect((late as Task).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe('createAgentExecutor maxConcurrency', () => {
  const message = (text: string) =>
    SendMessageRequest.fromJSON({
      message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
    }).message as Message;
  /** Lets the runs started so far reach their agent (and their first event leave). */
  const nextTurn = async () => {
    // The task reaches the runner, then its first event waits for the end of the tick.
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it('publishes a task that waits for a slot as submitted, then working when it starts', async () => {
    const gated = createGatedAgent();
    const executor = createAgentExecutor({ agent: gated.agent, maxConcurrency: 1 });
    const first = recorder();
    const second = recorder();
    const running = executor.execute(requestContext('a', 'task-a'), first.bus);
    const waiting = executor.execute(requestContext('b', 'task-b'), second.bus);
    await nextTurn();
    expect(summary(second.events)).toEqual(['task TASK_STATE_SUBMITTED']);
    expect(gated.started).toEqual(['a']);
    expect(summary(first.events)).toEqual(['task TASK_STATE_WORKING']);

    gated.release('a');
    gated.release('b');
    await Promise.all([running, waiting]);
    expect(gated.started).toEqual(['a', 'b']);
    expect(summary(second.events)).toEqual([
      'task TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'artifact: done b',
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('cancels a waiting task without running the agent, and keeps the others in order', async () => {
    const gated = createGatedAgent();
    const executor = createAgentExecutor({ agent: gated.agent, maxConcurrency: 1 });
    const buses = [recorder(), recorder(), recorder()];
    const runs = ['a', 'b', 'c'].map((input, index) =>
      executor.execute(requestContext(input, `task-${input}`), (buses[index] ?? recorder()).bus),
    );
    await executor.cancelTask('task-b', recorder().bus);
    await runs[1];
    expect(summary(buses[1]?.events ?? [])).toEqual([
      'task TASK_STATE_SUBMITTED',
      'TASK_STATE_CANCELED: The task was canceled',
    ]);
    gated.release('a');
    gated.release('c');
    await Promise.all(runs);
    expect(gated.started).toEqual(['a', 'c']);
    expect(summary(buses[2]?.events ?? []).at(-1)).toBe('TASK_STATE_COMPLETED');
  });

  it('drops a waiting reply whose caller goes away, and answers it canceled at once', async () => {
    const gated = createGatedAgent();
    const executor = createAgentExecutor({ agent: gated.agent, maxConcurrency: 1 });
    const caller = new AbortController();
    const first = executor.reply({ message: message('a'), contextId: 'x' });
    const abandoned = executor.reply({
      message: message('b'),
      contextId: 'x',
      signal: caller.signal,
    });
    const last = executor.reply({ message: message('c'), contextId: 'x' });
    caller.abort();
    expect(((await abandoned) as Task).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    gated.release('a');
    gated.release('c');
    expect(textOfParts(((await first) as Message).parts)).toBe('done a');
    expect(textOfParts(((await last) as Message).parts)).toBe('done c');
    expect(gated.started).toEqual(['a', 'c']);
  });

  it('at close(), cancels waiting tasks and replies without running them', async () => {
    const gated = createGatedAgent();
    const executor = createAgentExecutor({ agent: gated.agent, maxConcurrency: 1 });
    const running = recorder();
    const waiting = recorder();
    const runs = [
      executor.execute(requestContext('a', 'task-a'), running.bus),
      executor.execute(requestContext('b', 'task-b'), waiting.bus),
    ];
    // Message answers take turns of their own (tasks take the runner's).
    const replies = [
      executor.reply({ message: message('c'), contextId: 'x' }),
      executor.reply({ message: message('d'), contextId: 'x' }),
    ];
    await nextTurn();
    executor.close();
    await Promise.all(runs);
    expect(summary(running.events).at(-1)).toBe('TASK_STATE_CANCELED: The task was canceled');
    expect(summary(waiting.events)).toEqual([
      'task TASK_STATE_SUBMITTED',
      'TASK_STATE_CANCELED: The task was canceled',
    ]);
    for (const reply of replies) {
      expect(((await reply) as Task).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    }
    expect([...gated.started].sort()).toEqual(['a', 'c']);
  });

  it('runs 16 at once by default: the 17th waits in submitted', async () => {
    const gated = createGatedAgent();
    const executor = createAgentExecutor({ agent: gated.agent });
    const buses = Array.from({ length: 17 }, () => recorder());
    const runs = buses.map((bus, index) =>
      executor.execute(requestContext(`${index}`, `task-${index}`), bus.bus),
    );
    await nextTurn();
    expect(gated.started).toHaveLength(16);
    expect(summary(buses[15]?.events ?? [])).toEqual(['task TASK_STATE_WORKING']);
    expect(summary(buses[16]?.events ?? [])).toEqual(['task TASK_STATE_SUBMITTED']);
    executor.close();
    await Promise.all(runs);
  });

  it('refuses a maxConcurrency that is not an integer of at least 1', () => {
    for (const maxConcurrency of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createAgentExecutor({ agent: createEchoAgent(), maxConcurrency })).toThrow(
        InvalidInputError,
      );
    }
  });
});
