import type { ExecutionEventBus, ServerCallContext } from '@a2a-js/sdk/server';
import {
  type ConversationStore,
  createMemoryConversationStore,
  createTaskRunner,
} from '@agentport/core';
import { createBookingAgent, createEchoAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListenerExecutionEventBusManager } from '../store/event-bus.ts';
import { asTask, messageTo } from '../test-support/conversation.ts';
import { FLAVOURS, officialClient, outputOf } from '../test-support/sdk-client.ts';
import { type ServedAgent, serveAgent } from '../test-support/servers.ts';

/** A conversation store that counts its reads. */
function countingStore(): ConversationStore & { reads: number } {
  const inner = createMemoryConversationStore();
  const store = {
    reads: 0,
    get(contextId: string, options?: { limit?: number }) {
      store.reads += 1;
      return inner.get(contextId, options);
    },
    newContextId: inner.newContextId.bind(inner),
    append: inner.append.bind(inner),
    deleteExpired: inner.deleteExpired.bind(inner),
  };
  return store;
}

/** A bus manager that counts the buses it holds. */
class CountingBusManager extends ListenerExecutionEventBusManager {
  readonly held = new Set<string>();
  override createOrGetByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus {
    this.held.add(taskId);
    return super.createOrGetByTaskId(taskId, context);
  }
  override cleanupByTaskId(taskId: string, context?: ServerCallContext): void {
    this.held.delete(taskId);
    super.cleanupByTaskId(taskId, context);
  }
}

const conversations = countingStore();
const buses = new CountingBusManager();
let echo: ServedAgent;
let booking: ServedAgent;

beforeAll(async () => {
  const runner = createTaskRunner({ agent: createEchoAgent(), conversations });
  [echo, booking] = await Promise.all([
    serveAgent(runner.agent, { runner }),
    serveAgent(createBookingAgent(), { eventBusManager: buses }),
  ]);
});

afterAll(async () => {
  await Promise.all([echo?.close(), booking?.close()]);
});

describe.each(FLAVOURS)('what a conversation costs over $binding (A2A $version)', (flavour) => {
  it('reads no conversation for a message without a contextId: its task names its own', async () => {
    const client = await officialClient(echo.cardUrl, flavour);
    const before = conversations.reads;
    const task = asTask(await client.sendMessage(messageTo('quick')));
    expect(outputOf(task)).toBe('quick');
    expect(task.contextId).toBe(task.id);
    expect(conversations.reads).toBe(before);
  });

  it('keeps no event bus for a task that waits for input', async () => {
    const client = await officialClient(booking.cardUrl, flavour);
    const first = asTask(await client.sendMessage(messageTo('a table')));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(buses.held.has(first.id)).toBe(false);
    await client.sendMessage(messageTo('4', { taskId: first.id }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(buses.held.has(first.id)).toBe(false);
  });
});
