import {
  type AgentRunOptions,
  createMemoryTaskStore,
  defineAgent,
  inputRequired,
} from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { eventsOf, readSSE } from '@agentport/http/testing';
import { describe, expect, it, vi } from 'vitest';
import { createRestServer, type RestServer } from './rest-server.ts';

const json = { 'content-type': 'application/json' };

function createServer(): RestServer {
  return createRestServer()
    .register('booking', createBookingAgent())
    .register('assistant', createAssistantAgent());
}

function post(server: RestServer, path: string, body: unknown, signal?: AbortSignal) {
  return server.app.request(path, {
    method: 'POST',
    headers: json,
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

interface InvokeAnswer {
  result: string;
  contextId: string;
  status: string;
  taskId?: string;
}

async function invoke(server: RestServer, name: string, body: unknown): Promise<InvokeAnswer> {
  const response = await post(server, `/${name}/invoke`, body);
  expect(response.status).toBe(200);
  return (await response.json()) as InvokeAnswer;
}

async function stream(server: RestServer, name: string, body: unknown) {
  const response = await post(server, `/${name}/stream`, body);
  expect(response.status).toBe(200);
  const parsed = await readSSE(response);
  return { response, parsed, events: eventsOf(parsed) };
}

async function errorOf(response: Response): Promise<[number, string, string]> {
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  return [response.status, error.code, error.message];
}

describe('booking over POST /{name}/invoke', () => {
  it('completes in three turns within a contextId, two of them input-required with the task id', async () => {
    const server = createServer();
    const first = await invoke(server, 'booking', { input: 'A table, please', contextId: 'b-1' });
    expect(first).toEqual({
      result: 'For how many people?',
      contextId: 'b-1',
      status: 'input-required',
      taskId: expect.any(String),
    });
    const second = await invoke(server, 'booking', { input: '4', contextId: 'b-1' });
    expect(second).toEqual({
      result: 'What time? (HH:MM)',
      contextId: 'b-1',
      status: 'input-required',
      taskId: first.taskId,
    });
    const third = await invoke(server, 'booking', { input: '19:30', contextId: 'b-1' });
    expect(third).toEqual({
      result: 'Booked a table for 4 at 19:30.',
      contextId: 'b-1',
      status: 'completed',
    });
  });

  it('completes in three turns by taskId, from a first turn without a contextId', async () => {
    const server = createServer();
    const first = await invoke(server, 'booking', { input: 'Hello' });
    expect(first.status).toBe('input-required');
    expect(first.contextId).toEqual(expect.any(String));
    const second = await invoke(server, 'booking', { input: '2', taskId: first.taskId });
    expect(second).toMatchObject({ result: 'What time? (HH:MM)', contextId: first.contextId });
    const third = await invoke(server, 'booking', { input: '08:15', taskId: first.taskId });
    expect(third).toEqual({
      result: 'Booked a table for 2 at 08:15.',
      contextId: first.contextId,
      status: 'completed',
    });
  });

  it('asks the same question again for an answer it cannot take, still input-required', async () => {
    const server = createServer();
    const first = await invoke(server, 'booking', { input: 'Hi', contextId: 'b-2' });
    const again = await invoke(server, 'booking', { input: 'lots', contextId: 'b-2' });
    expect(again).toMatchObject({
      result: 'For how many people?',
      status: 'input-required',
      taskId: first.taskId,
    });
  });
});

describe('booking over POST /{name}/stream', () => {
  it('ends each stream with input-required (question, parts, taskId, contextId) and the last with done', async () => {
    const server = createServer();
    const first = await stream(server, 'booking', { input: 'A table' });
    const asked = first.events.at(-1);
    expect(asked?.event).toBe('input-required');
    const { taskId, contextId } = (asked?.data ?? {}) as { taskId: string; contextId: string };
    expect(asked?.data).toEqual({
      question: 'For how many people?',
      parts: [{ kind: 'text', text: 'For how many people?' }],
      taskId,
      contextId,
    });
    expect(JSON.stringify(first.events)).not.toContain('step');
    const second = await stream(server, 'booking', { input: '3', contextId });
    expect(second.events.at(-1)).toEqual({
      event: 'input-required',
      data: {
        question: 'What time? (HH:MM)',
        parts: [{ kind: 'text', text: 'What time? (HH:MM)' }],
        taskId,
        contextId,
      },
    });
    expect(second.response.headers.get('content-location')).toBe(`/booking/tasks/${taskId}/stream`);
    expect(first.response.headers.get('context-id')).toBe(contextId);
    expect(second.response.headers.get('context-id')).toBe(contextId);
    const third = await stream(server, 'booking', { input: '20:00', taskId });
    expect(third.events.map((event) => event.event)).toEqual(['text-delta', 'done']);
    expect(third.events.at(-1)?.data).toEqual({ output: 'Booked a table for 3 at 20:00.' });
    // One task, its log numbered on across the three streams.
    const ids = [first, second, third].flatMap(({ parsed }) =>
      parsed.events.map((event) => Number(event.id)),
    );
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('continues a conversation an invoke started, and an invoke continues one a stream started', async () => {
    const server = createServer();
    const started = await invoke(server, 'booking', { input: 'Table', contextId: 'mixed' });
    const streamed = await stream(server, 'booking', { input: '5', contextId: 'mixed' });
    expect(streamed.events.at(-1)?.data).toMatchObject({
      question: 'What time? (HH:MM)',
      taskId: started.taskId,
    });
    const ended = await invoke(server, 'booking', { input: '12:00', contextId: 'mixed' });
    expect(ended).toMatchObject({ result: 'Booked a table for 5 at 12:00.', status: 'completed' });
  });
});

describe('assistant conversations', () => {
  it('recalls earlier messages within a contextId and not across two', async () => {
    const server = createServer();
    await invoke(server, 'assistant', { input: 'My name is Ada', contextId: 'one' });
    await stream(server, 'assistant', { input: 'I like tea', contextId: 'one' });
    const recalled = await invoke(server, 'assistant', {
      input: 'what did I say?',
      contextId: 'one',
    });
    expect(recalled.result).toBe('My name is Ada\nI like tea');
    const other = await invoke(server, 'assistant', { input: 'what did I say?', contextId: 'two' });
    expect(other.result).toBe('You have not said anything yet.');
    const streamed = await stream(server, 'assistant', {
      input: 'what did I say?',
      contextId: 'one',
    });
    expect(streamed.events.at(-1)?.data).toEqual({
      output: 'My name is Ada\nI like tea\nwhat did I say?',
    });
  });

  it('answers in the contextId it was given, or in a new one it returns', async () => {
    const server = createServer();
    const first = await invoke(server, 'assistant', { input: 'hello' });
    const recalled = await invoke(server, 'assistant', {
      input: 'what did I say?',
      contextId: first.contextId,
    });
    expect(recalled).toEqual({ result: 'hello', contextId: first.contextId, status: 'completed' });
  });

  it("names a stream's conversation in its Context-Id header, a new one continued by the next turn", async () => {
    const server = createServer();
    const first = await stream(server, 'assistant', { input: 'streamed hello' });
    const contextId = first.response.headers.get('context-id') ?? '';
    expect(contextId).not.toBe('');
    const recalled = await invoke(server, 'assistant', { input: 'what did I say?', contextId });
    expect(recalled.result).toBe('streamed hello');
    const named = await stream(server, 'assistant', { input: 'x', contextId: 'named' });
    expect(named.response.headers.get('context-id')).toBe('named');
  });

  it('describes text, data and file parts, on invoke and on stream', async () => {
    const server = createServer();
    const input = [
      { kind: 'text', text: 'describe the parts' },
      { kind: 'data', data: { a: 1 } },
      { kind: 'file', mediaType: 'image/png', name: 'dot.png', bytes: 'iVBORw==' },
      { kind: 'file', mediaType: 'application/pdf', url: 'https://example.com/a.pdf' },
    ];
    const expected = [
      'text text/plain 18 bytes',
      'data application/json 7 bytes',
      'file image/png 4 bytes',
      'file application/pdf at https://example.com/a.pdf',
    ].join('\n');
    expect((await invoke(server, 'assistant', { input })).result).toBe(expected);
    const streamed = await stream(server, 'assistant', { input });
    expect(streamed.events.at(-1)?.data).toEqual({ output: expected });
  });
});

describe('conversations refused', () => {
  it('answers 404 for a taskId or contextId of another agent, on invoke and on stream', async () => {
    const server = createServer();
    const booking = await invoke(server, 'booking', { input: 'Hi', contextId: 'theirs' });
    for (const action of ['invoke', 'stream']) {
      const byTask = await post(server, `/assistant/${action}`, {
        input: 'hello',
        taskId: booking.taskId,
      });
      expect(await errorOf(byTask)).toEqual([
        404,
        'task_not_found',
        `Task '${booking.taskId}' not found`,
      ]);
      const byContext = await post(server, `/assistant/${action}`, {
        input: 'hello',
        contextId: 'theirs',
      });
      expect((await errorOf(byContext)).slice(0, 2)).toEqual([404, 'context_not_found']);
      const unknown = await post(server, `/booking/${action}`, { input: '2', taskId: 'nope' });
      expect((await errorOf(unknown)).slice(0, 2)).toEqual([404, 'task_not_found']);
      const elsewhere = await post(server, `/booking/${action}`, {
        input: '2',
        taskId: booking.taskId,
        contextId: 'another',
      });
      expect((await errorOf(elsewhere)).slice(0, 2)).toEqual([404, 'task_not_found']);
    }
  });

  it('answers 409 task_not_waiting for a message to a finished task, on invoke and on stream', async () => {
    const server = createServer();
    const { taskId } = await invoke(server, 'booking', { input: 'Hi' });
    await invoke(server, 'booking', { input: '2', taskId });
    await invoke(server, 'booking', { input: '10:00', taskId });
    for (const action of ['invoke', 'stream']) {
      const response = await post(server, `/booking/${action}`, { input: 'again', taskId });
      expect((await errorOf(response)).slice(0, 2)).toEqual([409, 'task_not_waiting']);
    }
  });

  it.each([
    ['a part without a kind', [{ text: 'x' }], 'input.0.kind'],
    ['an unknown kind', [{ kind: 'video' }], 'input.0.kind'],
    ['a file with neither url nor bytes', [{ kind: 'file', mediaType: 'text/plain' }], 'input.0'],
    [
      'bytes that are not base64',
      [{ kind: 'file', mediaType: 'a/b', bytes: '%%' }],
      'input.0.bytes',
    ],
    ['an empty list of parts', [], 'input'],
  ])('answers 400 invalid_input naming the field for %s', async (_, input, field) => {
    const server = createServer();
    for (const action of ['invoke', 'stream']) {
      const response = await post(server, `/assistant/${action}`, { input });
      const [status, code, message] = await errorOf(response);
      expect([status, code]).toEqual([400, 'invalid_input']);
      expect(message.startsWith(`${field}: `)).toBe(true);
    }
  });

  it('answers 400 invalid_input for a contextId or taskId that is not a non-empty string', async () => {
    const server = createServer();
    const answers = await Promise.all([
      post(server, '/assistant/invoke', { input: 'x', contextId: 42 }),
      post(server, '/assistant/stream', { input: 'x', taskId: '' }),
    ]);
    expect(await Promise.all(answers.map(errorOf))).toEqual([
      [400, 'invalid_input', 'contextId: must be a string'],
      [400, 'invalid_input', 'taskId: must not be empty'],
    ]);
  });

  it('answers 413 for a file part over the body limit', async () => {
    const server = createRestServer({ maxBodyBytes: 1024 }).register(
      'assistant',
      createAssistantAgent(),
    );
    const bytes = 'A'.repeat(2048);
    const response = await post(server, '/assistant/invoke', {
      input: [{ kind: 'file', mediaType: 'application/octet-stream', bytes }],
    });
    expect(response.status).toBe(413);
  });
});

describe('artifacts and cancellation', () => {
  it("sends an agent's artifact chunks as artifact-update events and keeps them on the task", async () => {
    const store = createMemoryTaskStore();
    const agent = defineAgent({
      name: 'writer',
      async *run() {
        yield {
          type: 'artifact-update',
          artifactId: 'a1',
          name: 'notes',
          parts: [{ kind: 'text', text: 'draft' }],
        };
        yield { type: 'text-delta', delta: 'written' };
      },
    });
    const server = createRestServer({ store }).register('writer', agent);
    const { response, events } = await stream(server, 'writer', { input: 'go' });
    expect(events).toEqual([
      {
        event: 'artifact-update',
        data: {
          artifactId: 'a1',
          name: 'notes',
          parts: [{ kind: 'text', text: 'draft' }],
          append: false,
          lastChunk: false,
        },
      },
      { event: 'text-delta', data: { delta: 'written' } },
      { event: 'done', data: { output: 'written' } },
    ]);
    const id = (response.headers.get('content-location') ?? '').split('/').at(-2) ?? '';
    expect((await store.get(id))?.artifacts).toEqual([
      { artifactId: 'a1', name: 'notes', parts: [{ kind: 'text', text: 'draft' }] },
    ]);
  });

  it('aborts the agent and cancels the task when the caller of a resumed invoke goes away', async () => {
    const store = createMemoryTaskStore();
    const aborted = vi.fn();
    const agent = defineAgent({
      name: 'slow',
      async *run(_input, context) {
        if (context.resumeState === undefined) return inputRequired('Sure?', { state: 1 });
        await new Promise<void>((resolve) => {
          context.signal.addEventListener('abort', () => {
            aborted();
            resolve();
          });
        });
        yield { type: 'text-delta', delta: 'late' };
      },
    });
    const server = createRestServer({ store }).register('slow', agent);
    const { taskId } = await invoke(server, 'slow', { input: 'go' });
    const controller = new AbortController();
    const answer = post(server, '/slow/invoke', { input: 'yes', taskId }, controller.signal);
    await vi.waitFor(async () => expect((await store.get(taskId ?? ''))?.status).toBe('working'));
    controller.abort();
    await Promise.resolve(answer).catch(() => undefined);
    await vi.waitFor(() => expect(aborted).toHaveBeenCalled());
    expect((await store.get(taskId ?? ''))?.status).toBe('canceled');
  });

  it('hands a stream run in a contextId the history, the contextId and the taskId', async () => {
    let seen: AgentRunOptions | undefined;
    const agent = defineAgent({
      name: 'seer',
      async *run(input, context) {
        seen = { contextId: context.contextId, taskId: context.taskId, history: context.history };
        yield { type: 'text-delta', delta: input };
      },
    });
    const server = createRestServer().register('seer', agent);
    await invoke(server, 'seer', { input: 'first', contextId: 'ctx' });
    const { response } = await stream(server, 'seer', { input: 'second', contextId: 'ctx' });
    const id = (response.headers.get('content-location') ?? '').split('/').at(-2);
    expect(seen?.contextId).toBe('ctx');
    expect(seen?.taskId).toBe(id);
    expect(seen?.history?.map((message) => message.role)).toEqual(['user', 'agent']);
  });
});
