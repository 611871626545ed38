import { type Message, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { type Agent, createMemoryConversationStore, createTaskRunner } from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asTask, historyOf, messageTo } from '../test-support/conversation.ts';
import { FLAVOURS, officialClient, textOf } from '../test-support/sdk-client.ts';
import { type ServedAgent, serveAgent } from '../test-support/servers.ts';

let booking: ServedAgent;
let assistant: ServedAgent;

// One conversation store for both, as on the gateway: each must refuse the other's contexts.
const conversations = createMemoryConversationStore();

beforeAll(async () => {
  const serve = (agent: Agent) => {
    const runner = createTaskRunner({ agent, conversations });
    return serveAgent(agent, { runner, replyWith: 'message' });
  };
  [booking, assistant] = await Promise.all([
    serve(createBookingAgent()),
    serve(createAssistantAgent()),
  ]);
});

afterAll(async () => {
  await Promise.all([booking?.close(), assistant?.close()]);
});

function asMessage(result: Message | Task): Message {
  expect(result).toHaveProperty('messageId');
  return result as Message;
}

describe.each(FLAVOURS)(
  'replyWith message, conversations over $binding (A2A $version)',
  (flavour) => {
    let bookingClient: Client;
    let assistantClient: Client;

    beforeAll(async () => {
      [bookingClient, assistantClient] = await Promise.all([
        officialClient(booking.cardUrl, flavour),
        officialClient(assistant.cardUrl, flavour),
      ]);
    });

    it('answers a run that pauses with its task in input-required, which the task id continues', async () => {
      const first = asTask(await bookingClient.sendMessage(messageTo('a table')));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(textOf(first.status?.message?.parts)).toBe('For how many people?');
      expect(historyOf(first)).toEqual(['user: a table', 'agent: For how many people?']);
      const second = asTask(await bookingClient.sendMessage(messageTo('2', { taskId: first.id })));
      expect(textOf(second.status?.message?.parts)).toBe('What time? (HH:MM)');
      const third = asTask(
        await bookingClient.sendMessage(messageTo('21:00', { taskId: first.id })),
      );
      expect(third.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const read = await bookingClient.getTask({
        tenant: '',
        id: first.id,
        historyLength: undefined,
      });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('continues a paused task by its contextId alone, the last turn answered with a message', async () => {
      const contextId = crypto.randomUUID();
      const first = asTask(await bookingClient.sendMessage(messageTo('a table', { contextId })));
      expect(first.contextId).toBe(contextId);
      const second = asTask(await bookingClient.sendMessage(messageTo('3', { contextId })));
      expect(second.id).toBe(first.id);
      const done = asMessage(await bookingClient.sendMessage(messageTo('07:45', { contextId })));
      expect(textOf(done.parts)).toBe('Booked a table for 3 at 07:45.');
      expect(done.contextId).toBe(contextId);
    });

    it('recalls the turns of a contextId answered with messages, and nothing across contexts', async () => {
      const contextId = crypto.randomUUID();
      const first = asMessage(
        await assistantClient.sendMessage(messageTo('hello there', { contextId })),
      );
      expect(first.contextId).toBe(contextId);
      const recalled = asMessage(
        await assistantClient.sendMessage(messageTo('what did I say?', { contextId })),
      );
      expect(textOf(recalled.parts)).toBe('hello there');
      // A reply without a contextId is not recorded (the fast path): its answer's contextId
      // names a conversation that starts with the next message sent with it.
      const alone = asMessage(await assistantClient.sendMessage(messageTo('not kept')));
      await assistantClient.sendMessage(messageTo('kept', { contextId: alone.contextId }));
      const later = asMessage(
        await assistantClient.sendMessage(
          messageTo('what did I say?', { contextId: alone.contextId }),
        ),
      );
      expect(textOf(later.parts)).toBe('kept');
    });

    it("refuses another agent's contextId with TaskNotFound, leaving its conversation alone", async () => {
      const contextId = crypto.randomUUID();
      asTask(await bookingClient.sendMessage(messageTo('a table', { contextId })));
      await expect(
        assistantClient.sendMessage(messageTo('what did I say?', { contextId })),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      const next = asTask(await bookingClient.sendMessage(messageTo('2', { contextId })));
      expect(textOf(next.status?.message?.parts)).toBe('What time? (HH:MM)');
    });
  },
);
