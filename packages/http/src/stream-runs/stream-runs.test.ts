import {
  type AgentInput,
  type AgentRunOptions,
  type ConversationStore,
  createMemoryConversationStore,
  createMemoryTaskStore,
  defineAgent,
  inputRequired,
  type Message,
  type TaskStore,
  textOf,
  userMessage,
} from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { errorResponse } from '../error-response.ts';
import { openSSE } from '../sse/stream-sse.ts';
import { eventsOf, readSSE } from '../testing/sse.ts';
import { rejoinStream } from './rejoin-stream.ts';
import type { StreamedAgent } from './stream-run-host.ts';
import { StreamRuns } from './stream-runs.ts';

interface Served {
  app: Hono;
  runs: StreamRuns;
  store: TaskStore;
  conversations: ConversationStore;
}

/** An app streaming runs of `agent`: `POST /stream` `{input, contextId?}`, `GET /tasks/:id/stream`. */
function serveRuns(
  agent: StreamedAgent,
  conversations?: ConversationStore,
  keepTextAsInput?: boolean,
): Served {
  const store = createMemoryTaskStore();
  const kept = conversations ?? createMemoryConversationStore();
  const runs = new StreamRuns(store, 1000, new AbortController().signal, undefined, {
    conversations: kept,
    ...(keepTextAsInput === undefined ? {} : { keepTextAsInput }),
  });
  const app = new Hono();
  app.post('/stream', async (context) => {
    const { input, contextId } = (await context.req.json()) as {
      input: AgentInput;
      contextId?: string;
    };
    try {
      const run = await runs.start(agent, input, contextId === undefined ? {} : { contextId });
      return openSSE(context, (writer) => run.open(writer, input), {
        headers: { 'x-task-id': run.id },
        onClose: () => run.left(),
      });
    } catch (error) {
      return errorResponse(error);
    }
  });
  app.get('/tasks/:id/stream', (context) =>
    rejoinStream(context, runs, () => true, context.req.param('id'), {}).catch(errorResponse),
  );
  return { app, runs, store, conversations: kept };
}

