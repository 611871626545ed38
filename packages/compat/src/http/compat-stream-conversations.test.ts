import { createMemoryConversationStore, createMemoryTaskStore } from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { describe, expect, it } from 'vitest';
import { createRunner } from '../runner.ts';
import { createCompatApp } from './compat-app.ts';

function appOf() {
  const runner = createRunner({ agents: [createAssistantAgent(), createBookingAgent()] });
  return createCompatApp({ runner });
}

type App = ReturnType<typeof appOf>;

function post(app: App, body: unknown): Promise<Response> {
  return Promise.resolve(
    app.request('/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

async function readEvents(response: Response): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const stream = response.body
    ?.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  if (stream === undefined) throw new Error('no body');
  const reader = stream.getReader();
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    events.push(step.value);
  }
  return events;
}

/** A streamed run: its conversation (header), its events, the last one's name and data. */
async function streamed(app: App, body: Record<string, unknown>) {
  const response = await post(app, { ...body, stream: true });
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  const last = events.at(-1);
  return {
    conversationId: response.headers.get('conversation-id') ?? '',
    location: response.headers.get('content-location') ?? '',
    events,
    end: last?.event,
    data: JSON.parse(last?.data ?? 'null') as Record<string, unknown>,
  };
}

describe('POST /runs with stream: true in a conversation', () => {
  it('completes the booking conversation, each pause ending its stream with input-required', async () => {
    const app = appOf();
    const first = await streamed(app, { agent_name: 'booking', input: 'a table please' });
    expect(first.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.end).toBe('input-required');
    expect(first.data).toMatchObject({
      question: 'For how many people?',
      taskId: expect.any(String),
      contextId: first.conversationId,
    });
    expect(JSON.stringify(first.events)).not.toContain('step');
    const conversation = { agent_name: 'booking', conversation_id: first.conversationId };
    const second = await streamed(app, { ...conversation, input: '5' });
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.end).toBe('input-required');
    expect(second.data).toMatchObject({
      question: 'What time? (HH:MM)',
      taskId: first.data.taskId,
    });
    expect(second.location).toBe(`/runs/${first.data.taskId}/stream`);
    const third = await streamed(app, { ...conversation, input: '18:00' });
    expect(third.end).toBe('done');
    expect(third.data).toEqual({ output: 'Booked a table for 5 at 18:00.' });
    // Every event of the answered task's stream comes after the answer.
    const ids = third.events.map((event) => Number(event.id));
    expect(Math.min(...ids)).toBeGreaterThan(Number(second.events.at(-1)?.id));
  });

  it('answers a streamed pause with a JSON run and a JSON pause with a streamed run', async () => {
    const app = appOf();
    const first = await streamed(app, { agent_name: 'booking', input: 'hi' });
    const answered = await post(app, {
      agent_name: 'booking',
      input: '2',
      conversation_id: first.conversationId,
    });
    expect(await answered.json()).toMatchObject({
      output: 'What time? (HH:MM)',
      interruption: { task_id: first.data.taskId },
    });
    const third = await streamed(app, {
      agent_name: 'booking',
      input: '09:15',
      conversation_id: first.conversationId,
    });
    expect(third.data).toEqual({ output: 'Booked a table for 2 at 09:15.' });
  });

  it('hands a streamed run its conversation: recall within a conversation_id, not across two', async () => {
    const app = appOf();
    const first = await streamed(app, { agent_name: 'assistant', input: 'my name is Ada' });
    const recall = await streamed(app, {
      agent_name: 'assistant',
      input: 'what did I say?',
      conversation_id: first.conversationId,
    });
    expect(recall.data).toEqual({ output: 'my name is Ada' });
    const other = await streamed(app, { agent_name: 'assistant', input: 'what did I say?' });
    expect(other.data).toEqual({ output: 'You have not said anything yet.' });
    // A JSON run of the streamed conversation recalls it too.
    const json = await post(app, {
      agent_name: 'assistant',
      input: 'what did I say?',
      conversation_id: first.conversationId,
    });
    expect(await json.json()).toMatchObject({ output: 'my name is Ada\nwhat did I say?' });
  });

  it('joins the earlier input items to the conversation and streams the last one with its parts', async () => {
    const app = appOf();
    const run = await streamed(app, {
      agent_name: 'assistant',
      input: [
        { role: 'user', content: 'I like tea' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Noted.' }] },
        { role: 'user', content: 'what did I say?' },
      ],
    });
    expect(run.data).toEqual({ output: 'I like tea' });
    const parts = await streamed(app, {
      agent_name: 'assistant',
      conversation_id: run.conversationId,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'describe the parts' },
            { type: 'input_file', file_data: 'aGVsbG8=', filename: 'a.txt' },
          ],
        },
      ],
    });
    expect(parts.data).toEqual({ output: 'text text/plain 18 bytes\nfile text/plain 5 bytes' });
  });

  it("answers 404 context_not_found as JSON, before any stream, for another agent's conversation", async () => {
    const app = appOf();
    const booking = await streamed(app, { agent_name: 'booking', input: 'hi' });
    const response = await post(app, {
      agent_name: 'assistant',
      input: 'hi',
      conversation_id: booking.conversationId,
      stream: true,
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'context_not_found' } });
  });

  it('shares the stores it is given with the runner given the same', async () => {
    const store = createMemoryTaskStore();
    const conversations = createMemoryConversationStore();
    const runner = createRunner({ agents: [createBookingAgent()], store, conversations });
    const app = createCompatApp({ runner, store, conversations });
    const first = await streamed(app, { agent_name: 'booking', input: 'hi' });
    expect((await store.get(String(first.data.taskId)))?.status).toBe('input-required');
    expect((await conversations.get(first.conversationId))?.waitingTaskId).toBe(first.data.taskId);
  });

  it('answers 409 task_not_waiting as JSON to the second of two streamed answers racing', async () => {
    const app = appOf();
    const first = await streamed(app, { agent_name: 'booking', input: 'hi' });
    const answer = {
      agent_name: 'booking',
      input: '3',
      conversation_id: first.conversationId,
      stream: true,
    };
    const responses = await Promise.all([post(app, answer), post(app, answer)]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    const refused = responses.find((response) => response.status === 409);
    expect(await refused?.json()).toMatchObject({ error: { code: 'task_not_waiting' } });
    const answered = responses.find((response) => response.status === 200);
    const events = answered === undefined ? [] : await readEvents(answered);
    expect(events.at(-1)?.event).toBe('input-required');
  });

  it('starts a new task for a streamed answer when the runner has no taskRunnerOf (a wrapper)', async () => {
    const inner = createRunner({ agents: [createBookingAgent()] });
    const { taskRunnerOf: _left, ...wrapper } = inner;
    const app = createCompatApp({ runner: wrapper });
    const first = await streamed(app, { agent_name: 'booking', input: 'hi' });
    const second = await streamed(app, {
      agent_name: 'booking',
      input: '3',
      conversation_id: first.conversationId,
    });
    expect(second.data).toMatchObject({ question: 'For how many people?' });
    expect(second.data.taskId).not.toBe(first.data.taskId);
  });
});
