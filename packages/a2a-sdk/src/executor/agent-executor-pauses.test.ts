import { type Task, TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { createTaskRunner } from '@agentport/core';
import { createBookingAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { createAgentCard } from '../card/agent-card.ts';
import { createCoreTaskStore } from '../store/core-task-store.ts';
import { historyOf, messageTo } from '../test-support/conversation.ts';
import { textOf } from '../test-support/sdk-client.ts';
import { createAgentExecutor } from './agent-executor.ts';

/** The SDK's own request handler over the executor and the core store view (no fast path). */
function sdkHandler() {
  const runner = createTaskRunner({ agent: createBookingAgent() });
  const card = createAgentCard({
    agent: runner.agent,
    card: {
      name: 'booking',
      version: '1.0.0',
      description: 'booking',
      url: 'http://localhost/a2a/booking',
    },
  });
  const executor = createAgentExecutor({ agent: runner.agent, runner });
  const handler = new DefaultRequestHandler(card, createCoreTaskStore(runner), executor);
  return { runner, handler, context: new ServerCallContext({ requestedVersion: '1.0' }) };
}

describe('createAgentExecutor with the SDK own request handler', () => {
  it('pauses at input-required, resumes by task id with the state, and completes', async () => {
    const { runner, handler, context } = sdkHandler();
    const first = (await handler.sendMessage(messageTo('a table'), context)) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(first.status?.message?.parts)).toBe('For how many people?');
    const second = (await handler.sendMessage(
      messageTo('7', { taskId: first.id }),
      context,
    )) as Task;
    expect(textOf(second.status?.message?.parts)).toBe('What time? (HH:MM)');
    const done = (await handler.sendMessage(
      messageTo('18:00', { taskId: first.id }),
      context,
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const stored = await runner.get(first.id);
    expect(stored.output).toBe('Booked a table for 7 at 18:00.');
    // The answer joined the history once (the store view leaves a paused task's to the resume).
    expect(stored.messages.map((message) => message.role)).toEqual([
      'user',
      'agent',
      'user',
      'agent',
      'user',
    ]);
    expect(historyOf(done).at(-1)).toBe('user: 18:00');
    await runner.close();
  });
});
