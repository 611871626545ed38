import { TaskState } from '@a2a-js/sdk';
import {
  createMemoryConversationStore,
  createMemoryTaskStore,
  defineAgent,
  type Task,
} from '@agentport/core';
import { createBookingAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './testing/in-process-gateway.ts';
import { officialClient } from './testing/sdk-client.ts';
import { readEvents } from './testing/sse.ts';

// Two gateways on one task store and one conversation store: what a durable store shared by
// replicas gives, checked here on the in-memory stores (the PostgreSQL ones have their own tests).
let aborts = 0;
const waiter = defineAgent({
  name: 'waiter',
  async *run(_input, context) {
    yield { type: 'text-delta', delta: 'waiting' };
    await new Promise<void>((resolve) => {
      context.signal.addEventListener('abort', () => {
        aborts += 1;
        resolve();
      });
    });
  },
});

let first: RunningGateway;
let second: RunningGateway;

beforeAll(async () => {
  const shared = { store: createMemoryTaskStore(), conversations: createMemoryConversationStore() };
  first = await startGateway({
    agents: [waiter, createBookingAgent()],
    defaultAgent: 'waiter',
    ...shared,
  });
  second = await startGateway({
    agents: [waiter, createBookingAgent()],
    defaultAgent: 'waiter',
    ...shared,
  });
});

afterAll(async () => {
  await Promise.all([first.stop(), second.stop()]);
});

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field
async function post(base: RunningGateway, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${base.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return response.json();
}

async function eventually(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('two gateways sharing their stores (the store option)', () => {
  it("reads, lists, streams and cancels through one gateway the other's running task", async () => {
    const created = (await post(first, '/agents/waiter/tasks', { input: 'go' })).task as Task;
    const events = await fetch(
      `${second.url}/agents/waiter/tasks/${created.id}/events?lastEventId=0`,
    );
    const before = aborts;
    const read = await readEvents(events, (event) => {
      if (event.event === 'text-delta')
        void post(second, `/agents/waiter/tasks/${created.id}/cancel`, {});
    });
    expect(read.at(-1)?.data).toContain('canceled');
    await eventually(() => aborts > before);
    const listed = (await (await fetch(`${second.url}/agents/waiter/tasks`)).json()) as {
      tasks: Task[];
    };
    expect(listed.tasks.map((task) => task.id)).toContain(created.id);
    const client = await officialClient(`${second.url}/a2a/waiter/.well-known/agent-card.json`, {
      binding: 'JSONRPC',
      version: '1.0',
    });
    const got = await client.getTask({ tenant: '', id: created.id, historyLength: undefined });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('continues through one gateway a conversation paused on the other', async () => {
    const paused = await post(first, '/agents/booking/invoke', { input: 'A table please' });
    expect(paused.status).toBe('input-required');
    const next = await post(second, '/agents/booking/invoke', {
      input: '2',
      contextId: paused.contextId,
    });
    expect(next).toMatchObject({ status: 'input-required', result: 'What time? (HH:MM)' });
    const done = await post(first, `/agents/booking/tasks/${paused.taskId}/messages?wait=5`, {
      input: '20:00',
    });
    expect(done.task).toMatchObject({
      status: 'completed',
      output: 'Booked a table for 2 at 20:00.',
    });
  });
});