async function post(app: Hono, body: unknown) {
  const response = await app.request('/stream', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return { response, events: eventsOf(await readSSE(response)) };
}

describe('StreamRuns with conversations', () => {
  it('hands a run in a context its earlier messages and records each turn before the task completes', async () => {
    const { app, store, conversations } = serveRuns(createAssistantAgent());
    const first = await post(app, { input: 'hello there', contextId: 'c1' });
    expect(first.events.at(-1)?.event).toBe('done');
    const second = await post(app, { input: 'what did I say?', contextId: 'c1' });
    expect(second.events.at(-1)).toEqual({ event: 'done', data: { output: 'hello there' } });
    const conversation = await conversations.get('c1');
    expect(conversation?.messages.map((message) => [message.role, textOf(message.parts)])).toEqual([
      ['user', 'hello there'],
      ['agent', expect.any(String)],
      ['user', 'what did I say?'],
      ['agent', 'hello there'],
    ]);
    const task = await store.get(second.response.headers.get('x-task-id') ?? '');
    expect(task?.contextId).toBe('c1');
    expect(task?.messages.map((message) => textOf(message.parts))).toEqual(['what did I say?']);
  });

  it('records the turn in the conversation before the update that completes the task', async () => {
    const seen: (number | undefined)[] = [];
    const conversations = createMemoryConversationStore();
    const { app, store } = serveRuns(createAssistantAgent(), conversations);
    store.subscribe((task) => {
      if (task.status !== 'completed') return;
      void conversations.get(task.contextId).then((conversation) => {
        seen.push(conversation?.messages.length);
      });
    });
    await post(app, { input: 'hello', contextId: 'c2' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual([2]);
  });

  it('gives a run without a context one named by its task, recorded there', async () => {
    const { app, conversations } = serveRuns(createAssistantAgent());
    const { response } = await post(app, { input: 'remember me' });
    const id = response.headers.get('x-task-id') ?? '';
    const conversation = await conversations.get(id);
    expect(conversation?.messages.map((message) => textOf(message.parts))[0]).toBe('remember me');
  });

  it('ends the stream of a run that pauses with input-required, the task waiting in its conversation', async () => {
    const { app, store, conversations } = serveRuns(createBookingAgent());
    const { response, events } = await post(app, { input: 'a table please', contextId: 'b1' });
    const id = response.headers.get('x-task-id') ?? '';
    expect(events.at(-1)).toEqual({
      event: 'input-required',
      data: {
        question: 'For how many people?',
        parts: [{ kind: 'text', text: 'For how many people?' }],
        taskId: id,
        contextId: 'b1',
      },
    });
    const task = await store.get(id);
    expect(task?.status).toBe('input-required');
    expect(textOf(task?.statusMessage?.parts ?? [])).toBe('For how many people?');
    expect(task?.messages.map((message) => message.role)).toEqual(['user', 'agent']);
    expect(task?.inputRequest?.state).toEqual({ step: 'people' });
    expect(task?.inputRequest?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 20 });
    const conversation = await conversations.get('b1');
    expect(conversation?.waitingTaskId).toBe(id);
    expect(conversation?.messages.map((message) => textOf(message.parts))).toEqual([
      'a table please',
      'For how many people?',
    ]);
  });

  it("holds the caller's text as a message of the task, by default", async () => {
    const { runs, store } = serveRuns(createBookingAgent());
    const run = await runs.start(createBookingAgent(), 'hello');
    expect((await store.get(run.id))?.messages.map((message) => textOf(message.parts))).toEqual([
      'hello',
    ]);
  });

  it('with keepTextAsInput, holds a plain text in a new conversation as the input only, until a pause puts it before the question', async () => {
    const { app, store, runs, conversations } = serveRuns(createBookingAgent(), undefined, true);
    const idle = await runs.start(createBookingAgent(), 'not yet opened');
    expect((await store.get(idle.id))?.messages).toEqual([]);
    expect((await store.get(idle.id))?.seq).toBe(2);
    const named = await runs.start(createBookingAgent(), 'named', { contextId: 'k1' });
    expect((await store.get(named.id))?.messages).toHaveLength(1);
    const { response } = await post(app, { input: 'a table' });
    const task = await store.get(response.headers.get('x-task-id') ?? '');
    expect(task?.messages.map((message) => [message.role, textOf(message.parts)])).toEqual([
      ['user', 'a table'],
      ['agent', 'For how many people?'],
    ]);
    const turn = await conversations.get(task?.contextId ?? '');
    // The turn recorded is the task's history: the same messages (the store names text ones itself).
    expect(turn?.messages.map(({ role, parts }) => ({ role, parts }))).toEqual(
      task?.messages.map(({ role, parts }) => ({ role, parts })),
    );
  });

  it('never sends the state a pause keeps, and a rejoin of the paused run ends with the same input-required', async () => {
    const agent = defineAgent({
      name: 'asker',
      async *run() {
        yield { type: 'text-delta', delta: 'hm' };
        return inputRequired('Which one?', { state: { secret: 'kept' } });
      },
    });
    const { app } = serveRuns(agent);
    const { response, events } = await post(app, { input: 'go' });
    expect(JSON.stringify(events)).not.toContain('secret');
    const rejoined = await app.request(`/tasks/${response.headers.get('x-task-id')}/stream`, {
      headers: { 'last-event-id': '0' },
    });
    const replay = eventsOf(await readSSE(rejoined));
    expect(replay.map((event) => event.event)).toEqual(['text-delta', 'input-required']);
    expect(replay.at(-1)).toEqual(events.at(-1));
  });

  it('refuses a context of another agent before any task, with context_not_found', async () => {
    const conversations = createMemoryConversationStore();
    await conversations.append('theirs', { agentName: 'booking', messages: [userMessage('hi')] });
    const { app, store } = serveRuns(createAssistantAgent(), conversations);
    const response = await app.request('/stream', {
      method: 'POST',
      body: JSON.stringify({ input: 'hello', contextId: 'theirs' }),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'context_not_found',
    );
    expect((await store.list()).tasks).toEqual([]);
  });

  it('writes artifact chunks to the task in order with the text and sends them as artifact-update events', async () => {
    const agent = defineAgent({
      name: 'writer',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
        yield {
          type: 'artifact-update',
          artifactId: 'doc',
          name: 'Doc',
          parts: [{ kind: 'text', text: 'one' }],
        };
        yield { type: 'text-delta', delta: 'b' };
        await new Promise((resolve) => setTimeout(resolve, 1));
        yield {
          type: 'artifact-update',
          artifactId: 'doc',
          parts: [{ kind: 'text', text: 'two' }],
          append: true,
          lastChunk: true,
        };
        return 'ab';
      },
    });
    const { app, store } = serveRuns(agent);
    const { response } = await post(app, { input: 'write' });
    const id = response.headers.get('x-task-id') ?? '';
    const parsed = await app.request(`/tasks/${id}/stream`, { headers: { 'last-event-id': '0' } });
    const replay = eventsOf(await readSSE(parsed));
    const { events } = await post(app, { input: 'write' });
    for (const stream of [events, replay]) {
      expect(stream.map((event) => event.event)).toEqual([
        'text-delta',
        'artifact-update',
        'text-delta',
        'artifact-update',
        'done',
      ]);
      expect(stream[1]?.data).toEqual({
        artifactId: 'doc',
        name: 'Doc',
        parts: [{ kind: 'text', text: 'one' }],
        append: false,
        lastChunk: false,
      });
    }
    const task = await store.get(id);
    expect(task?.artifacts).toEqual([
      {
        artifactId: 'doc',
        name: 'Doc',
        parts: [
          { kind: 'text', text: 'one' },
          { kind: 'text', text: 'two' },
        ],
      },
    ]);
  });

  it('fails a run whose artifact chunk is malformed, as the agent’s doing', async () => {
    const agent: StreamedAgent = {
      name: 'bad',
      async *stream() {
        yield { type: 'artifact-update', artifactId: '', parts: [] };
      },
    };
    const { app } = serveRuns(agent);
    const { events } = await post(app, { input: 'x' });
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { code: 'agent_failure' } });
  });

  it('hands the agent the context id, the task id and the message with its parts', async () => {
    let seen: AgentRunOptions | undefined;
    let given: AgentInput | undefined;
    const agent: StreamedAgent = {
      name: 'seer',
      async *stream(input, options) {
        given = input;
        seen = options;
        yield { type: 'done', output: 'ok' };
      },
    };
    const { app } = serveRuns(agent);
    const message: Message = {
      messageId: 'm1',
      role: 'user',
      parts: [{ kind: 'data', data: { a: 1 } }],
    };
    const { response } = await post(app, { input: message, contextId: 'k' });
    expect(given).toEqual(message);
    expect(seen?.contextId).toBe('k');
    expect(seen?.taskId).toBe(response.headers.get('x-task-id'));
    expect(seen?.history).toBeUndefined();
  });
});

