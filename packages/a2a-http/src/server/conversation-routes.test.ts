import {
  createMemoryConversationStore,
  createMemoryTaskStore,
  defineAgent,
  inputRequired,
  sleep,
} from '@agentport/core';
import { createAssistantAgent, createBookingAgent, createEchoAgent } from '@agentport/core/agents';
import { readSSEEvents } from '@agentport/http/testing';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../testing/serve.ts';
import type { A2ATask } from '../wire/wire-task.ts';
import { type A2AHttpServer, createA2AHttpServer } from './create-a2a-http-server.ts';

const servers: A2AHttpServer[] = [];

/** Asks "Which color?" after a pause long enough for an events stream to open before it. */
const slowQuestion = defineAgent({
  name: 'painter',
  async *run() {
    yield { type: 'text-delta', delta: 'Let me see. ' };
    await sleep(50);
    return inputRequired('Which color?', {
      schema: { type: 'string' },
      state: { secret: 's3cret' },
    });
  },
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function start(options: Parameters<typeof createA2AHttpServer>[0]): A2AHttpServer {
  const server = createA2AHttpServer(options);
  servers.push(server);
  return server;
}

interface Answer {
  status: number;
  text: string;
  location: string | null;
  task: A2ATask;
  error: { code: string; message: string };
}

async function post(server: A2AHttpServer, path: string, body: unknown): Promise<Answer> {
  const response = await postJson(server.app, path, body);
  const text = await response.text();
  const json = JSON.parse(text);
  return {
    status: response.status,
    text,
    location: response.headers.get('location'),
    task: json.task,
    error: json.error,
  };
}

async function get(server: A2AHttpServer, path: string): Promise<{ status: number; text: string }> {
  const response = await server.app.request(path);
  return { status: response.status, text: await response.text() };
}

const question = (task: A2ATask) => task.statusMessage?.parts[0];

describe('a booking conversation over the hand-rolled routes', () => {
  it('asks twice (201 then 200 input-required) and completes, each turn with ?wait', async () => {
    const server = start({ agent: createBookingAgent() });
    const first = await post(server, '/tasks?wait=5', { input: 'A table, please' });
    expect(first.status).toBe(201);
    expect(first.location).toBe(`/tasks/${first.task.id}`);
    expect(first.task.status).toBe('input-required');
    expect(question(first.task)).toEqual({ kind: 'text', text: 'For how many people?' });
    expect(first.task.contextId).toEqual(expect.any(String));

    const second = await post(server, `/tasks/${first.task.id}/messages?wait=5`, { input: '4' });
    expect(second.status).toBe(200);
    expect(second.task).toMatchObject({ id: first.task.id, status: 'input-required' });
    expect(question(second.task)).toEqual({ kind: 'text', text: 'What time? (HH:MM)' });

    const third = await post(server, `/tasks/${first.task.id}/messages?wait=5`, { input: '19:30' });
    expect(third.status).toBe(200);
    expect(third.task).toMatchObject({
      id: first.task.id,
      contextId: first.task.contextId,
      status: 'completed',
      output: 'Booked a table for 4 at 19:30.',
    });
    const turns = third.task.messages.map((message) => [message.role, message.parts]);
    expect(turns.slice(0, 5)).toEqual([
      ['user', [{ kind: 'text', text: 'A table, please' }]],
      ['agent', [{ kind: 'text', text: 'For how many people?' }]],
      ['user', [{ kind: 'text', text: '4' }]],
      ['agent', [{ kind: 'text', text: 'What time? (HH:MM)' }]],
      ['user', [{ kind: 'text', text: '19:30' }]],
    ]);
  });

  it('runs the conversation under a mount prefix (/agents/{name}/tasks/{id}/messages)', async () => {
    const server = start({ agent: createBookingAgent() });
    const gateway = new Hono();
    gateway.route('/agents/booking', server.app);
    const send = async (path: string, input: string) => {
      const response = await postJson(gateway, `/agents/booking${path}?wait=5`, { input });
      return { status: response.status, task: ((await response.json()) as { task: A2ATask }).task };
    };
    const first = await send('/tasks', 'hi');
    expect(first.status).toBe(201);
    expect((await send(`/tasks/${first.task.id}/messages`, '12')).task.status).toBe(
      'input-required',
    );
    const done = await send(`/tasks/${first.task.id}/messages`, '21:00');
    expect(done).toMatchObject({
      status: 200,
      task: { output: 'Booked a table for 12 at 21:00.' },
    });
  });

  it('continues the waiting task when a create names its contextId, answering 200', async () => {
    const server = start({ agent: createBookingAgent() });
    const first = await post(server, '/tasks?wait=5', { input: 'hi', contextId: 'dinner' });
    expect(first.status).toBe(201);
    expect(first.task.contextId).toBe('dinner');
    const second = await post(server, '/tasks?wait=5', { input: '2', contextId: 'dinner' });
    expect(second.status).toBe(200);
    expect(second.task).toMatchObject({ id: first.task.id, status: 'input-required' });
    const third = await post(server, '/tasks?wait=5', { input: '08:15', contextId: 'dinner' });
    expect(third.status).toBe(200);
    expect(third.task).toMatchObject({
      id: first.task.id,
      output: 'Booked a table for 2 at 08:15.',
    });
    // The conversation has no waiting task any more: the next create is a new task again.
    const fourth = await post(server, '/tasks?wait=5', { input: 'again', contextId: 'dinner' });
    expect(fourth.status).toBe(201);
    expect(fourth.task.id).not.toBe(first.task.id);
  });

  it('answers a message without wait with the task working, which a long-poll then sees paused', async () => {
    const server = start({ agent: createBookingAgent() });
    const created = await post(server, '/tasks', { input: 'hi' });
    expect(created.status).toBe(201);
    const paused = await get(server, `/tasks/${created.task.id}?wait=5`);
    expect(JSON.parse(paused.text).task.status).toBe('input-required');
    const sent = await post(server, `/tasks/${created.task.id}/messages`, { input: '3' });
    expect(sent.status).toBe(200);
    expect(sent.task.status).toBe('working');
    const asked = JSON.parse((await get(server, `/tasks/${created.task.id}?wait=5`)).text).task;
    expect(asked.status).toBe('input-required');
    expect(question(asked)).toEqual({ kind: 'text', text: 'What time? (HH:MM)' });
  });

  it("never puts the agent's pause state on the wire, and shows the answer's schema as inputSchema", async () => {
    const server = start({ agent: createBookingAgent() });
    const created = await post(server, '/tasks?wait=5', { input: 'hi' });
    const id = created.task.id;
    expect((await server.runner.get(id)).inputRequest?.state).toEqual({ step: 'people' });
    const schema = { type: 'integer', minimum: 1, maximum: 20 };
    expect(created.task.inputSchema).toEqual(schema);
    const answers = [
      created.text,
      (await get(server, `/tasks/${id}`)).text,
      (await get(server, '/tasks')).text,
      (await post(server, `/tasks/${id}/cancel`, {})).text,
    ];
    for (const text of answers) {
      expect(text).not.toContain('inputRequest');
      expect(text).not.toContain('"step"');
    }
    expect(JSON.parse(answers[1] as string).task.inputSchema).toEqual(schema);
    expect(JSON.parse(answers[2] as string).tasks[0].inputSchema).toEqual(schema);
    // Canceled, it waits for nothing: no schema any more.
    expect(JSON.parse(answers[3] as string).task.inputSchema).toBeUndefined();
  });
});

describe('POST /tasks/{id}/messages refusals', () => {
  it('answers 409 task_not_waiting for a message to a completed task', async () => {
    const server = start({ agent: createEchoAgent() });
    const created = await post(server, '/tasks?wait=5', { input: 'hi' });
    expect(created.task.status).toBe('completed');
    const sent = await post(server, `/tasks/${created.task.id}/messages`, { input: 'more' });
    expect(sent.status).toBe(409);
    expect(sent.error.code).toBe('task_not_waiting');
  });

  it('answers 404 task_not_found for an unknown task and for a task of another agent', async () => {
    const store = createMemoryTaskStore();
    const booking = start({ agent: createBookingAgent(), store });
    const echo = start({ agent: createEchoAgent(), store });
    const theirs = await post(booking, '/tasks?wait=5', { input: 'hi' });
    expect(theirs.task.status).toBe('input-required');
    for (const id of ['nope', theirs.task.id]) {
      const sent = await post(echo, `/tasks/${id}/messages`, { input: '4' });
      expect(sent.status).toBe(404);
      expect(sent.error.code).toBe('task_not_found');
    }
    expect((await booking.runner.get(theirs.task.id)).status).toBe('input-required');
  });

  it('answers 404 context_not_found for a contextId of another agent', async () => {
    const store = createMemoryTaskStore();
    const conversations = createMemoryConversationStore();
    const booking = start({ agent: createBookingAgent(), store, conversations });
    const echo = start({ agent: createEchoAgent(), store, conversations });
    await post(booking, '/tasks?wait=5', { input: 'hi', contextId: 'theirs' });
    const created = await post(echo, '/tasks?wait=5', { input: 'hi', contextId: 'theirs' });
    expect(created.status).toBe(404);
    expect(created.error.code).toBe('context_not_found');
  });

  it('answers 503 shutting_down for a message once the server is closed', async () => {
    const server = start({ agent: createBookingAgent() });
    const created = await post(server, '/tasks?wait=5', { input: 'hi' });
    await server.close();
    const sent = await post(server, `/tasks/${created.task.id}/messages`, { input: '4' });
    expect(sent.status).toBe(503);
    expect(sent.error.code).toBe('shutting_down');
  });

  it('answers 405 with Allow for another method', async () => {
    const server = start({ agent: createEchoAgent() });
    const response = await server.app.request('/tasks/x/messages');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('cancel and events of a paused task', () => {
  it('cancels an input-required task, after which a message is refused with 409', async () => {
    const server = start({ agent: createBookingAgent() });
    const created = await post(server, '/tasks?wait=5', { input: 'hi' });
    const canceled = await post(server, `/tasks/${created.task.id}/cancel`, {});
    expect(canceled.status).toBe(200);
    expect(canceled.task.status).toBe('canceled');
    const sent = await post(server, `/tasks/${created.task.id}/messages`, { input: '4' });
    expect(sent.status).toBe(409);
    expect(sent.error.code).toBe('task_not_waiting');
  });

  it('ends the events stream at the pause, live, with the input-required status update', async () => {
    const server = start({ agent: slowQuestion });
    const created = await post(server, '/tasks', { input: 'hi' });
    const response = await server.app.request(`/tasks/${created.task.id}/events`);
    const events = await readSSEEvents(response);
    expect(events[0]?.event).toBe('task');
    expect(JSON.parse(events[0]?.data ?? '{}').task.status).not.toBe('input-required');
    const last = events.at(-1);
    expect(last?.event).toBe('status-update');
    const update = JSON.parse(last?.data ?? '{}');
    expect(update).toMatchObject({
      status: 'input-required',
      message: { role: 'agent', parts: [{ kind: 'text', text: 'Which color?' }] },
      inputSchema: { type: 'string' },
    });
    expect(update.inputRequest).toBeUndefined();
    expect(events.map((event) => event.data).join('\n')).not.toContain('s3cret');
  });

  it('replays a paused task to its pause and ends (Last-Event-ID 0), or sends its snapshot alone', async () => {
    const server = start({ agent: createBookingAgent() });
    const created = await post(server, '/tasks?wait=5', { input: 'hi' });
    const path = `/tasks/${created.task.id}/events`;
    const replay = await readSSEEvents(await server.app.request(`${path}?lastEventId=0`));
    expect(replay.at(-1)?.event).toBe('status-update');
    expect(JSON.parse(replay.at(-1)?.data ?? '{}')).toMatchObject({
      status: 'input-required',
      inputSchema: { type: 'integer' },
    });
    expect(replay.map((event) => event.data).join('\n')).not.toContain('"step"');
    const again = await readSSEEvents(await server.app.request(path));
    expect(again.map((event) => event.event)).toEqual(['task']);
    expect(JSON.parse(again[0]?.data ?? '{}').task).toMatchObject({
      status: 'input-required',
      inputSchema: { type: 'integer' },
    });
  });
});

/** Asks a question, then takes its time over the answer (until its run is aborted). */
const slowAnswer = defineAgent({
  name: 'slow',
  async *run(input, context) {
    if (context.resumeState === undefined) return inputRequired('Ready?', { state: 'asked' });
    yield { type: 'text-delta', delta: 'thinking' };
    await sleep(60_000, context.signal);
    return input;
  },
});

describe('a caller leaving the wait of an answer', () => {
  async function leaveWhileWorking(server: A2AHttpServer, path: string, body: unknown, id: string) {
    const controller = new AbortController();
    const answer = Promise.resolve(
      server.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
      }),
    ).catch(() => undefined);
    while ((await server.runner.get(id)).output !== 'thinking') await sleep(5);
    controller.abort();
    await answer;
    await sleep(20);
    return server.runner.get(id);
  }

  it('leaves the task running after a message, whose caller knows its id', async () => {
    const server = start({ agent: slowAnswer });
    const { task } = await post(server, '/tasks?wait=5', { input: 'hi' });
    const path = `/tasks/${task.id}/messages?wait=20`;
    const after = await leaveWhileWorking(server, path, { input: 'yes' }, task.id);
    expect(after.status).toBe('working');
    expect((await server.runner.cancel(task.id)).status).toBe('canceled');
  });

  it('cancels a task a create-and-wait continued by its contextId, as any create-and-wait', async () => {
    const server = start({ agent: slowAnswer });
    const { task } = await post(server, '/tasks?wait=5', { input: 'hi', contextId: 'leave' });
    const body = { input: 'yes', contextId: 'leave' };
    const after = await leaveWhileWorking(server, '/tasks?wait=20', body, task.id);
    expect(after.status).toBe('canceled');
  });
});

describe('inputs with parts and contexts', () => {
  it('hands parts (text, data, file by bytes and by URL) to the agent', async () => {
    const server = start({ agent: createAssistantAgent() });
    const input = [
      { kind: 'text', text: 'describe the parts' },
      { kind: 'data', data: { a: 1 } },
      { kind: 'file', mediaType: 'image/png', name: 'a.png', bytes: 'aGVsbG8=' },
      { kind: 'file', mediaType: 'text/plain', url: 'https://example.com/a.txt' },
    ];
    const created = await post(server, '/tasks?wait=5', { input });
    expect(created.status).toBe(201);
    expect(created.task.output).toBe(
      [
        'text text/plain 18 bytes',
        'data application/json 7 bytes',
        'file image/png 5 bytes',
        'file text/plain at https://example.com/a.txt',
      ].join('\n'),
    );
    expect(created.task.messages[0]).toMatchObject({ role: 'user', parts: input });
  });

  it('lets the assistant recall what was said within a contextId, and not across two', async () => {
    const server = start({ agent: createAssistantAgent() });
    await post(server, '/tasks?wait=5', { input: 'hello there', contextId: 'one' });
    await post(server, '/tasks?wait=5', { input: '2 + 2', contextId: 'one' });
    const recalled = await post(server, '/tasks?wait=5', {
      input: 'what did I say?',
      contextId: 'one',
    });
    expect(recalled.status).toBe(201);
    expect(recalled.task.output).toBe('hello there\n2 + 2');
    const other = await post(server, '/tasks?wait=5', {
      input: 'what did I say?',
      contextId: 'two',
    });
    expect(other.task.output).toBe('You have not said anything yet.');
    const fresh = await post(server, '/tasks?wait=5', { input: 'what did I say?' });
    expect(fresh.task.output).toBe('You have not said anything yet.');
    expect(fresh.task.contextId).not.toBe('one');
  });
});

describe('malformed input', () => {
  const bad: Array<[string, unknown, string]> = [
    ['a part without a kind', [{ text: 'hi' }], 'input.0.kind'],
    ['a file with neither url nor bytes', [{ kind: 'file', mediaType: 'image/png' }], 'input.0'],
    [
      'bytes that are not base64',
      [
        { kind: 'text', text: 'x' },
        { kind: 'file', mediaType: 'image/png', bytes: 'no base64!' },
      ],
      'input.1.bytes',
    ],
    ['an unknown kind', [{ kind: 'video', url: 'https://example.com/v' }], 'input.0.kind'],
  ];

  it.each(bad)(
    'answers 400 naming the field for %s, on create and on messages',
    async (_, input, field) => {
      const server = start({ agent: createBookingAgent() });
      const paused = await post(server, '/tasks?wait=5', { input: 'hi' });
      for (const path of ['/tasks', `/tasks/${paused.task.id}/messages`]) {
        const answer = await post(server, path, { input });
        expect(answer.status).toBe(400);
        expect(answer.error.code).toBe('invalid_input');
        expect(answer.error.message.startsWith(`${field}: `)).toBe(true);
      }
      expect((await server.runner.get(paused.task.id)).status).toBe('input-required');
    },
  );

  it('answers 413 for a file part over the body limit, on create and on messages', async () => {
    const server = start({ agent: createBookingAgent(), maxBodyBytes: 1024 });
    const paused = await post(server, '/tasks?wait=5', { input: 'hi' });
    const input = [{ kind: 'file', mediaType: 'image/png', bytes: 'A'.repeat(2048) }];
    for (const path of ['/tasks', `/tasks/${paused.task.id}/messages`]) {
      const answer = await post(server, path, { input });
      expect(answer.status).toBe(413);
      expect(answer.error.code).toBe('payload_too_large');
    }
  });
});
