import { ListTasksRequest, Role, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import {
  createMemoryConversationStore,
  createMemoryTaskStore,
  createTaskRunner,
  type TaskRunner,
} from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { asTask, collect, historyOf, messageTo } from '../test-support/conversation.ts';
import { FLAVOURS, kindsOf, officialClient, outputOf, textOf } from '../test-support/sdk-client.ts';
import { type ServedAgent, serveAgent } from '../test-support/servers.ts';

// Two agents on one task store and one conversation store, as on the gateway: each must treat
// the other's tasks and conversations as unknown.
const store = createMemoryTaskStore();
const conversations = createMemoryConversationStore();
let bookingRunner: TaskRunner;
let assistantRunner: TaskRunner;
let booking: ServedAgent;
let assistant: ServedAgent;

beforeAll(async () => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  bookingRunner = createTaskRunner({ agent: createBookingAgent(), store, conversations });
  assistantRunner = createTaskRunner({ agent: createAssistantAgent(), store, conversations });
  [booking, assistant] = await Promise.all([
    serveAgent(bookingRunner.agent, { runner: bookingRunner }),
    serveAgent(assistantRunner.agent, { runner: assistantRunner }),
  ]);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([booking?.close(), assistant?.close()]);
  await Promise.all([bookingRunner?.close(), assistantRunner?.close()]);
});