describe('StreamRuns without conversations (as compat calls it)', () => {
  it('keeps no message in the task, so the stream ids start at 3 as before', async () => {
    const store = createMemoryTaskStore();
    const runs = new StreamRuns(store, 1000, new AbortController().signal);
    const run = await runs.start(createAssistantAgent(), 'hello');
    const task = await store.get(run.id);
    expect(task?.messages).toEqual([]);
    expect(task?.seq).toBe(2);
    expect(run.contextId).toBe(run.id);
  });

  it('puts the text before the question when the agent pauses', async () => {
    const store = createMemoryTaskStore();
    const runs = new StreamRuns(store, 1000, new AbortController().signal);
    const app = new Hono();
    app.post('/stream', async (context) => {
      const run = await runs.start(createBookingAgent(), 'a table');
      return openSSE(context, (writer) => run.open(writer, 'a table'), {
        headers: { 'x-task-id': run.id },
        onClose: () => run.left(),
      });
    });
    const { response, events } = await post(app, {});
    expect(events.at(-1)?.event).toBe('input-required');
    const task = await store.get(response.headers.get('x-task-id') ?? '');
    expect(task?.messages.map((message) => [message.role, textOf(message.parts)])).toEqual([
      ['user', 'a table'],
      ['agent', 'For how many people?'],
    ]);
  });
});
