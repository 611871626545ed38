import {
  type Task as A2ATask,
  SendMessageRequest,
  type StreamResponse,
  TaskState,
} from '@a2a-js/sdk';
import type { Task } from '@agentport/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltinGateway } from './testing/in-process-gateway.ts';
import { FLAVOURS, officialClient, outputOf } from './testing/sdk-client.ts';

let url = '';
let stop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  ({ url, stop } = await startBuiltinGateway());
});

afterAll(async () => {
  await stop();
});

// biome-ignore lint/suspicious/noExplicitAny: the JSON answers of four surfaces, read field by field below
async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The text of a stream's output artifact, folded as a client folds it (appends added). */
function streamedText(events: readonly StreamResponse[]): string {
  let text = '';
  for (const { payload } of events) {
    if (payload?.$case === 'task') text = outputOf(payload.value);
    if (payload?.$case !== 'artifactUpdate') continue;
    const chunk = outputOf({ artifacts: [payload.value.artifact] } as A2ATask);
    text = payload.value.append ? text + chunk : chunk;
  }
  return text;
}

/** The text of a hand-rolled task's status message (its question, when input-required). */
const questionOf = (task: Task) =>
  (task.statusMessage?.parts ?? []).map((part) => (part.kind === 'text' ? part.text : '')).join('');