describe.each(FLAVOURS)(
  'conversations with the official client over $binding (A2A $version)',
  (flavour) => {
    let bookingClient: Client;
    let assistantClient: Client;

    beforeAll(async () => {
      [bookingClient, assistantClient] = await Promise.all([
        officialClient(booking.cardUrl, flavour),
        officialClient(assistant.cardUrl, flavour),
      ]);
    });

    it('completes the booking in three turns, two of them input-required, continuing by task id', async () => {
      const first = asTask(await bookingClient.sendMessage(messageTo('a table, please')));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(first.status?.message?.role).toBe(Role.ROLE_AGENT);
      expect(textOf(first.status?.message?.parts)).toBe('For how many people?');
      const second = asTask(await bookingClient.sendMessage(messageTo('4', { taskId: first.id })));
      expect(second.id).toBe(first.id);
      expect(second.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(textOf(second.status?.message?.parts)).toBe('What time? (HH:MM)');
      const third = asTask(
        await bookingClient.sendMessage(messageTo('19:30', { taskId: first.id })),
      );
      expect(third.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(outputOf(third)).toBe('Booked a table for 4 at 19:30.');
      expect(third.contextId).toBe(first.contextId);
      expect(historyOf(third)).toEqual([
        'user: a table, please',
        'agent: For how many people?',
        'user: 4',
        'agent: What time? (HH:MM)',
        'user: 19:30',
      ]);
    });

    it('never shows the state the agent keeps across its pauses', async () => {
      const first = asTask(await bookingClient.sendMessage(messageTo('a table')));
      const second = asTask(await bookingClient.sendMessage(messageTo('3', { taskId: first.id })));
      const read = await bookingClient.getTask({
        tenant: '',
        id: first.id,
        historyLength: undefined,
      });
      for (const task of [first, second, read]) {
        expect(JSON.stringify(task)).not.toMatch(/"step"|inputRequest|resumeState/);
      }
      expect(second.metadata ?? {}).toEqual({});
    });

    it('streams each turn to its end: the input-required status update (with the question) is the last event', async () => {
      const opening = await collect(bookingClient.sendMessageStream(messageTo('a table')));
      expect(kindsOf(opening)).toEqual(['task', 'statusUpdate:TASK_STATE_INPUT_REQUIRED']);
      const last = opening.at(-1)?.payload;
      const taskId = last?.$case === 'statusUpdate' ? last.value.taskId : '';
      expect(last?.$case === 'statusUpdate' && textOf(last.value.status?.message?.parts)).toBe(
        'For how many people?',
      );
      const asked = await collect(bookingClient.sendMessageStream(messageTo('2', { taskId })));
      expect(kindsOf(asked).at(-1)).toBe('statusUpdate:TASK_STATE_INPUT_REQUIRED');
      const done = await collect(bookingClient.sendMessageStream(messageTo('12:00', { taskId })));
      expect(kindsOf(done).at(-1)).toBe('statusUpdate:TASK_STATE_COMPLETED');
      const task = await bookingClient.getTask({
        tenant: '',
        id: taskId,
        historyLength: undefined,
      });
      expect(outputOf(task)).toBe('Booked a table for 2 at 12:00.');
    });

    it('continues the waiting task of a conversation named by its contextId alone', async () => {
      const contextId = crypto.randomUUID();
      const first = asTask(await bookingClient.sendMessage(messageTo('book', { contextId })));
      expect(first.contextId).toBe(contextId);
      const second = asTask(await bookingClient.sendMessage(messageTo('6', { contextId })));
      expect(second.id).toBe(first.id);
      expect(textOf(second.status?.message?.parts)).toBe('What time? (HH:MM)');
      const third = asTask(await bookingClient.sendMessage(messageTo('08:15', { contextId })));
      expect(third.id).toBe(first.id);
      expect(outputOf(third)).toBe('Booked a table for 6 at 08:15.');
    });

    it('recalls earlier messages within a contextId, and not across two', async () => {
      const contextId = crypto.randomUUID();
      await assistantClient.sendMessage(messageTo('my name is Ada', { contextId }));
      await assistantClient.sendMessage(messageTo('what is 2+2', { contextId }));
      const recalled = asTask(
        await assistantClient.sendMessage(messageTo('what did I say?', { contextId })),
      );
      expect(outputOf(recalled)).toBe('my name is Ada\nwhat is 2+2');
      const other = asTask(
        await assistantClient.sendMessage(
          messageTo('what did I say?', { contextId: crypto.randomUUID() }),
        ),
      );
      expect(outputOf(other)).toBe('You have not said anything yet.');
      const alone = asTask(await assistantClient.sendMessage(messageTo('what did I say?')));
      expect(outputOf(alone)).toBe('You have not said anything yet.');
    });

    it('returns the history per historyLength: on SendMessage and on GetTask', async () => {
      const first = asTask(await bookingClient.sendMessage(messageTo('table')));
      const second = asTask(
        await bookingClient.sendMessage(messageTo('5', { taskId: first.id, historyLength: 2 })),
      );
      expect(historyOf(second)).toEqual(['user: 5', 'agent: What time? (HH:MM)']);
      const last = await bookingClient.getTask({ tenant: '', id: first.id, historyLength: 1 });
      expect(historyOf(last)).toEqual(['agent: What time? (HH:MM)']);
      const none = await bookingClient.getTask({ tenant: '', id: first.id, historyLength: 0 });
      expect(none.history ?? []).toEqual([]);
      const all = await bookingClient.getTask({
        tenant: '',
        id: first.id,
        historyLength: undefined,
      });
      expect(historyOf(all)).toHaveLength(4);
      expect(all.contextId).toBe(first.contextId);
    });

    it('cancels a task that waits for input; a message to it then is refused', async () => {
      const first = asTask(await bookingClient.sendMessage(messageTo('table')));
      const canceled = await bookingClient.cancelTask({
        tenant: '',
        id: first.id,
        metadata: undefined,
      });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await expect(
        bookingClient.sendMessage(messageTo('4', { taskId: first.id })),
      ).rejects.toMatchObject({
        name: 'UnsupportedOperationError',
      });
    });

    it('refuses a message to a completed task as the SDK does (UnsupportedOperation)', async () => {
      const first = asTask(await bookingClient.sendMessage(messageTo('table')));
      await bookingClient.sendMessage(messageTo('1', { taskId: first.id }));
      await bookingClient.sendMessage(messageTo('20:00', { taskId: first.id }));
      await expect(
        bookingClient.sendMessage(messageTo('again', { taskId: first.id })),
      ).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
    });

    it("answers another agent's task id or contextId with TaskNotFound, never joining them", async () => {
      const contextId = crypto.randomUUID();
      const theirs = asTask(await bookingClient.sendMessage(messageTo('table', { contextId })));
      await expect(
        assistantClient.sendMessage(messageTo('4', { taskId: theirs.id })),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(
        assistantClient.sendMessage(messageTo('what did I say?', { contextId })),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      const streamed = async () => {
        for await (const _event of assistantClient.sendMessageStream(
          messageTo('hi', { contextId }),
        )) {
          // Nothing should come before the error.
        }
      };
      await expect(streamed()).rejects.toBeInstanceOf(TaskNotFoundError);
      const still = await bookingClient.getTask({
        tenant: '',
        id: theirs.id,
        historyLength: undefined,
      });
      expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(historyOf(still)).toEqual(['user: table', 'agent: For how many people?']);
    });

    it('accepts referenceTaskIds on a new message', async () => {
      const earlier = asTask(await assistantClient.sendMessage(messageTo('what is 1+1')));
      const request = messageTo('what is 2+2');
      if (request.message !== undefined) request.message.referenceTaskIds = [earlier.id, 'unknown'];
      const task = asTask(await assistantClient.sendMessage(request));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  },
);

describe.each(FLAVOURS.filter((flavour) => flavour.version === '1.0'))(
  'ListTasks of a conversation over $binding',
  (flavour) => {
    it('lists the tasks of a context with their contextId and history', async () => {
      const client = await officialClient(booking.cardUrl, flavour);
      const contextId = crypto.randomUUID();
      const first = asTask(await client.sendMessage(messageTo('table', { contextId })));
      const page = await client.listTasks(
        ListTasksRequest.fromJSON({ contextId, historyLength: 1 }),
      );
      expect(page.tasks.map((task) => task.id)).toEqual([first.id]);
      expect(page.tasks[0]?.contextId).toBe(contextId);
      expect(page.tasks[0]?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(historyOf(page.tasks[0] ?? first)).toEqual(['agent: For how many people?']);
    });
  },
);

describe.each(FLAVOURS)(
  'SubscribeToTask of a task waiting for input over $binding (A2A $version)',
  (flavour) => {
    it('gives the task, then its input-required status with the question, and ends', async () => {
      const client = await officialClient(booking.cardUrl, flavour);
      const first = asTask(await client.sendMessage(messageTo('table')));
      const events = await collect(client.resubscribeTask({ tenant: '', id: first.id }));
      expect(kindsOf(events)).toEqual(['task', 'statusUpdate:TASK_STATE_INPUT_REQUIRED']);
      const last = events.at(-1)?.payload;
      expect(last?.$case === 'statusUpdate' && textOf(last.value.status?.message?.parts)).toBe(
        'For how many people?',
      );
      const read = await client.getTask({ tenant: '', id: first.id, historyLength: undefined });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    });
  },
);

describe('a message naming a task and another context', () => {
  it('is refused as the SDK refuses it (contextId mismatch), the task left as it was', async () => {
    const client = await officialClient(
      booking.cardUrl,
      FLAVOURS[0] ?? { binding: 'JSONRPC', version: '1.0' },
    );
    const first = asTask(await client.sendMessage(messageTo('table')));
    await expect(
      client.sendMessage(messageTo('4', { taskId: first.id, contextId: crypto.randomUUID() })),
    ).rejects.toThrow(/contextId mismatch/);
    const read = await client.getTask({ tenant: '', id: first.id, historyLength: undefined });
    expect(historyOf(read)).toEqual(['user: table', 'agent: For how many people?']);
  });
});