describe('the booking conversation, on every surface', () => {
  it('completes over the hand-rolled A2A routes: create, then two messages', async () => {
    const first = await post('/agents/booking/tasks?wait=5', { input: 'A table please' });
    expect(first.status).toBe(201);
    expect(first.body.task.status).toBe('input-required');
    expect(questionOf(first.body.task)).toBe('For how many people?');
    const { id } = first.body.task as Task;
    const second = await post(`/agents/booking/tasks/${id}/messages?wait=5`, { input: '4' });
    expect(second.status).toBe(200);
    expect(second.body.task.status).toBe('input-required');
    expect(questionOf(second.body.task)).toBe('What time? (HH:MM)');
    const third = await post(`/agents/booking/tasks/${id}/messages?wait=5`, { input: '19:30' });
    expect(third.body.task).toMatchObject({
      status: 'completed',
      output: 'Booked a table for 4 at 19:30.',
    });
    const late = await post(`/agents/booking/tasks/${id}/messages`, { input: 'again' });
    expect(late.status).toBe(409);
  });

  it('completes over REST invoke, continued by contextId', async () => {
    const first = await post('/agents/booking/invoke', { input: 'A table please' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: 'input-required',
      result: 'For how many people?',
      contextId: expect.any(String),
      taskId: expect.any(String),
    });
    const { contextId } = first.body;
    const second = await post('/agents/booking/invoke', { input: '2', contextId });
    expect(second.body).toMatchObject({
      status: 'input-required',
      result: 'What time? (HH:MM)',
      contextId,
    });
    const third = await post('/agents/booking/invoke', { input: '20:15', contextId });
    expect(third.body).toMatchObject({
      status: 'completed',
      result: 'Booked a table for 2 at 20:15.',
      contextId,
    });
  });

  it('completes over compat runs, continued by conversation_id', async () => {
    const first = await post('/compat/runs', { agent_name: 'booking', input: 'A table please' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      agent: 'booking',
      conversation_id: expect.any(String),
      interruption: { question: 'For how many people?', task_id: expect.any(String) },
    });
    const { conversation_id } = first.body;
    const second = await post('/compat/runs', {
      agent_name: 'booking',
      input: '6',
      conversation_id,
    });
    expect(second.body.interruption).toMatchObject({ question: 'What time? (HH:MM)' });
    const third = await post('/compat/runs', {
      agent_name: 'booking',
      input: '07:45',
      conversation_id,
    });
    expect(third.body).toMatchObject({ output: 'Booked a table for 6 at 07:45.', conversation_id });
    expect(third.body.interruption).toBeUndefined();
  });

  describe.each(FLAVOURS)('with the official client over $binding $version', (flavour) => {
    const cardUrl = () => `${url}/a2a/booking/.well-known/agent-card.json`;
    const send = (text: string, ids: { taskId?: string; contextId?: string } = {}) =>
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...ids },
      });
    const questionText = (task: A2ATask) =>
      (task.status?.message?.parts ?? [])
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');

    it('streams a resumed turn to its end, its answer given once', async () => {
      const client = await officialClient(cardUrl(), flavour);
      const turn = async (text: string, ids?: { taskId: string; contextId: string }) => {
        const events = [];
        for await (const event of client.sendMessageStream(send(text, ids))) events.push(event);
        return events;
      };
      const first = await turn('A table please');
      const opened = first[0]?.payload;
      if (opened?.$case !== 'task') throw new Error('the stream opens with its task');
      const ids = { taskId: opened.value.id, contextId: opened.value.contextId };
      const states = (events: typeof first) =>
        events.map(({ payload }) =>
          payload?.$case === 'task' || payload?.$case === 'statusUpdate'
            ? payload.value.status?.state
            : payload?.$case,
        );
      await turn('5', ids);
      const last = await turn('20:30', ids);
      // The text the stream gives, folded as a client folds it, is the answer once.
      expect(streamedText(last)).toBe('Booked a table for 5 at 20:30.');
      expect(states(last)[0]).not.toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(states(last)).not.toContain(TaskState.TASK_STATE_FAILED);
      expect(states(last).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('pauses twice, is continued with the task id, and completes', async () => {
      const client = await officialClient(cardUrl(), flavour);
      const first = (await client.sendMessage(send('A table please'))) as A2ATask;
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(questionText(first)).toBe('For how many people?');
      const ids = { taskId: first.id, contextId: first.contextId };
      const second = (await client.sendMessage(send('3', ids))) as A2ATask;
      expect(second.id).toBe(first.id);
      expect(second.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(questionText(second)).toBe('What time? (HH:MM)');
      const third = (await client.sendMessage(send('18:00', ids))) as A2ATask;
      expect(third.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(outputOf(third)).toBe('Booked a table for 3 at 18:00.');
    });
  });
});

describe('one conversation store for every surface', () => {
  it('continues a booking paused over REST invoke with a compat run and a hand-rolled message', async () => {
    const first = await post('/agents/booking/invoke', { input: 'A table please' });
    const { contextId, taskId } = first.body;
    const second = await post('/compat/runs', {
      agent_name: 'booking',
      input: '8',
      conversation_id: contextId,
    });
    expect(second.body.interruption).toEqual({ question: 'What time? (HH:MM)', task_id: taskId });
    const third = await post(`/agents/booking/tasks/${taskId}/messages?wait=5`, { input: '21:00' });
    expect(third.body.task).toMatchObject({
      status: 'completed',
      output: 'Booked a table for 8 at 21:00.',
    });
  });
});

describe('the assistant remembers within a conversation, and only there', () => {
  it('over REST invoke', async () => {
    const first = await post('/agents/assistant/invoke', { input: 'my name is Ada' });
    const { contextId } = first.body;
    const recalled = await post('/agents/assistant/invoke', {
      input: 'what did I say?',
      contextId,
    });
    expect(recalled.body.result).toBe('my name is Ada');
    const fresh = await post('/agents/assistant/invoke', { input: 'what did I say?' });
    expect(fresh.body.result).toBe('You have not said anything yet.');
  });

  it('over the hand-rolled A2A routes', async () => {
    const first = await post('/agents/assistant/tasks?wait=5', { input: 'remember the milk' });
    const { contextId } = first.body.task as Task;
    const recalled = await post('/agents/assistant/tasks?wait=5', {
      input: 'what did I say?',
      contextId,
    });
    expect(recalled.body.task.output).toBe('remember the milk');
    const other = await post('/agents/assistant/tasks?wait=5', {
      input: 'what did I say?',
      contextId: 'another',
    });
    expect(other.body.task.output).toBe('You have not said anything yet.');
  });

  it('over compat runs', async () => {
    const first = await post('/compat/runs', {
      agent_name: 'assistant',
      input: 'blue is my colour',
    });
    const { conversation_id } = first.body;
    const recalled = await post('/compat/runs', {
      agent_name: 'assistant',
      input: 'what did I say?',
      conversation_id,
    });
    expect(recalled.body.output).toBe('blue is my colour');
  });

  it('refuses the conversation of another agent as unknown', async () => {
    const first = await post('/agents/assistant/invoke', { input: 'secret' });
    const other = await post('/agents/echo/invoke', {
      input: 'hi',
      contextId: first.body.contextId,
    });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('context_not_found');
  });
});

describe.each(FLAVOURS)('parts sent with the official client over $binding $version', (flavour) => {
  it('reach the assistant, which describes them', async () => {
    const client = await officialClient(
      `${url}/a2a/assistant/.well-known/agent-card.json`,
      flavour,
    );
    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [
          { text: 'describe the parts' },
          { data: { size: 'large' } },
          { raw: 'iVBORw0KGgo=', mediaType: 'image/png', filename: 'tiny.png' },
        ],
      },
    });
    const task = (await client.sendMessage(request)) as A2ATask;
    expect(outputOf(task).split('\n')).toEqual([
      'text text/plain 18 bytes',
      'data application/json 16 bytes',
      'file image/png 8 bytes',
    ]);
  });
});

describe('the cards say which parts an agent takes', () => {
  it('advertises files for the assistant, and text and data for echo', async () => {
    const card = async (agent: string) =>
      (await fetch(`${url}/a2a/${agent}/.well-known/agent-card.json`)).json() as Promise<{
        defaultInputModes: string[];
      }>;
    expect((await card('assistant')).defaultInputModes).toContain('image/*');
    expect((await card('echo')).defaultInputModes).toEqual(['text/plain', 'application/json']);
  });
});
